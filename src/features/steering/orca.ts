/**
 * ORCA (optimal reciprocal collision avoidance; van den Berg, Guy, Lin, Manocha, "Reciprocal
 * n-body collision avoidance", 2011) for one agent: the half-planes of permitted velocities that
 * its neighbours and nearby obstacle segments impose, and the small linear program that picks the
 * permitted velocity closest to the preferred one. The algorithm is RVO2's (Agent.cpp:
 * computeNewVelocity, linearProgram1/2/3), written here as pure functions over flat arrays, the
 * TypeScript twin of shaders/steering/steering.wgsl (same order of operations, same branches).
 * A line is (point x, point z, direction x, direction z); the permitted side is to its left:
 * det(direction, v - point) <= 0. Vectors are (x, z) with det(a, b) = a.x b.z - a.z b.x.
 */

import { MAX_NEIGHBOURS, MAX_OBSTACLE_LINES } from './layout';

/** Numbers per line: point (x, z), direction (x, z). */
const LINE = 4;
/** The most lines of one agent's program. */
export const MAX_LINES = MAX_NEIGHBOURS + MAX_OBSTACLE_LINES;
/** RVO2's RVO_EPSILON: lines closer to parallel than this are treated as parallel. */
export const ORCA_EPSILON = 0.00001;

const det = (ax: number, az: number, bx: number, bz: number): number => ax * bz - az * bx;

/** Scratch of one agent's program (reused: nothing allocates per agent). */
export class OrcaScratch {
  readonly lines = new Float64Array(MAX_LINES * LINE);
  readonly projected = new Float64Array(MAX_LINES * LINE);
  lineCount = 0;
  obstacleLineCount = 0;
  /** The program's answer: (x, z). */
  readonly result = new Float64Array(2);

  push(px: number, pz: number, dx: number, dz: number): void {
    if (this.lineCount >= MAX_LINES) return;
    const o = this.lineCount++ * LINE;
    this.lines[o] = px; this.lines[o + 1] = pz; this.lines[o + 2] = dx; this.lines[o + 3] = dz;
  }
}

/**
 * The best point on line `n` of `lines` inside the speed circle `radius` and left of lines
 * 0..n-1 into `result`: closest to `opt`, or (directionOpt) farthest along the unit direction
 * `opt`. False when no point of the line qualifies (result untouched).
 */
function linearProgram1(lines: Float64Array, n: number, radius: number, optX: number, optZ: number, directionOpt: boolean, result: Float64Array): boolean {
  const o = n * LINE;
  const px = lines[o], pz = lines[o + 1], dx = lines[o + 2], dz = lines[o + 3];
  const dot = px * dx + pz * dz;
  const discriminant = dot * dot + radius * radius - (px * px + pz * pz);
  if (discriminant < 0) return false; // the speed circle misses the line
  const root = Math.sqrt(discriminant);
  let tLeft = -dot - root;
  let tRight = -dot + root;
  for (let i = 0; i < n; i++) {
    const q = i * LINE;
    const denominator = det(dx, dz, lines[q + 2], lines[q + 3]);
    const numerator = det(lines[q + 2], lines[q + 3], px - lines[q], pz - lines[q + 1]);
    if (Math.abs(denominator) <= ORCA_EPSILON) {
      if (numerator < 0) return false; // parallel, and line n lies wholly on i's forbidden side
      continue;
    }
    const t = numerator / denominator;
    if (denominator >= 0) tRight = Math.min(tRight, t);
    else tLeft = Math.max(tLeft, t);
    if (tLeft > tRight) return false;
  }
  let t: number;
  if (directionOpt) t = optX * dx + optZ * dz > 0 ? tRight : tLeft;
  else t = Math.min(Math.max(dx * (optX - px) + dz * (optZ - pz), tLeft), tRight);
  result[0] = px + t * dx;
  result[1] = pz + t * dz;
  return true;
}

/**
 * The 2D program over lines [0, count): the permitted velocity within `radius` closest to `opt`
 * (or farthest along the unit direction `opt`) into `result`. Returns `count` on success, else the
 * index of the first line it could not satisfy (result then holds the best before it).
 */
export function linearProgram2(lines: Float64Array, count: number, radius: number, optX: number, optZ: number, directionOpt: boolean, result: Float64Array): number {
  if (directionOpt) {
    result[0] = optX * radius; result[1] = optZ * radius;
  } else if (optX * optX + optZ * optZ > radius * radius) {
    const length = Math.hypot(optX, optZ);
    result[0] = (optX / length) * radius; result[1] = (optZ / length) * radius;
  } else {
    result[0] = optX; result[1] = optZ;
  }
  for (let i = 0; i < count; i++) {
    const o = i * LINE;
    if (det(lines[o + 2], lines[o + 3], lines[o] - result[0], lines[o + 1] - result[1]) > 0) {
      const keepX = result[0], keepZ = result[1];
      if (!linearProgram1(lines, i, radius, optX, optZ, directionOpt, result)) {
        result[0] = keepX; result[1] = keepZ;
        return i;
      }
    }
  }
  return count;
}

