import { composeTrsAt, multiplyAt } from '../math/affine';
import { quatMulAt } from '../math/quat';
import type { ClipFile } from './clip-library';
import { check } from './errors';
import type { Channel, Clip, Rig } from './rig';

/**
 * Retargeting joint by joint, relative to each skeleton's rest (docs/clips.md): for clips bound by
 * name (no humanoid on one side, or a name map given), and for the nodes outside the humanoid
 * (tails, props) of clips bound as humanoids (retarget.ts).
 * - rotations: q' = restBody * conj(restFile) * q;
 * - the root's translation (the hips): the body's rest plus the file's motion from its rest,
 *   scaled by the ratio of hip heights; other translations are dropped;
 * - scales: s' = s * restBody / restFile.
 */

/** Relative tolerance under which two rest values are the same (float32 rounding of one file's numbers in another). */
export const REST_TOLERANCE = 1e-5;

function near(a: ArrayLike<number>, oa: number, b: ArrayLike<number>, ob: number, n: number, scale: number): boolean {
  for (let c = 0; c < n; c++) if (Math.abs(a[oa + c] - b[ob + c]) > REST_TOLERANCE * scale) return false;
  return true;
}

/** Whether any matched node's rest TRS differs between the file and the rig (rotations up to sign). */
export function restsDiffer(rig: Rig, file: ClipFile, remap: Int32Array): boolean {
  const r = rig.nodes;
  for (let n = 0; n < remap.length; n++) {
    const i = remap[n];
    if (i < 0) continue;
    const size = Math.max(1, Math.hypot(r.restTranslation[i * 3], r.restTranslation[i * 3 + 1], r.restTranslation[i * 3 + 2]));
    const dot = Math.abs(r.restRotation[i * 4] * file.restRotation[n * 4] + r.restRotation[i * 4 + 1] * file.restRotation[n * 4 + 1] +
      r.restRotation[i * 4 + 2] * file.restRotation[n * 4 + 2] + r.restRotation[i * 4 + 3] * file.restRotation[n * 4 + 3]);
    if (!near(r.restTranslation, i * 3, file.restTranslation, n * 3, 3, size) || 1 - dot > REST_TOLERANCE ||
      !near(r.restScale, i * 3, file.restScale, n * 3, 3, 1)) return true;
  }
  return false;
}

/** Model-space rest position of node `n` (parents from `parent`, TRS at n*3 / n*4). */
function restPosition(parent: Int32Array, t: Float64Array, r: Float64Array, s: Float64Array, n: number): [number, number, number] {
  const chain: number[] = [];
  for (let p = n; p >= 0; p = parent[p]) chain.unshift(p);
  let m = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
  const local = new Float64Array(16);
  const next = new Float64Array(16);
  for (const p of chain) {
    composeTrsAt(t, p * 3, r, p * 4, s, p * 3, local, 0);
    multiplyAt(m, 0, local, 0, next, 0);
    m = Float64Array.from(next);
  }
  return [m[12], m[13], m[14]];
}

/** Body hip height / file hip height: model-space rest y of the root in each (its distance from the origin where y is not positive). */
export function hipRatio(rig: Rig, file: ClipFile, fileRoot: number, rigRoot: number, warnings: string[]): number {
  const r = rig.nodes;
  const body = restPosition(r.parent, r.restTranslation, r.restRotation, r.restScale, rigRoot);
  const source = restPosition(file.parent, file.restTranslation, file.restRotation, file.restScale, fileRoot);
  const height = (p: number[]) => (p[1] > 1e-9 ? p[1] : Math.hypot(p[0], p[1], p[2]));
  const hb = height(body);
  const hf = height(source);
  if (!(hb > 1e-9 && hf > 1e-9)) {
    warnings.push(`clips file '${file.name}': root '${file.names[fileRoot]}' is at the origin in a rest pose, so its translation is not scaled`);
    return 1;
  }
  return hb / hf;
}

/** The clip's channels retargeted onto the rig (rules in the header); `root` is the rig node whose translation scales. */
export function retarget(rig: Rig, file: ClipFile, clip: Clip, remap: Int32Array, root: number, rootScale: number): Channel[] {
  const out: Channel[] = [];
  const r = rig.nodes;
  for (const ch of clip.channels) {
    const node = remap[ch.node];
    if (node < 0) continue;
    const cubic = ch.interpolation === 'CUBICSPLINE';
    const values = new Float32Array(ch.values.length);
    if (ch.path === 'rotation') {
      // C = restBody * conj(restFile), a constant: C * q is linear in q, so tangents transform alike.
      const c = new Float64Array(4);
      const q = new Float64Array(4);
      quatMulAt(r.restRotation, node * 4, false, conjugate(file.restRotation, ch.node * 4), 0, c, 0);
      for (let o = 0; o < values.length; o += 4) {
        quatMulAt(c, 0, false, ch.values, o, q, 0);
        values.set(q, o);
      }
    } else if (ch.path === 'translation') {
      if (node !== root) continue;
      for (let o = 0; o < values.length; o += 3) {
        // In a CUBICSPLINE key (in-tangent, value, out-tangent) only the value is offset by the rests.
        const isValue = !cubic || (o / 3) % 3 === 1;
        for (let k = 0; k < 3; k++) {
          const motion = ch.values[o + k] - (isValue ? file.restTranslation[ch.node * 3 + k] : 0);
          values[o + k] = (isValue ? r.restTranslation[node * 3 + k] : 0) + motion * rootScale;
        }
      }
    } else {
      for (let o = 0; o < values.length; o += 3) {
        for (let k = 0; k < 3; k++) {
          const from = file.restScale[ch.node * 3 + k];
          values[o + k] = from === 0 ? ch.values[o + k] : (ch.values[o + k] * r.restScale[node * 3 + k]) / from;
        }
      }
    }
    check(values.every(Number.isFinite), `clips file '${file.name}': clip '${clip.name}' ${ch.path} of '${file.names[ch.node]}' leaves the float range when retargeted`);
    out.push({ node, path: ch.path, interpolation: ch.interpolation, times: ch.times, values });
  }
  return out;
}

function conjugate(q: Float64Array, o: number): Float64Array {
  return Float64Array.of(-q[o], -q[o + 1], -q[o + 2], q[o + 3]);
}
