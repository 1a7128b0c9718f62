import type { Character } from '../character/character';
import { featureNeeds } from '../character/needs';
import type { AppearanceSource } from './appearance-groups';
import type { CrowdOptions } from './crowd-types';
import type { InstanceStore } from './instance-store';
import type { SkinningMethod } from './layout';
import type { MeshBuffers } from './mesh-buffers';
import type { RecordBufferLike, RecordDevice } from './record-device';
import type { DrawArgs, SkinPass } from './skin-pass';
import type { CullRoute, RoutedLists } from './culling/cull-route';

/**
 * The kernel's side of a feature: what Crowd.install hands a feature (the crowd's internals,
 * for features only; an application never needs it). Every member reads the crowd as it is now:
 * `device` changes with restore, `clock` with update, `skinning` with Crowd.skinning.
 */
export interface CrowdKernel {
  /** The device the crowd's GPU objects live on now (not owned). On a WebGL 2 crowd reading it throws, naming WebGPU. */
  readonly device: GPUDevice;
  /**
   * Which backend the crowd runs on: 'webgpu' (Crowd) or 'webgl2' (GLCrowd). A feature that runs
   * on both (CrowdFeature.onWebGL2) reads it once to choose its engine: its GPU pass, or its
   * TypeScript twin on the CPU (docs/webgl2.md, "Features").
   */
  readonly backend: 'webgpu' | 'webgl2';
  /**
   * @internal The device the instance store's buffers live on now (replaced by restore): the GPUDevice on
   * WebGPU, the record-texture device on WebGL 2. A feature with per-slot records
   * (SlotData: appearance) makes its buffer here, so a GL pass can read it as a texture.
   */
  readonly recordDevice: RecordDevice<RecordBufferLike>;
  /** The character every instance shows (shared, read-only). */
  readonly character: Character;
  /** The options the crowd was made with (target formats, sample count, ...). */
  readonly options: CrowdOptions;
  /** @internal Records, stacks, masks, buffers and the id -> handle <-> slot maps (see InstanceStore, src/runtime/instance-store.ts). */
  readonly store: InstanceStore;
  /** Crowd clock in seconds since the last rebase (the one the pose records use). */
  readonly clock: number;
  /** How the pose pass writes joints ('linear': 48 bytes a joint, 'dual-quaternion': 64). */
  readonly skinning: SkinningMethod;
  /** The feature installed under `name`, or undefined: how one feature reaches another without importing it. */
  feature<T extends CrowdFeature>(name: string): T | undefined;
  /**
   * The locomotion channel now (LOCOMOTION_DRIVE records by instance handle, in src/runtime/layout.ts),
   * when a feature provides one (CrowdFeature.locomotionDrive), else undefined: a feature that
   * animates locomotion (controllers) reads it in encode('control') and follows the handles marked
   * driven. Read it at encode time: the writer may replace the buffer in its prepare.
   */
  readonly locomotionDrive: GPUBuffer | undefined;
  /**
   * Hands the cull pass a feature's routing of far instances (CullRoute, src/runtime/culling/cull-route.ts:
   * the impostor feature's), which sets each frame's switch distances and counts the routed
   * instances in the cull stats; the cull pass then lists them (EncodedFrame.routed). undefined
   * stops it. One route at a time: the last one handed in. For the impostor feature.
   */
  routeFar(route: CullRoute | undefined): void;
  /** The crowd's mesh LOD settings now (Crowd.lod, CrowdOptions.lod.pixelError, Crowd.forceLodLevel): read, never written. */
  readonly lodSettings: {
    /** Whether mesh LOD levels are chosen by distance (Crowd.lod). */
    readonly lod: boolean;
    /** Pixels of simplification error a level may show (CrowdOptions.lod.pixelError). */
    readonly pixelError: number;
    /** The level every instance draws (Crowd.forceLodLevel), or undefined. */
    readonly forcedLevel: number | undefined;
  };
  /** Re-creates the kernel's passes now, on the same device (a feature that changes what they bind, such as vertex weights). */
  rebuildPasses(): void;
  /** @internal The kernel's draw as it stands now (replaced with its passes: restore, skinning, rebuildPasses). */
  readonly draws: KernelDraws;
}

/**
 * @internal What the crowd draws with, for a feature that draws the crowd's instances its own way
 * (picking: the same vertex entry points, its own fragment stage and target). Owned by the kernel.
 */
