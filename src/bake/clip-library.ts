import { composeTrsAt, multiplyAt } from '../math/affine';
import { quatMulAt } from '../math/quat';
import { uniqueClipNames } from './clip-names';
import { check, ModelError } from './errors';
import type { GltfAsset } from './gltf-json';
import { checkGltfJson } from './json-shape';
import { gltfParents, restTrs } from './hierarchy';
import { loadClips as readAnimations } from './load-clips';
import { bake, restTable, type BakedModel, type BakeOptions } from './bake';
import { morphLayout } from './bake-morph';
import type { Channel, Clip, Rig } from './rig';
import { rigSize } from './table-size';
import type { RootMotionTranslation } from './root-motion';

/**
 * Clips from other files (docs/clips.md): a ClipLibrary is read from glTF files with or without
 * meshes, and bound to a character's rig by node name. Binding makes plain Clips over the rig's
 * nodes, so the exact sampler, the bake, the GPU path and the controllers see clips from a
 * library as they see the file's own.
 *
 * Retargeting (when a matched node's rest pose differs from the body's, i.e. other proportions):
 * - rotations transfer relative to each skeleton's rest: q' = restBody * conj(restFile) * q;
 * - the root's translation (the topmost matched node a clip translates, the hips) is the body's
 *   rest plus the file's motion from its rest, scaled by the ratio of hip heights (model-space y
 *   of that node in each rest pose), so strides fit the legs;
 * - other translations are dropped: those nodes keep the body's rest translation;
 * - scales transfer relative to each rest: s' = s * restBody / restFile.
 * No IK and no different hierarchies: a joint's motion is copied, not solved for.
 */

/** How a file's node names become the body's: a prefix taken off (`mixamorig:`), then an explicit map. */
export interface JointNameMap {
  /** Taken off the start of every node name that has it ("mixamorig:Hips" -> "Hips"). */
  stripPrefix?: string;
  /** File node name (after stripPrefix) -> body node name. */
  map?: Readonly<Record<string, string>>;
}

/** One file of a library: every glTF node (its name after the name map, parent, rest TRS) and its clips over those nodes. */
export interface ClipFile {
  /** The file's name (a URL's file name, or "clips<i>" for bytes). */
  name: string;
  /** Node names after the name map, glTF node order. */
  names: string[];
  /** glTF parent of each node, -1 for roots. */
  parent: Int32Array;
  /** Rest TRS per node: 3, 4 and 3 floats each. */
  restTranslation: Float64Array;
  restRotation: Float64Array;
  restScale: Float64Array;
  /** The file's animations (names already unique within the library), channels on glTF node indices. */
  clips: Clip[];
}

/** Tables baked once for every character that binds the library the same way (see bakeShared), and the bake's warnings. */
export interface SharedTables {
  baked: BakedModel;
  warnings: string[];
}

/**
 * Clips read from one or more glTF files (loadClips), to be bound to any number of characters
 * (LoadOptions.clips). Immutable after loading, except for the cache of baked tables that
 * characters with the same skeleton share.
 */
export interface ClipLibrary {
  /** The file names, joined with ", ". */
  readonly name: string;
  /** Clip names in order: file after file, duplicates renamed "Walk (2)". */
  readonly clipNames: readonly string[];
  /** Seconds per clip, in clipNames order. */
  readonly clipDurations: Float32Array;
  /** Loader repairs and ignored features, one sentence each. */
  readonly warnings: readonly string[];
  /** @internal The files read (src/bake/clip-library.ts): not a stable API. */
  readonly files: readonly ClipFile[];
  /** @internal Tables baked for characters that bound the library the same way, by shareKey. */
  readonly shared: Map<string, SharedTables>;
  /** @internal A number unique to the library in this page, for share keys. */
  readonly id: number;
  /**
   * @internal The code that binds the library to a rig, carried by the library (makeClipLibrary)
   * so that loadCharacter reaches it only through a library: a page that loads no clips files
   * does not ship it.
   */
  readonly binder: ClipBinder;
}

