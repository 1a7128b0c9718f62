import { TRACK_INDEX_MASK, TRACK_NONE, type BakedModel } from './bake';
import type { Rig, SkinnedPrimitive } from './rig';
import { createPose, localToModel, type Pose } from '../math/pose';

/**
 * Bounds of a character without skinning a vertex at run time, made once at load time.
 *
 * 1. A sphere per joint slot, in joint space (the space of inverseBind * vertex), holding every
 *    vertex that has a weight > 0 on that joint. A skinned vertex is sum_i w_i M_i (IB_i v), a
 *    convex combination of points each inside its joint's posed sphere M_i * sphere_i, so any
 *    box holding the posed spheres holds the posed mesh.
 * 2. `box`: the model-space box around the posed joint spheres over every clip of the file at
 *    every baked table entry, and the rest pose (`clipBoxes` per clip). The tight "as authored"
 *    bound: cheap, and what camera framing and the shadow frustum use.
 * 3. `reach` / `reachLayered`: a model-space box that holds *every* pose the pose pass can make
 *    from the baked tables: any blend of any clips at any times, any override layers
 *    (`reach`), and additive layers too (`reachLayered`). A blend of two clips is not inside
 *    the clips' boxes (nlerp moves a limb along the arc between two swings, which can leave the
 *    box of both), so culling tests this one: culling must never remove a visible pixel.
 *    Derivation: a node whose rotation and scale no clip animates keeps its rest frame, so along
 *    chains of such nodes positions are boxes moved by known matrices; below the first animated
 *    frame, a node can be anywhere within (parent scale bound) x (largest |translation| it ever
 *    takes) of its parent. Table values interpolate linearly (rotations are normalised, so they
 *    keep lengths), so the largest values over the entries bound everything between them.
 *
 * Boxes are 6 numbers: min x, y, z, max x, y, z, in model units (the rig's scene space).
 */
/**
 * Joint-space bounding sphere of each joint slot's vertices: 4 numbers per slot, radius -1 when
 * unused. With morph targets, each vertex may move by up to `morphWeightLimit` times the sum of
 * its targets' displacement lengths (morphReach); the radius grows by that, through the inverse
 * bind matrix's largest stretch (bounded by its Frobenius norm).
 */
export function jointSpheres(rig: Rig, morphWeightLimit = 0): Float32Array {
  const slotOffset: number[] = [];
  let slots = 0;
  for (const skin of rig.skins) { slotOffset.push(slots); slots += skin.joints.length; }
  const lo = new Float64Array(slots * 3).fill(Infinity);
  const hi = new Float64Array(slots * 3).fill(-Infinity);
  const point = new Float64Array(3);
  // Two sweeps: the box of each joint's points gives the centre, then the farthest point (plus its morph reach) the radius.
  const sweep = (visit: (slot: number, p: Float64Array, reach: number) => void) => {
    for (const prim of rig.primitives) {
      const skin = rig.skins[prim.skin];
      const reach = morphWeightLimit > 0 && prim.morph ? morphReach(prim) : undefined;
      const stretch = reach && Float64Array.from({ length: skin.joints.length }, (_, j) => morphWeightLimit * linearNorm(skin.inverseBind, j * 16));
      for (let v = 0; v < prim.vertexCount; v++) {
        for (let k = 0; k < prim.influences; k++) {
          if (!(prim.weights[v * prim.influences + k] > 0)) continue;
          const joint = prim.joints[v * prim.influences + k];
          transformPoint(skin.inverseBind, joint * 16, prim.positions, v * 3, point);
          visit(slotOffset[prim.skin] + joint, point, stretch ? reach![v] * stretch[joint] : 0);
        }
      }
    }
  };
  sweep((slot, p) => {
    for (let c = 0; c < 3; c++) { lo[slot * 3 + c] = Math.min(lo[slot * 3 + c], p[c]); hi[slot * 3 + c] = Math.max(hi[slot * 3 + c], p[c]); }
  });
  const out = new Float32Array(slots * 4);
  for (let s = 0; s < slots; s++) {
    for (let c = 0; c < 3; c++) out[s * 4 + c] = lo[s * 3] <= hi[s * 3] ? (lo[s * 3 + c] + hi[s * 3 + c]) / 2 : 0;
    out[s * 4 + 3] = -1;
  }
  const radius = new Float64Array(slots).fill(-1);
  sweep((slot, p, reach) => {
    radius[slot] = Math.max(radius[slot], Math.hypot(p[0] - out[slot * 4], p[1] - out[slot * 4 + 1], p[2] - out[slot * 4 + 2]) + reach);
  });
  // Float32 centre rounding and the float32 skinning on the GPU: grow by a relative epsilon.
  for (let s = 0; s < slots; s++) if (radius[s] >= 0) out[s * 4 + 3] = radius[s] * (1 + 1e-6) + 1e-6 * Math.hypot(out[s * 4], out[s * 4 + 1], out[s * 4 + 2]);
  return out;
}

