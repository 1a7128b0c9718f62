import type { MaterialInfo } from '../../bake/rig';
import { show } from '../../math/show';
import type { ImpostorOptions, PartialLayers } from './types';

/** The atlas memory budget CrowdImpostors keeps to unless told otherwise: 64 MiB. */
export const DEFAULT_IMPOSTOR_BUDGET = 64 * 1024 * 1024;

/**
 * Texels per cell side by default (ImpostorOptions.cellSize), with 3 elevation rows
 * (DEFAULT_IMPOSTOR_ELEVATIONS): the Fox's three clips at 16 frames x 8 x 3 views, 9 bytes a
 * texel, 63.3 MiB, in the 64 MiB budget. Measured (docs/impostors.md): each cell framing the box's
 * projection, 80-texel cells and 3 rows keep the Fox within 8/255 of its mesh at the switch where
 * 64-texel cells and 4 rows (54 MiB) left it at up to 13.3.
 */
export const DEFAULT_IMPOSTOR_CELL = 80;
/** Elevation rows by default (ImpostorOptions.elevations): 0, 37.5 and 75 degrees. */
export const DEFAULT_IMPOSTOR_ELEVATIONS = 3;

/** The band's default width (ImpostorOptions.band): the last quarter of the distance before the switch. */
export const DEFAULT_IMPOSTOR_BAND = 0.25;
/** Pixels the framing sphere spans where an impostor becomes a dot by default (ImpostorOptions.dotPixels). */
export const DEFAULT_IMPOSTOR_DOT = 2;
/** The most ImpostorOptions.dotPixels may be: a dot is one pixel, so past a few pixels it would show less than the character covers. */
export const MAX_IMPOSTOR_DOT = 4;
/** Bytes a texel of the atlas holds: RGBA8 albedo + RGBA8 (octahedral normal, roughness, metalness) + R8 depth (the draw's parallax). The budget's measure (cellSize). */
export const ATLAS_TEXEL_BYTES = 9;
/** Bytes a texel where the character has one roughness and metalness (uniformSurface): the surface is RG8 (the normal alone). */
export const ATLAS_TEXEL_BYTES_UNIFORM = 7;
/** Bytes a texel more where props are baked (`tintMask`): the depth texture's G, the covered share the instance's tint applies to (the character's, not its props'). */
export const ATLAS_TEXEL_BYTES_TINT_MASK = 1;

/** The most looks (atlas layers) an atlas may hold: WebGPU's default maxTextureArrayLayers. */
export const IMPOSTOR_MAX_LOOKS = 256;

/**
 * Where each (pose, view) image lies in the atlas. Poses are clip x frames + frame; views are
 * elevation x azimuths + azimuth. Each image frames the box's projection in its view (viewFrame),
 * a rectangle of model units, and the rectangles are packed at one density (`density` texels a
 * model unit) in shelves (packShelves): a view seen end-on gets fewer texels than one seen from
 * the side or from above at a slant, where square cells gave each view the same texels whatever
 * its rectangle (the Fox at the defaults: 2.9 texels a pixel at the switch in every view, where
 * its diagonal views had 2.2 to 2.4 and its end-on views 4.7 to 5.7). The rectangles take at most the texels of
 * square cells of `cellSize` at 9 bytes a texel (the option: the budget's measure, unchanged),
 * so the atlas is no larger; a character of one roughness and metalness (`surface`) leaves them
 * out, 7 bytes a texel, and gets 9/7 the texels in those bytes. A layer of the atlas is one look (a (variant, parts) of CrowdAppearance); the cell
 * size fits `looks` layers (ImpostorOptions.looks) in the budget; `capacity` layers fit at that
 * size. Made from checked options, the box to frame (impostorBox) and the device's largest
 * texture side and layer count; fixed once made.
 */