export interface KernelDraws {
  /** The mesh's vertices and every LOD level's indices. */
  readonly mesh: MeshBuffers;
  /** The skin pass: its shader module, depth-only pipeline layout (groups 0 and 1), frame bind group layout, vertex constants and materials. */
  readonly skin: SkinPass;
  /** The per-slot vertex weights a feature provides (morph), which the frame bind group binds, or undefined. */
  readonly vertexWeights: GPUBuffer | undefined;
  /** The per-instance appearance a feature provides (CrowdFeature.appearance), or undefined. */
  readonly appearance: AppearanceSource | undefined;
}

/**
 * Where in encode() a feature's passes run: 'drive' first (passes that move instances and write
 * the locomotion channel, CrowdKernel.locomotionDrive: steering), then 'control' (passes that write the instance
 * records themselves: GPU-driven controllers), then 'before-pose' (passes that read the records:
 * root motion, morph weights), then the kernel's cull and pose passes and the shadow map, then
 * 'after-pose' (passes that read the joint matrices: props).
 */
export type FeatureStage = 'drive' | 'control' | 'before-pose' | 'after-pose';

/** What encode() tells the features that run after the pose pass. */
export interface EncodedFrame {
  /** The cull pass's per-level draw counters when it ran this frame (indirect draws), else undefined (every instance drawn). */
  readonly cullCounters: GPUBuffer | undefined;
  /** Mesh LOD levels the counters hold. */
  readonly levels: number;
  /**
   * @internal The cull pass's indirect draw arguments when it ran this frame (list 0: the camera's instances
   * per LOD level and primitive, over the store's drawListBuffer), else undefined (every slot in
   * [0, count) is drawn, through the identity list).
   */
  readonly drawArgs: DrawArgs | undefined;
  /** @internal The cull pass's routed lists when it ran this frame with a camera and a route (CrowdKernel.routeFar), else undefined. */
  readonly routed: RoutedLists | undefined;
}

/** Draws the u32 slots of `list` (`listBytes` from byte `listOffset`) as meshes into a pick pass, primitive p by the arguments at byte `argsOffset(p)` of `args`. */
export type PickMeshList = (list: GPUBuffer, listOffset: number, listBytes: number, args: GPUBuffer, argsOffset: (primitive: number) => number) => void;

/** The shadow map of the frame being drawn, for features that draw shadowed geometry. */
export interface DrawShadow {
  /** Depth view of the shadow map (depth32float). */
  readonly view: GPUTextureView;
  /** World to the map's clip space, column-major 4x4. */
  readonly lightViewProjection: Float32Array;
  /** Texels per side. */
  readonly mapSize: number;
  /** How dark a shadow is, in [0, 1]. */
  readonly strength: number;
}

/**
 * An optional part of a crowd (props, morph targets, root motion, clip events, controllers): an
 * object made from the crowd, which installs it (Crowd.install) and from then on calls these
 * hooks, each in install order. Every hook is optional. The kernel names no feature: a feature
 * needs nothing but this interface, and finds another feature only by name (CrowdKernel.feature).
 *
 * Frame order: update(dt) = rebase? -> the store's uploads -> prepare -> settle;
 * encode() = encode('drive') -> encode('control') -> encode('before-pose') -> [cull] -> pose -> [shadow] -> encode('after-pose');
 * draw() = the crowd's draws -> draw.
 */
