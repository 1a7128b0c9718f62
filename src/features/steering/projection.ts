/**
 * The TypeScript twin of the steering step's position projection (steering.wgsl: `steer`'s
 * contacts, then `gatherAgents`, `projectAgents`, `placeAgents` after the move). Before the move
 * each agent gathers its contacts: the MAX_CONTACTS nearest agents closer than CONTACT_RANGE x
 * their radii sum plus a step's travel, from the 3 x 3 cells of this step's grid, and whether an
 * obstacle segment is near. After it, Jacobi iterations: every contact closer than
 * SEPARATION_MARGIN x the radii sum pushes the agent away along their centre line by half the
 * shortfall (the contact takes the other half), then an agent near obstacles is pushed out of the
 * segments it is outside of (hard: last in each iteration). An iteration reads the positions the
 * one before wrote and writes new ones, so the result does not depend on the order agents are
 * visited in (the GPU's threads). Positions stay in float32 between iterations, as in the GPU's
 * buffers. Last, each agent's velocity becomes its displacement over the step (the move's velocity
 * plus the push / dt), cut to its maxSpeed.
 */

import { AGENT, AGENT_ACTIVE, AGENT_STATE, CONTACT_RANGE, CONTACT_WORDS, MAX_CONTACTS, NO_CONTACT, OBSTACLE_CONTACT_RANGE, OBSTACLE_VERTEX, SEPARATION_MARGIN, STEERING_PARAMS } from './layout';
import { MIN_DT, nearbyBuckets, type SteeringBuffers, type SteeringGrid } from './step';

const A = AGENT.size / 4, S = AGENT_STATE.size / 4, O = OBSTACLE_VERTEX.size / 4;
const MARGIN = Math.fround(SEPARATION_MARGIN), RANGE = Math.fround(CONTACT_RANGE), OBSTACLE_RANGE = Math.fround(OBSTACLE_CONTACT_RANGE);

/** Each agent's contact record (CONTACT_WORDS u32 by handle), as steer writes it: a near-obstacle flag, then its contacts. */
export type SteeringContacts = Uint32Array;

/**
 * The contacts of every agent from its position before the move (steering.wgsl `steer`,
 * `addContact`): 1 in word 0 when an obstacle segment it is outside of lies within
 * OBSTACLE_CONTACT_RANGE x its radius + maxSpeed x dt; then the MAX_CONTACTS nearest agents
 * within neighbourDistance that are closer than CONTACT_RANGE x their radii sum + (both maxSpeeds)
 * x dt, nearest first, found in `grid`'s 3 x 3 cells around it in the GPU's order; NO_CONTACT after.
 */
export function gatherContacts(buffers: SteeringBuffers, grid: SteeringGrid): SteeringContacts {
  const params = new DataView(buffers.params);
  const handles = params.getUint32(STEERING_PARAMS.handleCount, true);
  const dt = params.getFloat32(STEERING_PARAMS.dt, true);
  const af = new Float32Array(buffers.agents), au = new Uint32Array(buffers.agents), sf = new Float32Array(buffers.states);
  const obstacles = obstacleViews(buffers.obstacles);
  const cell = params.getFloat32(STEERING_PARAMS.cellSize, true), size = params.getUint32(STEERING_PARAMS.tableSize, true);
  const neighbourDistance = params.getFloat32(STEERING_PARAMS.neighbourDistance, true);
  const contacts = new Uint32Array(handles * CONTACT_WORDS).fill(NO_CONTACT);
  const dists = new Float64Array(MAX_CONTACTS);
  for (let h = 0; h < handles; h++) {
    if (!(au[h * A + AGENT.flags / 4] & AGENT_ACTIVE) || !(dt >= MIN_DT)) continue;
    const x = sf[h * S], z = sf[h * S + 1], radius = af[h * A + AGENT.radius / 4], maxSpeed = af[h * A + AGENT.maxSpeed / 4];
    contacts[h * CONTACT_WORDS] = nearObstacle(params, obstacles, x, z, OBSTACLE_RANGE * radius + maxSpeed * dt) ? 1 : 0;
    const ids = contacts.subarray(h * CONTACT_WORDS + 1, (h + 1) * CONTACT_WORDS);
    let count = 0;
    for (const b of nearbyBuckets(x, z, cell, size)) {
      for (let i = grid.starts[b]; i < grid.starts[b + 1]; i++) {
        const j = grid.sorted[i];
        if (j === h) continue;
        const dx = sf[j * S] - x, dz = sf[j * S + 1] - z;
        const d = dx * dx + dz * dz;
        if (!(d < neighbourDistance * neighbourDistance)) continue;
        const reach = (radius + af[j * A + AGENT.radius / 4]) * RANGE + (maxSpeed + af[j * A + AGENT.maxSpeed / 4]) * dt;
        if (!(d < reach * reach) || (count === MAX_CONTACTS && d >= dists[count - 1])) continue;
        if (count < MAX_CONTACTS) count++;
        let at = count - 1;
        while (at > 0 && d < dists[at - 1]) { dists[at] = dists[at - 1]; ids[at] = ids[at - 1]; at--; }
        dists[at] = d; ids[at] = j;
      }
    }
  }
  return contacts;
}