export class AtlasGrid {
  readonly frames: number;
  readonly azimuths: number;
  readonly elevations: number;
  /** Elevation of the top row, radians. */
  readonly maxElevation: number;
  /** Texels per side of the square cell whose texels each view gets on average (after the budget): the atlas holds at most poses x views x cellSize^2 texels. */
  readonly cellSize: number;
  /** Texels a model unit in every view (the views' rectangles are packed at this one density). */
  readonly density: number;
  /** The model-space box the cells frame (min x, y, z, max x, y, z; model units): each view's cell its projection. */
  readonly box: Float64Array;
  readonly switchPixels: number;
  /** The band's width: a fraction of the switch distance (ImpostorOptions.band). */
  readonly band: number;
  /** Pixels the framing sphere spans where an impostor becomes a dot (ImpostorOptions.dotPixels; 0: never). */
  readonly dotPixels: number;
  readonly poses: number;
  readonly views: number;
  /** Looks (layers) the cell size was chosen to fit in the budget (ImpostorOptions.looks). */
  readonly looks: number;
  /** Most layers the atlas may hold: as many looks as fit in the budget at `cellSize`, at most the device's layer limit. */
  readonly capacity: number;
  /** Atlas size in texels. */
  readonly width: number;
  readonly height: number;

  /** Per view: its cell's width and height in texels (2 x viewFrame's half extents x density, rounded). */
  private readonly sizes: Uint16Array;
  /** Per (pose, view), at pose x views + view: its cell's top-left texel (x, y). */
  private readonly corners: Uint16Array;
  /** The top texel row of each shelf (packShelves), then the atlas's height: the bake draws whole shelves. */
  readonly shelves: readonly number[];
  /** The character's one (roughness, metalness) (uniformSurface), kept out of the atlas; undefined: baked per texel. */
  readonly surface: readonly [number, number] | undefined;
  /** Bytes a texel: ATLAS_TEXEL_BYTES, or ATLAS_TEXEL_BYTES_UNIFORM with `surface`; ATLAS_TEXEL_BYTES_TINT_MASK more with `tintMask`. */
  readonly texelBytes: number;
  /** Whether the depth texture's G holds the share of each texel's coverage that takes the instance's tint (RG8: props are baked, which CrowdAppearance does not tint). */
  readonly tintMask: boolean;