export interface CrowdFeature {
  /** The registry name, unique in a crowd (for example 'props'): a second feature of that name is refused. */
  readonly featureName: string;
  /**
   * True for a feature that also runs on a WebGL 2 crowd (GLCrowd): it reads CrowdKernel.backend
   * and does its work there on the CPU (clip events, CPU-driven controllers, steering's twin, CPU
   * picking) or through a source the GL draw reads (appearance). A GLCrowd refuses any other
   * feature by name, saying it needs WebGPU.
   */
  readonly onWebGL2?: boolean;
  /**
   * On a WebGL 2 crowd only, first in GLCrowd.encode(): the CPU twin of the feature's 'drive'
   * pass (steering's step), which writes instance records through the store; the crowd uploads
   * them before it culls and poses.
   */
  cpuDrive?(): void;
  /** Instance `handle` was added at `slot`, its records written; `world` is its transform. */
  added?(handle: number, slot: number, world: ArrayLike<number>): void;
  /** Instance `handle`'s animation is about to change (its records still hold the old one). */
  changing?(handle: number, slot: number): void;
  /** Instance `handle`'s animation changed: clips, times, blend or layers (after the records were written). */
  changed?(handle: number, slot: number): void;
  /** Instance `handle` was placed (setTransform, setPlacement): `world` is its new transform. */
  placed?(handle: number, slot: number, world: ArrayLike<number>): void;
  /** Instance `handle` was removed (its slot may already hold another instance). */
  removed?(handle: number): void;
  /** Every instance was removed (clear); `removed` is not called for them. */
  cleared?(): void;
  /**
   * Instance `handle`'s transform at crowd clock `clock` into `out` when this feature moves it (root
   * motion), else undefined (the kernel's records answer).
   */
  transformAt?<T extends Float32Array | Float64Array>(handle: number, slot: number, clock: number, out: T): T | undefined;
  /** In update(), after the kernel's uploads: this feature's uploads; returns the bytes written. */
  prepare?(clock: number): number | void;
  /** Last in update(), after every prepare: work that calls user code (clip-event listeners). `dt` is the step. */
  settle?(dt: number, clock: number): void;
  /** In encode(), once per stage (FeatureStage); `frame` is filled for 'after-pose'. */
  encode?(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void;
  /** In draw(), after the crowd's own draws, into the same render pass. */
  draw?(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void;
  /** Records into CrowdPicking's pick pass (rg32uint slot + 1 and depth bits, depth32float) what it draws past the mesh lists (CrowdImpostors: the band via `meshes`, the impostors); `camera`: CAMERA, the pick's view-projection, the ray's origin as eye. */
  drawPick?(pass: GPURenderPassEncoder, camera: GPUBuffer, frame: EncodedFrame, meshes: PickMeshList): void;
  /** Draw calls draw() records (Crowd.drawCallCount adds them). */
  readonly drawCount?: number;
  /** Bytes of the GPU buffers the feature owns (Crowd.gpuBytes adds them). */
  readonly gpuBytes?: number;
  /**
   * Per-slot vertex weights the skin and shadow passes bind for primitives with morph targets
   * (skin.wgsl `morphWeights`, binding 4 of group 0), or undefined. One feature may provide them.
   */
  readonly vertexWeights?: GPUBuffer;
  /**
   * Per-instance appearance (tint, base-colour variant, primitive mask) the skin and shadow passes
   * bind as skin.wgsl's group 3 (appearance-groups.ts), or undefined. One feature may provide it;
   * read when the kernel makes its passes (a feature that adds it calls rebuildPasses).
   */
  readonly appearance?: AppearanceSource;
  /**
   * The locomotion channel this feature writes in encode('drive') (LOCOMOTION_DRIVE records by
   * instance handle, src/runtime/layout.ts; CrowdKernel.locomotionDrive), or undefined. One feature
   * may provide it; it may replace the buffer in prepare (growth).
   */
  readonly locomotionDrive?: GPUBuffer;
  /** The crowd clock restarts at 0 from `clock` (every CLOCK_REBASE_SECONDS; after the store's rebase). */
  rebase?(clock: number): void;
  /** The kernel re-created its passes on `device` (restore, a new skinning method, rebuildPasses): re-create what depends on them. */
  passesCreated?(device: GPUDevice): void;
  /** restore(device): the device was replaced; re-create this feature's GPU objects on it (after the kernel's). */
  restore?(device: GPUDevice): void;
  /** Crowd.destroy: free this feature's GPU objects. */
  destroy?(): void;
}

/**
 * The features of one crowd in install order, and the loops that call their hooks (so that the
 * Crowd names a hook once). Nothing here allocates per call.
 */
export class FeatureList {
  readonly all: CrowdFeature[] = [];
  private readonly byName = new Map<string, CrowdFeature>();
  /** The features with each per-instance hook, so that a call no feature listens to costs one length check. */
  private readonly onAdded: CrowdFeature[] = [];
  private readonly onChanging: CrowdFeature[] = [];
  private readonly onChanged: CrowdFeature[] = [];
  private readonly onPlaced: CrowdFeature[] = [];

  /** Adds `feature`; a second feature of the same name is refused. */
  add(feature: CrowdFeature): void {
    const name = feature?.featureName;
    if (typeof name !== 'string' || name === '') throw new TypeError('a crowd feature needs a featureName (CrowdFeature)');
    if (this.byName.has(name)) throw new Error(`this crowd already has the "${name}" feature`);
    this.byName.set(name, feature);
    this.all.push(feature);
    if (feature.added) this.onAdded.push(feature);
    if (feature.changing) this.onChanging.push(feature);
    if (feature.changed) this.onChanged.push(feature);
    if (feature.placed) this.onPlaced.push(feature);
  }

  /** Whether some feature follows placements (setPlacement reads the world back only then). */
  /** Bytes of the features' GPU buffers (CrowdFeature.gpuBytes). */
  get gpuBytes(): number {
    let bytes = 0;
    for (let i = 0; i < this.all.length; i++) bytes += this.all[i].gpuBytes ?? 0;
    return bytes;
  }

  get followsPlacement(): boolean {
    return this.onPlaced.length > 0;
  }

  get<T extends CrowdFeature>(name: string): T | undefined {
    return this.byName.get(name) as T | undefined;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Whether any feature listens to added (addMany reads each world back only then). */
  get announcesAdds(): boolean {
    return this.onAdded.length > 0;
  }

  added(handle: number, slot: number, world: ArrayLike<number>): void {
    const list = this.onAdded;
    for (let i = 0; i < list.length; i++) list[i].added!(handle, slot, world);
  }

  changing(handle: number, slot: number): void {
    const list = this.onChanging;
    for (let i = 0; i < list.length; i++) list[i].changing!(handle, slot);
  }

  changed(handle: number, slot: number): void {
    const list = this.onChanged;
    for (let i = 0; i < list.length; i++) list[i].changed!(handle, slot);
  }

  placed(handle: number, slot: number, world: ArrayLike<number>): void {
    const list = this.onPlaced;
    for (let i = 0; i < list.length; i++) list[i].placed!(handle, slot, world);
  }

  removed(handle: number): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) all[i].removed?.(handle);
  }

  /** The crowd was cleared of `live` (the handles it had): `cleared`, or `removed` of each for a feature without it. */
  cleared(live: readonly number[]): void {
    for (const f of this.all) {
      if (f.cleared) f.cleared();
      else if (f.removed) for (const handle of live) f.removed(handle);
    }
  }

  /** Whether some feature needs `removed` for every instance when the crowd is cleared. */
  get removesOneByOne(): boolean {
    return this.all.some((f) => !f.cleared && f.removed);
  }

  /** The first feature's answer for instance `handle`'s transform at `clock` (one that moves it), or undefined. */
  transformAt<T extends Float32Array | Float64Array>(handle: number, slot: number, clock: number, out: T): T | undefined {
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const answer = all[i].transformAt?.(handle, slot, clock, out);
      if (answer) return answer;
    }
    return undefined;
  }