/** Per vertex of `prim`: the sum of its morph targets' displacement lengths (0 without targets). */
export function morphReach(prim: SkinnedPrimitive): Float64Array {
  const reach = new Float64Array(prim.vertexCount);
  for (const delta of prim.morph?.positions ?? []) {
    for (let v = 0; v < prim.vertexCount; v++) reach[v] += Math.hypot(delta[v * 3], delta[v * 3 + 1], delta[v * 3 + 2]);
  }
  return reach;
}

/**
 * The largest |weight| any instance's morph weights can take: overrides are in [0, 1]; blends and
 * override layers stay within the largest baked or default weight; each additive layer adds at
 * most twice that. 0 for a model without morph targets.
 */
export function morphWeightLimit(baked: BakedModel, additiveLayers: number): number {
  const morph = baked.morph;
  if (!morph) return 0;
  let largest = 1;
  for (const w of morph.tracks) largest = Math.max(largest, Math.abs(w));
  for (const w of morph.rest) largest = Math.max(largest, Math.abs(w));
  return largest * (1 + 2 * additiveLayers);
}

/** Frobenius norm of the 3 x 3 linear part of the column-major matrix at `o`: at least its largest stretch. */
function linearNorm(m: Float64Array, o: number): number {
  return Math.hypot(m[o], m[o + 1], m[o + 2], m[o + 4], m[o + 5], m[o + 6], m[o + 8], m[o + 9], m[o + 10]);
}

/**
 * Bounds of a character's animated mesh made at load time without run-time skinning: a sphere
 * per joint (joint space) holding every vertex it influences, and boxes (model units) that every
 * clip, blend and layer stack stays inside. The cull pass tests them; tests check them against
 * CPU-skinned positions.
 */
export class CharacterBounds {
  /** Per joint slot (skin after skin, as RigData): centre x, y, z and radius, joint space; radius -1 when no vertex uses the joint. */
  readonly jointSpheres: Float32Array;
  /** Every pose of blends and override layers (see above). */
  readonly reach: Float64Array;
  /** Every pose of blends, override and up to `additiveLayers` additive layers. */
  readonly reachLayered: Float64Array;
  private authored: { box: Float64Array; clipBoxes: Float64Array } | undefined;

  /** Spheres and reach boxes now; the clip boxes on first use (they pose every entry of every clip: ~0.2 s for RobotExpressive). */
  constructor(private readonly rig: Rig, private readonly baked: BakedModel, additiveLayers: number) {
    this.jointSpheres = jointSpheres(rig, morphWeightLimit(baked, additiveLayers));
    const slotNode = rig.skins.flatMap((skin) => Array.from(skin.joints));
    this.reach = reachBox(rig, baked, this.jointSpheres, slotNode, 0);
    this.reachLayered = reachBox(rig, baked, this.jointSpheres, slotNode, additiveLayers);
  }

  /** Every file clip at every baked entry, and the rest pose. */
  get box(): Float64Array {
    return (this.authored ??= this.authoredBoxes()).box;
  }

  /** Per clip, 6 numbers: the box over the clip's baked entries (difference clips: a copy of `box`). */
  get clipBoxes(): Float64Array {
    return (this.authored ??= this.authoredBoxes()).clipBoxes;
  }

  private authoredBoxes(): { box: Float64Array; clipBoxes: Float64Array } {
    const { rig, baked } = this;
    const slotNode = rig.skins.flatMap((skin) => Array.from(skin.joints));
    const clipCount = baked.clipNames.length;
    const fileClips = rig.clips.length;
    const clipBoxes = new Float64Array(clipCount * 6);
    const box = emptyBox();
    const pose = createPose(rig.nodes.count);
    const model = new Float64Array(rig.nodes.count * 16);
    const posed = emptyBox();
    const addPosed = (target: Float64Array) => {
      localToModel(rig.nodes.parent, pose, model);
      posedSpheres(this.jointSpheres, slotNode, model, target);
    };
    tablePose(baked, -1, 0, pose);
    addPosed(box);
    for (let c = 0; c < fileClips; c++) {
      posed.set(emptyBox());
      for (let e = 0; e < baked.clipEntries[c]; e++) {
        tablePose(baked, c, e, pose);
        addPosed(posed);
      }
      clipBoxes.set(posed, c * 6);
      unionBox(box, posed);
    }
    for (let c = fileClips; c < clipCount; c++) clipBoxes.set(box, c * 6);
    return { box, clipBoxes };
  }
}