  /**
   * @param clips clips baked (ImpostorOptions.clips resolved: bakedClips), each over `frames` frames
   * @param box the box to frame (min x, y, z, max x, y, z; model units; impostorBox), or a function of the checked `frames` option that makes it: each view's cell frames its projection
   * @param largest the device's maxTextureDimension2D
   * @param layers the device's maxTextureArrayLayers
   * @param surface the character's one (roughness, metalness) where it has one (uniformSurface): the atlas then leaves them out (7 bytes a texel, not 9) and packs that many more texels
   * @param tintMask whether texels hold the share their tint applies to (props baked: a byte a texel more)
   */
  constructor(clips: number, box: ArrayLike<number> | ((frames: number) => ArrayLike<number>), largest: number, options: ImpostorOptions = {}, layers = IMPOSTOR_MAX_LOOKS, surface?: readonly [number, number], tintMask = false) {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`impostor options must be an object, got ${show(options)}`);
    const known = ['frames', 'clips', 'azimuths', 'elevations', 'maxElevation', 'cellSize', 'budgetBytes', 'switchPixels', 'band', 'dotPixels', 'looks', 'partialLayers'];
    for (const key of Object.keys(options)) if (!known.includes(key)) throw new TypeError(`impostor options: unknown option "${key}" (known: ${known.join(', ')})`);
    this.frames = integerIn(options.frames ?? 16, 2, 64, 'frames');
    this.azimuths = integerIn(options.azimuths ?? 8, 3, 32, 'azimuths');
    this.elevations = integerIn(options.elevations ?? DEFAULT_IMPOSTOR_ELEVATIONS, 1, 8, 'elevations');
    const degrees = options.maxElevation ?? 75;
    if (typeof degrees !== 'number' || !(degrees >= 0 && degrees <= 89)) throw new RangeError(`impostors.maxElevation must be a number of degrees in [0, 89], got ${show(options.maxElevation)}`);
    this.maxElevation = (degrees * Math.PI) / 180;
    let cell = integerIn(options.cellSize ?? DEFAULT_IMPOSTOR_CELL, 16, 256, 'cellSize');
    if (cell % 16 !== 0) throw new RangeError(`impostors.cellSize must be a multiple of 16 in [16, 256], got ${cell}`);
    const budget = options.budgetBytes ?? DEFAULT_IMPOSTOR_BUDGET;
    if (!Number.isInteger(budget) || budget < 1024 * 1024) throw new RangeError(`impostors.budgetBytes must be an integer of at least 1 MiB (1048576), got ${show(options.budgetBytes)}`);
    const pixels = options.switchPixels;
    if (pixels !== undefined && !(typeof pixels === 'number' && pixels >= 1 && pixels <= 4096)) throw new RangeError(`impostors.switchPixels must be a number of pixels in [1, 4096], got ${show(pixels)}`);
    const band = options.band ?? DEFAULT_IMPOSTOR_BAND;
    if (typeof band !== 'number' || !(band >= 0 && band <= 0.9)) throw new RangeError(`impostors.band must be a fraction of the switch distance in [0, 0.9], got ${show(options.band)}`);
    this.band = band;
    const maxLooks = Math.min(IMPOSTOR_MAX_LOOKS, layers);
    this.looks = integerIn(options.looks ?? 1, 1, maxLooks, 'looks');
    checkPartialLayers(options.partialLayers ?? 'mesh'); // CrowdImpostors keeps it (with its options): not the layout's
    if (!Number.isInteger(clips) || clips < 1) throw new RangeError(`impostors need a character with at least one clip, got ${clips}`);
    this.poses = clips * this.frames;
    this.box = Float64Array.from(typeof box === 'function' ? box(this.frames) : box);
    this.views = this.azimuths * this.elevations;
    const lookBytes = (side: number) => this.poses * this.views * side * side * ATLAS_TEXEL_BYTES;
    // Over the budget, the largest whole cell side (at least 16) that fits: the cells are packed at
    // one density, so the side is a budget, not a grid (by steps of 16, the Walker's 19 clips took
    // 16-texel cells in 15.9 of 64 MiB, where 31 fit).
    cell = Math.max(16, Math.min(cell, Math.floor(Math.sqrt(budget / (this.looks * lookBytes(1))))));
    while (cell > 16 && this.looks * lookBytes(cell) > budget) cell--;
    const bytes = this.looks * lookBytes(cell);
    if (bytes > budget) {
      const looks = this.looks > 1 ? `${this.looks} looks x ` : '';
      throw new RangeError(`impostors.budgetBytes ${budget} is under the smallest atlas: ${looks}${clips} clips x ${this.frames} frames x ${this.views} views x 16 x 16 texels x ${ATLAS_TEXEL_BYTES} bytes = ${bytes}; allow more or bake fewer ${this.looks > 1 ? 'looks, ' : ''}frames or views`);
    }
    this.cellSize = cell;
    this.switchPixels = pixels ?? cell / 2;
    const dot = options.dotPixels ?? Math.min(DEFAULT_IMPOSTOR_DOT, this.switchPixels / 2);
    if (typeof dot !== 'number' || !(dot >= 0 && dot <= MAX_IMPOSTOR_DOT)) throw new RangeError(`impostors.dotPixels must be a number of pixels in [0, ${MAX_IMPOSTOR_DOT}], got ${show(options.dotPixels)}`);
    if (dot > 0 && dot >= this.switchPixels) throw new RangeError(`impostors.dotPixels (${dot}) must be under switchPixels (${this.switchPixels}): dots are the impostors past the switch`);
    this.dotPixels = dot;
    this.surface = surface;
    this.tintMask = tintMask;
    this.texelBytes = (surface ? ATLAS_TEXEL_BYTES_UNIFORM : ATLAS_TEXEL_BYTES) + (tintMask ? ATLAS_TEXEL_BYTES_TINT_MASK : 0);
    // The views' rectangles (model units) and the densest packing of them within the square cells' texels.
    const rectangles: [number, number][] = [];
    const d = new Float64Array(3);
    for (let view = 0; view < this.views; view++) {
      const { right, up } = viewBasis(this.direction(view, d));
      const [r, u] = viewFrame(this.box, right, up);
      rectangles.push([2 * r, 2 * u]);
    }
    // At most the bytes of square cells of `cell` at 9 bytes a texel: 9/7 as many texels at 7.
    const texels = Math.floor((this.poses * this.views * cell * cell * ATLAS_TEXEL_BYTES) / this.texelBytes);
    const packing = densestPacking(rectangles, this.poses, texels, largest);
    if (!packing) throw new RangeError(`the impostor atlas's ${this.poses} x ${this.views} cells do not fit the device's maxTextureDimension2D ${largest}: bake fewer frames, views or a smaller cellSize`);
    this.density = packing.density;
    this.sizes = packing.sizes;
    this.corners = packing.corners;
    this.shelves = packing.shelves;
    this.width = packing.width;
    this.height = packing.height;
    this.capacity = Math.max(this.looks, Math.min(maxLooks, Math.floor(budget / this.bytes)));
  }

  /** Bytes of one layer (one look) of the atlas's three textures. */
  get bytes(): number {
    return this.width * this.height * this.texelBytes;
  }

  /** The cell of pose `pose` seen from view `view`: its top-left texel x, y and its width and height in texels. */
  cell(pose: number, view: number): [number, number, number, number] {
    const i = 2 * (pose * this.views + view);
    return [this.corners[i], this.corners[i + 1], this.sizes[2 * view], this.sizes[2 * view + 1]];
  }

  /**
   * The cells as the impostor draw reads them (impostor.wgsl `cellTable`): u32 `view`, for each
   * view, its cell's width | height << 16 (texels); u32 `views + pose x views + view` the
   * (pose, view) cell's top-left texel x | y << 16.
   */
  cellTable(): Uint32Array<ArrayBuffer> {
    const table = new Uint32Array(this.views * (1 + this.poses));
    for (let view = 0; view < this.views; view++) table[view] = this.sizes[2 * view] | (this.sizes[2 * view + 1] << 16);
    for (let i = 0; i < this.poses * this.views; i++) table[this.views + i] = this.corners[2 * i] | (this.corners[2 * i + 1] << 16);
    return table;
  }

  /** View `view`'s unit direction from the character towards the camera, in model space (+y up, azimuth 0 along +z). */
  direction(view: number, out: Float64Array = new Float64Array(3)): Float64Array {
    const azimuth = ((view % this.azimuths) / this.azimuths) * 2 * Math.PI;
    const row = Math.floor(view / this.azimuths);
    const elevation = this.elevations === 1 ? 0 : (row / (this.elevations - 1)) * this.maxElevation;
    out[0] = Math.sin(azimuth) * Math.cos(elevation);
    out[1] = Math.sin(elevation);
    out[2] = Math.cos(azimuth) * Math.cos(elevation);
    return out;
  }
}

