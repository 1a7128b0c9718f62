import { checkF32 } from '../../math/float32';
import { show } from '../../math/show';
import type { Crowd } from '../../runtime/crowd';
import type { InstanceId } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel, FeatureStage } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { formatBytes, storageLimit } from '../../runtime/limits';
import { COORDINATE, MAX_STEP_DT, MIN_STEP_DT } from './bounds';
import { AGENT, AGENT_STATE, OBSTACLE_VERTEX } from './layout';
import { SteeringModel } from './model';
import { checkAgentChanges, checkAgentOptions, checkGoal, checkPolygon } from './options';
import { SteeringPass } from './steering-pass';
import { MAX_TWIN_AGENTS, SteeringTwin } from './twin-engine';
import type { CrowdSteeringOptions, GroundPoint, SteeringAgentOptions, SteeringAgents } from './types';

/**
 * Crowd steering on the GPU, a crowd feature: instances become agents that walk to goals on the
 * ground (the x-z plane) around each other and around static obstacles, every step on the GPU
 * (shaders/steering/steering.wgsl): a hashed uniform grid rebuilt by counting sort, ORCA (RVO2's
 * reciprocal velocity obstacles and linear program) against the nearest agents and obstacle
 * segments, flow fields for agents that share a goal (with CrowdSteeringOptions.flowField), and
 * each agent's placement and facing written into its instance record, before the cull and pose
 * passes read it. With CrowdControllers, an agent's controller takes its locomotion from the step
 * (CrowdKernel.locomotionDrive: speed and direction relative to the facing), and steering keeps
 * writing the placement. The CPU acts on events only (add, remove, a goal, an obstacle): nothing per agent
 * per frame, no readback unless asked (readAgents). One step per crowd.update(dt) +
 * crowd.encode(encoder), of the dt since the last step an encode ran (every update's since).
 * Docs: docs/steering.md.
 *
 * @example
 * ```ts
 * const steering = new CrowdSteering(crowd);
 * const id = crowd.add();
 * crowd.setPlacement(id, -10, 0, 0, 0);
 * steering.addAgent(id, { radius: 0.4, maxSpeed: 2, preferredSpeed: 1.4, goal: [10, 0] });
 * steering.addObstacle([[-1, -1], [1, -1], [1, 1], [-1, 1]]); // a pillar
 * // each frame: crowd.update(dt); crowd.encode(encoder); ...
 * const { ids, positions, velocities } = await steering.readAgents(); // when wanted
 * ```
 */
export class CrowdSteering implements CrowdFeature {
  readonly featureName = 'steering';
  /** Runs on WebGL 2 too, stepped by its TypeScript twin on the CPU there (at most MAX_TWIN_AGENTS agents). */
  readonly onWebGL2 = true;
  /** The GPU pass on a WebGPU crowd, else undefined. */
  private pass: SteeringPass | undefined;
  /** The CPU twin on a WebGL 2 crowd, else undefined. */
  private readonly twin: SteeringTwin | undefined;
  private readonly model: SteeringModel;
  private readonly kernel: CrowdKernel;
  private readonly store: InstanceStore;
  /** Crowd clock (seconds) the agents were stepped to: that of the last prepared step an encode ran (cpuDrive on WebGL 2). */
  private lastClock: number;
  /**
   * The prepared step no encode has run yet, if `prepared`: the clock it steps to (lastClock when
   * it steps nobody) and the handles it visits. A crowd updated again before an encode (a paused
   * view, two fixed steps a frame) prepares a step from lastClock that covers both updates' time
   * and visits those handles too (a shrink's locomotion records to clear), so neither is lost.
   */
  private preparedClock: number;
  private preparedHandles = 0;
  private prepared = false;
  private readonly world = new Float32Array(16);
  /** @internal Timestamps of the steering pass (tools/bench/steering.ts), or undefined. */
  timestampWrites: GPUComputePassTimestampWrites | undefined;