/** attachClips and bakeShared, as a ClipLibrary carries them (ClipLibrary.binder). */
export interface ClipBinder {
  attachClips: typeof attachClips;
  bakeShared: typeof bakeShared;
}

let nextLibraryId = 1;

/** Reads the animations of a parsed glTF as a ClipFile. A file without animations is a ModelError. */
export function readClipFile(asset: GltfAsset, name: string, warnings: string[], nameMap: JointNameMap = {}): ClipFile {
  const json: unknown = asset.json;
  checkGltfJson(json);
  const nodes = json.nodes ?? [];
  check((json.animations ?? []).length > 0, `clips file '${name}': has no animations`);
  const count = nodes.length;
  const file: ClipFile = {
    name, names: [], parent: gltfParents(json),
    restTranslation: new Float64Array(count * 3), restRotation: new Float64Array(count * 4), restScale: new Float64Array(count * 3), clips: [],
  };
  nodes.forEach((node, i) => {
    let nodeName = node.name ?? `node${i}`;
    if (nameMap.stripPrefix && nodeName.startsWith(nameMap.stripPrefix)) nodeName = nodeName.slice(nameMap.stripPrefix.length);
    file.names.push(nameMap.map?.[nodeName] ?? nodeName);
    const { t, r, s } = restTrs(node, i);
    file.restTranslation.set(t, i * 3);
    file.restRotation.set(r, i * 4);
    file.restScale.set(s, i * 3);
  });
  const fileWarnings: string[] = [];
  try {
    file.clips = readAnimations(asset, Int32Array.from({ length: count }, (_, i) => i), fileWarnings);
  } catch (e) {
    if (e instanceof ModelError) throw new ModelError(`clips file '${name}': ${e.message}`);
    throw e;
  }
  for (const w of fileWarnings) warnings.push(`clips file '${name}': ${w}`);
  return file;
}

/** A library of `files`, clip names made unique across them (each rename a warning). */
export function makeClipLibrary(files: ClipFile[], warnings: string[]): ClipLibrary {
  const all = files.flatMap((file) => file.clips.map((clip) => ({ file, clip })));
  const names = uniqueClipNames(all.map((c) => c.clip.name), (i, name, unique) =>
    warnings.push(`clips file '${all[i].file.name}': clip '${name}' is also the name of an earlier clip of the library; this one is named '${unique}'`));
  all.forEach((c, i) => { c.clip.name = names[i]; });
  return {
    name: files.map((f) => f.name).join(', '), clipNames: names, clipDurations: Float32Array.from(all, (c) => c.clip.duration),
    warnings, files, shared: new Map(), id: nextLibraryId++, binder: { attachClips, bakeShared },
  };
}

/** How one file bound to a rig (attachClips). */
export interface ClipBinding {
  file: string;
  /** Rig node of each file node, -1 where the body has no node of that name. */
  remap: Int32Array;
  /** Whether the rest poses differ, so the clips were retargeted. */
  retargeted: boolean;
  /** The root translation's scale (body hip height / file hip height), 1 when not retargeted. */
  rootScale: number;
}

export interface AttachOptions {
  /** Retarget files whose rest pose differs from the body's (default true); false copies the file's values as they are. */
  retarget?: boolean;
}

/** Relative tolerance under which two rest values are the same (float32 rounding of one file's numbers in another). */
const REST_TOLERANCE = 1e-5;

/**
 * Binds every file of `libraries` to `rig` by node name: appends their clips to `rig.clips` (the
 * rig's own first, then file after file; a clash with an earlier name is renamed "Walk (2)" with
 * a warning), retargeting where the rest poses differ. Per file, one warning lists the nodes its
 * clips animate that the body lacks and the body's joints none of its clips moves; a file whose
 * animated nodes match no node of the body is a ModelError naming both.
 */