/**
 * The camera basis of a view from unit direction `d` (towards the camera, model space): right =
 * normalize(y x d), up = d x right, so the model's +y projects upwards. The impostor draw forms the
 * same basis from the camera's direction (impostor.wgsl).
 */
export function viewBasis(d: ArrayLike<number>): { right: number[]; up: number[] } {
  const rx = d[2], rz = -d[0];
  const length = Math.hypot(rx, rz) || 1;
  const right = [rx / length, 0, rz / length];
  const up = [d[1] * right[2] - d[2] * right[1], d[2] * right[0] - d[0] * right[2], d[0] * right[1] - d[1] * right[0]];
  return { right, up };
}

/**
 * The rectangle a view's cell frames: the half extents (model units) of the box (min x, y, z, max
 * x, y, z) projected on the view's right and up axes (viewBasis), about the box's centre (a box
 * projects symmetrically about its centre's projection). Each cell maps it onto its square of
 * texels, so the cell's texels lie across the character, not across the sphere around it (the
 * Fox, long and low, seen from the side: 1.2x the texels along it, 2.4x up it). The impostor draw
 * forms the same rectangle from the box's half extents (impostor.wgsl `cellFrame`).
 */
export function viewFrame(box: ArrayLike<number>, right: ArrayLike<number>, up: ArrayLike<number>): [number, number] {
  let r = 0, u = 0;
  for (let i = 0; i < 3; i++) {
    const half = (box[i + 3] - box[i]) / 2;
    r += Math.abs(right[i]) * half;
    u += Math.abs(up[i]) * half;
  }
  return [r, u];
}

