import type { Character, Crowd, GLCrowd, InstanceId, InstanceInit } from '../src/index';
import { Random } from './random';
import { spiralCell } from './spiral';
import type { Mode } from './url-state';

/** What decides each instance's animation (clips as indices into the character's clips). */
export interface PopulationSettings {
  mode: Mode;
  clipA: number;
  clipB: number;
  /** Uniform mode: weight of clip B. */
  blend: number;
  /** Uniform mode: random phase per instance, else lockstep. */
  randomPhases: boolean;
  /** Crowd mode: share of instances playing one other clip of the model. */
  variety: number;
}

/** Yaw jitter of crowd-mode instances around facing +Z (towards the default camera), radians. */
const YAW_JITTER = 0.3;
/** Position jitter of crowd-mode instances, in cells. */
const POSITION_JITTER = 0.12;

/**
 * Places a Crowd's instances on a square spiral of ground cells and chooses their animation.
 * Instance k of the spiral sits in cell k, so changing the count adds or removes only the tail
 * (crowd.add / crowd.remove). Owns nothing on the GPU; holds the crowd's instance ids.
 *
 * Blends play "phase-synchronised", as locomotion blend trees do: both clips advance at the
 * rate of one cycle of duration lerp(durationA, durationB, blend), so a walk/run blend keeps
 * its feet in step instead of drifting between two cycle lengths.
 */
export class Population {
  /**
   * Ground cell size in model units along x and z: the character's footprint plus a margin
   * (wider in x when crowd-mode yaw jitter swings a long body sideways).
   */
  readonly spacing: [number, number];
  /** Model-units height of the rest pose. */
  readonly height: number;
  /** Lifts each instance so that its rest-pose feet touch y = 0. */
  private readonly groundOffset: number;
  private ids = new Int32Array(1024);
  private countValue = 0;
  private versionValue = 0;
  private readonly random = new Random();
  private readonly cell = new Int32Array(2);
  private readonly transform = new Float32Array(16);
  private readonly init: InstanceInit & { transform: Float32Array } = { transform: this.transform };
  private readonly durations: Float32Array;
  /** World x and z of the spiral's centre (a scene of several bodies sets them side by side; respawn after a change). */
  readonly origin = new Float32Array(2);

  constructor(private readonly crowd: Crowd | GLCrowd, character: Character) {
    const { min, max } = character.bounds;
    this.height = Math.max(max[1] - min[1], 1e-6);
    const width = max[0] - min[0];
    const length = max[2] - min[2];
    const least = this.height * 0.5; // room for a stride even for a thin character
    this.spacing = [
      Math.max((width + length * Math.sin(YAW_JITTER)) * 1.1, least),
      Math.max(length * 1.15, least),
    ];
    this.groundOffset = -min[1];
    this.durations = character.clipDurations;
  }

  /** Bumped whenever instances are added, removed or respawned (the appearance control re-spreads then). */
  get version(): number {
    return this.versionValue;
  }

  /** The id of instance `i`, in [0, count). */
  idAt(i: number): number {
    return this.ids[i];
  }

  get count(): number {
    return this.countValue;
  }

  /**
   * Adds or removes instances at the end of the spiral until there are `count`. Throws (with
   * the crowd's reason) when the device cannot hold them; the instances added so far stay.
   */
  setCount(count: number, settings: PopulationSettings): void {
    this.versionValue++;
    while (this.countValue > count) this.crowd.remove(this.ids[--this.countValue]);
    if (count > this.ids.length) {
      const grown = new Int32Array(Math.max(count, this.ids.length * 2));
      grown.set(this.ids.subarray(0, this.countValue));
      this.ids = grown;
    }
    // The new instances from typed arrays in one addMany (a million in about 2 s on a 2-core Xeon, docs/palette.md).
    const n = count - this.countValue;
    if (n <= 0) return;
    const bulk = {
      count: n, transforms: new Float32Array(16 * n), clipsA: new Uint32Array(n), clipsB: new Uint32Array(n),
      timesA: new Float32Array(n), timesB: new Float32Array(n), speeds: new Float32Array(n), speedsB: new Float32Array(n), blends: new Float32Array(n),
    };
    const init = this.init;
    for (let k = 0; k < n; k++) {
      this.choose(this.countValue + k, settings);
      bulk.transforms.set(init.transform, 16 * k);
      bulk.clipsA[k] = init.clipA as number;
      bulk.clipsB[k] = init.clipB as number;
      bulk.timesA[k] = init.timeA!;
      bulk.timesB[k] = init.timeB!;
      bulk.speeds[k] = init.speedA!;
      bulk.speedsB[k] = init.speedB!;
      bulk.blends[k] = init.blend!;
    }
    const ids = this.crowd.addMany(bulk);
    for (let k = 0; k < n; k++) this.ids[this.countValue + k] = ids[k];
    this.countValue = count;
  }

