import { skinPositions } from '../anim/skinning';
import { bake, bakedBytes, type BakedModel } from '../bake/bake';
import { CharacterBounds } from '../bake/bounds';
import type { MeshLods } from '../bake/mesh-lod';
import { checkMeshLodOptions, type MeshLodOptions } from '../bake/mesh-lod-options';
import { drawOrder, type DrawOrder } from '../bake/draw-order';
import { buildRig } from '../bake/build-rig';
import { resolveClip } from '../bake/clip-names';
import type { Decoders } from '../bake/extensions';
import type { EncodedImage } from '../bake/gltf-json';
import { parseGltf, type ResourceReader } from '../bake/parse';
import type { Rig } from '../bake/rig';
import type { BakedRootMotion, RootMotionOptions } from '../bake/root-motion';
import { restPose } from '../bake/sampler';
import type { ClipBinding, ClipLibrary } from '../bake/clip-library';
import { download } from './download';
import { show } from '../math/show';
import { createPose, jointMatrices, localToModel } from '../math/pose';
import { MAX_ADDITIVE_LAYERS } from '../anim/layer-stack';
import { packRigData, type RigData } from '../bake/rig-data';

/**
 * A loaded, validated and baked character: everything a Crowd needs, device-independent, so one
 * Character can feed crowds on several devices. Immutable after loading.
 */
export interface Character {
  /** The file name of the URL loaded (decoded), or "model" when loaded from an ArrayBuffer. */
  readonly name: string;
  /**
   * @internal The validated rig (src/bake/rig.ts): for Crowd and the tools, not a stable API. With
   * LoadOptions.rootMotion its clips are the in-place ones that were baked.
   */
  readonly rig: Rig;
  /** @internal The baked tables (src/bake/bake.ts): for Crowd and the tools, not a stable API. */
  readonly baked: BakedModel;
  /** @internal GPU layouts of the rig (src/bake/rig-data.ts): for Crowd, not a stable API. */
  readonly gpu: RigData;
  /** Clip names in index order (the file's clips, then difference clips from LoadOptions.additiveClips). */
  readonly clipNames: readonly string[];
  /** Seconds per clip, in clip index order. */
  readonly clipDurations: Float32Array;
  /**
   * The node name of every joint matrix of an instance, in the order Crowd.jointMatrices holds
   * them (skin after skin; a rigidly attached mesh counts as a one-joint skin of its own node).
   * Any of them may root a blend mask (Crowd.createMask).
   */
  readonly jointNames: readonly string[];
  /** Bytes of the baked lookup tables the GPU holds: track entries, track references, rest pose, clip durations (and the morph weights' tables). */
  readonly bakedBytes: number;
  /**
   * Every morph target of the character's meshes (empty when none), in the order CrowdMorph.set
   * takes an array of weights: mesh after mesh (`mesh` is the name of the glTF node that draws it,
   * whose weights the targets share), then the mesh's targets (`name` from the file's
   * `extras.targetNames`, else `target<i>`). RobotExpressive: Head/Angry, Head/Surprised, Head/Sad.
   */
  readonly morphTargets: readonly MorphTargetInfo[];
  /**
   * The root motion taken out of the clips (LoadOptions.rootMotion; the same object as
   * baked.rootMotion, see src/bake/root-motion.ts), or null when the load did not ask for it.
   */
  readonly rootMotion: BakedRootMotion | null;
  /** Decoded base-colour images (browser only; empty where createImageBitmap is missing). */
  readonly textures: ReadonlyMap<EncodedImage, ImageBitmap>;
  /** Axis-aligned bounds of the rest pose in model units: min and max corners. */
  readonly bounds: {
    /** Smallest x, y, z of any drawn vertex, model units. */
    min: [number, number, number];
    /** Largest x, y, z of any drawn vertex, model units. */
    max: [number, number, number];
  };
  /**
   * Bounds made at load time without run-time skinning (src/bake/bounds.ts): joint-space spheres
   * per joint, the box over every clip at every baked entry (`box`, `clipBoxes`), and the boxes
   * every blend and layer stack stays inside (`reach`, `reachLayered`), which culling tests.
   */
  readonly animationBounds: CharacterBounds;
  /**
   * Mesh LOD levels made at load time when LoadOptions.lod hands in a simplifier, else undefined (the
   * default; the crowd then draws every instance at full detail): `indices[p][l - 1]` is the
   * triangle list of primitive p at level l >= 1 (level 0 is the primitive as loaded, and every
   * level shares its vertices), `errors[l]` the level's simplification error in model units
   * (errors[0] = 0).
   */
  readonly lods?: MeshLods;
  /**
   * The vertices and triangle order the crowd draws each primitive with, every LOD level's
   * triangles ordered for the vertex cache at load time (src/bake/draw-order.ts, docs/draw.md);
   * undefined: vertices as loaded, triangles in file order.
   */
  readonly drawOrder?: DrawOrder;
  /** Loader repairs and ignored features, one sentence each. */
  readonly warnings: readonly string[];
  /**
   * How each clips file of LoadOptions.clips bound to this body, file after file (empty without
   * libraries): retargeted or copied, bone to bone through which humanoid maps, or by node name
   * (docs/retargeting.md).
   */
  readonly clipBindings: readonly ClipBinding[];
  /** Milliseconds spent parsing + building the rig, baking (tables and bounds), and simplifying (mesh LOD). */
  readonly timings: {
    /** Parsing the file, validating it and building the rig, milliseconds. */
    loadMs: number;
    /** Baking the clips into lookup tables and the bounds, milliseconds. */
    bakeMs: number;
    /** Simplifying the meshes into LOD levels and ordering every level for the draw (drawOrder), milliseconds. */
    lodMs: number;
  };
  /** Clip index of a clip name or index; throws a RangeError naming the clips when absent. */
  clipIndex(clip: string | number): number;
}