/** Writes the rest pose (clip -1) or entry `entry` of clip `clip` of the baked tables into `out`. */
function tablePose(baked: BakedModel, clip: number, entry: number, out: Pose): void {
  const { nodeCount, trackRefs, tracks, rest } = baked;
  for (let n = 0; n < nodeCount; n++) {
    for (let p = 0; p < 3; p++) {
      const size = p === 1 ? 4 : 3;
      const target = p === 0 ? out.translation : p === 1 ? out.rotation : out.scale;
      const ref = clip < 0 ? TRACK_NONE : trackRefs[(clip * nodeCount + n) * 3 + p];
      const source = ref === TRACK_NONE ? rest : tracks;
      const o = ref === TRACK_NONE ? n * 12 + p * 4 : ((ref & TRACK_INDEX_MASK) + entry) * 4;
      for (let c = 0; c < size; c++) target[n * size + c] = source[o + c];
    }
  }
}

/** Grows `box` by every joint sphere posed by `model` (16 numbers per rig node). */
function posedSpheres(spheres: Float32Array, slotNode: number[], model: Float64Array, box: Float64Array): void {
  for (let s = 0; s < slotNode.length; s++) {
    const r = spheres[s * 4 + 3];
    if (r < 0) continue;
    const m = slotNode[s] * 16;
    const x = spheres[s * 4], y = spheres[s * 4 + 1], z = spheres[s * 4 + 2];
    for (let c = 0; c < 3; c++) {
      const a = model[m + c], b = model[m + 4 + c], d = model[m + 8 + c];
      const centre = a * x + b * y + d * z + model[m + 12 + c];
      // The ellipsoid M * ball(r) reaches r * |row c of M's 3x3| along axis c.
      const extent = r * Math.sqrt(a * a + b * b + d * d);
      if (centre - extent < box[c]) box[c] = centre - extent;
      if (centre + extent > box[c + 3]) box[c + 3] = centre + extent;
    }
  }
}

/** Per node: the values its translation and scale take over the rest pose and every entry of the file's clips. */
interface NodeRanges {
  /** Box of translations (6 per node). */
  translation: Float64Array;
  /** Largest |translation|. */
  translationNorm: Float64Array;
  /** Largest |difference-clip translation| (additive layers on difference clips). */
  differenceNorm: Float64Array;
  /** Largest absolute scale component, and the factor additive layers can multiply scale by. */
  scale: Float64Array;
  additiveScale: Float64Array;
  /** 1 when no clip of the file animates the node's rotation or scale. */
  fixedFrame: Uint8Array;
}