export function attachClips(rig: Rig, libraries: readonly ClipLibrary[], options: AttachOptions = {}): ClipBinding[] {
  const added: Clip[] = [];
  const bindings: ClipBinding[] = [];
  for (const library of libraries) {
    for (const file of library.files) {
      const remap = matchNodes(rig.nodes.names, rig.nodes.parent, file.names, file.parent);
      const animated = [...new Set(file.clips.flatMap((clip) => clip.channels.map((ch) => ch.node)))].sort((a, b) => a - b);
      const matched = animated.filter((n) => remap[n] >= 0);
      if (matched.length === 0) {
        throw new ModelError(`clips file '${file.name}': none of the ${animated.length} nodes its clips animate (${list(animated.map((n) => file.names[n]))}) ` +
          `is a node of the body (${list(rig.nodes.names)}); a name map (stripPrefix, map) can match differing names`);
      }
      const moved = new Set(matched.map((n) => remap[n]));
      const missing = animated.filter((n) => remap[n] < 0).map((n) => file.names[n]);
      const still = rig.nodes.names.filter((_, i) => rig.nodes.isJoint[i] === 1 && !moved.has(i));
      const parts = [
        ...(missing.length ? [`${missing.length} node(s) its clips animate are not in the body and are ignored (${list(missing)})`] : []),
        ...(still.length ? [`${still.length} joint(s) of the body no clip of it moves keep their rest pose (${list(still)})`] : []),
      ];
      if (parts.length) rig.warnings.push(`clips file '${file.name}': ${parts.join('; ')}`);
      const retargeted = options.retarget !== false && restsDiffer(rig, file, remap);
      const binding: ClipBinding = { file: file.name, remap, retargeted, rootScale: 1 };
      if (retargeted) {
        const root = Math.min(...file.clips.flatMap((clip) => clip.channels.filter((ch) => ch.path === 'translation' && remap[ch.node] >= 0).map((ch) => remap[ch.node])));
        if (Number.isFinite(root)) binding.rootScale = hipRatio(rig, file, remap.indexOf(root), root, rig.warnings);
        for (const clip of file.clips) added.push({ name: clip.name, duration: clip.duration, channels: retarget(rig, file, clip, remap, root, binding.rootScale) });
      } else {
        for (const clip of file.clips) {
          added.push({ name: clip.name, duration: clip.duration, channels: clip.channels.filter((ch) => remap[ch.node] >= 0).map((ch) => ({ ...ch, node: remap[ch.node] })) });
        }
      }
      bindings.push(binding);
    }
  }
  const own = rig.clips.length;
  const names = uniqueClipNames([...rig.clips.map((c) => c.name), ...added.map((c) => c.name)], (_i, name, unique) =>
    rig.warnings.push(`clip '${name}' from a clips file: the character already has a clip of that name; this one is named '${unique}'`));
  rig.clips = [...rig.clips, ...added.map((clip, i) => ({ ...clip, name: names[own + i] }))];
  return bindings;
}

/**
 * What else, besides the libraries and the binding, decides a shared rig's clip values: the root
 * motion taken out of them (LoadOptions.rootMotion), by joint, whether the yaw was taken too, and
 * how much of the translation.
 * ('in-place' and 'apply' bake the same tables; each character keeps its own BakedRootMotion.)
 */
export interface SharedRootMotion {
  /** The rig node whose motion was taken out. */
  joint: number;
  /** Whether its rotation about +y was taken out as well. */
  yaw: boolean;
  /** What horizontal translation was taken out (RootMotionOptions.translation). */
  translation: RootMotionTranslation;
}