/**
 * Projects the agents' positions in `buffers.states` (after this step's move) `iterations` times
 * over `contacts` (gathered before the move), and adds the push / dt to their velocities (cut to
 * maxSpeed). Facings are left as the move turned them. Nothing moves when dt < MIN_STEP_DT or
 * iterations is 0.
 */
export function projectPositions(buffers: SteeringBuffers, contacts: SteeringContacts, iterations: number): void {
  const params = new DataView(buffers.params);
  const handles = params.getUint32(STEERING_PARAMS.handleCount, true);
  const dt = params.getFloat32(STEERING_PARAMS.dt, true);
  if (!(dt >= MIN_DT) || iterations <= 0) return;
  const af = new Float32Array(buffers.agents), au = new Uint32Array(buffers.agents);
  const sf = new Float32Array(buffers.states);
  const obstacles = obstacleViews(buffers.obstacles);
  // gatherAgents: (x, z, radius, near obstacles: 1 or 0) per handle; radius 0 for a handle that is no agent.
  let source = new Float32Array(handles * 4), target = new Float32Array(handles * 4);
  for (let h = 0; h < handles; h++) {
    if (!(au[h * A + AGENT.flags / 4] & AGENT_ACTIVE)) continue;
    source[h * 4] = sf[h * S]; source[h * 4 + 1] = sf[h * S + 1]; source[h * 4 + 2] = af[h * A + AGENT.radius / 4];
    source[h * 4 + 3] = contacts[h * CONTACT_WORDS];
  }
  for (let k = 0; k < iterations; k++) {
    for (let h = 0; h < handles; h++) projectAgent(params, obstacles, contacts, source, target, h);
    [source, target] = [target, source];
  }
  // placeAgents
  for (let h = 0; h < handles; h++) {
    if (!(source[h * 4 + 2] > 0)) continue;
    const x = source[h * 4], z = source[h * 4 + 1];
    // The step's displacement / dt, at most maxSpeed (a push apart in a short step would report hundreds of units a second).
    let vx = sf[h * S + 2] + (x - sf[h * S]) / dt, vz = sf[h * S + 3] + (z - sf[h * S + 1]) / dt;
    const speed = Math.hypot(vx, vz), maxSpeed = af[h * A + AGENT.maxSpeed / 4];
    if (speed > maxSpeed) { const cut = maxSpeed / speed; vx *= cut; vz *= cut; }
    sf[h * S + 2] = vx; sf[h * S + 3] = vz;
    sf[h * S] = x; sf[h * S + 1] = z;
  }
}