  /** Chooses every instance's placement and animation again (mode or crowd clips changed). */
  respawn(settings: PopulationSettings): void {
    const count = this.countValue;
    this.crowd.clear();
    this.countValue = 0;
    this.setCount(count, settings);
  }

  /**
   * Uniform mode: gives every instance the panel's clips and blend, keeping each one's phase
   * (or, without random phases, instance 0's phase for all) so that a slider moves smoothly.
   */
  applyUniform(settings: PopulationSettings, newPhases: boolean): void {
    if (this.countValue === 0) return;
    const shared = this.phaseOf(this.ids[0]);
    const state = { clipA: 0, clipB: 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0 };
    for (let i = 0; i < this.countValue; i++) {
      const phase = !settings.randomPhases ? shared : newPhases ? this.random.next() : this.phaseOf(this.ids[i]);
      this.animate(state, settings.clipA, settings.clipB, settings.blend, phase, 1);
      this.crowd.setAnimation(this.ids[i], state);
    }
  }

  /** Normalised phase in [0, 1) of an instance's clip A. */
  private phaseOf(id: InstanceId): number {
    const { clipA, timeA } = this.crowd.getAnimation(id);
    const duration = this.durations[clipA];
    return duration > 0 ? timeA / duration : 0;
  }

  /** Fills `init` (transform and animation) for spiral index `index`. */
  private choose(index: number, settings: PopulationSettings): void {
    const r = this.random;
    spiralCell(index, this.cell);
    let x = this.cell[0];
    let z = this.cell[1];
    let yaw = 0;
    let scale = 1;
    if (settings.mode === 'crowd') {
      x += r.range(-POSITION_JITTER, POSITION_JITTER);
      z += r.range(-POSITION_JITTER, POSITION_JITTER);
      yaw = r.range(-YAW_JITTER, YAW_JITTER);
      scale = r.range(0.92, 1.08);
      let clipA = settings.clipA;
      let clipB = settings.clipB;
      let blend = r.next();
      if (r.next() < settings.variety) {
        clipA = clipB = r.index(this.durations.length);
        blend = 0;
      }
      this.animate(this.init, clipA, clipB, blend, r.next(), r.range(0.85, 1.15));
    } else {
      this.animate(this.init, settings.clipA, settings.clipB, settings.blend, settings.randomPhases ? r.next() : 0, 1);
    }
    this.setTransform(x * this.spacing[0], z * this.spacing[1], yaw, scale);
  }

  /** Phase-synchronised blend of clips a and b at normalised `phase`, `rate` x real time. */
  private animate(out: InstanceInit, a: number, b: number, blend: number, phase: number, rate: number): void {
    const durationA = this.durations[a];
    const durationB = this.durations[b];
    const cycle = durationA + (durationB - durationA) * blend;
    out.clipA = a;
    out.clipB = b;
    out.blend = blend;
    out.timeA = phase * durationA;
    out.timeB = phase * durationB;
    out.speedA = cycle > 0 ? (rate * durationA) / cycle : rate;
    out.speedB = cycle > 0 ? (rate * durationB) / cycle : rate;
  }

  /** Column-major: scale, then yaw about +Y, then translate (feet on y = 0). */
  private setTransform(x: number, z: number, yaw: number, scale: number): void {
    const m = this.transform;
    const c = Math.cos(yaw) * scale;
    const s = Math.sin(yaw) * scale;
    m.fill(0);
    m[0] = c; m[2] = -s;
    m[5] = scale;
    m[8] = s; m[10] = c;
    m[12] = this.origin[0] + x; m[13] = this.groundOffset * scale; m[14] = this.origin[1] + z; m[15] = 1;
  }
}