/**
 * The 3D fallback when the 2D program is infeasible (a crowd pressed too close): the velocity that
 * least violates the agent lines from `begin` on (minimising the largest penetration), obstacle
 * lines [0, obstacleLines) kept hard. Works in `scratch.projected`; `result` holds the 2D answer in.
 */
export function linearProgram3(scratch: OrcaScratch, begin: number, radius: number, result: Float64Array): void {
  const { lines, projected, lineCount, obstacleLineCount } = scratch;
  let distance = 0;
  for (let i = begin; i < lineCount; i++) {
    const o = i * LINE;
    const px = lines[o], pz = lines[o + 1], dx = lines[o + 2], dz = lines[o + 3];
    if (det(dx, dz, px - result[0], pz - result[1]) <= distance) continue;
    // The obstacle lines stay; each agent line before i becomes the bisector of it and line i.
    projected.set(lines.subarray(0, obstacleLineCount * LINE));
    let count = obstacleLineCount;
    for (let j = obstacleLineCount; j < i; j++) {
      const q = j * LINE;
      const jdx = lines[q + 2], jdz = lines[q + 3];
      const determinant = det(dx, dz, jdx, jdz);
      let pointX: number, pointZ: number;
      if (Math.abs(determinant) <= ORCA_EPSILON) {
        if (dx * jdx + dz * jdz > 0) continue; // parallel, same way: j adds nothing
        pointX = 0.5 * (px + lines[q]); pointZ = 0.5 * (pz + lines[q + 1]);
      } else {
        const s = det(jdx, jdz, px - lines[q], pz - lines[q + 1]) / determinant;
        pointX = px + s * dx; pointZ = pz + s * dz;
      }
      let bx = jdx - dx, bz = jdz - dz;
      const length = Math.hypot(bx, bz);
      bx /= length; bz /= length;
      const p = count++ * LINE;
      projected[p] = pointX; projected[p + 1] = pointZ; projected[p + 2] = bx; projected[p + 3] = bz;
    }
    const keepX = result[0], keepZ = result[1];
    if (linearProgram2(projected, count, radius, -dz, dx, true, result) < count) {
      // In exact arithmetic the previous result is feasible here; a float slip keeps it.
      result[0] = keepX; result[1] = keepZ;
    }
    distance = det(dx, dz, px - result[0], pz - result[1]);
  }
}

/** The agent as its program sees it. */
export interface OrcaAgent {
  x: number; z: number; vx: number; vz: number; radius: number;
}

/**
 * Adds the ORCA line of neighbour (ox, oz) moving (ovx, ovz) with radius `otherRadius`: each
 * agent takes half the change that keeps them apart for `timeHorizon` seconds (already
 * overlapping: apart within one step `dt`). `firstOfPair`: this agent's handle is below the
 * neighbour's; it only matters for two agents on one spot with one velocity (RVO2 divides by zero
 * there), who then part along x, the lower handle toward +x and the other toward -x.
 */
export function addAgentLine(scratch: OrcaScratch, a: OrcaAgent, ox: number, oz: number, ovx: number, ovz: number, otherRadius: number, timeHorizon: number, dt: number, firstOfPair: boolean): void {
  const rx = ox - a.x, rz = oz - a.z;
  const vx = a.vx - ovx, vz = a.vz - ovz;
  const distSq = rx * rx + rz * rz;
  const combined = a.radius + otherRadius;
  const combinedSq = combined * combined;
  let dirX: number, dirZ: number, ux: number, uz: number;
  if (distSq > combinedSq) {
    const inv = 1 / timeHorizon;
    const wx = vx - inv * rx, wz = vz - inv * rz; // from the cut-off circle's centre to the relative velocity
    const wLengthSq = wx * wx + wz * wz;
    const dot1 = wx * rx + wz * rz;
    if (dot1 < 0 && dot1 * dot1 > combinedSq * wLengthSq) {
      // Nearest the cut-off circle.
      const wLength = Math.sqrt(wLengthSq);
      const unitX = wx / wLength, unitZ = wz / wLength;
      dirX = unitZ; dirZ = -unitX;
      ux = (combined * inv - wLength) * unitX; uz = (combined * inv - wLength) * unitZ;
    } else {
      // Nearest a leg of the cone.
      const leg = Math.sqrt(distSq - combinedSq);
      if (det(rx, rz, wx, wz) > 0) {
        dirX = (rx * leg - rz * combined) / distSq; dirZ = (rx * combined + rz * leg) / distSq;
      } else {
        dirX = -(rx * leg + rz * combined) / distSq; dirZ = -(-rx * combined + rz * leg) / distSq;
      }
      const dot2 = vx * dirX + vz * dirZ;
      ux = dot2 * dirX - vx; uz = dot2 * dirZ - vz;
    }
  } else {
    // Overlapping: get apart within this step.
    const inv = 1 / dt;
    const wx = vx - inv * rx, wz = vz - inv * rz;
    const wLength = Math.hypot(wx, wz);
    const [unitX, unitZ] = wLength > 0 ? [wx / wLength, wz / wLength] : [firstOfPair ? 1 : -1, 0];
    dirX = unitZ; dirZ = -unitX;
    ux = (combined * inv - wLength) * unitX; uz = (combined * inv - wLength) * unitZ;
  }
  scratch.push(a.vx + 0.5 * ux, a.vz + 0.5 * uz, dirX, dirZ);
}

