import { check } from './errors';
import type { GltfAccessor, GltfAsset } from './gltf-json';

/** glTF componentType codes (glTF 2.0 spec, 3.6.2.2). */
export const ComponentType = {
  BYTE: 5120,
  UNSIGNED_BYTE: 5121,
  SHORT: 5122,
  UNSIGNED_SHORT: 5123,
  UNSIGNED_INT: 5125,
  FLOAT: 5126,
} as const;

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_COMPONENTS: Record<string, number> = {
  SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16,
};

export interface AccessorData {
  /** Components per element (1 for SCALAR, 16 for MAT4). */
  components: number;
  count: number;
  /**
   * Tightly packed values (`count * components`). Normalized integer accessors are converted to
   * floats in [0,1] or [-1,1] per the spec; other integers keep their integer values.
   */
  values: Float32Array | Uint32Array;
}

export interface AccessorExpectation {
  /** Allowed accessor types, e.g. ['VEC3']. */
  types: readonly string[];
  /** Allowed componentType codes, with whether each must be normalized (undefined: either). */
  components?: readonly { type: number; normalized?: boolean }[];
  /** Expected element count, when the caller knows it. */
  count?: number;
  /**
   * Integers that are not normalized read as floats (KHR_mesh_quantization's BYTE and SHORT
   * positions and UVs keep their sign); default: they read as Uint32Array.
   */
  float?: boolean;
  /** Said after "is not allowed here" when the componentType is refused (what would allow it). */
  hint?: string;
}

function readComponent(view: DataView, offset: number, componentType: number): number {
  switch (componentType) {
    case 5120: return view.getInt8(offset);
    case 5121: return view.getUint8(offset);
    case 5122: return view.getInt16(offset, true);
    case 5123: return view.getUint16(offset, true);
    case 5125: return view.getUint32(offset, true);
    default: return view.getFloat32(offset, true);
  }
}

function normalize(value: number, componentType: number): number {
  switch (componentType) {
    case 5120: return Math.max(value / 127, -1);
    case 5121: return value / 255;
    case 5122: return Math.max(value / 32767, -1);
    case 5123: return value / 65535;
    default: return value;
  }
}

/**
 * Most values (count x components) an accessor may have when the file does not hold them: an
 * accessor without a bufferView is all zeros (plus sparse substitutions), so its count is
 * checked against this bound instead of a buffer. 2^24 values are 64 MiB as float32, more than
 * any character needs (5.6 million vertices of POSITION).
 */
export const MAX_IMPLIED_VALUES = 1 << 24;

/** Where a sparse accessor's indices and values lie, after checking they fit their bufferViews. */
function readSparseLayout(asset: GltfAsset, accessor: GltfAccessor, label: string, components: number, componentBytes: number) {
  const sparse = accessor.sparse!;
  check(accessor.type !== 'MAT2' && accessor.type !== 'MAT3' && accessor.type !== 'MAT4' || componentBytes === 4,
    `${label}: sparse small-component matrices are not supported`);
  check(sparse.count <= accessor.count, `${label}: sparse.count ${sparse.count} is larger than count ${accessor.count}`);
  const idx = bufferViewBytes(asset, sparse.indices.bufferView, `${label} sparse indices`);
  const val = bufferViewBytes(asset, sparse.values.bufferView, `${label} sparse values`);
  const indexType = sparse.indices.componentType;
  const idxBytes = COMPONENT_BYTES[indexType];
  check(idxBytes !== undefined && indexType !== ComponentType.FLOAT && indexType !== ComponentType.BYTE && indexType !== ComponentType.SHORT,
    `${label}: sparse indices componentType ${indexType} must be an unsigned integer type`);
  const idxStart = sparse.indices.byteOffset ?? 0;
  const valStart = sparse.values.byteOffset ?? 0;
  check(idxStart + sparse.count * idxBytes <= idx.bytes.byteLength, `${label}: sparse indices run past their bufferView`);
  check(valStart + sparse.count * components * componentBytes <= val.bytes.byteLength, `${label}: sparse values run past their bufferView`);
  return {
    idxView: new DataView(idx.bytes.buffer, idx.bytes.byteOffset, idx.bytes.byteLength),
    valView: new DataView(val.bytes.buffer, val.bytes.byteOffset, val.bytes.byteLength),
    idxStart, valStart, idxBytes, indexType, sparseCount: sparse.count,
  };
}

/** Returns [bytes, byteStride] of a bufferView, checking it lies inside its buffer. */
function bufferViewBytes(asset: GltfAsset, index: number, where: string): { bytes: Uint8Array; stride?: number } {
  const views = asset.json.bufferViews ?? [];
  check(Number.isInteger(index) && index >= 0 && index < views.length,
    `${where}: bufferView ${index} does not exist (the file has ${views.length})`);
  const view = views[index];
  check(Number.isInteger(view.buffer) && view.buffer >= 0 && view.buffer < asset.buffers.length,
    `bufferView ${index}: buffer ${view.buffer} does not exist (the file has ${asset.buffers.length})`);
  const buffer = asset.buffers[view.buffer];
  const start = view.byteOffset ?? 0;
  check(start + view.byteLength <= buffer.byteLength,
    `bufferView ${index}: bytes ${start}..${start + view.byteLength} lie outside buffer ${view.buffer} (${buffer.byteLength} bytes)`);
  return { bytes: buffer.subarray(start, start + view.byteLength), stride: view.byteStride };
}

