/**
 * The only place where crowd-skin/three reaches past three.js's public API (written against
 * three r187). Not public there:
 *
 * - the WebGL2RenderingContext of three's WebGL 2 backend: `renderer.backend.gl`;
 * - the GPUDevice: `renderer.backend.device`, documented in WebGPUBackend's source as "a reference
 *   to the device" but absent from its type declarations;
 * - the GPUTexture behind a three texture: the backend's per-object data, `backend.get(texture)`,
 *   which for a render target's colour texture holds `{ texture, msaaTexture? }` (the MSAA texture
 *   resolves into `texture`) and for a multisampled depth texture the multisampled texture itself.
 *   three r187 has no public accessor (ExternalTexture wraps a GPUTexture for sampling only).
 *
 * - the GPUBuffer behind a StorageBufferAttribute (shading 'three'): made with the backend's
 *   `createStorageAttribute(attribute)` (STORAGE | VERTEX | COPY_SRC | COPY_DST, what three's
 *   renderer makes on first use, which then finds it made; `createIndirectStorageAttribute` for
 *   the indirect draw arguments) and read from
 *   `backend.get(attribute).buffer`; r187 cannot wrap an existing GPUBuffer, so the crowd copies
 *   into this one.
 *
 * Both are checked when the bridge starts, so a three.js release that changes them fails here
 * with a sentence, not with a WebGPU validation error later.
 *
 * - the renderer's render lists (`renderer._renderLists.lists`, a ChainMap keyed by scene, camera
 *   and `renderer.lighting`), read for whether three's render queued transparent objects
 *   (queuedTransparent). A release without them costs time, not pictures: the caller renders as
 *   if there were some.
 */
import { REVISION, type BufferAttribute, type Camera, type Object3D, type Renderer, type Texture } from 'three/webgpu';

/** What three's WebGPU backend keeps for one texture (see WebGPUTextureUtils.createTexture). */
export interface BackendTextureData {
  texture?: GPUTexture;
  msaaTexture?: GPUTexture;
}

interface BackendInternals {
  readonly isWebGPUBackend?: boolean;
  readonly isWebGLBackend?: boolean;
  readonly gl?: WebGL2RenderingContext | null;
  readonly device?: GPUDevice | null;
  get?(object: object): BackendTextureData & { buffer?: GPUBuffer };
  createStorageAttribute?(attribute: BufferAttribute): void;
  createIndirectStorageAttribute?(attribute: BufferAttribute): void;
  destroyAttribute?(attribute: BufferAttribute): void;
}

/** Access to a WebGPURenderer's WebGPU backend; does not own anything. */
export interface WebGpuBackend {
  readonly device: GPUDevice;
  /** The GPU textures three created for `texture` (after three rendered into it or initRenderTarget). */
  textureData(texture: Texture): BackendTextureData;
  /** three's GPUBuffer for a StorageBufferAttribute, made now if three has none yet (owned by three; `what` names it in errors). */
  storageBuffer(attribute: BufferAttribute, what: string): GPUBuffer;
  /** The same for an IndirectStorageBufferAttribute (STORAGE | INDIRECT | COPY_SRC | COPY_DST): a geometry's `setIndirect` draw arguments. */
  indirectBuffer(attribute: BufferAttribute, what: string): GPUBuffer;
  /** Frees three's GPUBuffer of `attribute` and three's data of it (the attribute is disposed). */
  destroyAttribute(attribute: BufferAttribute): void;
}

const PREFIX = 'crowd-skin/three';

/**
 * Which of three's backends `renderer` runs: 'webgpu' (WebGPUBackend) or 'webgl2' (three's
 * WebGL 2 fallback, WebGLBackend: no WebGPU in the browser, or `forceWebGL: true`), or an error
 * naming what is wrong: not a WebGPURenderer, or not initialised yet.
 */
export function threeBackendKind(renderer: Renderer): 'webgpu' | 'webgl2' {
  const backend = (renderer as { backend?: unknown } | null)?.backend as BackendInternals | undefined;
  if (!backend || typeof backend !== 'object') {
    throw new TypeError(`${PREFIX}: expected a three.js WebGPURenderer (import { WebGPURenderer } from 'three/webgpu'), got ${describe(renderer)} with no .backend`);
  }
  if (backend.isWebGLBackend !== true && backend.isWebGPUBackend !== true) {
    throw new TypeError(`${PREFIX}: renderer.backend is neither three's WebGPUBackend nor its WebGLBackend (isWebGPUBackend is ${String(backend.isWebGPUBackend)})`);
  }
  const ready = backend.isWebGLBackend === true ? backend.gl : backend.device;
  if (!renderer.initialized || !ready) {
    throw new Error(`${PREFIX}: the renderer is not initialised (renderer.backend.${backend.isWebGLBackend === true ? 'gl' : 'device'} is ${ready === null ? 'null' : 'missing'}): ` +
      '`await renderer.init()` first, which picks the backend and creates its GPUDevice or WebGL 2 context');
  }
  return backend.isWebGLBackend === true ? 'webgl2' : 'webgpu';
}

/**
 * three's WebGL 2 context of a renderer on its WebGL 2 backend (`renderer.backend.gl`: public in
 * WebGLBackend's source, absent from its type declarations). The crowd's GL passes run on it,
 * putting back the state they change (GLStateGuard), since three caches GL state.
 */
