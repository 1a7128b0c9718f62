import type { InstanceId } from '../../src/index';
import type { Spectators } from '../appearance';
import type { OrbitCamera } from '../orbit-camera';
import { Random } from '../random';
import type { Scene } from '../scene';
import type { SceneModel } from '../scene-model';
import type { SceneState } from '../scene-state';
import { formatBytes } from '../stats';
import type { SceneActivity } from './activity';
import { flagJoint, StadiumFlags } from './stadium-flags';
import { layBowl, StadiumWave, WAVE_LAP_SECONDS, WAVE_LEVELS, type BowlSeats } from './stadium-bowl';

/** How far a spectator rises at the wave's crest, in character heights. */
const STAND_UP = 0.3;
/** The front-row view (?view=front): the camera this many character heights from the front row, this pitch (radians). */
const FRONT_DISTANCE = 9;
const FRONT_PITCH = 0.12;
/** The whole-bowl view: the camera this many outer radii from the centre, this pitch (radians). */
const BOWL_DISTANCE = 2.2;
const BOWL_PITCH = 0.6;

/**
 * The stadium scene: a bowl of spectators round a field (up to a million), everyone facing
 * the centre and playing an idle clip (the Fox's Survey, the Mannequin's Idle) at a random
 * phase, and a wave that runs round the stands (StadiumWave): where it passes, spectators
 * stand up and cheer (blend to the cheer clip: the Walker's Wave, else a run). Far spectators
 * are drawn as impostors (the App makes CrowdImpostors for a scene whose `impostors` is true);
 * everyone gets a look from the appearance control's spread (tints, and on the Mannequin its
 * variants and parts). The CPU visits only the seats whose wave level changed a frame. Runs on
 * a model of either backend: on WebGL 2 (a SceneModel) every spectator is a mesh and none waves
 * a flag (CrowdImpostors and CrowdProps need WebGPU; the GL demo seats GL_STADIUM_INSTANCES).
 */
export class StadiumActivity implements SceneActivity, Spectators {
  readonly kind = 'stadium';
  /** The far spectators are drawn as impostors (the WebGPU App makes CrowdImpostors; the GL one has none: every spectator a mesh). */
  readonly impostors = true;
  private seats: BowlSeats;
  private ids: Float64Array = new Float64Array(0);
  private wave: StadiumWave;
  private versionValue = 0;
  private readonly clipIdle: number;
  private readonly clipCheer: number;
  /** The spectators play the idle and the cheer clips only: the impostors bake those two (the Walker's 19 clips left 31-texel cells, the switch at 15.5 pixels; two get 80 and 40). */
  readonly impostorClips: readonly number[];
  private readonly characterHeight: number;
  private readonly groundOffset: number;
  private readonly seatSpacing: { seatWidth: number; rowDepth: number; rowRise: number };
  /** CPU ms of the wave's step: the last frame's and the most since the overlay last read it. */
  private waveMs = 0;
  private wavePeakMs = 0;
  private wavePeakChanged = 0;
  private readonly applyLevel = (seat: number, level: number): void => this.setLevel(seat, level);
  /** ?flags=1: one spectator in five waves a flag (a prop of chosen instances). */
  private readonly flags: StadiumFlags | undefined;
  /** The looks the impostors are sized for a look of the appearance spread (the App multiplies): 2 with flags (the flag wavers' look gets its own layer: smaller cells for everyone), else 1. */
  readonly impostorLooks: number;

  /** The WebGPU demo's Scene (its props and impostors), or undefined on WebGL 2. */
  private readonly webgpu: Scene | undefined;

  constructor(private readonly scene: SceneModel, private readonly sceneState: SceneState, notify: (message: string) => void) {
    const { character } = scene;
    // Only the WebGPU demo's Scene has props and impostors (the GL demo refuses the flags before it starts the scene).
    const webgpu = (this.webgpu = 'props' in scene ? (scene as Scene) : undefined);
    if (sceneState.flags && !webgpu) notify('the flags are CrowdProps, which needs WebGPU: no spectator waves one');
    const held = sceneState.flags && webgpu ? flagJoint(character, scene.source.model) : undefined;
    if (sceneState.flags && webgpu && !held) notify(`${scene.label} has no hand or head joint to hold a flag`);
    this.flags = held && webgpu ? new StadiumFlags(webgpu, held.joint, held.hold, notify) : undefined;
    this.impostorLooks = this.flags ? 2 : 1;
    const { min, max } = character.bounds;
    const height = (this.characterHeight = Math.max(max[1] - min[1], 1e-6));
    this.groundOffset = -min[1];
    // Seats side by side along a row, most of the character's length along the row's depth (it
    // faces the field; the Fox's tail reaches under the row behind, which sits higher).
    const rowDepth = Math.max((max[2] - min[2]) * 0.8, height * 0.5);
    this.seatSpacing = { seatWidth: Math.max((max[0] - min[0]) * 1.5, height * 0.4), rowDepth, rowRise: Math.max(rowDepth * 0.5, height * 0.35) };
    const names = character.clipNames;
    const find = (...patterns: RegExp[]) => {
      for (const pattern of patterns) {
        const i = names.findIndex((n) => pattern.test(n));
        if (i >= 0) return i;
      }
      return -1;
    };
    this.clipIdle = Math.max(0, find(/idle/i, /survey/i));
    const cheer = find(/cheer/i, /jump/i, /^wave$/i, /run/i);
    this.clipCheer = cheer >= 0 ? cheer : names.length - 1;
    this.impostorClips = this.clipIdle === this.clipCheer ? [this.clipIdle] : [this.clipIdle, this.clipCheer];
    this.seats = this.lay(0);
    this.wave = new StadiumWave(this.seats.buckets, this.applyLevel);
  }