  /**
   * Installs steering on `crowd` (no agent yet); options are fixed for its life and checked before
   * anything changes: each number within its bound (docs/steering.md), and the flow fields'
   * buffer (maxGoals x cells x 8 bytes) within the device's maxStorageBufferBindingSize and
   * maxBufferSize (WebGPU). A refusal installs nothing. On a WebGL 2 crowd (GLCrowd) the twin
   * steps the agents on the CPU.
   */
  constructor(crowd: Pick<Crowd, 'install'> & { readonly backend: 'webgpu' | 'webgl2' }, options: CrowdSteeringOptions = {}) {
    if (typeof crowd !== 'object' || crowd === null || typeof (crowd as Partial<Crowd>).install !== 'function') {
      throw new TypeError(`CrowdSteering needs a Crowd: new CrowdSteering(crowd, options?), got ${show(crowd)}`);
    }
    this.model = new SteeringModel(options);
    const field = this.model.settings.field, gl = crowd.backend === 'webgl2';
    // On WebGPU the fields go to a storage buffer; on WebGL 2 they stay on the CPU (the twin reads them).
    if (field && !gl) {
      const bytes = this.model.fields.byteLength, limit = storageLimit((crowd as Crowd).device);
      if (bytes > limit.bytes) {
        throw new RangeError(`flowField needs ${formatBytes(bytes)} (maxGoals ${field.maxGoals} x ${field.columns} x ${field.rows} cells x 8 bytes) but the device's ${limit.name} is ${formatBytes(limit.bytes)}: ` +
          'use a larger cellSize, a smaller rectangle or fewer maxGoals (or request a larger limit when creating the device)');
      }
    }
    // Installed before any GPU object exists, as the other features are: a refusal leaves nothing to free.
    this.kernel = crowd.install(this);
    if (gl) this.twin = new SteeringTwin();
    else this.pass = new SteeringPass(this.kernel.device, this.model.settings.projectionIterations);
    this.store = this.kernel.store;
    this.lastClock = this.preparedClock = this.kernel.clock;
  }

  /** Bytes of steering's GPU buffers (Crowd.gpuBytes). */
  get gpuBytes(): number {
    return this.pass?.gpuBytes ?? 0;
  }

  /** Agents now. */
  get agentCount(): number {
    return this.model.agentCount;
  }

  /**
   * Makes instance `id` an agent starting at its placement now (its record's world transform:
   * x, z, facing; its height and scale are kept); with root motion (CrowdRootMotion) it stops moving
   * by its clips from then on. Refused, changing nothing: an id that names no
   * live instance, an instance that is already an agent or placed beyond ±1e9 in x or z, bad
   * options (a number outside its bound, which the message names: docs/steering.md, "Bounds";
   * preferredSpeed over maxSpeed; a goal that is not two numbers); on a WebGL 2 crowd, an agent
   * past MAX_TWIN_AGENTS (150).
   */
  addAgent(id: InstanceId, options: SteeringAgentOptions): void {
    const handle = this.store.handle(id);
    if (this.model.isAgent(handle)) throw new RangeError(`instance ${id} is already an agent (removeAgent it first)`);
    if (this.twin && this.model.agentCount >= MAX_TWIN_AGENTS) {
      throw new RangeError(`steering on WebGL 2 steps at most ${MAX_TWIN_AGENTS} agents (its TypeScript twin on the CPU: more would cost over 2 ms a frame); more agents need WebGPU (docs/steering.md)`);
    }
    const settings = checkAgentOptions(options);
    const world = this.store.records.getWorld(this.store.slot(handle), this.world);
    checkF32(world[12], `instance ${show(id)}'s placement x`, COORDINATE, 'float32 on the GPU: steering.wgsl squares coordinate differences');
    checkF32(world[14], `instance ${show(id)}'s placement z`, COORDINATE, 'float32 on the GPU: steering.wgsl squares coordinate differences');
    // Steering moves it, not its clips' root motion (found by name: features import no other feature).
    this.kernel.feature<CrowdFeature & { setMoves(id: InstanceId, on: boolean): void }>('root-motion')?.setMoves(id, false);
    this.model.add(handle, settings, world);
  }

  /** Sends agent `id` to `goal` ([x, z]), or stands it still (null). Refused for a non-agent or a bad goal. */
  setGoal(id: InstanceId, goal: GroundPoint | null): void {
    const handle = this.agentHandle(id);
    this.model.setGoal(handle, checkGoal(goal, 'goal'));
  }

  /**
   * Changes agent `id`'s radius and speeds (any of radius, maxSpeed, preferredSpeed,
   * maxAcceleration; the goal has setGoal) from the next step on. It goes on from where it is, at
   * its velocity (unlike removeAgent + addAgent, which restarts it from its placement, standing):
   * a walker breaking into a run. A field left out keeps its value. Refused, changing nothing: a
   * non-agent, an unknown field, the rules of addAgent (a maxSpeed below the kept preferredSpeed
   * included).
   */
  setAgentOptions(id: InstanceId, options: Partial<Omit<SteeringAgentOptions, 'goal'>>): void {
    const handle = this.agentHandle(id);
    this.model.setSettings(handle, checkAgentChanges(options, this.model.settingsOf(handle)));
  }

  /** Agent `id`'s radius, speeds and goal as set (addAgent, setAgentOptions, setGoal). */
  agentOptions(id: InstanceId): Required<SteeringAgentOptions> {
    const { goal, ...settings } = this.model.settingsOf(this.agentHandle(id));
    return { ...settings, goal };
  }

