import { show } from '../../math/show';
import { COORDINATE } from './bounds';
import { FieldSlots } from './field-slots';
import { AGENT, AGENT_ACTIVE, AGENT_HAS_GOAL, FIELD_NONE, OBSTACLE_VERTEX, STEERING_PARAMS } from './layout';
import { checkSteeringOptions, type AgentSettings, type SteeringSettings } from './options';
import type { SteeringUploads } from './steering-pass';
import type { CrowdSteeringOptions, GroundPoint } from './types';

const AF = AGENT.size / 4;

/**
 * The CPU side of steering, no GPU: the agent records by handle (a mirror uploaded by dirty
 * range), the obstacle polygons and their vertex records, the flow fields per goal, and the
 * uniforms of the next step. CrowdSteering keeps one and hands it to SteeringPass; the twin
 * (step.ts) reads the same bytes. Every change is O(1) per agent except an obstacle change (every
 * vertex); flow fields are solved in slices by advanceFields, once a frame before the uploads, at
 * most `flowField.cellsPerFrame` cells of work a frame (a new goal's field, and every live field
 * after an obstacle change, O(cells log cells) each).
 */
export class SteeringModel implements SteeringUploads {
  readonly settings: SteeringSettings;
  agents = new ArrayBuffer(64 * AGENT.size);
  private f32 = new Float32Array(this.agents);
  private u32 = new Uint32Array(this.agents);
  dirtyLo = Infinity;
  dirtyHi = 0;
  /** The highest agent handle + 1 (it shrinks when the top agents go). */
  handleLimit = 0;
  /** The handle limit before it last shrank, until the next step has visited those handles once (stepHandles). */
  private shrunkFrom = 0;
  agentCount = 0;
  obstacles = new ArrayBuffer(0);
  obstacleBytes = 0;
  obstaclesChanged = false;
  readonly params = new ArrayBuffer(STEERING_PARAMS.size);
  private readonly paramsView = new DataView(this.params);
  private readonly polygons = new Map<number, Float64Array>();
  /** Each agent's settings as given (float64; the records hold them in float32), by handle. */
  private readonly settingsByHandle: (AgentSettings | undefined)[] = [];
  private nextObstacle = 1;
  /** The flow fields by goal, solved in slices (advanceFields). */
  private readonly slots: FieldSlots;
  /** The obstacle polygons for the fields' blocked cells (made once: no closure per frame). */
  private readonly polygonList = (): Float64Array[] => [...this.polygons.values()];
  private step = 0;

  constructor(options: CrowdSteeringOptions = {}) {
    this.settings = checkSteeringOptions(options);
    this.slots = new FieldSlots(this.settings.field);
    this.obstaclesChanged = true;
  }

  /** Whether `handle` is an agent. */
  isAgent(handle: number): boolean {
    return handle < this.capacity && (this.u32[handle * AF + AGENT.flags / 4] & AGENT_ACTIVE) !== 0;
  }

  private get capacity(): number {
    return this.agents.byteLength / AGENT.size;
  }

  /** Makes `handle` an agent with checked `settings`, starting at `world`'s placement (16 numbers, column-major). */
  add(handle: number, settings: AgentSettings, world: ArrayLike<number>): void {
    if (handle >= this.capacity) {
      const grown = new ArrayBuffer(Math.max(handle + 1, 2 * this.capacity) * AGENT.size);
      new Uint8Array(grown).set(new Uint8Array(this.agents));
      this.agents = grown;
      this.f32 = new Float32Array(grown);
      this.u32 = new Uint32Array(grown);
    }
    const o = handle * AF;
    const epoch = this.u32[o + AGENT.epoch / 4]; // kept across removal, so the GPU's old state of this handle is restarted
    this.f32.fill(0, o, o + AF);
    this.u32[o + AGENT.epoch / 4] = epoch;
    this.u32[o + AGENT.flags / 4] = AGENT_ACTIVE;
    this.u32[o + AGENT.field / 4] = FIELD_NONE;
    this.writeSettings(handle, settings);
    this.agentCount++;
    this.handleLimit = Math.max(this.handleLimit, handle + 1);
    this.place(handle, world);
    this.setGoal(handle, settings.goal);
  }

  /** Agent `handle`'s settings (an agent's: see isAgent). */
  settingsOf(handle: number): AgentSettings {
    return { ...this.settingsByHandle[handle]!, goal: this.goalOf(handle) };
  }

  /** New radius and speeds for agent `handle` (checked: checkAgentChanges); its position, velocity, facing and goal stay (the epoch is not bumped). */
  setSettings(handle: number, settings: AgentSettings): void {
    this.writeSettings(handle, settings);
    this.touch(handle);
  }

