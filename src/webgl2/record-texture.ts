/**
 * GPU "buffers" on WebGL 2, which has no storage buffers: records kept in RGBA32UI textures that
 * shaders read with texelFetch. Byte offset o lives in texel t = floor(o / 16), at
 * (t % width, floor(t / width)); a 4-byte word w is component w % 4 of texel floor(w / 4); an f32
 * word is read back with uintBitsToFloat (GLSL_RECORD_FETCH in src/webgl2/glsl-texts.ts).
 */

/** Texels per row unless the size needs wider rows: 16 KiB a row, so a small write uploads little. */
export const RECORD_TEXTURE_WIDTH = 1024;

/** Bytes per texel of an RGBA32UI texture. */
export const TEXEL_BYTES = 16;

/**
 * The row width (texels) of a word texture of `bytes` bytes on a context whose MAX_TEXTURE_SIZE is
 * `maxSize`: RECORD_TEXTURE_WIDTH, or a wider power of two (at most maxSize) when that many rows
 * would exceed maxSize. Throws a RangeError naming `label` and MAX_TEXTURE_SIZE when even
 * maxSize x maxSize texels cannot hold them.
 */
export function recordTextureWidth(label: string, bytes: number, maxSize: number): number {
  const texels = Math.max(1, Math.ceil(bytes / TEXEL_BYTES));
  let width = Math.min(RECORD_TEXTURE_WIDTH, maxSize);
  while (Math.ceil(texels / width) > maxSize && width < maxSize) width = Math.min(width * 2, maxSize);
  if (Math.ceil(texels / width) > maxSize) {
    throw new RangeError(`${label}: ${bytes} bytes need ${texels} texels of ${TEXEL_BYTES} bytes, more than a ${maxSize} x ${maxSize} texture holds (this context's MAX_TEXTURE_SIZE is ${maxSize})`);
  }
  return width;
}

/**
 * Runs `upload` with `texture` bound to TEXTURE_2D of the active unit and the unpack state at its
 * defaults for a tightly packed ArrayBufferView (no pixel unpack buffer, no flip, alignment 4, no
 * row length or skips); then puts back the binding and the unpack state it found, so that a
 * renderer that caches GL state (three.js) is not misled.
 */
export function withTextureUpload(gl: WebGL2RenderingContext, texture: WebGLTexture, upload: () => void): void {
  const bound = gl.getParameter(gl.TEXTURE_BINDING_2D) as WebGLTexture | null;
  const unpackBuffer = gl.getParameter(gl.PIXEL_UNPACK_BUFFER_BINDING) as WebGLBuffer | null;
  const saved = savedUnpack;
  UNPACK_PARAMETERS.forEach((p, i) => { saved[i] = gl.getParameter(gl[p]) as number | boolean; });
  if (unpackBuffer) gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  UNPACK_PARAMETERS.forEach((p, i) => { if (saved[i] !== UNPACK_DEFAULTS[i]) gl.pixelStorei(gl[p], UNPACK_DEFAULTS[i] as number); });
  gl.bindTexture(gl.TEXTURE_2D, texture);
  try {
    upload();
  } finally {
    gl.bindTexture(gl.TEXTURE_2D, bound);
    UNPACK_PARAMETERS.forEach((p, i) => { if (saved[i] !== UNPACK_DEFAULTS[i]) gl.pixelStorei(gl[p], saved[i] as number); });
    if (unpackBuffer) gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, unpackBuffer);
  }
}

const UNPACK_PARAMETERS = ['UNPACK_FLIP_Y_WEBGL', 'UNPACK_ALIGNMENT', 'UNPACK_ROW_LENGTH', 'UNPACK_SKIP_ROWS', 'UNPACK_SKIP_PIXELS', 'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_IMAGES'] as const;
const UNPACK_DEFAULTS = [false, 4, 0, 0, 0, 0, 0] as const;
/** withTextureUpload's scratch (uploads do not nest), so an upload allocates no array. */
const savedUnpack: (number | boolean)[] = [false, 4, 0, 0, 0, 0, 0];

/**
 * Makes an immutable RGBA32UI texture `width` texels wide holding `words` (u32 words, 4 a texel,
 * zero-padded to whole rows), nearest filtering. For tables uploaded once (the pose pass's baked
 * entries and track references): no CPU copy is kept. Throws (naming `label`) when the context
 * cannot make it.
 */
export function createWordTexture(gl: WebGL2RenderingContext, label: string, words: Uint32Array, width: number): WebGLTexture {
  const height = Math.max(1, Math.ceil(words.length / 4 / width));
  const texture = gl.createTexture();
  if (!texture) throw new Error(`${label}: the WebGL 2 context could not create a texture (context lost?)`);
  const padded = words.length === width * height * 4 ? words : padTo(words, width * height * 4);
  withTextureUpload(gl, texture, () => {
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, width, height);
    setNearest(gl);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl.RGBA_INTEGER, gl.UNSIGNED_INT, padded);
  });
  return texture;
}

function padTo(words: Uint32Array, length: number): Uint32Array {
  const out = new Uint32Array(length);
  out.set(words);
  return out;
}

/** Nearest filtering, no mipmaps, clamped: what integer textures require to be complete. */
function setNearest(gl: WebGL2RenderingContext): void {
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
}

/**
 * A GPU "buffer" kept in a WebGL 2 RGBA32UI texture: byte offset o is texel o / 16 at
 * (t % width, floor(t / width)). It keeps a CPU copy of its bytes (records are written a range at
 * a time, and a range need not cover whole texels or rows), allocates the texture on the first
 * write, and uploads the rows a write covers (one texSubImage2D). The texture's width is fixed
 * at construction from the size (recordTextureWidth); `grow` keeps the contents.
 */