/** Obstacle vertices as steering keeps them (OBSTACLE_VERTEX records read into numbers). */
export interface ObstacleVertices {
  x(i: number): number; z(i: number): number; dx(i: number): number; dz(i: number): number;
  next(i: number): number; previous(i: number): number; convex(i: number): boolean;
}

/** Whether the obstacle segment from vertex `v1` to `v2` is already excluded by the lines so far. */
function covered(scratch: OrcaScratch, r1x: number, r1z: number, r2x: number, r2z: number, inv: number, radius: number): boolean {
  const { lines } = scratch;
  for (let j = 0; j < scratch.lineCount; j++) {
    const o = j * LINE;
    const a = det(inv * r1x - lines[o], inv * r1z - lines[o + 1], lines[o + 2], lines[o + 3]) - inv * radius;
    const b = det(inv * r2x - lines[o], inv * r2z - lines[o + 1], lines[o + 2], lines[o + 3]) - inv * radius;
    if (a >= -ORCA_EPSILON && b >= -ORCA_EPSILON) return true;
  }
  return false;
}

/**
 * Adds the ORCA line of the obstacle segment starting at vertex `first` (RVO2's obstacle case:
 * touching a vertex or the segment, seen obliquely, or the usual cone of two legs and a cut-off
 * line, with legs that would point into the polygon replaced by its neighbouring edge).
 */
