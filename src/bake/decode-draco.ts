import { dropRequired, MAX_DECODED_BYTES } from './decode-meshopt';
import { check, describeValue, ModelError } from './errors';
import type { GltfAccessor, GltfAsset, GltfPrimitive } from './gltf-json';

/**
 * KHR_draco_mesh_compression (gltf-transform draco): a primitive's indices and attributes are
 * stored as one Draco-compressed bufferView, decoded here by the Draco decoder module the page
 * handed in (draco-decoder.ts, which alone imports this module). Each decoded attribute and the
 * indices get a buffer and bufferView of their own, written in the componentType of the
 * primitive's accessors (which the extension keeps, with their counts, and which readAccessor
 * then reads as any other), so the rest of the loader never sees Draco. The extension is taken
 * off the primitive. A Draco file may merge and reorder vertices: poses compare as point sets.
 */

/**
 * The members of a Draco decoder module (Emscripten's binding of Draco's C++ decoder, from npm
 * draco3d or draco3dgltf) that are called here; three.js's DRACOLoader calls the same ones.
 */
export interface DracoModule {
  Decoder: new () => DracoDecoderObject;
  DecoderBuffer: new () => { Init(data: Int8Array, length: number): void };
  Mesh: new () => { ptr: number; num_faces(): number; num_points(): number };
  destroy(object: unknown): void;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
  [dataType: `DT_${string}`]: number;
}

interface DracoDecoderObject {
  DecodeBufferToMesh(buffer: unknown, mesh: unknown): { ok(): boolean; error_msg(): string };
  GetAttributeByUniqueId(mesh: unknown, id: number): { ptr: number; num_components(): number };
  GetAttributeDataArrayForAllPoints(mesh: unknown, attribute: unknown, dataType: number, bytes: number, pointer: number): boolean;
  GetTrianglesUInt32Array(mesh: unknown, bytes: number, pointer: number): boolean;
}

/** Draco data types and byte sizes by glTF componentType. */
const DATA_TYPES: Record<number, [string, number]> = {
  5120: ['DT_INT8', 1], 5121: ['DT_UINT8', 1], 5122: ['DT_INT16', 2], 5123: ['DT_UINT16', 2], 5125: ['DT_UINT32', 4], 5126: ['DT_FLOAT32', 4],
};
const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };
const NAME = 'KHR_draco_mesh_compression';

interface DracoPrimitive { bufferView: number; attributes: Record<string, number> }
type Extended = { extensions?: Record<string, unknown> };

/** Decodes every Draco-compressed primitive of `asset` with `module`, in place (see above). */
export async function decodeDraco(asset: GltfAsset, module: DracoModule): Promise<void> {
  dropRequired(asset, [NAME]);
  const budget = { bytes: 0 };
  (asset.json.meshes ?? []).forEach((mesh, m) => mesh.primitives.forEach((prim, p) => {
    const ext = (prim as Extended).extensions?.[NAME] as DracoPrimitive | undefined;
    if (ext === undefined) return;
    decodePrimitive(asset, module, prim, ext, `mesh ${m} primitive ${p}: ${NAME}`, budget);
    delete (prim as Extended).extensions![NAME];
  }));
}

