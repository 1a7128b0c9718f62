import { describe, expect, it } from 'vitest';
import { readContainer } from '../../src/bake/glb';
import { arrayBufferOf, expectModelError, toGlb } from '../helpers/gltf-builder';

const JSON_DOC = { asset: { version: '2.0' }, buffers: [{ byteLength: 8 }] };
const BIN = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
const read = (bytes: Uint8Array) => readContainer(arrayBufferOf(bytes));

/** Byte offsets where a .glb's header and chunk headers begin and end. */
function boundaries(glb: Uint8Array): number[] {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const out = [0, 4, 8, 12];
  for (let offset = 12; offset < glb.byteLength; offset += 8 + view.getUint32(offset, true)) out.push(offset, offset + 4, offset + 8);
  return out;
}

describe('readContainer validity', () => {
  it('names a .glb cut off anywhere, at and between every header and chunk boundary', () => {
    const glb = toGlb(JSON_DOC, BIN);
    const cuts = new Set([...boundaries(glb), ...boundaries(glb).map((b) => b + 1), glb.byteLength - 1]);
    for (const cut of [...cuts].filter((c) => c >= 4 && c < glb.byteLength)) {
      expectModelError(() => read(glb.subarray(0, cut)), /^the \.glb is truncated: /);
    }
    // Fewer than 4 bytes cannot say they are a .glb: they are read as (broken) JSON text.
    expectModelError(() => read(glb.subarray(0, 3)), /^the file is not valid JSON/);
    expectModelError(() => read(new Uint8Array(0)), /^the file is empty$/);
  });

  it('names each damaged header and chunk field', () => {
    const glb = () => toGlb(JSON_DOC, BIN);
    const withWord = (offset: number, value: number) => { const b = glb(); new DataView(b.buffer).setUint32(offset, value, true); return b; };
    expectModelError(() => read(withWord(4, 1)), /^the \.glb is container version 1; only version 2 \(glTF 2\.0\) is supported$/);
    expectModelError(() => read(withWord(8, 1 << 30)), /^the \.glb is truncated: its header declares 1073741824 bytes, the file has \d+$/);
    expectModelError(() => read(withWord(8, 12)), /^the \.glb header declares a length of 12 bytes, too short for a JSON chunk$/);
    expectModelError(() => read(withWord(12, 0xffffff00)), /^the \.glb is truncated: chunk 0 \(JSON\) declares 4294967040 bytes from byte 20, but the file ends at byte \d+$/);
    expectModelError(() => read(withWord(16, 0x004e4942)), /^the \.glb's first chunk is BIN, not JSON$/);
  });

  it('names JSON that is not UTF-8 or not JSON, in a .glb and as .gltf text', () => {
    const bad = toGlb(JSON_DOC);
    bad[20] = 0xff;
    expectModelError(() => read(bad), /^the \.glb JSON chunk is not valid UTF-8 text$/);
    const notJson = new TextEncoder().encode('{"asset": {"version": "2.0"}, "nodes": [NaN]}');
    expectModelError(() => read(notJson), /^the file is not valid JSON \(Unexpected token/);
    expectModelError(() => read(notJson.subarray(0, 20)), /^the file is not valid JSON \(/);
  });
});

describe('readContainer', () => {
  it('reads the JSON and BIN chunks of a .glb without copying the BIN chunk', () => {
    const glb = toGlb(JSON_DOC, BIN);
    const container = read(glb);
    expect(container).toMatchObject({ glb: true, json: JSON_DOC });
    expect(Array.from(container.bin!)).toEqual(Array.from(BIN));
  });

  it('reads a .glb without a BIN chunk, and skips chunks of unknown types', () => {
    expect(read(toGlb(JSON_DOC)).bin).toBeUndefined();
    // Append an unknown 4-byte chunk after BIN and fix the total length.
    const glb = toGlb(JSON_DOC, BIN);
    const longer = new Uint8Array(glb.byteLength + 12);
    longer.set(glb);
    const view = new DataView(longer.buffer);
    view.setUint32(8, longer.byteLength, true);
    view.setUint32(glb.byteLength, 4, true);
    view.setUint32(glb.byteLength + 4, 0x12345678, true);
    expect(Array.from(read(longer).bin!)).toEqual(Array.from(BIN));
  });

  it('reads .gltf text, dropping a UTF-8 byte order mark', () => {
    const text = new TextEncoder().encode(`\ufeff${JSON.stringify(JSON_DOC)}`);
    expect(read(text)).toEqual({ json: JSON_DOC, glb: false });
  });
});
