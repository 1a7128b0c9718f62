import { describe, expect, it } from 'vitest';
import { ComponentType as C, MAX_IMPLIED_VALUES, readAccessor, type AccessorExpectation } from '../../src/bake/accessor';
import { buildRig } from '../../src/bake/build-rig';
import { ModelError } from '../../src/bake/errors';
import { watchAllocations } from '../helpers/allocations';
import { expectModelError, GltfBuilder, skinnedModel, translationMatrix } from '../helpers/gltf-builder';

const FLOAT_VEC3: AccessorExpectation = { types: ['VEC3'], components: [{ type: C.FLOAT }] };
const ANY_SCALAR: AccessorExpectation = { types: ['SCALAR'] };

/** Little-endian bytes written field by field, for hand-made interleaved layouts. */
function bytes(length: number, write: (view: DataView) => void): Uint8Array {
  const out = new Uint8Array(length);
  write(new DataView(out.buffer));
  return out;
}

/** A builder whose accessor 0 is an unrelated filler, so the accessor under test has index >= 1. */
function builderWithFiller(): GltfBuilder {
  const b = new GltfBuilder();
  b.addAccessor('SCALAR', Float32Array.of(0));
  return b;
}

describe('readAccessor validity', () => {
  it('rejects an accessor index out of range', () => {
    const asset = builderWithFiller().build();
    expectModelError(() => readAccessor(asset, 3, 'skin 0: inverseBindMatrices', ANY_SCALAR),
      /^skin 0: inverseBindMatrices: accessor 3 does not exist \(the file has 1\)$/);
    expectModelError(() => readAccessor(asset, -1, 'x', ANY_SCALAR), /x: accessor -1 does not exist/);
  });

  it('rejects the wrong type', () => {
    const b = builderWithFiller();
    const a = b.addAccessor('VEC3', new Float32Array(6));
    expectModelError(() => readAccessor(b.build(), a, 'mesh 0 primitive 0 JOINTS_0', { types: ['VEC4'] }),
      /mesh 0 primitive 0 JOINTS_0 \(accessor 1\): type is VEC3, expected VEC4/);
  });

  it('rejects a componentType the reader does not allow, and an unknown one', () => {
    const b = builderWithFiller();
    const shorts = b.addAccessor('VEC3', new Uint16Array(6));
    const normalized = b.addAccessor('VEC3', new Uint16Array(6), { normalized: true });
    const unknown = b.addAccessor('VEC3', new Float32Array(6), { componentType: 5124 });
    const asset = b.build();
    expectModelError(() => readAccessor(asset, shorts, 'POSITION', FLOAT_VEC3), /POSITION \(accessor 1\): componentType 5123 is not allowed here/);
    const unnormalizedOnly: AccessorExpectation = { types: ['VEC3'], components: [{ type: C.UNSIGNED_SHORT, normalized: false }] };
    expectModelError(() => readAccessor(asset, normalized, 'JOINTS_0', unnormalizedOnly),
      /JOINTS_0 \(accessor 2\): componentType 5123 \(normalized\) is not allowed here/);
    expectModelError(() => readAccessor(asset, unknown, 'POSITION', { types: ['VEC3'] }), /POSITION \(accessor 3\): unknown componentType 5124/);
  });

  it('rejects a count that differs from the expected one', () => {
    const b = builderWithFiller();
    const a = b.addAccessor('VEC3', new Float32Array(9));
    expectModelError(() => readAccessor(b.build(), a, 'NORMAL', { ...FLOAT_VEC3, count: 4 }), /NORMAL \(accessor 1\): has 3 elements, expected 4/);
  });

  it('rejects elements that run past the end of their bufferView', () => {
    const b = builderWithFiller();
    const a = b.addAccessor('VEC3', new Float32Array(9), { byteOffset: 4 });
    expectModelError(() => readAccessor(b.build(), a, 'POSITION', FLOAT_VEC3),
      /POSITION \(accessor 1\): 3 elements need bytes 4\.\.40 of bufferView 1, which has 36/);
  });

  it('rejects a byteStride smaller than one element', () => {
    const b = builderWithFiller();
    const view = b.addView(new Uint8Array(36), 8);
    const a = b.addRawAccessor({ bufferView: view, componentType: C.FLOAT, count: 3, type: 'VEC3' });
    expectModelError(() => readAccessor(b.build(), a, 'POSITION', FLOAT_VEC3), /POSITION \(accessor 1\): byteStride 8 is smaller than one element \(12 bytes\)/);
  });

  it('rejects a bufferView that lies past the end of its buffer, or does not exist', () => {
    const b = builderWithFiller();
    const a = b.addAccessor('VEC3', new Float32Array(9));
    const missing = b.addRawAccessor({ bufferView: 9, componentType: C.FLOAT, count: 1, type: 'VEC3' });
    b.json.bufferViews[1].byteLength = 100;
    const asset = b.build();
    expectModelError(() => readAccessor(asset, a, 'POSITION', FLOAT_VEC3), /bufferView 1: bytes 4\.\.104 lie outside buffer 0 \(40 bytes\)/);
    expectModelError(() => readAccessor(asset, missing, 'POSITION', FLOAT_VEC3), /POSITION \(accessor 2\): bufferView 9 does not exist \(the file has 2\)/);
  });

  it('rejects non-finite floats and names the element', () => {
    const b = builderWithFiller();
    const nan = b.addAccessor('VEC3', Float32Array.of(0, 0, 0, 1, NaN, 1));
    const inf = b.addAccessor('SCALAR', Float32Array.of(0, 1, 2, Infinity));
    const asset = b.build();
    expectModelError(() => readAccessor(asset, nan, 'POSITION', FLOAT_VEC3), /POSITION \(accessor 1\): element 1 is not a finite number \(NaN\)/);
    expectModelError(() => readAccessor(asset, inf, 'input', ANY_SCALAR), /input \(accessor 2\): element 3 is not a finite number \(Infinity\)/);
  });

  it('rejects a sparse index that is not below count', () => {
    const b = builderWithFiller();
    const indices = b.addView(Uint8Array.of(5));
    const values = b.addView(new Uint8Array(Float32Array.of(1).buffer));
    const a = b.addRawAccessor({
      componentType: C.FLOAT, count: 4, type: 'SCALAR',
      sparse: { count: 1, indices: { bufferView: indices, componentType: C.UNSIGNED_BYTE }, values: { bufferView: values } },
    });
    expectModelError(() => readAccessor(b.build(), a, 'output', ANY_SCALAR), /output \(accessor 1\): sparse index 5 is not below count 4/);
  });
});

