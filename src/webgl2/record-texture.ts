/**
 * A GPU "buffer" for WebGL 2, where the vertex stage has no storage buffers: bytes kept in an
 * RGBA32UI texture, 16 bytes a texel, texel t at (t % width, floor(t / width)) (the contract of
 * issue 37, docs/webgl2.md). GLSL reads word block t with
 * `texelFetch(usampler2D, ivec2(t % width, t / width), 0)` and f32 words with uintBitsToFloat.
 *
 * Minimal version written by the gl-draw branch to the contract's signatures, so that the skin
 * pass can be tested before gl-pose's lands; the lead keeps one of the two.
 */

/** Texels per row: a power of two under every WebGL 2 MAX_TEXTURE_SIZE (at least 2048). */
const RECORD_TEXTURE_WIDTH = 1024;

/** Bytes of a GPU buffer kept in an RGBA32UI texture; owns the texture. */
export class GLRecordTexture {
  /** The texture, or null until the first write. */
  texture: WebGLTexture | null = null;
  /** Texels per row. */
  readonly width = RECORD_TEXTURE_WIDTH;
  /** Size in bytes (a multiple of 16); grows on a write past the end. */
  size: number;
  private rows = 0;
  private shadow: Uint32Array;

  /** `bytes`: the size to start with (rounded up to 16); nothing is allocated before the first write. */
  constructor(private readonly gl: WebGL2RenderingContext, readonly label: string, bytes: number) {
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`${label}: size must be a whole number of bytes >= 0, got ${bytes}`);
    this.size = Math.ceil(bytes / 16) * 16;
    this.shadow = new Uint32Array(this.size / 4);
  }

  /**
   * As GPUQueue.writeBuffer: `size` bytes of `data` from `dataOffset` (bytes for an ArrayBuffer,
   * elements for a view) to byte `offset` (both multiples of 4). Uploads the rows that cover the range.
   */
  write(offset: number, data: ArrayBufferView | ArrayBuffer, dataOffset = 0, size?: number): void {
    const view = ArrayBuffer.isView(data) ? data : new Uint8Array(data);
    const element = ArrayBuffer.isView(data) ? (view as Uint8Array).BYTES_PER_ELEMENT ?? 1 : 1;
    const start = view.byteOffset + dataOffset * element;
    const bytes = size ?? view.byteLength - dataOffset * element;
    if (offset % 4 !== 0 || bytes % 4 !== 0 || start % 4 !== 0) throw new RangeError(`${this.label}.write: offset ${offset} and size ${bytes} must be multiples of 4`);
    if (bytes < 0 || dataOffset * element + bytes > view.byteLength) throw new RangeError(`${this.label}.write: ${bytes} bytes from ${dataOffset * element} run past the data's ${view.byteLength}`);
    if (offset + bytes > this.size) this.grow(offset + bytes);
    this.shadow.set(new Uint32Array(view.buffer, start, bytes / 4), offset / 4);
    this.allocate();
    const gl = this.gl;
    const first = Math.floor(offset / 16 / this.width);
    const last = Math.floor((Math.max(offset + bytes, 1) - 1) / 16 / this.width);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, first, this.width, last - first + 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, this.shadow, first * this.width * 4);
  }

  destroy(): void {
    this.gl.deleteTexture(this.texture);
    this.texture = null;
  }

  /** Grows to at least `bytes` (doubling), keeping the contents; the texture is remade on the next write. */
  private grow(bytes: number): void {
    const size = Math.max(Math.ceil(bytes / 16) * 16, this.size * 2);
    const shadow = new Uint32Array(Math.max(size / 4, this.shadow.length));
    shadow.set(this.shadow);
    this.shadow = shadow;
    this.size = size;
  }

  /** (Re)makes the texture when its rows no longer cover `size`, with the whole shadow copy. */
  private allocate(): void {
    const rows = Math.max(1, Math.ceil(this.size / 16 / this.width));
    if (this.texture && rows <= this.rows) return;
    const gl = this.gl;
    const limit = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    if (rows > limit) throw new RangeError(`${this.label}: ${this.size} bytes need ${rows} texture rows, over this device's MAX_TEXTURE_SIZE ${limit}`);
    gl.deleteTexture(this.texture);
    this.texture = gl.createTexture();
    this.rows = rows;
    const padded = new Uint32Array(rows * this.width * 4);
    padded.set(this.shadow);
    this.shadow = padded;
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, this.width, rows);
    // An integer texture is complete only with NEAREST filtering (texelFetch reads it).
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.width, rows, gl.RGBA_INTEGER, gl.UNSIGNED_INT, padded);
  }
}