function nodeRanges(baked: BakedModel, fileClips: number): NodeRanges {
  const { nodeCount, trackRefs, tracks, rest, clipEntries } = baked;
  const r: NodeRanges = {
    translation: new Float64Array(nodeCount * 6), translationNorm: new Float64Array(nodeCount), differenceNorm: new Float64Array(nodeCount),
    scale: new Float64Array(nodeCount), additiveScale: new Float64Array(nodeCount).fill(1), fixedFrame: new Uint8Array(nodeCount).fill(1),
  };
  const minScale = new Float64Array(nodeCount).fill(Infinity);
  for (let n = 0; n < nodeCount; n++) {
    r.translation.set(emptyBox(), n * 6);
    addTranslation(r, n, rest, n * 12);
    addScale(r, minScale, n, rest, n * 12 + 8);
  }
  for (let c = 0; c < baked.clipNames.length; c++) {
    const difference = c >= fileClips;
    for (let n = 0; n < nodeCount; n++) {
      for (let p = 0; p < 3; p++) {
        const ref = trackRefs[(c * nodeCount + n) * 3 + p];
        if (ref === TRACK_NONE) continue;
        if (!difference && p > 0) r.fixedFrame[n] = 0;
        const first = (ref & TRACK_INDEX_MASK) * 4;
        for (let e = 0; e < clipEntries[c]; e++) {
          const o = first + e * 4;
          if (p === 0 && difference) r.differenceNorm[n] = Math.max(r.differenceNorm[n], Math.hypot(tracks[o], tracks[o + 1], tracks[o + 2]));
          else if (p === 0) addTranslation(r, n, tracks, o);
          else if (p === 2 && difference) r.additiveScale[n] = Math.max(r.additiveScale[n], ...[0, 1, 2].map((k) => Math.abs(tracks[o + k])));
          else if (p === 2) addScale(r, minScale, n, tracks, o);
        }
      }
    }
  }
  // An additive layer against a clip multiplies a scale component by 1 + w (A.s / R.s - 1), w in
  // [0, 1], with A and R any clip's or the rest pose's value (a zero reference leaves it as it
  // is): at most max|s| / min|s| over the non-zero values. The node's own scale is not part of
  // that ratio: a constant scale of 100 (RobotExpressive's armature) multiplies nothing, where
  // counting it made each of its descendants' reach 100^layers times too large.
  for (let n = 0; n < nodeCount; n++) {
    const ratio = minScale[n] > 0 && Number.isFinite(minScale[n]) ? r.scale[n] / minScale[n] : 1;
    r.additiveScale[n] = Math.max(r.additiveScale[n], ratio, 1);
  }
  return r;
}

function addTranslation(r: NodeRanges, n: number, values: ArrayLike<number>, o: number): void {
  for (let c = 0; c < 3; c++) {
    r.translation[n * 6 + c] = Math.min(r.translation[n * 6 + c], values[o + c]);
    r.translation[n * 6 + 3 + c] = Math.max(r.translation[n * 6 + 3 + c], values[o + c]);
  }
  r.translationNorm[n] = Math.max(r.translationNorm[n], Math.hypot(values[o], values[o + 1], values[o + 2]));
}

function addScale(r: NodeRanges, minScale: Float64Array, n: number, values: ArrayLike<number>, o: number): void {
  for (let c = 0; c < 3; c++) {
    const s = Math.abs(values[o + c]);
    r.scale[n] = Math.max(r.scale[n], s);
    if (s > 0) minScale[n] = Math.min(minScale[n], s);
  }
}

/**
 * The reach box (see CharacterBounds): every node's model position lies in box_n grown by a
 * ball of radius rho_n; its frame is a known 3x3 (`frame`) while no ancestor's rotation or
 * scale is animated, else only its scale bound sigma_n is known.
 */
function reachBox(rig: Rig, baked: BakedModel, spheres: Float32Array, slotNode: number[], additiveLayers: number): Float64Array {
  const n = rig.nodes.count;
  const ranges = nodeRanges(baked, rig.clips.length);
  const position = new Float64Array(n * 6);
  const rho = new Float64Array(n);
  const sigma = new Float64Array(n);
  const frame = new Float64Array(n * 9);
  const known = new Uint8Array(n);
  const local = new Float64Array(9);
  const moved = new Float64Array(6);
  for (let i = 0; i < n; i++) {
    const parent = rig.nodes.parent[i];
    const parentKnown = parent < 0 || known[parent] === 1;
    const parentFrame = parent < 0 ? IDENTITY_3X3 : frame.subarray(parent * 9, parent * 9 + 9);
    const parentSigma = parent < 0 ? 1 : sigma[parent];
    // Each additive layer adds w * (A.t - R.t): at most the diagonal of the translation box, or a difference clip's value.
    const t = ranges.translation.subarray(i * 6, i * 6 + 6);
    const spread = Math.hypot(t[3] - t[0], t[4] - t[1], t[5] - t[2]);
    const additive = additiveLayers * Math.max(spread, ranges.differenceNorm[i]);
    if (parent >= 0) position.set(position.subarray(parent * 6, parent * 6 + 6), i * 6); else position.set([0, 0, 0, 0, 0, 0], i * 6);
    rho[i] = parent < 0 ? 0 : rho[parent];
    if (parentKnown) {
      transformBox(parentFrame, t, moved);
      for (let c = 0; c < 6; c++) position[i * 6 + c] += moved[c];
      rho[i] += additive * rowNormMax(parentFrame);
    } else {
      rho[i] += parentSigma * (ranges.translationNorm[i] + additive);
    }
    const scale = ranges.scale[i] * (additiveLayers > 0 ? ranges.additiveScale[i] ** additiveLayers : 1);
    sigma[i] = parentSigma * scale;
    if (parentKnown && ranges.fixedFrame[i]) {
      known[i] = 1;
      restFrame(rig, i, local);
      multiply3(parentFrame, local, frame.subarray(i * 9, i * 9 + 9));
    }
  }
  const out = emptyBox();
  const centre = new Float64Array(3);
  for (let s = 0; s < slotNode.length; s++) {
    const r = spheres[s * 4 + 3];
    if (r < 0) continue;
    const node = slotNode[s];
    let grow: number;
    if (known[node]) {
      const f = frame.subarray(node * 9, node * 9 + 9);
      for (let c = 0; c < 3; c++) centre[c] = f[c] * spheres[s * 4] + f[3 + c] * spheres[s * 4 + 1] + f[6 + c] * spheres[s * 4 + 2];
      grow = rho[node] + r * rowNormMax(f);
    } else {
      centre.fill(0);
      grow = rho[node] + sigma[node] * (Math.hypot(spheres[s * 4], spheres[s * 4 + 1], spheres[s * 4 + 2]) + r);
    }
    for (let c = 0; c < 3; c++) {
      out[c] = Math.min(out[c], position[node * 6 + c] + centre[c] - grow);
      out[c + 3] = Math.max(out[c + 3], position[node * 6 + 3 + c] + centre[c] + grow);
    }
  }
  // Float32 evaluation on the GPU: a relative epsilon of the box's size.
  const pad = 1e-5 * Math.max(...[0, 1, 2].map((c) => Math.max(Math.abs(out[c]), Math.abs(out[c + 3]))), 0);
  for (let c = 0; c < 3; c++) { out[c] -= pad; out[c + 3] += pad; }
  return out;
}

