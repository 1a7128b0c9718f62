import { describe, expect, it } from 'vitest';
import { GLRecordTexture, RECORD_TEXTURE_WIDTH, recordTextureWidth } from '../../src/webgl2/record-texture';
import { FakeWebGL2, type FakeTexture } from '../helpers/fake-webgl2';

const make = (bytes: number, max = 4096) => {
  const gl = new FakeWebGL2(max);
  return { gl, records: new GLRecordTexture(gl as unknown as WebGL2RenderingContext, 'Test.records', bytes) };
};
const words = (t: GLRecordTexture) => (t.texture as unknown as FakeTexture).words!;

describe('GLRecordTexture: validity', () => {
  it('refuses a size that is not a whole number of bytes, naming the label', () => {
    for (const bytes of [-4, 1.5, Number.NaN, Infinity]) expect(() => make(bytes)).toThrow(/Test.records: size must be a whole number of bytes/);
  });

  it('refuses a size over MAX_TEXTURE_SIZE squared by name, allocating nothing', () => {
    const gl = new FakeWebGL2(64);
    expect(() => new GLRecordTexture(gl as unknown as WebGL2RenderingContext, 'Test.records', 64 * 64 * 16 + 4)).toThrow(/Test.records: 65540 bytes need 4097 texels .* MAX_TEXTURE_SIZE is 64/);
    expect(gl.textures).toEqual([]);
    expect(() => new GLRecordTexture(gl as unknown as WebGL2RenderingContext, 'Test.records', 64 * 64 * 16)).not.toThrow();
  });

  it('refuses writes outside the size or not on 4-byte boundaries, writing nothing', () => {
    const { gl, records } = make(64);
    const data = new Uint32Array([1, 2, 3, 4]);
    expect(() => records.write(60, data)).toThrow(/Test.records.write: 16 bytes at offset 60 do not fit a 64-byte record texture/);
    expect(() => records.write(2, data)).toThrow(/multiples of 4/);
    expect(() => records.write(0, new Uint8Array(3))).toThrow(/multiples of 4/);
    expect(() => records.write(0, data, 2, 3)).toThrow(/data range \[2, 5\) is outside the 4 elements given/);
    expect(() => records.write(0, data.buffer, 8, 12)).toThrow(/data range \[8, 20\) is outside the 16 bytes given/);
    expect(records.texture).toBeNull();
    expect(gl.uploads).toEqual([]);
  });
});

describe('GLRecordTexture: writeBuffer semantics on a texture', () => {
  it('allocates on the first write; byte offset o lands in texel o / 16 at (t % width, t / width)', () => {
    const { gl, records } = make(RECORD_TEXTURE_WIDTH * 16 * 3);
    expect(records.texture).toBeNull();
    expect([records.width, records.height, records.size]).toEqual([RECORD_TEXTURE_WIDTH, 3, RECORD_TEXTURE_WIDTH * 48]);
    const texel = RECORD_TEXTURE_WIDTH + 5; // row 1, column 5
    records.write(texel * 16 + 8, new Uint32Array([7, 9]));
    const t = records.texture as unknown as FakeTexture;
    expect([t.width, t.height]).toEqual([RECORD_TEXTURE_WIDTH, 3]);
    expect(Array.from(words(records).subarray((1 * RECORD_TEXTURE_WIDTH + 5) * 4, (1 * RECORD_TEXTURE_WIDTH + 5) * 4 + 4))).toEqual([0, 0, 7, 9]);
    expect(gl.bound).toBeNull(); // the binding it found is put back
  });

  it('a later write uploads only the rows it covers, keeping the rest of a partly written texel', () => {
    const { gl, records } = make(RECORD_TEXTURE_WIDTH * 16 * 4);
    records.write(0, new Uint32Array([1, 2, 3, 4]));
    gl.uploads.length = 0;
    records.write(4, new Float32Array([0.5]));
    records.write(RECORD_TEXTURE_WIDTH * 16 * 2 - 8, new Uint32Array([5, 6, 7, 8])); // rows 1 and 2
    expect(gl.uploads).toEqual([{ x: 0, y: 0, width: RECORD_TEXTURE_WIDTH, height: 1 }, { x: 0, y: 1, width: RECORD_TEXTURE_WIDTH, height: 2 }]);
    const w = words(records);
    expect([w[0], new Float32Array(w.buffer, 4, 1)[0], w[2], w[3]]).toEqual([1, 0.5, 3, 4]);
    const at = RECORD_TEXTURE_WIDTH * 8 - 2;
    expect(Array.from(w.subarray(at, at + 4))).toEqual([5, 6, 7, 8]);
  });

  it('reads ArrayBuffer ranges in bytes and typed-array ranges in elements, as GPUQueue.writeBuffer', () => {
    const { records } = make(64);
    const data = new Uint32Array([10, 11, 12, 13, 14, 15]);
    records.write(0, data, 2, 2); // elements 2, 3
    records.write(16, data.buffer, 4, 8); // bytes 4..12: elements 1, 2
    expect(Array.from(words(records).subarray(0, 8))).toEqual([12, 13, 0, 0, 11, 12, 0, 0]);
  });

  it('grow keeps the contents in a new texture and deletes the old one; a width too small for the rows widens', () => {
    const { records } = make(32, 2048);
    records.write(16, new Uint32Array([1, 2, 3, 4]));
    const old = records.texture as unknown as FakeTexture;
    const bytes = RECORD_TEXTURE_WIDTH * 16 * 2048 + 16; // 2048 rows of 1024 texels do not hold them, 2048 wide does
    records.grow(bytes);
    expect(old.deleted).toBe(true);
    expect([records.width, records.height, records.size]).toEqual([2048, 1025, bytes]);
    expect(Array.from(words(records).subarray(4, 8))).toEqual([1, 2, 3, 4]);
    expect(() => records.grow(2048 * 2048 * 16 + 16)).toThrow(/MAX_TEXTURE_SIZE is 2048/);
    expect(records.size).toBe(bytes);
  });

  it('recordTextureWidth: the default width, widened only when the rows would not fit', () => {
    expect(recordTextureWidth('x', 100, 16384)).toBe(RECORD_TEXTURE_WIDTH);
    expect(recordTextureWidth('x', RECORD_TEXTURE_WIDTH * 16 * 2048, 2048)).toBe(RECORD_TEXTURE_WIDTH);
    expect(recordTextureWidth('x', RECORD_TEXTURE_WIDTH * 16 * 2048 + 16, 2048)).toBe(2048);
  });
});