/** One morph target of a Character (see Character.morphTargets). */
export interface MorphTargetInfo {
  /** The mesh's node name: the targets of one mesh share its weights. */
  mesh: string;
  /** The target's name. */
  name: string;
}

export interface LoadOptions {
  /** Where relative URIs of a .gltf's external files resolve (defaults to the URL loaded). */
  baseUrl?: string;
  /** Most entries per baked track (default 1024). */
  maxEntriesPerTrack?: number;
  /**
   * Clips to bake as difference clips for additive layers (src/bake/bake.ts): clip minus the
   * reference pose, precomputed per table entry, so an additive layer reads one table instead of
   * two. Each becomes a clip named `name` (default "<clip>-additive") after the file's clips.
   */
  additiveClips?: {
    /** The clip made additive: a name or index of the file's clips. */
    clip: string | number;
    /** The pose subtracted: 'rest', or a clip (name or index) at `time` seconds (default 0). */
    reference: 'rest' | {
      /** A name or index of the file's clips. */
      clip: string | number;
      /** Seconds into that clip (default 0), wrapped into it. */
      time?: number;
    };
    /** Name of the baked clip (default "<clip>-additive"); must not clash with another clip. */
    name?: string;
  }[];
  /**
   * Take the root joint's horizontal motion (and with `yaw`, its rotation about +y) out of every
   * clip before baking, so walking clips walk on the spot; the motion is kept per clip in
   * `Character.rootMotion` (src/bake/root-motion.ts). `joint` defaults to the skin's root joint.
   * With 'apply', a Crowd of the character moves each instance by its clips' root motion on the
   * GPU (CrowdRootMotion, src/features/root-motion/crowd-root-motion.ts); with 'in-place' the motion is only data.
   * Either way, controllers match locomotion clips' playback rate to the movement speed.
   */
  rootMotion?: RootMotionOptions;
  /**
   * Mesh LOD levels to make (src/bake/mesh-lod.ts), with meshoptimizer's simplifier handed in:
   * `{ simplifier: MeshoptSimplifier }` (imported from crowd-skin) makes 4 levels, each with about
   * half the triangles of the one before (`levels`, `ratio` to change). Default: none (false), so
   * that a page without mesh LOD does not ship the simplifier (about 54 KB minified). `true`, the
   * default before, is refused with this call in the message.
   */
  lod?: false | MeshLodOptions;
  /**
   * Clips from other files, bound to the character's joints by node name (docs/clips.md):
   * libraries read by loadClips (`clips: [await loadClips(url)]`; URLs or bytes are refused, so
   * that a page without clips files does not ship the code that reads and binds them). Their
   * clips follow the file's own, in order; a name already taken is renamed "Walk (2)". Where a
   * file's rest pose differs from the body's, its clips are retargeted (unless `retarget` is
   * false). Characters with the same skeleton whose clips all come from one set of libraries (no
   * clips of their own, no additiveClips; the same rootMotion joint, yaw and translation, or none) share the
   * libraries' baked tables: one copy in memory, one table buffer per device.
   */
  clips?: readonly ClipLibrary[];
  /** Retarget clips from files whose rest pose differs from the body's (default true); false uses their values as they are. */
  retarget?: boolean;
  /**
   * For clips bound as humanoids (docs/retargeting.md): solve the legs of a body whose thigh and
   * shin are not in the clip's proportion, so that planted feet stay planted (default true;
   * false copies the rotations only). Baked at load time.
   */
  legSolve?: boolean;
  /** How to read external buffers and images; defaults to fetch. */
  readResource?: ResourceReader;
  /**
   * Decoders for compressed files, handed in so that a page whose files need none ships none
   * (docs/loading.md, "Compressed files"): `{ meshopt: MeshoptDecoder }` (from crowd-skin) for
   * EXT/KHR_meshopt_compression, `{ draco: await createDecoderModule() }` (npm draco3dgltf or
   * draco3d) for KHR_draco_mesh_compression. A file that needs one not handed in is refused,
   * naming the option and the package; meshopt's fallback buffers are read when no decoder is given.
   */
  decoders?: Decoders;
  /** Download progress in bytes; `total` is 0 when the server does not say. */
  onProgress?: (loaded: number, total: number) => void;
  /** Aborts the download (fetch's signal); parsing and baking run to the end once started. */
  signal?: AbortSignal;
}