describe('readAccessor validity: sizes are checked before anything is allocated', () => {
  /** Runs `fn`, expects a ModelError matching `message`, and returns the largest typed array asked for meanwhile. */
  async function failsWithin(fn: () => unknown, message: RegExp): Promise<number> {
    const { error, largest } = await watchAllocations(fn);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(message);
    return largest;
  }

  it('a rigid POSITION without bufferView and a count of 3 x 2^27 fails at once, naming the accessor', async () => {
    const m = skinnedModel();
    const position = m.builder.addRawAccessor({ componentType: C.FLOAT, count: 3 * 2 ** 27, type: 'VEC3' });
    m.json.meshes!.push({ primitives: [{ attributes: { POSITION: position } }] });
    m.json.nodes.push({ name: 'prop', mesh: 1 });
    m.json.scenes![0].nodes!.push(3);
    const largest = await failsWithin(() => buildRig(m.builder.build()),
      /^mesh 1 primitive 0 POSITION \(accessor 7\): has no bufferView, so its 402653184 elements would be 1207959552 zeros the file does not hold; this loader accepts at most 16777216 such values per accessor$/);
    expect(largest).toBeLessThan(1 << 20);
  });

  it('2^31 key times fail at once, with or without a bufferView', async () => {
    const implied = skinnedModel();
    implied.json.animations![0].samplers[0].input = implied.builder.addRawAccessor({ componentType: C.FLOAT, count: 2 ** 31, type: 'SCALAR' });
    expect(await failsWithin(() => buildRig(implied.builder.build()),
      /^animation 'wave' channel 0 sampler input \(accessor 7\): has no bufferView, so its 2147483648 elements would be 2147483648 zeros/)).toBeLessThan(1 << 20);
    const backed = skinnedModel();
    backed.json.accessors[backed.acc.times].count = 2 ** 31;
    expect(await failsWithin(() => buildRig(backed.builder.build()),
      /^animation 'wave' channel 0 sampler input \(accessor 5\): 2147483648 elements need bytes 0\.\.8589934592 of bufferView 5, which has 8$/)).toBeLessThan(1 << 20);
  });

  it('a sparse count above the accessor count fails before reading', async () => {
    const b = builderWithFiller();
    const a = b.addRawAccessor({
      componentType: C.FLOAT, count: 2, type: 'SCALAR',
      sparse: { count: 2 ** 31, indices: { bufferView: b.addView(Uint8Array.of(0)), componentType: C.UNSIGNED_BYTE }, values: { bufferView: b.addView(new Uint8Array(4)) } },
    });
    const asset = b.build();
    expect(await failsWithin(() => readAccessor(asset, a, 'output', ANY_SCALAR), /^output \(accessor 1\): sparse\.count 2147483648 is larger than count 2$/)).toBeLessThan(1 << 10);
  });

  it('reads an accessor without bufferView up to the bound of implied values (and the watch sees that allocation)', async () => {
    const b = new GltfBuilder();
    const a = b.addRawAccessor({ componentType: C.FLOAT, count: MAX_IMPLIED_VALUES / 4, type: 'VEC4' });
    const { result: data, largest } = await watchAllocations(() => readAccessor(b.build(), a, 'output', { types: ['VEC4'] }));
    expect(largest).toBe(MAX_IMPLIED_VALUES * 4);
    expect(data!.values.length).toBe(MAX_IMPLIED_VALUES);
    expect(data!.values.every((v) => v === 0)).toBe(true);
    const over = b.addRawAccessor({ componentType: C.FLOAT, count: MAX_IMPLIED_VALUES / 4 + 1, type: 'VEC4' });
    expectModelError(() => readAccessor(b.build(), over, 'output', { types: ['VEC4'] }), /output \(accessor 1\): has no bufferView/);
  });
});