/** One Jacobi update of agent `h`: reads `source`, writes its own entry of `target` (steering.wgsl `projectAgents`). */
function projectAgent(params: DataView, obstacles: ObstacleViews, contacts: Uint32Array, source: Float32Array, target: Float32Array, h: number): void {
  const radius = source[h * 4 + 2];
  target[h * 4 + 2] = radius; target[h * 4 + 3] = source[h * 4 + 3];
  if (!(radius > 0)) return;
  const x = source[h * 4], z = source[h * 4 + 1];
  let px = 0, pz = 0;
  for (let k = 0; k < MAX_CONTACTS; k++) {
    const j = contacts[h * CONTACT_WORDS + 1 + k];
    if (j === NO_CONTACT) break;
    const dx = source[j * 4] - x, dz = source[j * 4 + 1] - z;
    const apart = (radius + source[j * 4 + 2]) * MARGIN;
    const distSq = dx * dx + dz * dz;
    if (!(distSq < apart * apart)) continue;
    const distance = Math.sqrt(distSq);
    // Half the shortfall each, away from the other; two agents on one spot part along x, the lower handle to -x.
    const push = 0.5 * (apart - distance);
    if (distance > 1e-6 * apart) { px -= (push * dx) / distance; pz -= (push * dz) / distance; } else px += j > h ? -push : push;
  }
  if (source[h * 4 + 3] > 0) {
    const p = pushOutOfObstacles(params, obstacles, Math.fround(x + px), Math.fround(z + pz), radius);
    target[h * 4] = p[0]; target[h * 4 + 1] = p[1];
  } else {
    target[h * 4] = x + px; target[h * 4 + 1] = z + pz;
  }
}

/** The OBSTACLE_VERTEX records as floats and words, made once a step (not per agent and iteration). */
interface ObstacleViews {
  readonly f: Float32Array;
  readonly u: Uint32Array;
}

function obstacleViews(obstacleBytes: ArrayBuffer): ObstacleViews {
  return { f: new Float32Array(obstacleBytes), u: new Uint32Array(obstacleBytes) };
}

const pushed = new Float64Array(2);
const nearest = new Float64Array(2);

/**
 * The squared distance from (x, z) to obstacle segment `i` (vertex i to its next) when (x, z) is
 * outside of it (right of it: polygons are counter-clockwise), its nearest point in `nearest`;
 * Infinity when (x, z) is on its inner side. steering.wgsl does the same in both of its uses.
 */
function outsideDistSq(f: Float32Array, u: Uint32Array, i: number, x: number, z: number): number {
  const n = u[i * O + OBSTACLE_VERTEX.next / 4];
  const ax = f[i * O], az = f[i * O + 1], sx = f[n * O] - ax, sz = f[n * O + 1] - az;
  if (sx * (z - az) - sz * (x - ax) >= 0) return Infinity;
  const t = Math.max(0, Math.min(1, ((x - ax) * sx + (z - az) * sz) / (sx * sx + sz * sz)));
  nearest[0] = ax + t * sx; nearest[1] = az + t * sz;
  return (x - nearest[0]) ** 2 + (z - nearest[1]) ** 2;
}

/** Whether a segment (x, z) is outside of (right of) lies closer than `reach` (steering.wgsl `steer`, its segment loop). */
function nearObstacle(params: DataView, { f, u }: ObstacleViews, x: number, z: number, reach: number): boolean {
  const vertices = params.getUint32(STEERING_PARAMS.vertexCount, true);
  for (let i = 0; i < vertices; i++) if (outsideDistSq(f, u, i, x, z) < reach * reach) return true;
  return false;
}

/**
 * (x, z) moved out of every obstacle segment it is outside of (right of, polygons counter-clockwise)
 * and closer to than `radius`: to `radius` from the segment's nearest point, segment after segment
 * in vertex order (steering.wgsl `pushOutOfObstacles`).
 */
function pushOutOfObstacles(params: DataView, { f, u }: ObstacleViews, x: number, z: number, radius: number): Float64Array {
  const vertices = params.getUint32(STEERING_PARAMS.vertexCount, true);
  for (let i = 0; i < vertices; i++) {
    const distSq = outsideDistSq(f, u, i, x, z);
    if (!(distSq < radius * radius)) continue;
    // Strictly right of the segment's line, so distance > 0: out along (x, z) - nearest point.
    const distance = Math.sqrt(distSq);
    const qx = nearest[0], qz = nearest[1];
    x = qx + ((x - qx) / distance) * radius; z = qz + ((z - qz) / distance) * radius;
  }
  pushed[0] = Math.fround(x); pushed[1] = Math.fround(z);
  return pushed;
}