const IDENTITY_3X3 = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);

/** Rotation * scale of node i's rest pose as a column-major 3x3. */
function restFrame(rig: Rig, i: number, out: Float64Array): void {
  const q = rig.nodes.restRotation, s = rig.nodes.restScale;
  const x = q[i * 4], y = q[i * 4 + 1], z = q[i * 4 + 2], w = q[i * 4 + 3];
  out.set([
    (1 - 2 * (y * y + z * z)) * s[i * 3], 2 * (x * y + w * z) * s[i * 3], 2 * (x * z - w * y) * s[i * 3],
    2 * (x * y - w * z) * s[i * 3 + 1], (1 - 2 * (x * x + z * z)) * s[i * 3 + 1], 2 * (y * z + w * x) * s[i * 3 + 1],
    2 * (x * z + w * y) * s[i * 3 + 2], 2 * (y * z - w * x) * s[i * 3 + 2], (1 - 2 * (x * x + y * y)) * s[i * 3 + 2],
  ]);
}

function multiply3(a: ArrayLike<number>, b: ArrayLike<number>, out: Float64Array): void {
  for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) out[c * 3 + r] = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
}

/** The box holding m * box (m a column-major 3x3). */
function transformBox(m: ArrayLike<number>, box: ArrayLike<number>, out: Float64Array): void {
  for (let r = 0; r < 3; r++) {
    let centre = 0, extent = 0;
    for (let c = 0; c < 3; c++) {
      centre += m[c * 3 + r] * (box[c] + box[c + 3]) / 2;
      extent += Math.abs(m[c * 3 + r]) * (box[c + 3] - box[c]) / 2;
    }
    out[r] = centre - extent;
    out[r + 3] = centre + extent;
  }
}

/** The largest row norm of a 3x3: how far m * ball(1) reaches along any axis. */
function rowNormMax(m: ArrayLike<number>): number {
  return Math.max(...[0, 1, 2].map((r) => Math.hypot(m[r], m[3 + r], m[6 + r])));
}

/** out = m (4x4 at offset o) * point (at p). */
function transformPoint(m: ArrayLike<number>, o: number, point: ArrayLike<number>, p: number, out: Float64Array): void {
  const x = point[p], y = point[p + 1], z = point[p + 2];
  for (let c = 0; c < 3; c++) out[c] = m[o + c] * x + m[o + 4 + c] * y + m[o + 8 + c] * z + m[o + 12 + c];
}

function emptyBox(): Float64Array {
  return Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
}

function unionBox(into: Float64Array, box: ArrayLike<number>): void {
  for (let c = 0; c < 3; c++) { into[c] = Math.min(into[c], box[c]); into[c + 3] = Math.max(into[c + 3], box[c + 3]); }
}
