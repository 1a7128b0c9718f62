/**
 * The TypeScript twin of one steering step (shaders/steering/steering.wgsl), as pure functions
 * over the very bytes the GPU reads and writes (layout.ts): restart placed agents, build the
 * hashed uniform grid by counting sort (count, prefix sum, scatter), pick each agent's preferred
 * velocity (toward its goal, along its flow field when it has one), solve its ORCA program
 * against its nearest neighbours and obstacle segments, then move it and turn its facing, and
 * project the new positions apart (projection.ts). The
 * GPU does the same in float32; tests compare the two (test/features/steering/).
 */

import { AGENT, AGENT_ACTIVE, AGENT_HAS_GOAL, AGENT_STATE, FIELD_NONE, MAX_NEIGHBOURS, MAX_OBSTACLE_LINES, NUDGE, KEEP_RIGHT, OBSTACLE_VERTEX, PROJECTION_ITERATIONS, STEERING_PARAMS } from './layout';
import { MIN_STEP_DT } from './bounds';
import { gatherContacts, projectPositions } from './projection';
import { addAgentLine, addObstacleLine, distSqToSegment, linearProgram2, linearProgram3, OrcaScratch, type ObstacleVertices, type OrcaAgent } from './orca';

/** What one step reads: the CPU mirrors of the GPU buffers (by handle), the obstacles and the flow fields. */
export interface SteeringBuffers {
  /** AGENT records, `params.handleCount` of them at least. */
  readonly agents: ArrayBuffer;
  /** AGENT_STATE records; read and written. */
  readonly states: ArrayBuffer;
  /** OBSTACLE_VERTEX records, `params.vertexCount` of them. */
  readonly obstacles: ArrayBuffer;
  /** Flow field directions: (x, z) per cell, fieldColumns x fieldRows cells per field, field after field. */
  readonly fields: Float32Array;
  /** The STEERING_PARAMS block. */
  readonly params: ArrayBuffer;
  /** Jacobi iterations of the position projection after the move (CrowdSteeringOptions.projectionIterations; default PROJECTION_ITERATIONS). */
  readonly projectionIterations?: number;
}

/** The grid of one step, kept for tests (the GPU's is in its buffers). */
export interface SteeringGrid {
  /** Agents per cell. */
  counts: Uint32Array;
  /** First index in `sorted` of each cell (tableSize + 1 entries). */
  starts: Uint32Array;
  /** Agent handles sorted by cell. */
  sorted: Uint32Array;
}

/** The cell of a position: floor(x / cellSize), clamped to +-2^30 so it fits an i32. */
function cellCoordinate(x: number, cellSize: number): number {
  const c = Math.floor(Math.fround(x / cellSize));
  return Math.max(-1073741824, Math.min(1073741824, c));
}

/** The grid bucket of cell (ix, iz): a hash into [0, tableSize) (steering.wgsl `bucketOf`). */
function bucketOf(ix: number, iz: number, tableSize: number): number {
  return ((Math.imul(ix, 73856093) ^ Math.imul(iz, 19349663)) >>> 0) & (tableSize - 1);
}

