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
import { humanoidByName, isComplete, type HumanoidMap } from './humanoid';
import { humanoidFromBones, vrmHumanBones } from './vrm-humanoid';
import { planRetarget, retargetHumanoidClip } from './retarget';
import { hipRatio, restsDiffer, retarget } from './retarget-local';

/**
 * Clips from other files (docs/clips.md): a ClipLibrary is read from glTF files with or without
 * meshes, and bound to a character's rig by node name. Binding makes plain Clips over the rig's
 * nodes, so the exact sampler, the bake, the GPU path and the controllers see clips from a
 * library as they see the file's own.
 *
 * How a file binds (docs/retargeting.md): when the body and the file both have a humanoid (a VRM
 * map, or names of a known convention: humanoid.ts) and no name map was given, bone to bone,
 * retargeted in world space (retarget.ts) unless names and rests agree exactly (then the values
 * are copied and the tables shared); otherwise by node name as before, retargeted joint by joint
 * relative to each rest where the rests differ (retarget-local.ts).
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
  /** The file's humanoid over its glTF nodes (its VRM map, else recognized by name), if it has one. */
  humanoid?: HumanoidMap;
  /** Whether loadClips was given a name map (jointNames): the file then binds by name only. */
  named: boolean;
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
    named: nameMap.stripPrefix !== undefined || nameMap.map !== undefined,
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
  file.humanoid = humanoidOf(vrmHumanBones(json), (n) => n, file.names);
  return file;
}

