/**
 * The TypeScript twin of the steering step's position projection (steering.wgsl `gatherAgents`,
 * `projectAgents`, `placeAgents`), after the move: Jacobi iterations in which every overlapping
 * pair is pushed apart along its centre line, half each, to SEPARATION_MARGIN x the sum of their
 * radii, then every agent is pushed out of the obstacle segments it is outside of (hard: last in
 * each iteration). An iteration reads the positions the one before wrote and writes new ones, so
 * the result does not depend on the order agents are visited in (the GPU's threads). Positions
 * stay in float32 between iterations, as in the GPU's buffers. Then each agent's velocity becomes
 * its displacement over the step (the move's velocity plus the projection's push / dt).
 */

import { AGENT, AGENT_ACTIVE, AGENT_STATE, OBSTACLE_VERTEX, SEPARATION_MARGIN, STEERING_PARAMS } from './layout';
import type { SteeringBuffers, SteeringGrid } from './step';
import { bucketOf, cellCoordinate } from './step';

const A = AGENT.size / 4, S = AGENT_STATE.size / 4, O = OBSTACLE_VERTEX.size / 4;
const MARGIN = Math.fround(SEPARATION_MARGIN);

/**
 * Projects the agents' positions in `buffers.states` (after this step's move) `iterations` times,
 * finding pairs in `grid` (built from the positions before the move), and adds the push / dt to
 * their velocities. Facings are left as the move turned them. Nothing moves when dt <= 0 or
 * iterations is 0.
 */
export function projectPositions(buffers: SteeringBuffers, grid: SteeringGrid, iterations: number): void {
  const params = new DataView(buffers.params);
  const handles = params.getUint32(STEERING_PARAMS.handleCount, true);
  const dt = params.getFloat32(STEERING_PARAMS.dt, true);
  if (!(dt > 0) || iterations <= 0) return;
  const af = new Float32Array(buffers.agents), au = new Uint32Array(buffers.agents);
  const sf = new Float32Array(buffers.states);
  // gatherAgents: (x, z, radius, 0) per handle; radius 0 for a handle that is no agent.
  let source = new Float32Array(handles * 4), target = new Float32Array(handles * 4);
  for (let h = 0; h < handles; h++) {
    if (!(au[h * A + AGENT.flags / 4] & AGENT_ACTIVE)) continue;
    source[h * 4] = sf[h * S]; source[h * 4 + 1] = sf[h * S + 1]; source[h * 4 + 2] = af[h * A + AGENT.radius / 4];
  }
  for (let k = 0; k < iterations; k++) {
    for (let h = 0; h < handles; h++) projectAgent(params, buffers.obstacles, grid, source, target, h);
    [source, target] = [target, source];
  }
  // placeAgents
  for (let h = 0; h < handles; h++) {
    if (!(source[h * 4 + 2] > 0)) continue;
    const x = source[h * 4], z = source[h * 4 + 1];
    sf[h * S + 2] += (x - sf[h * S]) / dt; sf[h * S + 3] += (z - sf[h * S + 1]) / dt;
    sf[h * S] = x; sf[h * S + 1] = z;
  }
}

/** One Jacobi update of agent `h`: reads `source`, writes its own entry of `target` (steering.wgsl `projectAgents`). */
function projectAgent(params: DataView, obstacleBytes: ArrayBuffer, grid: SteeringGrid, source: Float32Array, target: Float32Array, h: number): void {
  const radius = source[h * 4 + 2];
  target[h * 4 + 2] = radius;
  if (!(radius > 0)) return;
  const x = source[h * 4], z = source[h * 4 + 1];
  const cell = params.getFloat32(STEERING_PARAMS.cellSize, true), size = params.getUint32(STEERING_PARAMS.tableSize, true);
  const ix = cellCoordinate(x, cell), iz = cellCoordinate(z, cell);
  let px = 0, pz = 0;
  const seen: number[] = [];
  for (let k = 0; k < 9; k++) {
    const b = bucketOf(ix + (k % 3) - 1, iz + Math.floor(k / 3) - 1, size);
    if (seen.includes(b)) continue;
    seen.push(b);
    for (let i = grid.starts[b]; i < grid.starts[b + 1]; i++) {
      const j = grid.sorted[i];
      if (j === h) continue;
      const dx = source[j * 4] - x, dz = source[j * 4 + 1] - z;
      const apart = (radius + source[j * 4 + 2]) * MARGIN;
      const distSq = dx * dx + dz * dz;
      if (!(distSq < apart * apart)) continue;
      const distance = Math.sqrt(distSq);
      // Half the shortfall each, away from the other; two agents on one spot part along x, the lower handle to -x.
      const push = 0.5 * (apart - distance);
      if (distance > 1e-6 * apart) { px -= (push * dx) / distance; pz -= (push * dz) / distance; } else px += j > h ? -push : push;
    }
  }
  const p = pushOutOfObstacles(params, obstacleBytes, Math.fround(x + px), Math.fround(z + pz), radius);
  target[h * 4] = p[0]; target[h * 4 + 1] = p[1];
}

const pushed = new Float64Array(2);

/**
 * (x, z) moved out of every obstacle segment it is outside of (right of, polygons counter-clockwise)
 * and closer to than `radius`: to `radius` from the segment's nearest point, segment after segment
 * in vertex order (steering.wgsl `pushOutOfObstacles`).
 */
function pushOutOfObstacles(params: DataView, obstacleBytes: ArrayBuffer, x: number, z: number, radius: number): Float64Array {
  const f = new Float32Array(obstacleBytes), u = new Uint32Array(obstacleBytes);
  const vertices = params.getUint32(STEERING_PARAMS.vertexCount, true);
  for (let i = 0; i < vertices; i++) {
    const n = u[i * O + OBSTACLE_VERTEX.next / 4];
    const ax = f[i * O], az = f[i * O + 1], sx = f[n * O] - ax, sz = f[n * O + 1] - az;
    if (sx * (z - az) - sz * (x - ax) >= 0) continue;
    const t = Math.max(0, Math.min(1, ((x - ax) * sx + (z - az) * sz) / (sx * sx + sz * sz)));
    const qx = ax + t * sx, qz = az + t * sz;
    const dx = x - qx, dz = z - qz;
    const distSq = dx * dx + dz * dz;
    if (!(distSq < radius * radius)) continue;
    // Strictly right of the segment's line, so distance > 0: out along (x, z) - nearest point.
    const distance = Math.sqrt(distSq);
    x = qx + (dx / distance) * radius; z = qz + (dz / distance) * radius;
  }
  pushed[0] = Math.fround(x); pushed[1] = Math.fround(z);
  return pushed;
}