/**
 * Reads accessor `index` into a packed typed array, honouring byteStride, normalized integers
 * and sparse substitution. `where` names the reader for error messages ("skin 0:
 * inverseBindMatrices"), and `expect` lists what that reader accepts.
 */
export function readAccessor(asset: GltfAsset, index: number, where: string, expect: AccessorExpectation): AccessorData {
  const accessors = asset.json.accessors ?? [];
  check(Number.isInteger(index) && index >= 0 && index < accessors.length,
    `${where}: accessor ${index} does not exist (the file has ${accessors.length})`);
  const accessor: GltfAccessor = accessors[index];
  const label = `${where} (accessor ${index})`;
  check(expect.types.includes(accessor.type),
    `${label}: type is ${accessor.type}, expected ${expect.types.join(' or ')}`);
  const componentBytes = COMPONENT_BYTES[accessor.componentType];
  check(componentBytes !== undefined, `${label}: unknown componentType ${accessor.componentType}`);
  if (expect.components) {
    const ok = expect.components.some((c) => c.type === accessor.componentType &&
      (c.normalized === undefined || c.normalized === (accessor.normalized ?? false)));
    check(ok, () => `${label}: componentType ${accessor.componentType}${accessor.normalized ? ' (normalized)' : ''} is not allowed here ${expect.hint ?? ''}`.trim());
  }
  check(Number.isInteger(accessor.count) && accessor.count >= 0, `${label}: count ${accessor.count} is not a non-negative integer`);
  if (expect.count !== undefined) {
    check(accessor.count === expect.count, `${label}: has ${accessor.count} elements, expected ${expect.count}`);
  }

  const components = TYPE_COMPONENTS[accessor.type];
  const count = accessor.count;
  const isFloat = accessor.componentType === ComponentType.FLOAT;
  const asFloat = isFloat || (accessor.normalized ?? false) || expect.float === true;
  const convert = (raw: number) => (accessor.normalized ? normalize(raw, accessor.componentType) : raw);

  // Every size is checked against the bytes it reads from (or, for data the file does not hold,
  // against MAX_IMPLIED_VALUES) before the output is allocated.
  let dense: { view: DataView; start: number; byteStride: number; columnBytes: number; rows: number } | undefined;
  if (accessor.bufferView !== undefined) {
    const { bytes, stride } = bufferViewBytes(asset, accessor.bufferView, label);
    // Matrix columns of 1- and 2-byte components are 4-byte aligned (spec 3.6.2.4).
    const columnPad = accessor.type.startsWith('MAT') && componentBytes < 4;
    const rows = accessor.type === 'MAT2' ? 2 : accessor.type === 'MAT3' ? 3 : accessor.type === 'MAT4' ? 4 : components;
    const columnBytes = columnPad ? Math.ceil((rows * componentBytes) / 4) * 4 : rows * componentBytes;
    const elementBytes = columnBytes * (components / rows);
    const byteStride = stride ?? elementBytes;
    check(byteStride >= elementBytes, `${label}: byteStride ${byteStride} is smaller than one element (${elementBytes} bytes)`);
    const start = accessor.byteOffset ?? 0;
    const end = count === 0 ? start : start + (count - 1) * byteStride + elementBytes;
    check(end <= bytes.byteLength,
      `${label}: ${count} elements need bytes ${start}..${end} of bufferView ${accessor.bufferView}, which has ${bytes.byteLength}`);
    dense = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), start, byteStride, columnBytes, rows };
  } else {
    check(count * components <= MAX_IMPLIED_VALUES,
      `${label}: has no bufferView, so its ${count} elements would be ${count * components} zeros the file does not hold; ` +
      `this loader accepts at most ${MAX_IMPLIED_VALUES} such values per accessor`);
  }
  const sparse = accessor.sparse && readSparseLayout(asset, accessor, label, components, componentBytes);

  const values = asFloat ? new Float32Array(count * components) : new Uint32Array(count * components);
  if (dense) {
    const { view, start, byteStride, columnBytes, rows } = dense;
    for (let e = 0; e < count; e++) {
      const base = start + e * byteStride;
      for (let c = 0; c < components; c++) {
        const column = Math.floor(c / rows);
        const row = c % rows;
        values[e * components + c] = convert(readComponent(view, base + column * columnBytes + row * componentBytes, accessor.componentType));
      }
    }
  }
  if (sparse) {
    const { idxView, valView, idxStart, valStart, idxBytes, indexType, sparseCount } = sparse;
    for (let s = 0; s < sparseCount; s++) {
      const target = readComponent(idxView, idxStart + s * idxBytes, indexType);
      check(target < count, `${label}: sparse index ${target} is not below count ${count}`);
      for (let c = 0; c < components; c++) {
        values[target * components + c] = convert(readComponent(valView, valStart + (s * components + c) * componentBytes, accessor.componentType));
      }
    }
  }

  if (asFloat) {
    for (let i = 0; i < values.length; i++) {
      check(Number.isFinite(values[i]), () => `${label}: element ${Math.floor(i / components)} is not a finite number (${values[i]})`);
    }
  }
  return { components, count, values };
}