/** A skeleton's humanoid: its declared VRM map when complete, else one recognized by name, else undefined. */
export function humanoidOf(declared: ReturnType<typeof vrmHumanBones>, indexOf: (gltfNode: number) => number, names: readonly string[]): HumanoidMap | undefined {
  const map = declared && humanoidFromBones(declared, indexOf);
  return map && isComplete(map) ? map : humanoidByName(names);
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

/** How one clips file bound to a character (attachClips; Character.clipBindings; docs/retargeting.md). */
export interface ClipBinding {
  /** The clips file's name (its URL's file name, or `clips<i>` for bytes). */
  file: string;
  /** @internal Rig node of each file node, -1 where the body has no node of that name. */
  remap: Int32Array;
  /** Whether the clips were retargeted (other rest poses, names or proportions); false when their values were copied as they are. */
  retargeted: boolean;
  /** The root translation's scale (body hip height / file hip height), 1 when not retargeted. */
  rootScale: number;
  /** The two humanoid maps, when the file bound bone to bone; absent when it bound by node name (no humanoid on a side, a name map, or the same skeleton). */
  humanoid?: HumanoidBinding;
}

/** A bone-to-bone binding's humanoid maps (ClipBinding.humanoid; docs/retargeting.md). */
export interface HumanoidBinding {
  /** Where the body's map came from: 'VRMC_vrm' or 'VRM' (the file's own map), or the name convention recognized ('Mixamo', 'VRoid', 'crowd-skin', ...). */
  body: string;
  /** Where the clips file's map came from, as `body`. */
  file: string;
  /** Human bones mapped on both sides: the body joints the clips drive bone to bone. */
  bones: number;
  /** The body's joints no human bone of the clips maps to, by name: spread over (between two mapped bones) or kept at their rest. */
  unmapped: string[];
  /** Legs solved toward the clips' scaled foot path (0 to 2): 0 when the legs are in the clips' proportions or LoadOptions.legSolve is false. */
  legs: number;
}

export interface AttachOptions {
  /** Retarget files whose rest pose differs from the body's (default true); false copies the file's values as they are. */
  retarget?: boolean;
  /** Solve the legs of humanoid bodies whose leg proportions differ from the clip's, so planted feet stay planted (default true; docs/retargeting.md). */
  legSolve?: boolean;
}


/**
 * Binds every file of `libraries` to `rig`: appends their clips to `rig.clips` (the rig's own
 * first, then file after file; a clash with an earlier name is renamed "Walk (2)" with a
 * warning). A file binds bone to bone, retargeted in world space, when both it and the body have
 * a humanoid and it was given no name map, unless names and rests agree exactly; else by node
 * name, retargeted joint by joint where the rests differ. Per file, one warning lists the nodes
 * its clips animate that bind to nothing and the body's joints none of its clips moves; a file
 * bound by name whose animated nodes match no node of the body is a ModelError naming both.
 */
export function attachClips(rig: Rig, libraries: readonly ClipLibrary[], options: AttachOptions = {}): ClipBinding[] {
  const added: Clip[] = [];
  const bindings: ClipBinding[] = [];
  const bodyHumanoid = rigHumanoid(rig);
  for (const library of libraries) {
    for (const file of library.files) {
      const byName = matchNodes(rig.nodes.names, rig.nodes.parent, file.names, file.parent);
      const bound = bodyHumanoid && file.humanoid && !file.named && !sameSkeleton(rig, file, byName, bodyHumanoid, file.humanoid)
        ? bindHumanoid(rig, file, byName, bodyHumanoid, file.humanoid, options) : bindByName(rig, file, byName, options);
      added.push(...bound.clips);
      const binding = bound.binding;
      bindings.push(binding);
    }
  }
  const own = rig.clips.length;
  const names = uniqueClipNames([...rig.clips.map((c) => c.name), ...added.map((c) => c.name)], (_i, name, unique) =>
    rig.warnings.push(`clip '${name}' from a clips file: the character already has a clip of that name; this one is named '${unique}'`));
  rig.clips = [...rig.clips, ...added.map((clip, i) => ({ ...clip, name: names[own + i] }))];
  return bindings;
}

/** A body's humanoid: the VRM map its file declares when complete, else one recognized by its node names, else undefined. */
export function rigHumanoid(rig: Rig): HumanoidMap | undefined {
  return rig.humanoid && isComplete(rig.humanoid) ? rig.humanoid : humanoidByName(rig.nodes.names);
}

type Bound = { clips: Clip[]; binding: ClipBinding };

/** The one warning of a file: animated nodes bound to nothing, and body joints nothing moves. */
function warnUnbound(rig: Rig, file: ClipFile, remap: Int32Array, moved: Set<number>): void {
  const animated = [...new Set(file.clips.flatMap((clip) => clip.channels.map((ch) => ch.node)))].sort((a, b) => a - b);
  const missing = animated.filter((n) => remap[n] < 0).map((n) => file.names[n]);
  const still = rig.nodes.names.filter((_, i) => rig.nodes.isJoint[i] === 1 && !moved.has(i));
  const parts = [
    ...(missing.length ? [`${missing.length} node(s) its clips animate are not in the body and are ignored (${list(missing)})`] : []),
    ...(still.length ? [`${still.length} joint(s) of the body no clip of it moves keep their rest pose (${list(still)})`] : []),
  ];
  if (parts.length) rig.warnings.push(`clips file '${file.name}': ${parts.join('; ')}`);
}

/** Whether the file's humanoid bones are the body's by name and every matched rest agrees: then clips copy as they are. */
function sameSkeleton(rig: Rig, file: ClipFile, byName: Int32Array, body: HumanoidMap, clip: HumanoidMap): boolean {
  return body.nodes.every((b, bone) => (clip.nodes[bone] < 0 ? b < 0 : byName[clip.nodes[bone]] === b)) && !restsDiffer(rig, file, byName);
}

/** Binding by node name (docs/clips.md), retargeted joint by joint where the rests differ; a file matching no node is a ModelError. */
function bindByName(rig: Rig, file: ClipFile, remap: Int32Array, options: AttachOptions): Bound {
  const animated = [...new Set(file.clips.flatMap((clip) => clip.channels.map((ch) => ch.node)))].sort((a, b) => a - b);
  const matched = animated.filter((n) => remap[n] >= 0);
  if (matched.length === 0) {
    throw new ModelError(`clips file '${file.name}': none of the ${animated.length} nodes its clips animate (${list(animated.map((n) => file.names[n]))}) ` +
      `is a node of the body (${list(rig.nodes.names)}); a name map (stripPrefix, map) can match differing names`);
  }
  warnUnbound(rig, file, remap, new Set(matched.map((n) => remap[n])));
  const retargeted = options.retarget !== false && restsDiffer(rig, file, remap);
  const binding: ClipBinding = { file: file.name, remap, retargeted, rootScale: 1 };
  const clips: Clip[] = [];
  if (retargeted) {
    const root = Math.min(...file.clips.flatMap((clip) => clip.channels.filter((ch) => ch.path === 'translation' && remap[ch.node] >= 0).map((ch) => remap[ch.node])));
    if (Number.isFinite(root)) binding.rootScale = hipRatio(rig, file, remap.indexOf(root), root, rig.warnings);
    for (const clip of file.clips) clips.push({ name: clip.name, duration: clip.duration, channels: retarget(rig, file, clip, remap, root, binding.rootScale) });
  } else {
    for (const clip of file.clips) clips.push({ name: clip.name, duration: clip.duration, channels: copied(clip, remap) });
  }
  return { clips, binding };
}

const copied = (clip: Clip, remap: Int32Array): Channel[] => clip.channels.filter((ch) => remap[ch.node] >= 0).map((ch) => ({ ...ch, node: remap[ch.node] }));

/**
 * Binding bone to bone through both humanoids (docs/retargeting.md): rotations retargeted in world
 * space, the hips translation scaled by the hip heights (retarget.ts); nodes outside the humanoid
 * that the body has by name (a tail, a prop) bound by name, joint by joint.
 */
function bindHumanoid(rig: Rig, file: ClipFile, byName: Int32Array, body: HumanoidMap, humanoid: HumanoidMap, options: AttachOptions): Bound {
  const plan = planRetarget(rig.nodes, body, file, humanoid, options.legSolve !== false);
  const remap = new Int32Array(file.names.length).fill(-1);
  for (const { body: b, clip: c } of plan.pairs) remap[c] = b;
  // Outside the humanoid: by name, to body nodes the humanoid binding leaves alone.
  const taken = new Set(plan.pairs.map((p) => p.body));
  const extra = new Int32Array(file.names.length).fill(-1);
  byName.forEach((b, f) => { if (b >= 0 && remap[f] < 0 && plan.kind[b] === 0 && !taken.has(b)) { extra[f] = b; remap[f] = b; taken.add(b); } });
  const moved = new Set<number>(plan.pairs.map((p) => p.body));
  plan.spread.forEach((_, n) => moved.add(n));
  for (const clip of file.clips) for (const ch of clip.channels) if (extra[ch.node] >= 0) moved.add(extra[ch.node]);
  warnUnbound(rig, file, remap, moved);
  const retargeted = options.retarget !== false;
  const clips = file.clips.map((clip) => ({
    name: clip.name, duration: clip.duration,
    channels: retargeted ? [...retargetHumanoidClip(plan, clip), ...retarget(rig, file, clip, extra, -1, 1).filter((ch) => ch.path !== 'translation')] : copied(clip, remap),
  }));
  const unmapped = rig.nodes.names.filter((_, n) => rig.nodes.isJoint[n] === 1 && plan.kind[n] !== 1);
  const summary: HumanoidBinding = { body: body.source, file: humanoid.source, bones: plan.pairs.length, unmapped, legs: retargeted ? plan.legs.length : 0 };
  return { clips, binding: { file: file.name, remap, retargeted, rootScale: retargeted ? plan.rootScale : 1, humanoid: summary } };
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