/**
 * The tables of a rig whose clips all come from `libraries`, bound without retargeting: baked
 * the first time, and the same arrays (tracks, track references, entries, durations) for every
 * later rig that binds the libraries to the same nodes with the same bake inputs, so characters
 * with one skeleton hold one copy (the rest pose is each rig's own). The cache lives on the
 * first library, keyed by everything that decides the tables' bytes: the libraries, how their
 * nodes map to rig nodes, the rig's node count, its size (the bake's tolerance), its morph
 * layout, the bake options, and the root motion taken out of the clips (`rootMotion`: rigs with
 * the same rest pose within REST_TOLERANCE take out the same motion). Returns a new object each
 * call (its arrays shared), so a caller may set fields of its own on it (baked.rootMotion).
 */
export function bakeShared(rig: Rig, libraries: readonly ClipLibrary[], bindings: readonly ClipBinding[], options: BakeOptions,
  rootMotion?: SharedRootMotion): BakedModel {
  const key = JSON.stringify([libraries.map((l) => l.id), rig.nodes.count, bindings.map((b) => Array.from(b.remap)), rigSize(rig), morphLayout(rig),
    options.maxEntriesPerTrack ?? null, options.maxTableBytes ?? null, options.alignToKeys ?? null, rootMotion ? [rootMotion.joint, rootMotion.yaw, rootMotion.translation] : null]);
  const cache = libraries[0].shared;
  const hit = cache.get(key);
  if (hit) {
    for (const w of hit.warnings) if (!rig.warnings.includes(w)) rig.warnings.push(w);
    return { ...hit.baked, rest: restTable(rig), parents: rig.nodes.parent };
  }
  const before = rig.warnings.length;
  const baked = bake(rig, options);
  cache.set(key, { baked, warnings: rig.warnings.slice(before) });
  return { ...baked };
}

/**
 * Matches a file's nodes to the body's by name: a name each uses once matches; a name either
 * uses more than once (RobotExpressive has a mesh node and a bone named Head) matches by the path
 * of names from the root ("Armature/Torso/Head"), and where even paths repeat, by their order.
 * Returns the body node of each file node, or -1.
 */
function matchNodes(names: readonly string[], parent: Int32Array, fileNames: readonly string[], fileParent: Int32Array): Int32Array {
  const count = (list: readonly string[]) => {
    const c = new Map<string, number>();
    for (const n of list) c.set(n, (c.get(n) ?? 0) + 1);
    return c;
  };
  const [inBody, inFile] = [count(names), count(fileNames)];
  const repeated = (name: string) => (inBody.get(name) ?? 0) > 1 || (inFile.get(name) ?? 0) > 1;
  const keys = (own: readonly string[], parents: Int32Array): string[] => {
    const seen = new Map<string, number>();
    return own.map((name, i) => {
      if (!repeated(name)) return name;
      const path: string[] = [];
      for (let p = i; p >= 0; p = parents[p]) path.unshift(own[p]);
      const key = path.join('/');
      const k = seen.get(key) ?? 0;
      seen.set(key, k + 1);
      return `${key}#${k}`;
    });
  };
  const index = new Map<string, number>();
  keys(names, parent).forEach((key, i) => index.set(key, i));
  return Int32Array.from(keys(fileNames, fileParent), (key) => index.get(key) ?? -1);
}

function list(names: readonly string[]): string {
  return names.length > 12 ? `${names.slice(0, 12).join(', ')}, ... ${names.length - 12} more` : names.join(', ');
}

function near(a: ArrayLike<number>, oa: number, b: ArrayLike<number>, ob: number, n: number, scale: number): boolean {
  for (let c = 0; c < n; c++) if (Math.abs(a[oa + c] - b[ob + c]) > REST_TOLERANCE * scale) return false;
  return true;
}

/** Whether any matched node's rest TRS differs between the file and the rig (rotations up to sign). */
function restsDiffer(rig: Rig, file: ClipFile, remap: Int32Array): boolean {
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
function hipRatio(rig: Rig, file: ClipFile, fileRoot: number, rigRoot: number, warnings: string[]): number {
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
function retarget(rig: Rig, file: ClipFile, clip: Clip, remap: Int32Array, root: number, rootScale: number): Channel[] {
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