/**
 * Fetches (when given a URL), parses, validates and bakes a .glb or .gltf character. A file with
 * a problem is rejected with a ModelError naming the place (`skin 0: inverseBindMatrices has 18
 * matrices, joints has 19`); what the loader repaired or ignored is in `warnings`.
 *
 * @param source A URL (resolved against the page's location) or the file's bytes.
 * @example
 * ```ts
 * const character = await loadCharacter('/models/Fox/Fox.glb', {
 *   onProgress: (loaded, total) => console.log(`${loaded} of ${total || '?'} bytes`),
 * });
 * console.log(character.clipNames, character.clipDurations, character.warnings);
 * const crowd = new Crowd(device, character, { colorFormat, depthFormat: 'depth24plus' });
 * ```
 */
export async function loadCharacter(source: string | URL | ArrayBuffer, options: LoadOptions = {}): Promise<Character> {
  const lod = checkMeshLodOptions(options.lod);
  let data: ArrayBuffer;
  let name = 'model';
  let baseUrl = options.baseUrl;
  if (source instanceof ArrayBuffer) {
    data = source;
  } else {
    const url = new URL(String(source), globalThis.location?.href);
    name = decodeURIComponent(url.pathname.split('/').pop() ?? name);
    baseUrl ??= url.href;
    data = await download(url.href, options);
  }
  const libraries = checkLibraries(options);
  // Root-motion extraction (about 6 KB of a minified page) is fetched only by a load that asks for it.
  const rootMotionCode = options.rootMotion === undefined ? undefined : await import('../bake/root-motion');
  const t0 = performance.now();
  const parsed = buildRig(await parseGltf(data, { baseUrl, readResource: options.readResource, decoders: options.decoders }));
  const ownClips = parsed.clips.length;
  for (const library of libraries) for (const w of library.warnings) parsed.warnings.push(w);
  // The binding code comes with the libraries (ClipLibrary.binder): none without them.
  const binder = libraries[0]?.binder;
  const bindings = binder ? binder.attachClips(parsed, libraries, { retarget: options.retarget, legSolve: options.legSolve }) : [];
  const rootMotion = rootMotionCode?.extractRootMotion(parsed, options.rootMotion!);
  const rig = rootMotion?.rig ?? parsed;
  const t1 = performance.now();
  const fileClips = rig.clips.map((c) => c.name);
  const clipOf = (clip: string | number, where: string) => resolveClip(fileClips, clip, { where });
  const differences = (options.additiveClips ?? []).map((a, i) => {
    const clip = clipOf(a.clip, `additiveClips[${i}].clip`);
    const reference = a.reference === 'rest' ? 'rest' as const : { clip: clipOf(a.reference.clip, `additiveClips[${i}].reference.clip`), time: a.reference.time ?? 0 };
    return { clip, reference, name: a.name ?? `${rig.clips[clip].name}-additive` };
  });
  const shared = libraries.length > 0 && ownClips === 0 && differences.length === 0 && bindings.every((b) => !b.retargeted);
  const baked = shared && binder ? binder.bakeShared(rig, libraries, bindings, { maxEntriesPerTrack: options.maxEntriesPerTrack }, rootMotion && { joint: rootMotion.joint, yaw: rootMotion.yaw, translation: rootMotion.translation })
    : bake(rig, { maxEntriesPerTrack: options.maxEntriesPerTrack, differences });
  if (rootMotion) baked.rootMotion = rootMotionCode!.bakeRootMotion(rootMotion, baked);
  const animationBounds = new CharacterBounds(rig, baked, MAX_ADDITIVE_LAYERS);
  const t2 = performance.now();
  // Making the levels (src/bake/mesh-lod.ts) is fetched only with a simplifier handed in.
  const lods = lod === undefined || rig.primitives.length === 0 ? undefined : await (await import('../bake/mesh-lod')).meshLods(rig, lod);
  return {
    name, rig, baked,
    gpu: packRigData(rig, baked),
    clipNames: baked.clipNames,
    clipDurations: baked.clipDurations,
    jointNames: rig.skins.flatMap((skin) => skin.jointNames),
    bakedBytes: bakedBytes(baked),
    morphTargets: rig.morphs.flatMap((set) => set.targetNames.map((name) => ({ mesh: set.name, name }))),
    rootMotion: baked.rootMotion ?? null,
    textures: await decodeTextures(rig),
    bounds: restBounds(rig),
    animationBounds,
    lods,
    drawOrder: drawOrder(rig, lods?.indices),
    warnings: rig.warnings,
    clipBindings: bindings,
    timings: { loadMs: t1 - t0, bakeMs: t2 - t1, lodMs: performance.now() - t2 },
    clipIndex(clip: string | number): number {
      return resolveClip(baked.clipNames, clip, { model: name });
    },
  };
}