  /** Obstacles now (addObstacle less removeObstacle). */
  get obstacleCount(): number {
    return this.model.obstacleCount;
  }

  /** Agent `id`'s goal, or null when it stands. */
  goal(id: InstanceId): GroundPoint | null {
    return this.model.goalOf(this.agentHandle(id));
  }

  /** Whether instance `id` is a live agent (false for any id that names none). */
  hasAgent(id: InstanceId): boolean {
    const handle = this.store.find(id);
    return handle >= 0 && this.model.isAgent(handle);
  }

  /** Instance `id` is no agent from now on: it stays where steering brought it (as of the last step). */
  removeAgent(id: InstanceId): void {
    this.model.remove(this.agentHandle(id));
  }

  /**
   * Adds a static obstacle: a closed polygon on the ground ([[x0, z0], [x1, z1], ...], either
   * winding; two vertices make a wall, thin and avoided from both sides). Returns its id for
   * removeObstacle. Costs O(every obstacle vertex), plus recomputing each live flow field.
   * Refused, changing nothing: fewer than 2 vertices, a vertex beyond ±1e9, two equal neighbours,
   * an outline that is not simple (edges that cross, touch or fold back: the message names
   * them; about O(vertices), O(vertices^2) at worst), and vertices past the device's storage-buffer
   * limit (32 bytes each).
   */
  addObstacle(vertices: readonly GroundPoint[]): number {
    const polygon = checkPolygon(vertices);
    const bytes = (this.model.obstacleBytes / OBSTACLE_VERTEX.size + polygon.length / 2) * OBSTACLE_VERTEX.size, limit = this.pass ? storageLimit(this.kernel.device) : { bytes: Infinity, name: '' };
    if (bytes > limit.bytes) throw new RangeError(`obstacles would need ${formatBytes(bytes)} (32 bytes a vertex) but the device's ${limit.name} is ${formatBytes(limit.bytes)}`);
    return this.model.addObstacle(polygon);
  }

  /** Removes obstacle `id` (from addObstacle); a RangeError for an id that names none. */
  removeObstacle(id: number): void {
    this.model.removeObstacle(id);
  }

