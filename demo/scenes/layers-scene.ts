import type { InstanceInit, LayerStackInit, MaskId } from '../../src/index';
import type { StateKey } from '../controls';
import type { LayerDefaults } from '../models';
import { Random } from '../random';
import type { SceneModel } from '../scene-model';
import type { SceneState } from '../scene-state';
import type { SceneActivity } from './activity';
import { jointNames, layerDefaults } from './layer-defaults';
import { RingTrack } from './ring-track';

/** Walkers per lane of the innermost lane. */
const INNER_LANE_WALKERS = 16;

/**
 * The layered-blending scene: characters walk around a circular track (base clip: a walk),
 * an override layer blends another clip over the joints below a chosen joint (the upper body:
 * looking around, waving), and an additive layer adds a clip's motion relative to its first
 * frame on top (a head bob or nod). Every walker has its own phases. The panel's weights go
 * through crowd.setLayerWeight (allocation-free); a new clip or joint rebuilds the stacks.
 */
export class LayersActivity implements SceneActivity {
  readonly kind = 'layers';
  readonly cellSize: readonly [number, number];
  readonly height: number;
  private readonly track: RingTrack;
  private readonly groundOffset: number;
  /** Model units per second of the base walk at speed 1. */
  private readonly walkSpeed: number;
  private readonly defaults: LayerDefaults;
  private readonly random = new Random(0x1a7e5);
  private ids = new Int32Array(0);
  private lane = new Int32Array(0);
  private slot = new Int32Array(0);
  private overlayPhase = new Float32Array(0);
  private additivePhase = new Float32Array(0);
  private laneCount = new Int32Array(0);
  private countValue = 0;
  /** Seconds of animation since the scene started. */
  private elapsed = 0;
  private stacksChanged = false;
  private weightsChanged = false;
  private base = 0;
  private overlay = 0;
  private additive = 0;
  private overlayMask: MaskId = 0;
  private additiveMask: MaskId = 0;
  private readonly add: InstanceInit = {};
  private readonly stack = {
    layers: [{ clip: 0, time: 0, speed: 1, weight: 0, mask: 0 }],
    additive: [{ clip: 0, time: 0, speed: 1, weight: 0, mask: 0, reference: { clip: 0, time: 0, speed: 0 } }],
  } satisfies LayerStackInit;

  constructor(private readonly scene: SceneModel, private readonly state: SceneState, notify: (message: string) => void) {
    const { character } = scene;
    const { min, max } = character.bounds;
    this.height = Math.max(max[1] - min[1], 1e-6);
    const width = max[0] - min[0];
    const length = max[2] - min[2];
    this.groundOffset = -min[1];
    // Room along the lane for a body and a gap; lanes a shoulder's width and more apart.
    const spacing = Math.max(length, width, this.height * 0.5) * 1.6;
    const laneGap = Math.max(width * 1.6, this.height * 0.6);
    this.track = new RingTrack((INNER_LANE_WALKERS * spacing) / (2 * Math.PI), laneGap, spacing);
    this.cellSize = [laneGap, laneGap];
    this.defaults = layerDefaults(scene.source.model, character);
    const loco = scene.controllerConfig.locomotion;
    const baseIndex = character.clipIndex(this.defaults.base);
    this.walkSpeed = loco && loco.directions.forward?.walk === baseIndex ? loco.walkSpeed : this.height * 0.35;
    this.resolve(notify);
  }

  get count(): number {
    return this.countValue;
  }

  setCount(count: number): void {
    const crowd = this.scene.crowd;
    while (this.countValue > count) crowd.remove(this.ids[--this.countValue]);
    if (count > this.ids.length) this.reserve(Math.max(count, this.ids.length * 2));
    const durations = this.scene.character.clipDurations;
    const init = this.add;
    while (this.countValue < count) {
      const i = this.countValue;
      const phase = this.random.next();
      this.overlayPhase[i] = this.random.next();
      this.additivePhase[i] = this.random.next();
      init.clipA = init.clipB = this.base;
      init.timeA = init.timeB = phase * durations[this.base];
      init.speedA = init.speedB = 1;
      init.blend = 0;
      this.ids[i] = crowd.add(init);
      this.countValue++;
      this.writeStack(i);
    }
    this.track.layout(this.countValue, this.lane, this.slot, this.laneCount);
    this.update(0);
  }

  settingChanged(key: StateKey): boolean {
    if (key === 'layerClip' || key === 'layerJoint') this.stacksChanged = true;
    else if (key === 'layerWeight' || key === 'additiveWeight') this.weightsChanged = true;
    else return false;
    return true;
  }

