import { CpuPoser } from '../../anim/evaluate';
import { sampleLut } from '../../anim/lut';
import type { Character } from '../../character/character';
import type { InstanceId } from '../../runtime/crowd-types';
import type { InstanceStore } from '../../runtime/instance-store';
import { LAYERS_NONE } from '../../runtime/layout';
import type { PickRay } from './ray';

/** One instance a ray crosses on its CPU-posed mesh: its nearest triangle. */
export interface RaycastHit {
  /** The instance, as Crowd.add returned it. */
  id: InstanceId;
  /** Distance from the ray's origin to the hit, world units. */
  distance: number;
  /** The hit point in world space: origin + unit direction x distance. */
  point: [number, number, number];
  /** The triangle hit: its index in the character's triangles, primitive after primitive (level 0 of the mesh LODs). */
  faceIndex: number;
  /** Which of Character.rig.primitives the triangle belongs to. */
  primitive: number;
  /** Its three vertex indices within that primitive. */
  vertices: [number, number, number];
  /** The posed triangle's unit normal in world space (counter-clockwise front, as glTF winds it). */
  normal: [number, number, number];
}

/** What CpuRaycaster reads of the crowd, each call (nothing is cached between calls but scratch). */
export interface RaycastSource {
  readonly character: Character;
  readonly store: InstanceStore;
  /** Crowd clock, seconds (the one the records' phases use). */
  readonly clock: number;
  /** The id of the instance in `slot`. */
  idOf(slot: number): InstanceId;
  /** Instance `id`'s model -> world matrix now, float64 column-major (root motion included), into `out`. */
  world(id: InstanceId, out: Float64Array): Float64Array;
}

/**
 * Synchronous picking on the CPU: the instances a ray crosses, hit against their posed mesh, for
 * callers that cannot wait a frame (three.js's Raycaster). Each instance whose reach box (every
 * pose a blend can make, CharacterBounds.reach) the ray crosses is posed with the CPU twin of the
 * pose pass (CpuPoser over the lookup tables, sampleLut: the numbers shaders/pose.wgsl reads) at
 * the clip times its record holds now, skinned linearly (src/anim/skinning.ts, the twin of
 * shaders/skin.wgsl), and its triangles are intersected (both faces, as the GPU pick's pass).
 * Only *plain* instances (a clip A / clip B blend) are posed: instances with a layer stack
 * (setLayers, and every controller's, whose stacks may be written on the GPU) have no CPU twin of
 * their pose here and are counted in `skipped`; CrowdPicking.pick answers them from the GPU.
 * Morph targets are not applied (the unmorphed mesh is hit) and dual-quaternion skinning is
 * approximated by linear skinning. Costs one pose and one skin per candidate instance.
 */
export class CpuRaycaster {
  private readonly poser: CpuPoser;
  private readonly world = new Float64Array(16);
  private readonly inverse = new Float64Array(16);
  private readonly local = { origin: new Float64Array(3), direction: new Float64Array(3) };
  /** Instances the last raycast left out because they have a layer stack. */
  skipped = 0;

  constructor(private readonly source: RaycastSource) {
    const { rig, baked } = source.character;
    this.poser = new CpuPoser(rig, (clip, time, out) => sampleLut(baked, clip, time, out));
  }

  /** Every plain instance `ray` hits within ray.maxDistance, nearest first, one hit (its nearest triangle) per instance. */
  raycast(ray: PickRay): RaycastHit[] {
    const { store, character, clock } = this.source;
    const records = store.records;
    const reach = character.animationBounds.reach;
    const hits: RaycastHit[] = [];
    this.skipped = 0;
    for (let slot = 0; slot < store.count; slot++) {
      const id = this.source.idOf(slot);
      if (records.layerStack(slot) !== LAYERS_NONE) {
        this.skipped++;
        continue;
      }
      const world = this.source.world(id, this.world);
      if (!invert(world, this.inverse)) continue; // a collapsed transform draws nothing
      const { origin, direction } = this.local;
      transformPoint(this.inverse, ray.origin, origin);
      transformDirection(this.inverse, ray.direction, direction);
      // The model-space ray keeps the world's parameter: t in model space is the world distance.
      if (!crossesBox(origin, direction, reach, ray.maxDistance)) continue;
      this.poser.evaluate({
        clipA: records.clip(slot, 0), timeA: records.clipTime(slot, 0, clock),
        clipB: records.clip(slot, 1), timeB: records.clipTime(slot, 1, clock), blend: records.blend(slot),
      });
      const hit = this.nearestTriangle(origin, direction, ray.maxDistance);
      if (!hit) continue;
      const d = hit.t, n = hit.normal, m = this.inverse;
      // Normals go by the inverse transpose: world n_i = sum_k inverse(k, i) n_k.
      const normal: [number, number, number] = [0, 1, 2].map((i) => m[i * 4] * n[0] + m[i * 4 + 1] * n[1] + m[i * 4 + 2] * n[2]) as [number, number, number];
      const length = Math.hypot(normal[0], normal[1], normal[2]) || 1;
      hits.push({
        id, distance: d, faceIndex: hit.face, primitive: hit.primitive, vertices: hit.vertices,
        normal: [normal[0] / length, normal[1] / length, normal[2] / length],
        point: [ray.origin[0] + ray.direction[0] * d, ray.origin[1] + ray.direction[1] * d, ray.origin[2] + ray.direction[2] * d],
      });
    }
    return hits.sort((a, b) => a.distance - b.distance);
  }