  /**
   * The live agents as the GPU has them after the last submitted step: ids in handle order, and
   * (x, z) position and velocity per agent. An asynchronous readback the caller asks for; the
   * frame never waits on it. On WebGL 2: the twin's states after the last step, at once.
   */
  async readAgents(): Promise<SteeringAgents> {
    if (this.twin) return this.agentsFrom(this.twin.states.slice(0));
    const handles = this.model.handleLimit;
    const device = this.kernel.device;
    const bytes = Math.max(handles * AGENT_STATE.size, 16);
    const staging = device.createBuffer({ label: 'CrowdSteering.readAgents', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder({ label: 'CrowdSteering.readAgents' });
    const pass = this.pass!;
    encoder.copyBufferToBuffer(pass.stateBuffer, 0, staging, 0, Math.min(bytes, pass.stateBuffer.size));
    device.queue.submit([encoder.finish()]);
    try {
      await staging.mapAsync(GPUMapMode.READ);
      const states = staging.getMappedRange().slice(0);
      return this.agentsFrom(states);
    } finally {
      staging.destroy();
    }
  }

  /** @internal The agents of `states` (AGENT_STATE by handle); an agent whose state predates its placement is at its start. */
  agentsFrom(states: ArrayBuffer): SteeringAgents {
    const model = this.model;
    const sf = new Float32Array(states), su = new Uint32Array(states);
    const af = new Float32Array(model.agents), au = new Uint32Array(model.agents);
    const ids: number[] = [];
    const handles: number[] = [];
    for (let h = 0; h < model.handleLimit; h++) {
      if (model.isAgent(h) && this.store.has(h)) { ids.push(this.store.idOf(h)); handles.push(h); }
    }
    const positions = new Float32Array(handles.length * 2), velocities = new Float32Array(handles.length * 2);
    const S = AGENT_STATE.size / 4, A = AGENT.size / 4;
    handles.forEach((h, i) => {
      const fresh = (h + 1) * AGENT_STATE.size <= states.byteLength && su[h * S + AGENT_STATE.epoch / 4] === au[h * A + AGENT.epoch / 4];
      positions[2 * i] = fresh ? sf[h * S] : af[h * A + AGENT.startX / 4];
      positions[2 * i + 1] = fresh ? sf[h * S + 1] : af[h * A + AGENT.startZ / 4];
      velocities[2 * i] = fresh ? sf[h * S + 2] : 0;
      velocities[2 * i + 1] = fresh ? sf[h * S + 3] : 0;
    });
    return { ids: Float64Array.from(ids), positions, velocities };
  }

  /** @internal The CPU model (agent records, obstacles, fields, uniforms) the twin steps in tests. */
  get cpuModel(): SteeringModel {
    return this.model;
  }

  /** @internal The GPU's agent states (AGENT_STATE by handle), for tests. */
  get stateBuffer(): GPUBuffer {
    return this.pass!.stateBuffer;
  }

  /** CrowdFeature: an instance removed from the crowd is no agent any more. */
  removed(handle: number): void {
    this.model.remove(handle);
  }

  /** CrowdFeature: every instance was removed. */
  cleared(): void {
    for (let h = this.model.handleLimit - 1; h >= 0; h--) this.model.remove(h);
  }

  /** CrowdFeature: an agent placed by setTransform or setPlacement restarts from there. */
  placed(handle: number, _slot: number, world: ArrayLike<number>): void {
    if (this.model.isAgent(handle)) this.model.place(handle, world);
  }

  /**
   * CrowdFeature: this frame's slice of the pending flow-field solves (at most
   * flowField.cellsPerFrame cells of work), the step's uniforms (dt since the last step an encode
   * ran) and the records changed by events.
   */
  prepare(clock: number): number {
    // A step shorter than MIN_STEP_DT waits: its time goes into the next (the step divides by dt);
    // one longer than MAX_STEP_DT steps MAX_STEP_DT (speed x dt stays finite in float32).
    const elapsed = clock - this.lastClock;
    const dt = elapsed >= MIN_STEP_DT ? Math.min(elapsed, MAX_STEP_DT) : 0;
    this.preparedClock = dt > 0 ? clock : this.lastClock;
    this.model.advanceFields();
    this.model.writeParams(dt);
    const handles = this.preparedHandles = Math.max(this.model.stepHandles(), this.prepared ? this.preparedHandles : 0);
    this.prepared = true;
    if (this.twin) {
      this.twin.update(this.model, handles);
      return 0;
    }
    return this.pass!.update(this.store, this.model, handles);
  }

  /** The prepared step is being run: its time and handles are stepped (the first encode after a prepare). */
  private stepped(): void {
    this.lastClock = this.preparedClock;
    this.prepared = false;
  }

  /**
   * CrowdFeature, on WebGL 2: the twin's step of prepare's dt, writing each agent's placement into
   * its record (the crowd uploads them). Once per update: a second encode of one update (two views
   * drawn a frame) steps nobody (the records keep the step's placements).
   */
  cpuDrive(): void {
    if (!this.twin || !this.prepared) return;
    this.stepped();
    this.twin.step(this.model, this.store);
  }

  /**
   * CrowdFeature: the steering step, first in the frame ('drive': it writes the instance records
   * the other passes read, and the locomotion channel the controllers read in 'control'). A second
   * encode of one update writes them again without stepping (SteeringPass.encode zeroes its dt).
   */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage): void {
    if (stage !== 'drive' || !this.pass) return;
    if (this.prepared) this.stepped();
    this.pass.encode(encoder, this.timestampWrites);
  }

  /**
   * CrowdFeature: the kernel's locomotion channel (LOCOMOTION_DRIVE by handle), written by every
   * step: each agent's position, heading and velocity relative to its facing, flagged driven. A
   * CrowdControllers controller of an agent animates that motion (walk/run blend, directional
   * clips, clip rates) and leaves the placement to steering. Replaced when handles outgrow it.
   * Undefined on WebGL 2 (no GPU-driven controllers there).
   */
  get locomotionDrive(): GPUBuffer | undefined {
    return this.pass?.driveBuffer;
  }

  /** CrowdFeature: the crowd clock restarts at 0 from `clock`. */
  rebase(clock: number): void {
    this.lastClock -= clock;
    this.preparedClock -= clock;
  }

  /** CrowdFeature: the pass on the new device; agents restart from their last placement (their motion was on the lost device). */
  restore(device: GPUDevice): void {
    if (!this.pass) return;
    this.pass.destroy();
    this.pass = new SteeringPass(device, this.model.settings.projectionIterations);
    this.model.markAllDirty();
    // A prepared step went with the old pass: its time stays in lastClock, for the next prepare.
    this.prepared = false;
  }

  /** CrowdFeature: frees the pass's buffers. */
  destroy(): void {
    this.pass?.destroy();
  }

  private agentHandle(id: InstanceId): number {
    const handle = this.store.handle(id);
    if (!this.model.isAgent(handle)) throw new RangeError(`instance ${show(id)} is not an agent (addAgent it first)`);
    return handle;
  }
}