/**
 * The one (roughness, metalness) the bake would write in every texel of a character whose
 * materials (`materials`: each primitive's) have no metallic-roughness texture and all the same
 * factors (bake.wgsl: roughness clamped to [0.0525, 1]); undefined where they differ or a texture
 * varies them (the atlas then bakes them per texel).
 */
export function uniformSurface(materials: readonly Pick<MaterialInfo, 'metallicRoughnessImage' | 'roughnessFactor' | 'metallicFactor'>[]): [number, number] | undefined {
  if (materials.length === 0 || materials.some((m) => m.metallicRoughnessImage)) return undefined;
  const [first] = materials;
  if (materials.some((m) => m.roughnessFactor !== first.roughnessFactor || m.metallicFactor !== first.metallicFactor)) return undefined;
  return [Math.min(Math.max(first.roughnessFactor, 0.0525), 1), first.metallicFactor];
}

/** The model-space sphere around a box (the switch's measure and the depth's scale): the centre and half-diagonal of a box (min x, y, z, max x, y, z). */
export function boxSphere(box: ArrayLike<number>): { centre: [number, number, number]; radius: number } {
  const centre: [number, number, number] = [(box[0] + box[3]) / 2, (box[1] + box[4]) / 2, (box[2] + box[5]) / 2];
  return { centre, radius: Math.hypot(box[3] - box[0], box[4] - box[1], box[5] - box[2]) / 2 };
}

/** A packing of the views' cells: its density (texels a model unit), each view's cell size and each (pose, view) cell's corner (AtlasGrid's arrays), the shelves' tops and the atlas's size. */
interface Packing {
  density: number;
  sizes: Uint16Array;
  corners: Uint16Array;
  shelves: number[];
  width: number;
  height: number;
}

/**
 * Packs `poses` cells of each view's size (`sizes`: width, height in texels, a pair a view) into
 * shelves `width` texels wide: the views in `order` (shelfOrder: taller first), each view's cells
 * left to right, on from the last shelf while they fit, then on new shelves of the view's height.
 * Writes the cells' corners (at pose x views + view) into `corners` and the shelves' tops into
 * `shelves` when given (without them the full shelves are counted, not walked); returns the
 * atlas's height, or Infinity where a cell is wider than `width`.
 */
function packShelves(sizes: Uint16Array, order: readonly number[], poses: number, width: number, corners?: Uint16Array, shelves?: number[]): number {
  const views = sizes.length / 2;
  let x = 0, top = 0, shelf = 0; // the current shelf's next free texel, its top and its height (0: none yet)
  for (const view of order) {
    const w = sizes[2 * view], h = sizes[2 * view + 1];
    if (w > width) return Infinity;
    for (let pose = 0; pose < poses;) {
      if (shelf === 0 || x + w > width) {
        if (!corners) {
          // The rest on new shelves of `per` cells: the last one's free texel is where the loop would leave it.
          const per = Math.floor(width / w), more = Math.ceil((poses - pose) / per);
          top += shelf + (more - 1) * h;
          shelf = h;
          x = (poses - pose - (more - 1) * per) * w;
          break;
        }
        top += shelf;
        shelf = h;
        x = 0;
        shelves?.push(top);
      }
      const n = Math.min(poses - pose, Math.floor((width - x) / w)); // cells on this shelf
      for (let k = 0; corners && k < n; k++) corners.set([x + k * w, top], 2 * ((pose + k) * views + view));
      x += n * w;
      pose += n;
    }
  }
  shelves?.push(top + shelf);
  return top + shelf;
}

