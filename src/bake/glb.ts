import { check, ModelError } from './errors';

/**
 * The container of a glTF file: a .glb (12-byte header, a JSON chunk, an optional BIN chunk;
 * glTF 2.0 spec, section 4.4) or a .gltf (JSON text). Every length is checked against the bytes
 * before anything is read, so a truncated or damaged file is named as such.
 */
export interface GltfContainer {
  /** The parsed JSON document (any JSON value: the caller checks its shape). */
  json: unknown;
  /** The BIN chunk of a .glb, when it has one. Views `data`; does not copy. */
  bin?: Uint8Array;
  /** True for a .glb, false for .gltf text. */
  glb: boolean;
}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const JSON_CHUNK = 0x4e4f534a; // 'JSON'
const BIN_CHUNK = 0x004e4942; // 'BIN\0'

/** Reads the container of .glb or .gltf bytes. */
export function readContainer(data: ArrayBuffer): GltfContainer {
  const bytes = new Uint8Array(data);
  const view = new DataView(data);
  if (bytes.byteLength >= 4 && view.getUint32(0, true) === GLB_MAGIC) return readGlb(bytes, view);
  check(bytes.byteLength > 0, 'the file is empty');
  return { json: parseJsonText(bytes, 'the file'), glb: false };
}

function readGlb(bytes: Uint8Array, view: DataView): GltfContainer {
  check(bytes.byteLength >= 12, `the .glb is truncated: it has ${bytes.byteLength} bytes, less than its 12-byte header`);
  const version = view.getUint32(4, true);
  check(version === 2, `the .glb is container version ${version}; only version 2 (glTF 2.0) is supported`);
  const declared = view.getUint32(8, true);
  check(declared <= bytes.byteLength, `the .glb is truncated: its header declares ${declared} bytes, the file has ${bytes.byteLength}`);
  check(declared >= 20, `the .glb header declares a length of ${declared} bytes, too short for a JSON chunk`);
  let json: unknown;
  let bin: Uint8Array | undefined;
  let offset = 12;
  for (let chunk = 0; offset < declared; chunk++) {
    check(declared - offset >= 8, `the .glb is truncated: chunk ${chunk} starts at byte ${offset} but only ${declared - offset} bytes remain, less than a chunk header`);
    const length = view.getUint32(offset, true);
    const type = view.getUint32(offset + 4, true);
    const name = type === JSON_CHUNK ? 'JSON' : type === BIN_CHUNK ? 'BIN' : `0x${type.toString(16).padStart(8, '0')}`;
    const start = offset + 8;
    check(length <= declared - start,
      `the .glb is truncated: chunk ${chunk} (${name}) declares ${length} bytes from byte ${start}, but the file ends at byte ${declared}`);
    const body = bytes.subarray(start, start + length);
    if (chunk === 0) {
      check(type === JSON_CHUNK, `the .glb's first chunk is ${name}, not JSON`);
      json = parseJsonText(body, 'the .glb JSON chunk');
    } else if (type === BIN_CHUNK) {
      check(chunk === 1, `the .glb has a BIN chunk at position ${chunk}; it must directly follow the JSON chunk`);
      bin = body;
    } else if (type === JSON_CHUNK) {
      throw new ModelError(`the .glb has a second JSON chunk (chunk ${chunk})`);
    } // Chunks of other types are skipped, as the spec asks.
    offset = start + length;
  }
  return { json, bin, glb: true };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 JSON text (a BOM is dropped) and parses it; `where` names it in errors. */
function parseJsonText(bytes: Uint8Array, where: string): unknown {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ModelError(`${where} is not valid UTF-8 text`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    // V8 quotes a piece of the text after the reason; keep the reason and the position.
    const reason = (e as Error).message.replace(/,? *(?:\.\.\.)?".*$/s, '').trim();
    throw new ModelError(`${where} is not valid JSON (${reason || 'syntax error'})`);
  }
}