  apply(): void {
    if (this.stacksChanged) {
      this.resolve(() => undefined);
      for (let i = 0; i < this.countValue; i++) this.writeStack(i);
    } else if (this.weightsChanged) {
      const crowd = this.scene.crowd;
      const { layerWeight, additiveWeight } = this.state;
      for (let i = 0; i < this.countValue; i++) {
        crowd.setLayerWeight(this.ids[i], 0, layerWeight);
        crowd.setLayerWeight(this.ids[i], 0, additiveWeight, 'additive');
      }
    }
    this.stacksChanged = this.weightsChanged = false;
  }

  /** Moves every walker along its lane (counter-clockwise seen from above, facing forward). */
  update(dt: number): void {
    this.elapsed += dt;
    const crowd = this.scene.crowd;
    const track = this.track;
    for (let i = 0; i < this.countValue; i++) {
      const lane = this.lane[i];
      const radius = track.radius(lane);
      // Same walking speed on every lane; lanes start staggered by half a place.
      const angle = (this.walkSpeed * this.elapsed) / radius + (2 * Math.PI * (this.slot[i] + 0.5 * (lane & 1))) / this.laneCount[lane];
      crowd.setPlacement(this.ids[i], radius * Math.cos(angle), this.groundOffset, radius * Math.sin(angle), -angle);
    }
  }

  /** The near side of the ring (walkers pass from right to left, side on), not the whole ring. */
  extent(out: Float32Array): void {
    const inner = this.track.radius(0);
    const outer = this.track.radius(Math.max(0, this.track.lanesFor(this.countValue) - 1));
    out[0] = inner * 0.6;
    out[1] = (outer - inner) / 2 + this.cellSize[0];
    out[2] = inner * 0.5;
  }

  follow(): boolean {
    return false;
  }

  describe(lines: string[], data: DOMStringMap): void {
    const names = this.scene.character.clipNames;
    const s = this.state;
    lines.push(
      `base      ${names[this.base]} (walking the ring)`,
      `override  ${s.layerClip} · mask ${s.layerJoint} · w ${s.layerWeight.toFixed(2)}`,
      `additive  ${names[this.additive]} − its frame 0 · mask ${this.defaults.additiveJoint} · w ${s.additiveWeight.toFixed(2)}`,
    );
    data.layerClip = s.layerClip;
    data.layerJoint = s.layerJoint;
    data.layerWeight = s.layerWeight.toFixed(3);
    data.additiveClip = names[this.additive];
    data.additiveJoint = this.defaults.additiveJoint;
    data.additiveWeight = s.additiveWeight.toFixed(3);
  }

  dispose(clearCrowd: boolean): void {
    if (clearCrowd) this.setCount(0);
  }

  /** Turns the state's clip and joint names into indices and masks, falling back to the defaults. */
  private resolve(notify: (message: string) => void): void {
    const { character } = this.scene;
    const s = this.state;
    const d = this.defaults;
    if (s.layerClip && !character.clipNames.includes(s.layerClip)) {
      notify(`${this.scene.label} has no clip "${s.layerClip}" (clips: ${character.clipNames.join(', ')})`);
      s.layerClip = '';
    }
    const joints = jointNames(character);
    if (s.layerJoint && !joints.includes(s.layerJoint)) {
      notify(`${this.scene.label} has no joint "${s.layerJoint}" (joints: ${joints.join(', ')})`);
      s.layerJoint = '';
    }
    s.layerClip ||= d.overlay;
    s.layerJoint ||= d.overlayJoint;
    this.base = character.clipIndex(d.base);
    this.overlay = character.clipIndex(s.layerClip);
    this.additive = character.clipIndex(d.additive);
    this.overlayMask = this.scene.mask(s.layerJoint);
    this.additiveMask = this.scene.mask(d.additiveJoint);
  }

  /** Gives walker i its layer stack, each layer at the walker's own phase now. */
  private writeStack(i: number): void {
    const durations = this.scene.character.clipDurations;
    const layer = this.stack.layers[0];
    layer.clip = this.overlay;
    layer.time = this.overlayPhase[i] * durations[this.overlay] + this.elapsed;
    layer.weight = this.state.layerWeight;
    layer.mask = this.overlayMask;
    const add = this.stack.additive[0];
    add.clip = add.reference.clip = this.additive;
    add.time = this.additivePhase[i] * durations[this.additive] + this.elapsed;
    add.weight = this.state.additiveWeight;
    add.mask = this.additiveMask;
    this.scene.crowd.setLayers(this.ids[i], this.stack);
  }

  private reserve(capacity: number): void {
    const grow = <T extends Int32Array | Float32Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.ids = grow(this.ids, (n) => new Int32Array(n));
    this.lane = grow(this.lane, (n) => new Int32Array(n));
    this.slot = grow(this.slot, (n) => new Int32Array(n));
    this.overlayPhase = grow(this.overlayPhase, (n) => new Float32Array(n));
    this.additivePhase = grow(this.additivePhase, (n) => new Float32Array(n));
    this.laneCount = new Int32Array(this.track.lanesFor(capacity) + 1);
  }
}
