/**
 * A model of the part of WebGL 2 that GLRecordTexture uses, for Node tests: texture storage
 * (RGBA32UI / RGBA32F words), texSubImage2D with the unpack state, bindings, and a record of the
 * uploads. It checks what a real context would reject (a sub-image outside the texture, a
 * mismatched array length) by throwing. The browser tests run the real thing.
 */
export interface FakeTexture { width: number; height: number; words: Uint32Array | undefined; deleted: boolean }

export interface Upload { x: number; y: number; width: number; height: number }

/** A fake WebGL2RenderingContext (cast it) with `textures`, `uploads` and a settable MAX_TEXTURE_SIZE. */
export class FakeWebGL2 {
  readonly TEXTURE_2D = 0x0de1; readonly TEXTURE_BINDING_2D = 0x8069; readonly MAX_TEXTURE_SIZE = 0x0d33;
  readonly PIXEL_UNPACK_BUFFER = 0x88ec; readonly PIXEL_UNPACK_BUFFER_BINDING = 0x88ef;
  readonly UNPACK_FLIP_Y_WEBGL = 0x9240; readonly UNPACK_ALIGNMENT = 0x0cf5; readonly UNPACK_ROW_LENGTH = 0x0cf2;
  readonly UNPACK_SKIP_ROWS = 0x0cf3; readonly UNPACK_SKIP_PIXELS = 0x0cf4; readonly UNPACK_IMAGE_HEIGHT = 0x806e; readonly UNPACK_SKIP_IMAGES = 0x806d;
  readonly RGBA32UI = 0x8d70; readonly RGBA_INTEGER = 0x8d99; readonly UNSIGNED_INT = 0x1405;
  readonly TEXTURE_MIN_FILTER = 0x2801; readonly TEXTURE_MAG_FILTER = 0x2800; readonly TEXTURE_WRAP_S = 0x2802; readonly TEXTURE_WRAP_T = 0x2803;
  readonly NEAREST = 0x2600; readonly CLAMP_TO_EDGE = 0x812f;

  readonly textures: FakeTexture[] = [];
  readonly uploads: Upload[] = [];
  bound: FakeTexture | null = null;
  unpack = new Map<number, number | boolean>([[0x9240, false], [0x0cf5, 4], [0x0cf2, 0], [0x0cf3, 0], [0x0cf4, 0], [0x806e, 0], [0x806d, 0]]);

  constructor(public maxTextureSize = 4096) {}

  getParameter(p: number): unknown {
    if (p === this.MAX_TEXTURE_SIZE) return this.maxTextureSize;
    if (p === this.TEXTURE_BINDING_2D) return this.bound;
    if (p === this.PIXEL_UNPACK_BUFFER_BINDING) return null;
    if (this.unpack.has(p)) return this.unpack.get(p);
    throw new Error(`fake WebGL 2: getParameter(0x${p.toString(16)}) is not modelled`);
  }
  pixelStorei(p: number, value: number | boolean): void { this.unpack.set(p, value); }
  bindBuffer(): void {}
  createTexture(): FakeTexture { const t = { width: 0, height: 0, words: undefined, deleted: false }; this.textures.push(t); return t; }
  deleteTexture(t: FakeTexture | null): void { if (t) t.deleted = true; }
  bindTexture(_target: number, t: FakeTexture | null): void { this.bound = t; }
  texParameteri(): void {}
  texStorage2D(_target: number, _levels: number, format: number, width: number, height: number): void {
    const t = this.bound!;
    if (format !== this.RGBA32UI || t.words) throw new Error('fake WebGL 2: texStorage2D: RGBA32UI on a fresh texture only');
    t.width = width; t.height = height; t.words = new Uint32Array(width * height * 4);
  }
  texSubImage2D(_target: number, _level: number, x: number, y: number, width: number, height: number, format: number, type: number, data: Uint32Array): void {
    const t = this.bound!;
    if (!t.words || format !== this.RGBA_INTEGER || type !== this.UNSIGNED_INT) throw new Error('fake WebGL 2: texSubImage2D needs RGBA_INTEGER / UNSIGNED_INT on an allocated texture');
    if (this.unpack.get(this.UNPACK_FLIP_Y_WEBGL) || this.unpack.get(this.UNPACK_ROW_LENGTH) !== 0) throw new Error('fake WebGL 2: unpack state not at its defaults');
    if (x < 0 || y < 0 || x + width > t.width || y + height > t.height) throw new Error(`fake WebGL 2: sub-image ${x},${y} ${width}x${height} outside ${t.width}x${t.height}`);
    if (data.length < width * height * 4) throw new Error('fake WebGL 2: ArrayBufferView too small');
    for (let r = 0; r < height; r++) t.words.set(data.subarray(r * width * 4, (r + 1) * width * 4), ((y + r) * t.width + x) * 4);
    this.uploads.push({ x, y, width, height });
  }
}