export function webglContext(renderer: Renderer): WebGL2RenderingContext {
  if (threeBackendKind(renderer) !== 'webgl2') throw new Error(`${PREFIX}: the renderer runs three's WebGPU backend, not its WebGL 2 one`);
  const gl = ((renderer as unknown as { backend: BackendInternals }).backend).gl;
  if (typeof (gl as { texStorage2D?: unknown } | null | undefined)?.texStorage2D !== 'function') {
    throw new Error(`${PREFIX}: three r${REVISION}'s WebGL backend keeps no WebGL2RenderingContext in renderer.backend.gl; this bridge was written against r187`);
  }
  return gl!;
}

/**
 * The renderer's WebGPU backend, or an error naming what is wrong: not a WebGPURenderer, not
 * initialised yet, three's WebGL 2 backend (webglContext is the way in there), or a three.js
 * release whose internals moved.
 */
export function webgpuBackend(renderer: Renderer): WebGpuBackend {
  if (threeBackendKind(renderer) !== 'webgpu') throw new Error(`${PREFIX}: the renderer runs three's WebGL 2 backend, which has no GPUDevice`);
  const backend = (renderer as unknown as { backend: BackendInternals }).backend;
  if (!backend.device) throw new Error(`${PREFIX}: three's WebGPU backend has no device`);
  const get = backend.get;
  if (typeof get !== 'function') {
    throw new Error(`${PREFIX}: three r${REVISION}'s WebGPU backend has no get(object) for its per-object GPU data; this bridge was written against r187`);
  }
  /** three's GPUBuffer of `attribute`, made now by `create` with the array's data when three has none yet. */
  const made = (attribute: BufferAttribute, what: string, create: 'createStorageAttribute' | 'createIndirectStorageAttribute'): GPUBuffer => {
    if (typeof backend[create] !== 'function') {
      throw new Error(`${PREFIX}: three r${REVISION}'s WebGPU backend has no ${create}(attribute) for the ${what}; this bridge was written against r187`);
    }
    backend[create]!(attribute);
    const buffer = get.call(backend, attribute).buffer;
    if (!buffer || typeof buffer.size !== 'number' || (buffer.usage & GPUBufferUsage.COPY_DST) === 0) {
      throw new Error(`${PREFIX}: three r${REVISION} keeps no copy-destination GPUBuffer for the ${what} (renderer.backend.get(attribute).buffer); this bridge was written against r187`);
    }
    return buffer;
  };
  return {
    device: backend.device,
    textureData: (texture) => get.call(backend, texture),
    storageBuffer: (attribute, what) => made(attribute, what, 'createStorageAttribute'),
    indirectBuffer: (attribute, what) => made(attribute, what, 'createIndirectStorageAttribute'),
    destroyAttribute(attribute) {
      // Renderer-side data (once three drew with it) goes with the 'dispose' event, which frees the
      // buffer through the backend; a buffer three never used is freed here.
      attribute.dispose();
      if (get.call(backend, attribute).buffer) backend.destroyAttribute?.(attribute);
    },
  };
}

/** What queuedTransparent reads of three's RenderList (r187): the transparent items it queued. */
interface RenderListInternals {
  transparent?: unknown;
  transparentDoublePass?: unknown;
}

/** The render lists' keys (scene, camera, lighting), reused: the lookup runs every frame and allocates nothing. */
const listKeys: unknown[] = [null, null, null];

/**
 * Whether three's last `renderer.render(scene, camera)` queued transparent objects (its render
 * list's `transparent` items: after layer and frustum culling, whether or not `renderer.transparent`
 * let it draw them), or undefined where three keeps no such list for that scene and camera (another
 * release, or a render that did not use this camera). Reads the list without making one.
 */
export function queuedTransparent(renderer: Renderer, scene: Object3D, camera: Camera): boolean | undefined {
  const internals = renderer as unknown as { _renderLists?: { lists?: { get?(keys: unknown[]): unknown } }; lighting?: unknown };
  const lists = internals._renderLists?.lists;
  if (typeof lists?.get !== 'function') return undefined;
  listKeys[0] = scene;
  listKeys[1] = camera;
  listKeys[2] = internals.lighting;
  const list = lists.get(listKeys) as RenderListInternals | undefined;
  listKeys[0] = listKeys[1] = listKeys[2] = null;
  if (!list || !Array.isArray(list.transparent)) return undefined;
  return list.transparent.length > 0 || (Array.isArray(list.transparentDoublePass) && list.transparentDoublePass.length > 0);
}

/** The GPUTexture a render pass attaches for `texture`: the MSAA texture where there is one. */
export function attachmentTexture(backend: WebGpuBackend, texture: Texture, what: string): GPUTexture {
  const data = backend.textureData(texture);
  const gpuTexture = data.msaaTexture ?? data.texture;
  if (!isGpuTexture(gpuTexture)) {
    throw new Error(`${PREFIX}: three r${REVISION} keeps no GPUTexture for the ${what} (renderer.backend.get(texture).texture); this bridge was written against r187`);
  }
  return gpuTexture;
}

/** The single-sample texture an MSAA attachment resolves into, or undefined without MSAA. */
export function resolveTexture(backend: WebGpuBackend, texture: Texture): GPUTexture | undefined {
  const data = backend.textureData(texture);
  return data.msaaTexture ? data.texture : undefined;
}

function isGpuTexture(value: unknown): value is GPUTexture {
  return typeof value === 'object' && value !== null && typeof (value as GPUTexture).createView === 'function' && typeof (value as GPUTexture).format === 'string';
}

/** `null`, `undefined`, or the value's class name (`Object` for a plain object). */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return (value as object).constructor?.name ?? typeof value;
}