export class GLRecordTexture {
  /** The texture, or null before the first write (and after destroy). Owned: destroy() deletes it. */
  get texture(): WebGLTexture | null { return this.tex; }
  /** Texels per row (a shader addresses texel t at (t % width, t / width)). */
  get width(): number { return this.rowTexels; }
  /** Rows of the texture. */
  get height(): number { return Math.max(1, Math.ceil(this.shadow.byteLength / TEXEL_BYTES / this.rowTexels)); }
  /** Size in bytes, as a GPUBuffer's: writes must stay within it. */
  get size(): number { return this.bytes; }

  private tex: WebGLTexture | null = null;
  private rowTexels: number;
  private bytes: number;
  /** The contents, whole rows (texels x 16 bytes, rows x width). */
  private shadow: Uint8Array<ArrayBuffer>;
  private readonly maxSize: number;

  /**
   * `bytes`: the size (an integer >= 0; the texture holds at least one texel). Throws a RangeError
   * naming `label` when it is not one, or when it needs a texture over the context's
   * MAX_TEXTURE_SIZE (see recordTextureWidth).
   * @param label names the texture in errors (as a GPU object's label).
   */
  constructor(private readonly gl: WebGL2RenderingContext, readonly label: string, bytes: number) {
    this.maxSize = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    checkBytes(label, bytes);
    this.rowTexels = recordTextureWidth(label, bytes, this.maxSize);
    this.bytes = bytes;
    this.shadow = new Uint8Array(this.rowBytes(bytes));
  }

  /**
   * Same meaning as GPUQueue.writeBuffer: writes `data` at byte `offset`; for an ArrayBuffer,
   * `dataOffset` and `size` count bytes, for a typed array, elements (size: to the end). Offset and
   * byte size must be multiples of 4 and the range within `size`: a RangeError naming the label and
   * the numbers otherwise, with nothing written. Uploads the rows that cover the range.
   */
  write(offset: number, data: ArrayBufferView | ArrayBuffer, dataOffset = 0, size?: number): void {
    const element = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
    const available = ArrayBuffer.isView(data) ? data.byteLength / element : data.byteLength;
    const count = size ?? available - dataOffset;
    if (!Number.isInteger(dataOffset) || dataOffset < 0 || !Number.isInteger(count) || count < 0 || dataOffset + count > available) {
      throw new RangeError(`${this.label}.write: data range [${dataOffset}, ${dataOffset + count}) is outside the ${available} ${element === 1 ? 'bytes' : 'elements'} given`);
    }
    const byteCount = count * element;
    if (!Number.isInteger(offset) || offset < 0 || offset % 4 !== 0 || byteCount % 4 !== 0 || offset + byteCount > this.bytes) {
      throw new RangeError(`${this.label}.write: ${byteCount} bytes at offset ${offset} do not fit a ${this.bytes}-byte record texture (offset and size must be multiples of 4)`);
    }
    if (byteCount === 0) return;
    const source = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset + dataOffset * element, byteCount)
      : new Uint8Array(data, dataOffset, byteCount);
    this.shadow.set(source, offset);
    if (!this.tex) { this.allocate(); return; }
    const rowBytes = this.rowTexels * TEXEL_BYTES;
    const first = Math.floor(offset / rowBytes);
    const last = Math.floor((offset + byteCount - 1) / rowBytes);
    const rows = new Uint32Array(this.shadow.buffer, first * rowBytes, ((last - first + 1) * rowBytes) / 4);
    withTextureUpload(this.gl, this.tex, () => {
      this.gl.texSubImage2D(this.gl.TEXTURE_2D, 0, 0, first, this.rowTexels, last - first + 1, this.gl.RGBA_INTEGER, this.gl.UNSIGNED_INT, rows);
    });
  }

  /**
   * Grows to `bytes` (when larger), keeping the contents: a new texture (its width may widen,
   * see recordTextureWidth), the old one deleted. Throws as the constructor does, changing nothing.
   */
  grow(bytes: number): void {
    checkBytes(this.label, bytes);
    if (bytes <= this.bytes) return;
    const width = recordTextureWidth(this.label, bytes, this.maxSize);
    const grown = new Uint8Array(Math.max(1, Math.ceil(bytes / (width * TEXEL_BYTES))) * width * TEXEL_BYTES);
    grown.set(this.shadow.subarray(0, this.bytes));
    this.shadow = grown;
    this.rowTexels = width;
    this.bytes = bytes;
    if (this.tex) { this.gl.deleteTexture(this.tex); this.tex = null; this.allocate(); }
  }

  /** Deletes the texture (the CPU copy goes with this object; one of a lost context is let go, as the context dropped it). Writing afterwards allocates anew. */
  destroy(): void {
    if (this.tex && this.gl.isTexture(this.tex)) this.gl.deleteTexture(this.tex);
    this.tex = null;
  }

  private rowBytes(bytes: number): number {
    return Math.max(1, Math.ceil(bytes / (this.rowTexels * TEXEL_BYTES))) * this.rowTexels * TEXEL_BYTES;
  }

  private allocate(): void {
    this.tex = createWordTexture(this.gl, this.label, new Uint32Array(this.shadow.buffer), this.rowTexels);
  }
}

function checkBytes(label: string, bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`${label}: size must be a whole number of bytes >= 0, got ${String(bytes)}`);
}