  /** The nearest triangle of the posed mesh along the model-space ray, t in (0, maxDistance]. */
  private nearestTriangle(origin: Float64Array, direction: Float64Array, maxDistance: number) {
    const primitives = this.source.character.rig.primitives;
    const positions = this.poser.positions(primitives);
    let best: { t: number; face: number; primitive: number; vertices: [number, number, number]; normal: number[] } | undefined;
    let base = 0, face = 0;
    for (let p = 0; p < primitives.length; p++) {
      const prim = primitives[p];
      const triangles = prim.indices ? prim.indices.length / 3 : prim.vertexCount / 3;
      for (let f = 0; f < triangles; f++, face++) {
        const a = prim.indices ? prim.indices[f * 3] : f * 3;
        const b = prim.indices ? prim.indices[f * 3 + 1] : f * 3 + 1;
        const c = prim.indices ? prim.indices[f * 3 + 2] : f * 3 + 2;
        const t = intersectTriangle(origin, direction, positions, (base + a) * 3, (base + b) * 3, (base + c) * 3);
        if (t > 0 && t <= maxDistance && (!best || t < best.t)) best = { t, face, primitive: p, vertices: [a, b, c], normal: triangleNormal(positions, (base + a) * 3, (base + b) * 3, (base + c) * 3) };
      }
      base += prim.vertexCount;
    }
    return best;
  }
}

/** Möller-Trumbore, both faces: the ray parameter of the hit, or -1. */
export function intersectTriangle(o: ArrayLike<number>, d: ArrayLike<number>, v: ArrayLike<number>, ia: number, ib: number, ic: number): number {
  const e1x = v[ib] - v[ia], e1y = v[ib + 1] - v[ia + 1], e1z = v[ib + 2] - v[ia + 2];
  const e2x = v[ic] - v[ia], e2y = v[ic + 1] - v[ia + 1], e2z = v[ic + 2] - v[ia + 2];
  const px = d[1] * e2z - d[2] * e2y, py = d[2] * e2x - d[0] * e2z, pz = d[0] * e2y - d[1] * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  if (Math.abs(det) < 1e-300) return -1;
  const inv = 1 / det;
  const sx = o[0] - v[ia], sy = o[1] - v[ia + 1], sz = o[2] - v[ia + 2];
  const u = (sx * px + sy * py + sz * pz) * inv;
  if (u < 0 || u > 1) return -1;
  const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
  const w = (d[0] * qx + d[1] * qy + d[2] * qz) * inv;
  if (w < 0 || u + w > 1) return -1;
  return (e2x * qx + e2y * qy + e2z * qz) * inv;
}

/** (b - a) x (c - a), unnormalised, of the triangle at float offsets ia, ib, ic of `v`. */
function triangleNormal(v: ArrayLike<number>, ia: number, ib: number, ic: number): number[] {
  const e1x = v[ib] - v[ia], e1y = v[ib + 1] - v[ia + 1], e1z = v[ib + 2] - v[ia + 2];
  const e2x = v[ic] - v[ia], e2y = v[ic + 1] - v[ia + 1], e2z = v[ic + 2] - v[ia + 2];
  return [e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x];
}

/** Whether the ray o + t d, t in [0, maxDistance], crosses box (min x, y, z, max x, y, z). */
function crossesBox(o: Float64Array, d: Float64Array, box: ArrayLike<number>, maxDistance: number): boolean {
  let near = 0, far = maxDistance;
  for (let i = 0; i < 3; i++) {
    if (d[i] === 0) {
      if (o[i] < box[i] || o[i] > box[i + 3]) return false;
      continue;
    }
    let t0 = (box[i] - o[i]) / d[i], t1 = (box[i + 3] - o[i]) / d[i];
    if (t0 > t1) [t0, t1] = [t1, t0];
    near = Math.max(near, t0);
    far = Math.min(far, t1);
    if (near > far) return false;
  }
  return true;
}

function transformPoint(m: Float64Array, p: ArrayLike<number>, out: Float64Array): void {
  const x = p[0], y = p[1], z = p[2];
  out[0] = m[0] * x + m[4] * y + m[8] * z + m[12];
  out[1] = m[1] * x + m[5] * y + m[9] * z + m[13];
  out[2] = m[2] * x + m[6] * y + m[10] * z + m[14];
}

function transformDirection(m: Float64Array, p: ArrayLike<number>, out: Float64Array): void {
  const x = p[0], y = p[1], z = p[2];
  out[0] = m[0] * x + m[4] * y + m[8] * z;
  out[1] = m[1] * x + m[5] * y + m[9] * z;
  out[2] = m[2] * x + m[6] * y + m[10] * z;
}

/** Inverse of an affine column-major 4x4 into `out`; false when it is singular. */
function invert(m: Float64Array, out: Float64Array): boolean {
  const a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-300) return false;
  const s = 1 / det;
  out[0] = A * s; out[4] = (c * h - b * i) * s; out[8] = (b * f - c * e) * s;
  out[1] = B * s; out[5] = (a * i - c * g) * s; out[9] = (c * d - a * f) * s;
  out[2] = C * s; out[6] = (b * g - a * h) * s; out[10] = (a * e - b * d) * s;
  out[3] = 0; out[7] = 0; out[11] = 0; out[15] = 1;
  const tx = m[12], ty = m[13], tz = m[14];
  out[12] = -(out[0] * tx + out[4] * ty + out[8] * tz);
  out[13] = -(out[1] * tx + out[5] * ty + out[9] * tz);
  out[14] = -(out[2] * tx + out[6] * ty + out[10] * tz);
  return true;
}