describe('readAccessor', () => {
  it('reads interleaved attributes through byteStride', () => {
    // Per vertex: position vec3f at byte 0, uv vec2f at byte 12; stride 20.
    const stride = 20;
    const view = bytes(3 * stride, (v) => {
      for (let i = 0; i < 3; i++) {
        [i, 10 + i, 20 + i].forEach((x, c) => v.setFloat32(i * stride + c * 4, x, true));
        [0.5 * i, -i].forEach((x, c) => v.setFloat32(i * stride + 12 + c * 4, x, true));
      }
    });
    const b = new GltfBuilder();
    const index = b.addView(view, stride);
    const positions = b.addRawAccessor({ bufferView: index, componentType: C.FLOAT, count: 3, type: 'VEC3' });
    const uvs = b.addRawAccessor({ bufferView: index, byteOffset: 12, componentType: C.FLOAT, count: 3, type: 'VEC2' });
    const asset = b.build();
    const p = readAccessor(asset, positions, 'POSITION', FLOAT_VEC3);
    expect(p.components).toBe(3);
    expect(p.count).toBe(3);
    expect(Array.from(p.values)).toEqual([0, 10, 20, 1, 11, 21, 2, 12, 22]);
    expect(Array.from(readAccessor(asset, uvs, 'TEXCOORD_0', { types: ['VEC2'] }).values)).toEqual([0, -0, 0.5, -1, 1, -2]);
  });

  it('reads a padded byteStride (u16 x 4 every 16 bytes) and keeps integers as integers', () => {
    const view = bytes(3 * 16, (v) => {
      for (let i = 0; i < 3; i++) for (let c = 0; c < 4; c++) v.setUint16(i * 16 + c * 2, 100 * i + c, true);
      v.setUint16(8, 0xffff, true); // padding garbage must not be read
    });
    const b = new GltfBuilder();
    const a = b.addRawAccessor({ bufferView: b.addView(view, 16), componentType: C.UNSIGNED_SHORT, count: 3, type: 'VEC4' });
    const data = readAccessor(b.build(), a, 'JOINTS_0', { types: ['VEC4'] });
    expect(data.values).toBeInstanceOf(Uint32Array);
    expect(Array.from(data.values)).toEqual([0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203]);
  });

  it('converts normalized integers to floats per the spec', () => {
    const b = new GltfBuilder();
    const ubyte = b.addAccessor('SCALAR', Uint8Array.of(0, 255, 51, 128), { normalized: true });
    const ushort = b.addAccessor('SCALAR', Uint16Array.of(0, 65535, 32768), { normalized: true });
    const byte = b.addAccessor('SCALAR', Int8Array.of(-128, -127, 127, 0), { normalized: true });
    const short = b.addAccessor('SCALAR', Int16Array.of(-32768, 32767, 16384), { normalized: true });
    const asset = b.build();
    const read = (a: number) => readAccessor(asset, a, 'WEIGHTS_0', ANY_SCALAR).values;
    expect(read(ubyte)).toBeInstanceOf(Float32Array);
    expect(Array.from(read(ubyte))).toEqual(Array.from(Float32Array.of(0, 1, 0.2, 128 / 255)));
    expect(Array.from(read(ushort))).toEqual(Array.from(Float32Array.of(0, 1, 32768 / 65535)));
    // Signed: max(c / 127, -1), so both -128 and -127 map to -1.
    expect(Array.from(read(byte))).toEqual([-1, -1, 1, 0]);
    expect(Array.from(read(short))).toEqual(Array.from(Float32Array.of(-1, 1, 16384 / 32767)));
  });

  it('substitutes sparse values over a bufferView', () => {
    const b = new GltfBuilder();
    const a = b.addAccessor('SCALAR', Float32Array.of(1, 2, 3, 4, 5));
    b.json.accessors[a].sparse = {
      count: 2,
      // Index 9 at byte 0 is skipped by byteOffset 2: the indices read are 1 and 3.
      indices: { bufferView: b.addView(new Uint8Array(Uint16Array.of(9, 1, 3).buffer)), byteOffset: 2, componentType: C.UNSIGNED_SHORT },
      values: { bufferView: b.addView(new Uint8Array(Float32Array.of(20, 40).buffer)) },
    };
    expect(Array.from(readAccessor(b.build(), a, 'output', ANY_SCALAR).values)).toEqual([1, 20, 3, 40, 5]);
  });

  it('reads a sparse accessor without a bufferView as zeros plus substitutions', () => {
    const b = new GltfBuilder();
    const a = b.addRawAccessor({
      componentType: C.FLOAT, count: 4, type: 'VEC3',
      sparse: {
        count: 2,
        indices: { bufferView: b.addView(Uint8Array.of(0, 2)), componentType: C.UNSIGNED_BYTE },
        values: { bufferView: b.addView(new Uint8Array(Float32Array.of(1, 2, 3, 7, 8, 9).buffer)) },
      },
    });
    expect(Array.from(readAccessor(b.build(), a, 'POSITION', FLOAT_VEC3).values)).toEqual([1, 2, 3, 0, 0, 0, 7, 8, 9, 0, 0, 0]);
  });

  it('reads MAT4 column-major, element by element', () => {
    const b = new GltfBuilder();
    const m0 = translationMatrix(1, 2, 3);
    const m1 = Array.from({ length: 16 }, (_, i) => i + 0.5);
    const a = b.addAccessor('MAT4', Float32Array.of(...m0, ...m1));
    const data = readAccessor(b.build(), a, 'inverseBindMatrices', { types: ['MAT4'], components: [{ type: C.FLOAT }], count: 2 });
    expect(data.components).toBe(16);
    expect(data.count).toBe(2);
    expect(Array.from(data.values)).toEqual([...m0, ...m1]);
  });

  it('skips the 4-byte column padding of small-component matrices', () => {
    // MAT3 of normalized bytes: each 3-byte column is padded to 4 bytes (spec 3.6.2.4).
    const b = new GltfBuilder();
    const a = b.addRawAccessor({
      bufferView: b.addView(Uint8Array.of(255, 0, 0, 99, 0, 255, 0, 99, 0, 0, 255, 99)),
      componentType: C.UNSIGNED_BYTE, normalized: true, count: 1, type: 'MAT3',
    });
    expect(Array.from(readAccessor(b.build(), a, 'm', { types: ['MAT3'] }).values)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });
});