/**
 * LoadOptions.clips, checked: libraries from loadClips only. A URL or bytes (which loadCharacter
 * read itself before issue 33) and `clipJointNames` are refused with the call that replaces them.
 */
function checkLibraries(options: LoadOptions): readonly ClipLibrary[] {
  const clips: unknown = options.clips ?? [];
  if (!Array.isArray(clips)) throw new TypeError(`LoadOptions.clips must be an array of libraries from loadClips, got ${show(clips)}`);
  if ('clipJointNames' in options) {
    throw new TypeError('LoadOptions.clipJointNames is gone: give the name map to loadClips (clips: [await loadClips(url, { jointNames })])');
  }
  clips.forEach((c: unknown, i) => {
    if (typeof c !== 'object' || c === null || !('binder' in c)) {
      const what = typeof c === 'string' || c instanceof URL ? 'a URL' : c instanceof ArrayBuffer ? 'bytes' : show(c);
      throw new TypeError(`LoadOptions.clips[${i}] is ${what}, not a library: read clips files with loadClips first (clips: [await loadClips(url)])`);
    }
  });
  return clips as readonly ClipLibrary[];
}

async function decodeTextures(rig: Rig): Promise<Map<EncodedImage, ImageBitmap>> {
  const textures = new Map<EncodedImage, ImageBitmap>();
  if (typeof createImageBitmap !== 'function') return textures;
  for (const prim of rig.primitives) {
    const m = prim.material;
    const images: [EncodedImage | undefined, string][] = [
      [m.baseColorImage, 'base colour'], [m.metallicRoughnessImage, 'metallic-roughness'], [m.occlusionImage, 'occlusion'], [m.emissiveImage, 'emissive'], [m.normalImage, 'normal'],
    ];
    for (const [image, what] of images) {
      if (!image || image.ktx2 || textures.has(image)) continue; // KTX2: transcoded at load (EncodedImage.ktx2)
      try {
        const blob = new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType });
        // Not premultiplied, no colour conversion: the texels as stored (alpha kept for MASK / BLEND).
        textures.set(image, await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' }));
      } catch (e) {
        rig.warnings.push(`a ${image.mimeType} ${what} image could not be decoded (${(e as Error).message}); drawn without it`);
      }
    }
  }
  return textures;
}

/**
 * Bounds of every drawn vertex in the rest pose (the pose the renderer shows without clips):
 * rest pose -> model matrices -> joint matrices -> skinned positions, the steps of CpuPoser
 * (src/anim/evaluate.ts) without its blend, layer and morph code, which a page that loads a
 * character need not ship.
 */
function restBounds(rig: Rig): Character['bounds'] {
  const model = localToModel(rig.nodes.parent, restPose(rig.nodes, createPose(rig.nodes.count)), new Float64Array(rig.nodes.count * 16));
  const joints = rig.skins.map((skin) => jointMatrices(skin.joints, skin.inverseBind, model, new Float64Array(skin.joints.length * 16)));
  const positions = new Float64Array(rig.primitives.reduce((n, p) => n + p.vertexCount * 3, 0));
  for (let p = 0, o = 0; p < rig.primitives.length; o += rig.primitives[p].vertexCount * 3, p++) {
    skinPositions(rig.primitives[p], joints[rig.primitives[p].skin], positions, o);
  }
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      min[c] = Math.min(min[c], positions[i + c]);
      max[c] = Math.max(max[c], positions[i + c]);
    }
  }
  if (positions.length === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  return { min, max };
}