export function addObstacleLine(scratch: OrcaScratch, a: OrcaAgent, o: ObstacleVertices, first: number, timeHorizon: number): void {
  const inv = 1 / timeHorizon;
  const radius = a.radius;
  let v1 = first;
  let v2 = o.next(first);
  const r1x = o.x(v1) - a.x, r1z = o.z(v1) - a.z;
  const r2x = o.x(v2) - a.x, r2z = o.z(v2) - a.z;
  if (covered(scratch, r1x, r1z, r2x, r2z, inv, radius)) return;
  const distSq1 = r1x * r1x + r1z * r1z;
  const distSq2 = r2x * r2x + r2z * r2z;
  const radiusSq = radius * radius;
  const segX = o.x(v2) - o.x(v1), segZ = o.z(v2) - o.z(v1);
  const s = (-r1x * segX - r1z * segZ) / (segX * segX + segZ * segZ);
  const lineX = -r1x - s * segX, lineZ = -r1z - s * segZ;
  const distSqLine = lineX * lineX + lineZ * lineZ;

  // Touching: a vertex or the segment itself.
  if (s < 0 && distSq1 <= radiusSq) {
    if (o.convex(v1)) { const l = Math.sqrt(distSq1); scratch.push(0, 0, -r1z / l, r1x / l); }
    return;
  }
  if (s > 1 && distSq2 <= radiusSq) {
    if (o.convex(v2) && det(r2x, r2z, o.dx(v2), o.dz(v2)) >= 0) { const l = Math.sqrt(distSq2); scratch.push(0, 0, -r2z / l, r2x / l); }
    return;
  }
  if (s >= 0 && s < 1 && distSqLine <= radiusSq) {
    scratch.push(0, 0, -o.dx(v1), -o.dz(v1));
    return;
  }

  // The legs of the cone (both from one vertex when seen obliquely).
  let leftX: number, leftZ: number, rightX: number, rightZ: number;
  if (s < 0 && distSqLine <= radiusSq) {
    if (!o.convex(v1)) return;
    v2 = v1;
    const leg = Math.sqrt(distSq1 - radiusSq);
    leftX = (r1x * leg - r1z * radius) / distSq1; leftZ = (r1x * radius + r1z * leg) / distSq1;
    rightX = (r1x * leg + r1z * radius) / distSq1; rightZ = (-r1x * radius + r1z * leg) / distSq1;
  } else if (s > 1 && distSqLine <= radiusSq) {
    if (!o.convex(v2)) return;
    v1 = v2;
    const leg = Math.sqrt(distSq2 - radiusSq);
    leftX = (r2x * leg - r2z * radius) / distSq2; leftZ = (r2x * radius + r2z * leg) / distSq2;
    rightX = (r2x * leg + r2z * radius) / distSq2; rightZ = (-r2x * radius + r2z * leg) / distSq2;
  } else {
    if (o.convex(v1)) {
      const leg = Math.sqrt(distSq1 - radiusSq);
      leftX = (r1x * leg - r1z * radius) / distSq1; leftZ = (r1x * radius + r1z * leg) / distSq1;
    } else {
      leftX = -o.dx(v1); leftZ = -o.dz(v1);
    }
    if (o.convex(v2)) {
      const leg = Math.sqrt(distSq2 - radiusSq);
      rightX = (r2x * leg + r2z * radius) / distSq2; rightZ = (-r2x * radius + r2z * leg) / distSq2;
    } else {
      rightX = o.dx(v1); rightZ = o.dz(v1);
    }
  }
  // A leg pointing into the polygon is replaced by the neighbouring edge ("foreign"): no line then.
  const before = o.previous(v1);
  let leftForeign = false, rightForeign = false;
  if (o.convex(v1) && det(leftX, leftZ, -o.dx(before), -o.dz(before)) >= 0) {
    leftX = -o.dx(before); leftZ = -o.dz(before); leftForeign = true;
  }
  if (o.convex(v2) && det(rightX, rightZ, o.dx(v2), o.dz(v2)) <= 0) {
    rightX = o.dx(v2); rightZ = o.dz(v2); rightForeign = true;
  }
  const leftCutX = inv * (o.x(v1) - a.x), leftCutZ = inv * (o.z(v1) - a.z);
  const rightCutX = inv * (o.x(v2) - a.x), rightCutZ = inv * (o.z(v2) - a.z);
  const cutX = rightCutX - leftCutX, cutZ = rightCutZ - leftCutZ;
  const same = v1 === v2;
  const t = same ? 0.5 : ((a.vx - leftCutX) * cutX + (a.vz - leftCutZ) * cutZ) / (cutX * cutX + cutZ * cutZ);
  const tLeft = (a.vx - leftCutX) * leftX + (a.vz - leftCutZ) * leftZ;
  const tRight = (a.vx - rightCutX) * rightX + (a.vz - rightCutZ) * rightZ;

  // Nearest a cut-off circle.
  if ((t < 0 && tLeft < 0) || (same && tLeft < 0 && tRight < 0)) {
    const wx = a.vx - leftCutX, wz = a.vz - leftCutZ, l = Math.hypot(wx, wz);
    scratch.push(leftCutX + (radius * inv * wx) / l, leftCutZ + (radius * inv * wz) / l, wz / l, -wx / l);
    return;
  }
  if (t > 1 && tRight < 0) {
    const wx = a.vx - rightCutX, wz = a.vz - rightCutZ, l = Math.hypot(wx, wz);
    scratch.push(rightCutX + (radius * inv * wx) / l, rightCutZ + (radius * inv * wz) / l, wz / l, -wx / l);
    return;
  }
  // Nearest the cut-off line, the left leg or the right leg.
  const sq = (x: number, z: number): number => x * x + z * z;
  const distCut = t < 0 || t > 1 || same ? Infinity : sq(a.vx - (leftCutX + t * cutX), a.vz - (leftCutZ + t * cutZ));
  const distLeft = tLeft < 0 ? Infinity : sq(a.vx - (leftCutX + tLeft * leftX), a.vz - (leftCutZ + tLeft * leftZ));
  const distRight = tRight < 0 ? Infinity : sq(a.vx - (rightCutX + tRight * rightX), a.vz - (rightCutZ + tRight * rightZ));
  if (distCut <= distLeft && distCut <= distRight) {
    const dx = -o.dx(v1), dz = -o.dz(v1);
    scratch.push(leftCutX + radius * inv * -dz, leftCutZ + radius * inv * dx, dx, dz);
  } else if (distLeft <= distRight) {
    if (leftForeign) return;
    scratch.push(leftCutX + radius * inv * -leftZ, leftCutZ + radius * inv * leftX, leftX, leftZ);
  } else {
    if (rightForeign) return;
    const dx = -rightX, dz = -rightZ;
    scratch.push(rightCutX + radius * inv * -dz, rightCutZ + radius * inv * dx, dx, dz);
  }
}

/** Squared distance from (px, pz) to the segment (ax, az)-(bx, bz). */
export function distSqToSegment(ax: number, az: number, bx: number, bz: number, px: number, pz: number): number {
  const sx = bx - ax, sz = bz - az;
  const r = ((px - ax) * sx + (pz - az) * sz) / (sx * sx + sz * sz);
  const t = r < 0 ? 0 : r > 1 ? 1 : r;
  const dx = px - (ax + t * sx), dz = pz - (az + t * sz);
  return dx * dx + dz * dz;
}