  get count(): number {
    return this.seats.count;
  }

  get cellSize(): readonly [number, number] {
    return [this.seatSpacing.seatWidth, this.seatSpacing.rowDepth];
  }

  get height(): number {
    return this.characterHeight;
  }

  /** The spectators, for the appearance spread (every one gets a look): this activity. */
  readonly spectators: Spectators = this;

  /** Bumped whenever the spectators are seated again or removed (the appearance spread follows). */
  get version(): number {
    return this.versionValue;
  }

  /** The id of spectator `i`, in [0, count). */
  idAt(i: number): InstanceId {
    return this.ids[i];
  }

  /** Seats `count` spectators in a new bowl (its size depends on the count): every instance placed again. */
  setCount(count: number): void {
    const crowd = this.scene.crowd;
    const seats = this.lay(count);
    crowd.clear();
    this.ids = new Float64Array(0);
    this.versionValue++;
    const random = new Random();
    const durations = this.scene.character.clipDurations;
    const timesA = new Float32Array(count);
    const timesB = new Float32Array(count);
    const speeds = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      timesA[i] = random.next() * durations[this.clipIdle];
      timesB[i] = random.next() * durations[this.clipCheer];
      speeds[i] = random.range(0.9, 1.1);
    }
    this.ids = crowd.addMany({ count, positions: seats.positions, yaws: seats.yaws, clipA: this.clipIdle, clipB: this.clipCheer, timesA, timesB, speeds });
    this.flags?.hold(count, (seat) => this.ids[seat]);
    this.seats = seats;
    this.wave = new StadiumWave(seats.buckets, this.applyLevel);
  }

  settingChanged(): boolean {
    return false;
  }

  apply(): void {}

  /** Moves the wave on: only the seats whose level changed are touched (StadiumWave). */
  update(dt: number): void {
    const start = performance.now();
    const changed = this.wave.step(dt);
    this.waveMs = performance.now() - start;
    if (this.waveMs > this.wavePeakMs) this.wavePeakMs = this.waveMs;
    if (changed > this.wavePeakChanged) this.wavePeakChanged = changed;
  }

  extent(out: Float32Array): void {
    out[0] = out[1] = this.seats.outerRadius;
    out[2] = 0;
  }

  /**
   * The whole bowl from above its rim (the default), or with ?view=front the camera on the
   * field, a few heights from the front row, looking up the stands.
   */
  placeCamera(camera: OrbitCamera): void {
    const h = this.characterHeight;
    const { rowRise, rowDepth } = this.seatSpacing;
    if (this.sceneState.view === 'front') {
      camera.target[0] = 0;
      camera.target[1] = 2 * rowRise + 0.5 * h;
      camera.target[2] = this.seats.innerRadius + 2 * rowDepth;
      camera.yaw = Math.PI; // the eye towards the field's centre from the target
      camera.pitch = FRONT_PITCH;
      camera.distance = FRONT_DISTANCE * h;
      return;
    }
    camera.target[1] = this.seats.topHeight * 0.3;
    camera.pitch = BOWL_PITCH;
    camera.distance = BOWL_DISTANCE * this.seats.outerRadius + 2 * h;
  }

  follow(): boolean {
    return false;
  }

  describe(lines: string[], data: DOMStringMap): void {
    const s = this.seats;
    lines.push(`stadium: ${s.count.toLocaleString('en-US')} seats in ${s.rows} rows; a wave round every ${WAVE_LAP_SECONDS} s`,
      `  wave: ${this.wave.changed.toLocaleString('en-US')} seats changed last frame (most ${this.wavePeakChanged.toLocaleString('en-US')}), CPU ${this.waveMs.toFixed(2)} ms (most ${this.wavePeakMs.toFixed(2)} ms), ` +
        `uploaded ${formatBytes(this.scene.crowd.uploadedBytes)}`);
    if (!this.webgpu) lines.push('  every spectator a mesh: the far crowd as impostors (CrowdImpostors) needs WebGPU');
    const looks = this.webgpu?.impostors?.looks;
    if (this.flags) lines.push(`  flags: ${this.flags.count.toLocaleString('en-US')} spectators wave one (impostors sized for ${this.webgpu?.impostors?.sizedForLooks ?? this.impostorLooks} looks, ${looks?.baked ?? 0} baked; ${looks?.meshes ?? 0} wavers kept as meshes)`);
    data.flags = String(this.flags?.count ?? 0);
    data.uploadedBytes = String(this.scene.crowd.uploadedBytes);
    data.seats = String(s.count);
    data.rows = String(s.rows);
    data.waveChanged = String(this.wave.changed);
    data.wavePeakChanged = String(this.wavePeakChanged);
    data.waveMs = this.waveMs.toFixed(3);
    data.wavePeakMs = this.wavePeakMs.toFixed(3);
    this.wavePeakMs = 0;
    this.wavePeakChanged = 0;
  }

  dispose(clearCrowd: boolean): void {
    this.flags?.dispose();
    if (clearCrowd) this.scene.crowd.clear();
    this.ids = new Float64Array(0);
    this.seats = this.lay(0);
    this.versionValue++;
  }

  private lay(count: number): BowlSeats {
    return layBowl(count, { ...this.seatSpacing, lift: this.groundOffset });
  }

  /** A seat at wave level `level`: blended that far to the cheer clip and lifted that far up. */
  private setLevel(seat: number, level: number): void {
    const id: InstanceId = this.ids[seat];
    const up = level / WAVE_LEVELS;
    const p = this.seats.positions;
    const crowd = this.scene.crowd;
    crowd.setBlend(id, up);
    crowd.setPlacement(id, p[3 * seat], p[3 * seat + 1] + up * STAND_UP * this.characterHeight, p[3 * seat + 2], this.seats.yaws[seat]);
  }
}