/** The views in packShelves's order: taller cells first, ties by view. */
function shelfOrder(sizes: Uint16Array): number[] {
  return Array.from({ length: sizes.length / 2 }, (_, v) => v).sort((a, b) => sizes[2 * b + 1] - sizes[2 * a + 1] || a - b);
}

/** Each view's cell size at `density` texels a model unit (its rectangle's, rounded; at least 1). */
function cellSizes(rectangles: readonly [number, number][], density: number): Uint16Array {
  return Uint16Array.from(rectangles.flatMap(([w, h]) => [Math.max(1, Math.round(w * density)), Math.max(1, Math.round(h * density))]));
}

/**
 * The densest packing (packShelves) of `poses` cells a view of the views' `rectangles` (model
 * units) in at most `texels` texels, at most `largest` texels a side: a bisection on the
 * density (24 halvings), at each the atlas width (a multiple of 64: a row of RGBA8 texels a
 * multiple of 256 bytes, as a copy into a buffer needs) that packs into the fewest
 * texels. Undefined where not even the sparsest fits (more cells than `largest` squared holds).
 */
function densestPacking(rectangles: readonly [number, number][], poses: number, texels: number, largest: number): Packing | undefined {
  const area = rectangles.reduce((sum, [w, h]) => sum + w * h, 0);
  const fewest = (density: number): [number, number] | undefined => {
    const sizes = cellSizes(rectangles, density);
    const order = shelfOrder(sizes);
    let best: [number, number] | undefined;
    for (let width = 64; width <= largest; width += 64) {
      const height = packShelves(sizes, order, poses, width);
      if (height <= largest && (!best || width * height < best[0] * best[1])) best = [width, height];
    }
    return best && best[0] * best[1] <= texels ? best : undefined;
  };
  // Every view's rectangle at the density that gives them `texels` in all: no packing is denser (but for rounding).
  let high = 1.05 * Math.sqrt(texels / (poses * area));
  let low = 0;
  for (let i = 0; i < 24; i++) {
    const middle = (low + high) / 2;
    if (fewest(middle)) low = middle;
    else high = middle;
  }
  const fit = low > 0 ? fewest(low) : undefined;
  if (!fit) return undefined;
  const sizes = cellSizes(rectangles, low);
  const corners = new Uint16Array(2 * poses * rectangles.length);
  const shelves: number[] = [];
  const height = packShelves(sizes, shelfOrder(sizes), poses, fit[0], corners, shelves);
  if (height !== fit[1]) throw new Error(`densestPacking: the shelves walked are ${height} texels tall, counted ${fit[1]}`);
  return { density: low, sizes, corners, shelves, width: fit[0], height: fit[1] };
}

function integerIn(value: unknown, low: number, high: number, name: string): number {
  if (!Number.isInteger(value) || (value as number) < low || (value as number) > high) throw new RangeError(`impostors.${name} must be an integer in [${low}, ${high}], got ${show(value)}`);
  return value as number;
}

/** `value` as ImpostorOptions.partialLayers (and the CrowdImpostors setter): a RangeError naming it for anything but 'mesh' or 'leave-out'. */
export function checkPartialLayers(value: unknown): PartialLayers {
  if (value !== 'mesh' && value !== 'leave-out') throw new RangeError(`impostors.partialLayers must be 'mesh' or 'leave-out', got ${show(value)}`);
  return value;
}