  rebase(clock: number): void {
    for (const f of this.all) f.rebase?.(clock);
  }

  /** Every prepare, in order; returns the bytes they uploaded. */
  prepare(clock: number): number {
    const all = this.all;
    let bytes = 0;
    for (let i = 0; i < all.length; i++) bytes += all[i].prepare?.(clock) ?? 0;
    return bytes;
  }

  settle(dt: number, clock: number): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) all[i].settle?.(dt, clock);
  }

  /** Every cpuDrive, in order (a WebGL 2 crowd's encode). */
  cpuDrive(): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) all[i].cpuDrive?.();
  }

  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) all[i].encode?.(encoder, stage, frame);
  }

  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void {
    const all = this.all;
    for (let i = 0; i < all.length; i++) all[i].draw?.(pass, viewProjection, shadow);
  }

  get drawCount(): number {
    let count = 0;
    for (const f of this.all) count += f.drawCount ?? 0;
    return count;
  }

  /** The per-slot vertex weights a feature provides (morph targets), if any. */
  get vertexWeights(): GPUBuffer | undefined {
    const all = this.all;
    for (let i = 0; i < all.length; i++) if (all[i].vertexWeights) return all[i].vertexWeights;
    return undefined;
  }

  /** The per-instance appearance a feature provides, if any (CrowdFeature.appearance). */
  get appearance(): AppearanceSource | undefined {
    const all = this.all;
    for (let i = 0; i < all.length; i++) if (all[i].appearance) return all[i].appearance;
    return undefined;
  }

  /** The locomotion channel a feature provides (steering), if any (CrowdFeature.locomotionDrive). */
  get locomotionDrive(): GPUBuffer | undefined {
    const all = this.all;
    for (let i = 0; i < all.length; i++) if (all[i].locomotionDrive) return all[i].locomotionDrive;
    return undefined;
  }

  /** Whether a feature provides vertex weights (the mesh then keeps its morph deltas). */
  get weighsVertices(): boolean {
    return this.all.some((f) => 'vertexWeights' in f);
  }

  passesCreated(device: GPUDevice): void {
    for (const f of this.all) f.passesCreated?.(device);
  }

  restore(device: GPUDevice): void {
    for (const f of this.all) f.restore?.(device);
  }

  destroy(): void {
    for (const f of this.all) f.destroy?.();
  }

  /** Refuses to run without a feature `character` requires, and warns once of one it suggests (character/needs.ts). */
  checkNeeds(character: Character): void {
    for (const need of featureNeeds(character)) {
      if (this.byName.has(need.name)) continue;
      const message = `${character.name} needs the ${need.name} feature (${need.why}): create it once with ${need.make}`;
      if (need.required) throw new Error(message);
      console.warn(`crowd-skin: ${message}`);
    }
  }
}