const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function decodePrimitive(asset: GltfAsset, module: DracoModule, prim: GltfPrimitive, ext: DracoPrimitive, where: string, budget: { bytes: number }): void {
  const views = asset.json.bufferViews ?? [];
  check(isIndex(ext.bufferView) && ext.bufferView < views.length, `${where}: bufferView ${describeValue(ext.bufferView)} does not exist (the file has ${views.length})`);
  check(typeof ext.attributes === 'object' && ext.attributes !== null, `${where}: attributes must be an object`);
  const view = views[ext.bufferView];
  const source = asset.buffers[view.buffer];
  const start = view.byteOffset ?? 0;
  check(source !== undefined && start + view.byteLength <= source.byteLength, `${where}: bufferView ${ext.bufferView} lies outside its buffer; the file may be truncated`);
  // Every accessor the extension fills, checked before anything is decoded.
  const targets: { accessor: GltfAccessor; id: number; name: string }[] = [];
  for (const [name, id] of Object.entries(ext.attributes)) {
    const index = prim.attributes[name];
    check(index !== undefined, `${where}: attribute ${name} is compressed, but the primitive has no ${name} accessor`);
    check(isIndex(id), `${where}: attributes.${name} must be a non-negative integer, but it is ${describeValue(id)}`);
    targets.push({ accessor: accessorOf(asset, index, where), id, name });
  }
  const indices = prim.indices === undefined ? undefined : accessorOf(asset, prim.indices, where);

  const decoder = new module.Decoder();
  const buffer = new module.DecoderBuffer();
  const mesh = new module.Mesh();
  try {
    buffer.Init(new Int8Array(source.buffer, source.byteOffset + start, view.byteLength), view.byteLength);
    const status = decoder.DecodeBufferToMesh(buffer, mesh);
    check(status.ok() && mesh.ptr !== 0, () => `${where}: its data could not be decoded (${status.error_msg()}); the file is damaged or truncated`);
    const points = mesh.num_points();
    for (const { accessor, id, name } of targets) {
      check(accessor.count === points, `${where}: ${name} accessor has count ${accessor.count}, the decoded mesh has ${points} points`);
      const attribute = decoder.GetAttributeByUniqueId(mesh, id);
      check(attribute.ptr !== 0, `${where}: attribute ${name} (Draco id ${id}) is not in the compressed data`);
      const components = COMPONENTS[accessor.type];
      check(components !== undefined && attribute.num_components() === components, `${where}: ${name} has ${attribute.num_components()} components in the compressed data, its accessor is ${accessor.type}`);
      const [dataType, size] = DATA_TYPES[accessor.componentType] ?? [];
      check(dataType !== undefined, `${where}: ${name} accessor has componentType ${accessor.componentType}, which Draco does not decode`);
      fill(asset, accessor, copyOut(module, points * components * size, where, budget, (pointer, bytes) =>
        decoder.GetAttributeDataArrayForAllPoints(mesh, attribute, module[dataType as `DT_${string}`], bytes, pointer)));
    }
    if (indices) {
      const count = mesh.num_faces() * 3;
      check(indices.count === count, `${where}: indices accessor has count ${indices.count}, the decoded mesh has ${count} triangle corners`);
      const [, size] = DATA_TYPES[indices.componentType] ?? [];
      check(size !== undefined && indices.componentType !== 5126, `${where}: indices componentType ${indices.componentType} is not an unsigned integer type`);
      const all = new Uint32Array(copyOut(module, count * 4, where, budget, (pointer, bytes) => decoder.GetTrianglesUInt32Array(mesh, bytes, pointer)).buffer);
      const typed = size === 1 ? Uint8Array.from(all) : size === 2 ? Uint16Array.from(all) : all;
      fill(asset, indices, new Uint8Array(typed.buffer));
    }
  } catch (e) {
    if (e instanceof ModelError) throw e;
    // Emscripten aborts (memory, a failed assertion) surface as exceptions: named, never passed on raw.
    throw new ModelError(`${where}: the Draco decoder failed (${(e as Error)?.message ?? String(e)}); the file is damaged or truncated`);
  } finally {
    module.destroy(mesh);
    module.destroy(buffer);
    module.destroy(decoder);
  }
}

function accessorOf(asset: GltfAsset, index: number, where: string): GltfAccessor {
  const accessors = asset.json.accessors ?? [];
  check(isIndex(index) && index < accessors.length, `${where}: accessor ${index} does not exist (the file has ${accessors.length})`);
  return accessors[index];
}

/** `bytes` bytes the decoder writes at a pointer of the module's heap, copied out (budgeted, then freed). */
function copyOut(module: DracoModule, bytes: number, where: string, budget: { bytes: number }, write: (pointer: number, bytes: number) => boolean): Uint8Array {
  budget.bytes += bytes;
  check(budget.bytes <= MAX_DECODED_BYTES, `${where}: the decoded data would hold more than ${MAX_DECODED_BYTES} bytes; refused`);
  const pointer = module._malloc(bytes);
  try {
    check(write(pointer, bytes), `${where}: the decoder could not write the decoded data; the file is damaged or truncated`);
    return module.HEAPU8.slice(pointer, pointer + bytes);
  } finally {
    module._free(pointer);
  }
}

/** Points `accessor` at a new buffer and bufferView holding `bytes`, packed (no stride). */
function fill(asset: GltfAsset, accessor: GltfAccessor, bytes: Uint8Array): void {
  const json = asset.json;
  (json.buffers ??= []).push({ byteLength: bytes.byteLength });
  asset.buffers.push(bytes);
  (json.bufferViews ??= []).push({ buffer: asset.buffers.length - 1, byteLength: bytes.byteLength });
  accessor.bufferView = json.bufferViews.length - 1;
  accessor.byteOffset = 0;
  delete accessor.sparse;
}