/** PCG hash of a u32 (steering.wgsl `hash`). */
export function hash(v: number): number {
  const state = (Math.imul(v >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> (((state >>> 28) + 4) >>> 0)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** Hashed grid rows for a number of agent handles: a power of two, at least twice the handles. */
export function tableSizeFor(handles: number): number {
  let size = 64;
  while (size < 2 * handles) size *= 2;
  return size;
}

class Views {
  readonly af: Float32Array; readonly au: Uint32Array;
  readonly sf: Float32Array; readonly su: Uint32Array;
  readonly of: Float32Array; readonly ou: Uint32Array;
  readonly p: DataView;
  constructor(b: SteeringBuffers) {
    this.af = new Float32Array(b.agents); this.au = new Uint32Array(b.agents);
    this.sf = new Float32Array(b.states); this.su = new Uint32Array(b.states);
    this.of = new Float32Array(b.obstacles); this.ou = new Uint32Array(b.obstacles);
    this.p = new DataView(b.params);
  }
  u(field: number): number { return this.p.getUint32(field, true); }
  f(field: number): number { return this.p.getFloat32(field, true); }
}

const A = AGENT.size / 4, S = AGENT_STATE.size / 4, O = OBSTACLE_VERTEX.size / 4;
/** The shortest step that moves anyone, as the shader holds it (float32): shorter ones step nobody. */
export const MIN_DT = Math.fround(MIN_STEP_DT);

/** Obstacle vertices read from OBSTACLE_VERTEX records. */
function obstacleReader(v: Views): ObstacleVertices {
  const f = v.of, u = v.ou;
  return {
    x: (i) => f[i * O + OBSTACLE_VERTEX.x / 4], z: (i) => f[i * O + OBSTACLE_VERTEX.z / 4],
    dx: (i) => f[i * O + OBSTACLE_VERTEX.directionX / 4], dz: (i) => f[i * O + OBSTACLE_VERTEX.directionZ / 4],
    next: (i) => u[i * O + OBSTACLE_VERTEX.next / 4], previous: (i) => u[i * O + OBSTACLE_VERTEX.previous / 4],
    convex: (i) => u[i * O + OBSTACLE_VERTEX.convex / 4] !== 0,
  };
}

/** Builds the grid of the agents' positions now: count, exclusive prefix sum, scatter. */
function buildGrid(buffers: SteeringBuffers): SteeringGrid {
  const v = new Views(buffers);
  const handles = v.u(STEERING_PARAMS.handleCount), size = v.u(STEERING_PARAMS.tableSize), cell = v.f(STEERING_PARAMS.cellSize);
  const counts = new Uint32Array(size), starts = new Uint32Array(size + 1), cellOf = new Uint32Array(handles), rank = new Uint32Array(handles);
  for (let h = 0; h < handles; h++) {
    if (!(v.au[h * A + AGENT.flags / 4] & AGENT_ACTIVE)) continue;
    const b = bucketOf(cellCoordinate(v.sf[h * S], cell), cellCoordinate(v.sf[h * S + 1], cell), size);
    cellOf[h] = b;
    rank[h] = counts[b]++;
  }
  for (let i = 0; i < size; i++) starts[i + 1] = starts[i] + counts[i];
  const sorted = new Uint32Array(starts[size]);
  for (let h = 0; h < handles; h++) {
    if (v.au[h * A + AGENT.flags / 4] & AGENT_ACTIVE) sorted[starts[cellOf[h]] + rank[h]] = h;
  }
  return { counts, starts, sorted };
}

/**
 * The preferred velocity of agent `h` (steering.wgsl `preferredVelocity`) into `out`: toward its
 * goal (along its flow field's direction when it has one and the field knows its cell) at its
 * preferred speed, braking to stop there (at most its maxAcceleration, and within one step);
 * when `crowded` (some agent within neighbourDistance) bent to its right by KEEP_RIGHT, and
 * always a tiny random nudge: together they break the symmetric meetings (circle swap, head-on
 * groups) where ORCA alone stands still. Then moved from the agent's velocity now by at most
 * maxAcceleration x dt (standing without a goal too), so that it starts, turns and stops
 * smoothly; ORCA's answer, nearest this in the permitted region, is not bounded.
 */
export function preferredVelocity(buffers: SteeringBuffers, h: number, crowded: boolean, out: Float64Array): Float64Array {
  const v = new Views(buffers);
  return preferred(v, buffers.fields, h, crowded, out);
}

function preferred(v: Views, fields: Float32Array, h: number, crowded: boolean, out: Float64Array): Float64Array {
  desired(v, fields, h, crowded, out);
  // At most maxAcceleration x dt from the velocity now.
  const a = h * A, s = h * S;
  const limit = v.af[a + AGENT.maxAcceleration / 4] * v.f(STEERING_PARAMS.dt);
  const vx = v.sf[s + 2], vz = v.sf[s + 3];
  const dx = out[0] - vx, dz = out[1] - vz;
  const change = Math.hypot(dx, dz);
  if (change > limit) {
    out[0] = vx + dx * (limit / change);
    out[1] = vz + dz * (limit / change);
  }
  return out;
}

/** The preferred velocity before the acceleration bound (see preferredVelocity). */
function desired(v: Views, fields: Float32Array, h: number, crowded: boolean, out: Float64Array): Float64Array {
  const a = h * A, s = h * S;
  out[0] = 0; out[1] = 0;
  if (!(v.au[a + AGENT.flags / 4] & AGENT_HAS_GOAL)) return out;
  const x = v.sf[s], z = v.sf[s + 1];
  const gx = v.af[a + AGENT.goalX / 4] - x, gz = v.af[a + AGENT.goalZ / 4] - z;
  const distance = Math.hypot(gx, gz);
  if (distance <= 0) return out;
  const dt = v.f(STEERING_PARAMS.dt);
  const prefSpeed = v.af[a + AGENT.prefSpeed / 4];
  // Braking: the speed from which maxAcceleration stops it at the goal, sqrt(2 a distance).
  const braking = Math.sqrt(2 * v.af[a + AGENT.maxAcceleration / 4] * distance);
  const speed = Math.min(prefSpeed, braking, dt > 0 ? distance / dt : prefSpeed);
  let dx = gx / distance, dz = gz / distance;
  const field = v.au[a + AGENT.field / 4];
  if (field !== FIELD_NONE && distance > v.f(STEERING_PARAMS.fieldCellSize)) {
    const d = fieldDirection(v, fields, field, x, z);
    if (d[0] !== 0 || d[1] !== 0) { dx = d[0]; dz = d[1]; }
  }
  const angle = (hash(h ^ Math.imul(v.u(STEERING_PARAMS.step), 0x9e3779b9)) / 4294967296) * 2 * Math.PI;
  // With neighbours near, keep right: add KEEP_RIGHT x the speed along (-dz, dx), the walker's right
  // (facing +z, +x is on its left: the placement's yaw turns +z toward +x counter-clockwise seen from +y).
  const right = crowded ? KEEP_RIGHT : 0;
  out[0] = (dx - dz * right) * speed + Math.cos(angle) * NUDGE * speed;
  out[1] = (dz + dx * right) * speed + Math.sin(angle) * NUDGE * speed;
  return out;
}

const direction = new Float64Array(2);

/** The flow direction at (x, z): the four nearest cell centres' directions, bilinearly, normalised; (0, 0) where none is known. */
function fieldDirection(v: Views, fields: Float32Array, field: number, x: number, z: number): Float64Array {
  const columns = v.u(STEERING_PARAMS.fieldColumns), rows = v.u(STEERING_PARAMS.fieldRows), size = v.f(STEERING_PARAMS.fieldCellSize);
  const u = (x - v.f(STEERING_PARAMS.fieldMinX)) / size - 0.5, w = (z - v.f(STEERING_PARAMS.fieldMinZ)) / size - 0.5;
  const c0 = Math.floor(u), r0 = Math.floor(w);
  const fu = u - c0, fw = w - r0;
  let sx = 0, sz = 0;
  const base = field * columns * rows;
  for (let k = 0; k < 4; k++) {
    const c = c0 + (k & 1), r = r0 + (k >> 1);
    if (c < 0 || r < 0 || c >= columns || r >= rows) continue;
    const weight = ((k & 1) ? fu : 1 - fu) * ((k >> 1) ? fw : 1 - fw);
    const i = (base + r * columns + c) * 2;
    sx += weight * fields[i]; sz += weight * fields[i + 1];
  }
  const length = Math.hypot(sx, sz);
  direction[0] = length > 1e-6 ? sx / length : 0;
  direction[1] = length > 1e-6 ? sz / length : 0;
  return direction;
}

/** The distinct grid buckets of the 3 x 3 cells around (x, z), in the GPU's order (a bucket two cells share, once). */
export function nearbyBuckets(x: number, z: number, cell: number, size: number): number[] {
  const ix = cellCoordinate(x, cell), iz = cellCoordinate(z, cell);
  const buckets: number[] = [];
  for (let k = 0; k < 9; k++) {
    const b = bucketOf(ix + (k % 3) - 1, iz + Math.floor(k / 3) - 1, size);
    if (!buckets.includes(b)) buckets.push(b);
  }
  return buckets;
}

/** Neighbour handles of one agent, nearest first (steering.wgsl `findNeighbours`). */
function neighbours(v: Views, grid: SteeringGrid, h: number, ids: Int32Array, dists: Float64Array): number {
  const cell = v.f(STEERING_PARAMS.cellSize), size = v.u(STEERING_PARAMS.tableSize);
  const max = Math.min(v.u(STEERING_PARAMS.maxNeighbours), MAX_NEIGHBOURS);
  let range = v.f(STEERING_PARAMS.neighbourDistance) ** 2;
  const x = v.sf[h * S], z = v.sf[h * S + 1];
  let count = 0;
  for (const b of nearbyBuckets(x, z, cell, size)) {
    for (let i = grid.starts[b]; i < grid.starts[b + 1]; i++) {
      const j = grid.sorted[i];
      if (j === h) continue;
      const dx = v.sf[j * S] - x, dz = v.sf[j * S + 1] - z;
      const d = dx * dx + dz * dz;
      if (!(d < range)) continue;
      if (count < max) count++;
      let at = count - 1;
      while (at > 0 && d < dists[at - 1]) { dists[at] = dists[at - 1]; ids[at] = ids[at - 1]; at--; }
      dists[at] = d; ids[at] = j;
      if (count === max) range = dists[count - 1];
    }
  }
  return count;
}

/** Obstacle segments near agent `h` (those it is outside of, within range), nearest first. */
function nearSegments(v: Views, o: ObstacleVertices, x: number, z: number, range: number, ids: Int32Array, dists: Float64Array): number {
  let count = 0;
  const vertices = v.u(STEERING_PARAMS.vertexCount);
  for (let i = 0; i < vertices; i++) {
    const n = o.next(i);
    // RVO2 takes a segment only from outside: the agent right of it (polygons counter-clockwise).
    const side = (o.x(n) - o.x(i)) * (z - o.z(i)) - (o.z(n) - o.z(i)) * (x - o.x(i));
    if (side >= 0) continue;
    const d = distSqToSegment(o.x(i), o.z(i), o.x(n), o.z(n), x, z);
    if (!(d < range)) continue;
    if (count === MAX_OBSTACLE_LINES && d >= dists[count - 1]) continue;
    if (count < MAX_OBSTACLE_LINES) count++;
    let at = count - 1;
    while (at > 0 && d < dists[at - 1]) { dists[at] = dists[at - 1]; ids[at] = ids[at - 1]; at--; }
    dists[at] = d; ids[at] = i;
  }
  return count;
}

/**
 * One whole step: restarts placed agents, builds the grid, solves every agent's program, then
 * moves every agent by its new velocity for `dt` and turns its facing, then projects the positions
 * apart (projection.ts). Writes `buffers.states`. A dt below MIN_STEP_DT (bounds.ts) moves nobody.
 */
export function stepSteering(buffers: SteeringBuffers): SteeringGrid {
  const v = new Views(buffers);
  const handles = v.u(STEERING_PARAMS.handleCount);
  restartPlaced(v, handles);
  const grid = buildGrid(buffers);
  const dt = v.f(STEERING_PARAMS.dt);
  const next = new Float32Array(handles * 2);
  const scratch = new OrcaScratch();
  const ids = new Int32Array(Math.max(MAX_NEIGHBOURS, MAX_OBSTACLE_LINES)), dists = new Float64Array(ids.length);
  const pref = new Float64Array(2);
  const o = obstacleReader(v);
  const agent: OrcaAgent = { x: 0, z: 0, vx: 0, vz: 0, radius: 0 };
  for (let h = 0; h < handles; h++) {
    const a = h * A, s = h * S;
    if (!(v.au[a + AGENT.flags / 4] & AGENT_ACTIVE)) continue;
    if (!(dt >= MIN_DT)) { next[h * 2] = v.sf[s + 2]; next[h * 2 + 1] = v.sf[s + 3]; continue; }
    agent.x = v.sf[s]; agent.z = v.sf[s + 1]; agent.vx = v.sf[s + 2]; agent.vz = v.sf[s + 3];
    agent.radius = v.af[a + AGENT.radius / 4];
    const maxSpeed = v.af[a + AGENT.maxSpeed / 4];
    scratch.lineCount = 0;
    const obstacleHorizon = v.f(STEERING_PARAMS.obstacleTimeHorizon);
    const range = (obstacleHorizon * maxSpeed + agent.radius) ** 2;
    const segments = nearSegments(v, o, agent.x, agent.z, range, ids, dists);
    for (let i = 0; i < segments; i++) addObstacleLine(scratch, agent, o, ids[i], obstacleHorizon);
    scratch.obstacleLineCount = scratch.lineCount;
    const count = neighbours(v, grid, h, ids, dists);
    const horizon = v.f(STEERING_PARAMS.timeHorizon);
    for (let i = 0; i < count; i++) {
      const j = ids[i];
      addAgentLine(scratch, agent, v.sf[j * S], v.sf[j * S + 1], v.sf[j * S + 2], v.sf[j * S + 3], v.af[j * A + AGENT.radius / 4], horizon, dt, h < j);
    }
    preferred(v, buffers.fields, h, count > 0, pref);
    const fail = linearProgram2(scratch.lines, scratch.lineCount, maxSpeed, pref[0], pref[1], false, scratch.result);
    if (fail < scratch.lineCount) linearProgram3(scratch, fail, maxSpeed, scratch.result);
    next[h * 2] = scratch.result[0]; next[h * 2 + 1] = scratch.result[1];
  }
  const contacts = gatherContacts(buffers, grid); // steer's, from the positions before the move
  const turnRate = v.f(STEERING_PARAMS.turnRate);
  for (let h = 0; h < handles; h++) {
    const a = h * A, s = h * S;
    if (!(v.au[a + AGENT.flags / 4] & AGENT_ACTIVE) || !(dt >= MIN_DT)) continue;
    const vx = next[h * 2], vz = next[h * 2 + 1];
    v.sf[s + 2] = vx; v.sf[s + 3] = vz;
    v.sf[s] += vx * dt; v.sf[s + 1] += vz * dt;
    v.sf[s + 4] = turnToward(v.sf[s + 4], vx, vz, v.af[a + AGENT.maxSpeed / 4], turnRate * dt);
  }
  projectPositions(buffers, contacts, buffers.projectionIterations ?? PROJECTION_ITERATIONS);
  return grid;
}

/** The facing after one step: toward the velocity by at most `maxTurn` radians, unchanged below 5% of maxSpeed (steering.wgsl `turnToward`). */
export function turnToward(heading: number, vx: number, vz: number, maxSpeed: number, maxTurn: number): number {
  if (Math.hypot(vx, vz) <= 0.05 * maxSpeed) return heading;
  let turn = Math.atan2(vx, vz) - heading;
  turn -= Math.floor(turn / (2 * Math.PI) + 0.5) * 2 * Math.PI;
  return heading + Math.max(-maxTurn, Math.min(maxTurn, turn));
}

/** Agents whose state started from an older placement restart from their AGENT start (steering.wgsl `countCells`). */
function restartPlaced(v: Views, handles: number): void {
  for (let h = 0; h < handles; h++) {
    const a = h * A, s = h * S;
    if (!(v.au[a + AGENT.flags / 4] & AGENT_ACTIVE) || v.su[s + 5] === v.au[a + AGENT.epoch / 4]) continue;
    v.sf[s] = v.af[a + AGENT.startX / 4]; v.sf[s + 1] = v.af[a + AGENT.startZ / 4];
    v.sf[s + 2] = 0; v.sf[s + 3] = 0;
    v.sf[s + 4] = v.af[a + AGENT.startHeading / 4];
    v.su[s + 5] = v.au[a + AGENT.epoch / 4];
  }
}