  /** Agent `handle`'s radius and speeds into its record (float32) and as given (settingsByHandle). */
  private writeSettings(handle: number, settings: AgentSettings): void {
    const o = handle * AF;
    this.f32[o + AGENT.radius / 4] = settings.radius;
    this.f32[o + AGENT.maxSpeed / 4] = settings.maxSpeed;
    this.f32[o + AGENT.prefSpeed / 4] = settings.preferredSpeed;
    this.f32[o + AGENT.maxAcceleration / 4] = settings.maxAcceleration;
    this.settingsByHandle[handle] = settings;
  }

  /** Obstacles now (addObstacle less removeObstacle). */
  get obstacleCount(): number {
    return this.polygons.size;
  }

  /** Restarts agent `handle` at `world`'s placement (x, z, facing; its height and scale kept for drawing). */
  place(handle: number, world: ArrayLike<number>): void {
    const o = handle * AF;
    // Within COORDINATE (bounds.ts): addAgent refuses a placement beyond it, but setPlacement and
    // setTransform, the crowd's, cannot; such an agent restarts from the nearest point within.
    this.f32[o + AGENT.startX / 4] = Math.max(COORDINATE.min, Math.min(COORDINATE.max, world[12]));
    this.f32[o + AGENT.startZ / 4] = Math.max(COORDINATE.min, Math.min(COORDINATE.max, world[14]));
    this.f32[o + AGENT.y / 4] = world[13];
    this.f32[o + AGENT.scale / 4] = Math.hypot(world[0], world[1], world[2]);
    this.f32[o + AGENT.startHeading / 4] = Math.atan2(world[8], world[10]);
    // Epochs start at 1, so a zeroed state (new or restored buffer) restarts from here.
    this.u32[o + AGENT.epoch / 4] = (this.u32[o + AGENT.epoch / 4] + 1) >>> 0 || 1;
    this.touch(handle);
  }

  /** Gives agent `handle` a goal (checked), or none. */
  setGoal(handle: number, goal: GroundPoint | null): void {
    const o = handle * AF;
    this.releaseField(handle);
    if (goal) {
      this.f32[o + AGENT.goalX / 4] = goal[0];
      this.f32[o + AGENT.goalZ / 4] = goal[1];
      this.u32[o + AGENT.flags / 4] |= AGENT_HAS_GOAL;
      this.u32[o + AGENT.field / 4] = this.slots.acquire(goal);
    } else {
      this.u32[o + AGENT.flags / 4] &= ~AGENT_HAS_GOAL;
    }
    this.touch(handle);
  }

  /** The goal of agent `handle`, or null. */
  goalOf(handle: number): GroundPoint | null {
    const o = handle * AF;
    if (!(this.u32[o + AGENT.flags / 4] & AGENT_HAS_GOAL)) return null;
    return [this.f32[o + AGENT.goalX / 4], this.f32[o + AGENT.goalZ / 4]];
  }

  /** `handle` is no agent from now on. */
  remove(handle: number): void {
    if (!this.isAgent(handle)) return;
    this.releaseField(handle);
    const epoch = this.u32[handle * AF + AGENT.epoch / 4];
    this.u32.fill(0, handle * AF, handle * AF + AF);
    this.u32[handle * AF + AGENT.epoch / 4] = epoch;
    this.settingsByHandle[handle] = undefined;
    this.agentCount--;
    this.touch(handle);
    if (handle + 1 === this.handleLimit) {
      // The step visits only up to the top agent (amortised: each handle is passed once per shrink).
      this.shrunkFrom = Math.max(this.shrunkFrom, this.handleLimit);
      while (this.handleLimit > 0 && !this.isAgent(this.handleLimit - 1)) this.handleLimit--;
    }
  }

  /**
   * Handles the next step visits: handleLimit, or for one step after it shrank the old limit, so
   * that the step clears the locomotion-channel records of the handles above it (steering.wgsl
   * moveAgents: driven = 0 for a handle that is no agent). Called once per step.
   */
  stepHandles(): number {
    const handles = Math.max(this.handleLimit, this.shrunkFrom);
    this.shrunkFrom = 0;
    return handles;
  }

  /** Adds a checked polygon (checkPolygon); returns its id. Rebuilds the vertex records and every live field. */
  addObstacle(polygon: Float64Array): number {
    const id = this.nextObstacle++;
    this.polygons.set(id, polygon);
    this.obstaclesRebuilt();
    return id;
  }

  /** Removes obstacle `id`; a RangeError when there is none. */
  removeObstacle(id: number): void {
    if (!this.polygons.delete(id)) throw new RangeError(`obstacle ${show(id)} does not exist (ids come from addObstacle)`);
    this.obstaclesRebuilt();
  }

  /** Writes the uniforms of the next step of `dt` seconds (the pass fills handleCount and tableSize). */
  writeParams(dt: number): ArrayBuffer {
    const v = this.paramsView;
    const s = this.settings;
    v.setFloat32(STEERING_PARAMS.cellSize, s.neighbourDistance * 1.01, true);
    v.setFloat32(STEERING_PARAMS.dt, dt, true);
    v.setFloat32(STEERING_PARAMS.timeHorizon, s.timeHorizon, true);
    v.setFloat32(STEERING_PARAMS.obstacleTimeHorizon, s.obstacleTimeHorizon, true);
    v.setFloat32(STEERING_PARAMS.neighbourDistance, s.neighbourDistance, true);
    v.setUint32(STEERING_PARAMS.maxNeighbours, s.maxNeighbours, true);
    v.setUint32(STEERING_PARAMS.vertexCount, this.obstacleBytes / OBSTACLE_VERTEX.size, true);
    v.setUint32(STEERING_PARAMS.step, this.step++ >>> 0, true);
    v.setFloat32(STEERING_PARAMS.turnRate, s.turnRate, true);
    const f = s.field;
    v.setUint32(STEERING_PARAMS.fieldColumns, f ? f.columns : 0, true);
    v.setUint32(STEERING_PARAMS.fieldRows, f ? f.rows : 0, true);
    v.setFloat32(STEERING_PARAMS.fieldMinX, f ? f.minX : 0, true);
    v.setFloat32(STEERING_PARAMS.fieldMinZ, f ? f.minZ : 0, true);
    v.setFloat32(STEERING_PARAMS.fieldCellSize, f ? f.cellSize : 1, true);
    return this.params;
  }

  /** Every agent record is uploaded again (a new device). */
  markAllDirty(): void {
    this.dirtyLo = 0;
    this.dirtyHi = this.handleLimit * AGENT.size;
    this.obstaclesChanged = true;
    this.slots.markAllDirty();
  }

  /** Flow field directions (FieldSlots.fields): x, z per cell, maxGoals fields of columns x rows cells. */
  get fields(): Float32Array<ArrayBuffer> {
    return this.slots.fields;
  }

  /** Byte range of `fields` changed since the last upload ([lo, hi), empty when lo >= hi); the pass clears it. */
  get fieldsDirtyLo(): number { return this.slots.dirtyLo; }
  set fieldsDirtyLo(bytes: number) { this.slots.dirtyLo = bytes; }
  get fieldsDirtyHi(): number { return this.slots.dirtyHi; }
  set fieldsDirtyHi(bytes: number) { this.slots.dirtyHi = bytes; }

  /** Field solves not finished yet (a new goal's, or every live goal's after an obstacle change). */
  get pendingFieldCount(): number {
    return this.slots.pendingCount;
  }

  /**
   * Spends this frame's budget (flowField.cellsPerFrame cells of work) on the pending field solves,
   * oldest first; a finished solve writes its field's slot (marked for upload). Called once a
   * frame before the uploads (CrowdSteering.prepare; the twin's scenes before each step). Returns
   * the cells of work done.
   */
  advanceFields(): number {
    return this.slots.advance(this.polygonList);
  }

  private touch(handle: number): void {
    this.dirtyLo = Math.min(this.dirtyLo, handle * AGENT.size);
    this.dirtyHi = Math.max(this.dirtyHi, (handle + 1) * AGENT.size);
  }

  private releaseField(handle: number): void {
    const o = handle * AF;
    this.slots.release(this.u32[o + AGENT.field / 4]);
    this.u32[o + AGENT.field / 4] = FIELD_NONE;
  }

  private obstaclesRebuilt(): void {
    let count = 0;
    for (const p of this.polygons.values()) count += p.length / 2;
    this.obstacles = new ArrayBuffer(count * OBSTACLE_VERTEX.size);
    const f = new Float32Array(this.obstacles), u = new Uint32Array(this.obstacles);
    const O = OBSTACLE_VERTEX.size / 4;
    let base = 0;
    for (const p of this.polygons.values()) {
      const n = p.length / 2;
      for (let i = 0; i < n; i++) {
        const next = (i + 1) % n, previous = (i + n - 1) % n;
        const dx = p[2 * next] - p[2 * i], dz = p[2 * next + 1] - p[2 * i + 1], length = Math.hypot(dx, dz);
        const o = (base + i) * O;
        f[o] = p[2 * i]; f[o + 1] = p[2 * i + 1]; f[o + 2] = dx / length; f[o + 3] = dz / length;
        u[o + 4] = base + next; u[o + 5] = base + previous;
        // RVO2: convex where the previous vertex, this one and the next turn left (or a two-vertex wall).
        const ax = p[2 * previous], az = p[2 * previous + 1];
        const left = (ax - p[2 * next]) * (p[2 * i + 1] - az) - (az - p[2 * next + 1]) * (p[2 * i] - ax);
        u[o + 6] = n === 2 || left >= 0 ? 1 : 0;
      }
      base += n;
    }
    this.obstacleBytes = this.obstacles.byteLength;
    this.obstaclesChanged = true;
    this.slots.obstaclesChanged(); // every live field solved again, the old ones kept meanwhile
  }
}
