import { show } from '../../math/show';
import type { ImpostorOptions } from './types';

/** The atlas memory budget CrowdImpostors keeps to unless told otherwise: 64 MiB. */
export const DEFAULT_IMPOSTOR_BUDGET = 64 * 1024 * 1024;

/** The band's default width (ImpostorOptions.band): the last quarter of the distance before the switch. */
export const DEFAULT_IMPOSTOR_BAND = 0.25;
/** Bytes a texel of the atlas holds: RGBA8 albedo + RGBA8 (octahedral normal, roughness, metalness) + R8 depth (the draw's parallax). */
export const ATLAS_TEXEL_BYTES = 9;

/** The most looks (atlas layers) an atlas may hold: WebGPU's default maxTextureArrayLayers. */
export const IMPOSTOR_MAX_LOOKS = 256;

/**
 * Where each (pose, view) image lies in the atlas, and the sphere the images frame. Poses are
 * clip x frames + frame; views are elevation x azimuths + azimuth. A layer of the atlas (one
 * look: a (variant, parts) of CrowdAppearance) is a grid of square cells: `columns` poses side
 * by side, bands of `views` rows, one band per `columns` poses. The cell size fits `looks`
 * layers (ImpostorOptions.looks) in the budget; `capacity` layers fit at that size. Made from
 * checked options and the device's largest texture side and layer count; fixed once made.
 */
export class AtlasGrid {
  readonly frames: number;
  readonly azimuths: number;
  readonly elevations: number;
  /** Elevation of the top row, radians. */
  readonly maxElevation: number;
  /** Texels per cell side (after the budget). */
  readonly cellSize: number;
  readonly switchPixels: number;
  /** The band's width: a fraction of the switch distance (ImpostorOptions.band). */
  readonly band: number;
  readonly poses: number;
  readonly views: number;
  /** Looks (layers) the cell size was chosen to fit in the budget (ImpostorOptions.looks). */
  readonly looks: number;
  /** Most layers the atlas may hold: as many looks as fit in the budget at `cellSize`, at most the device's layer limit. */
  readonly capacity: number;
  readonly columns: number;
  readonly rows: number;
  /** Atlas size in texels. */
  readonly width: number;
  readonly height: number;

  /**
   * @param clips clips of the character (each baked over `frames` frames)
   * @param largest the device's maxTextureDimension2D
   * @param layers the device's maxTextureArrayLayers
   */
  constructor(clips: number, largest: number, options: ImpostorOptions = {}, layers = IMPOSTOR_MAX_LOOKS) {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`impostor options must be an object, got ${show(options)}`);
    const known = ['frames', 'azimuths', 'elevations', 'maxElevation', 'cellSize', 'budgetBytes', 'switchPixels', 'band', 'looks'];
    for (const key of Object.keys(options)) if (!known.includes(key)) throw new TypeError(`impostor options: unknown option "${key}" (known: ${known.join(', ')})`);
    this.frames = integerIn(options.frames ?? 16, 2, 64, 'frames');
    this.azimuths = integerIn(options.azimuths ?? 8, 3, 32, 'azimuths');
    this.elevations = integerIn(options.elevations ?? 4, 1, 8, 'elevations');
    const degrees = options.maxElevation ?? 75;
    if (typeof degrees !== 'number' || !(degrees >= 0 && degrees <= 89)) throw new RangeError(`impostors.maxElevation must be a number of degrees in [0, 89], got ${show(options.maxElevation)}`);
    this.maxElevation = (degrees * Math.PI) / 180;
    let cell = integerIn(options.cellSize ?? 64, 16, 256, 'cellSize');
    if ((cell & (cell - 1)) !== 0) throw new RangeError(`impostors.cellSize must be a power of two in [16, 256], got ${cell}`);
    const budget = options.budgetBytes ?? DEFAULT_IMPOSTOR_BUDGET;
    if (!Number.isInteger(budget) || budget < 1024 * 1024) throw new RangeError(`impostors.budgetBytes must be an integer of at least 1 MiB (1048576), got ${show(options.budgetBytes)}`);
    const pixels = options.switchPixels;
    if (pixels !== undefined && !(typeof pixels === 'number' && pixels >= 1 && pixels <= 4096)) throw new RangeError(`impostors.switchPixels must be a number of pixels in [1, 4096], got ${show(pixels)}`);
    const band = options.band ?? DEFAULT_IMPOSTOR_BAND;
    if (typeof band !== 'number' || !(band >= 0 && band <= 0.9)) throw new RangeError(`impostors.band must be a fraction of the switch distance in [0, 0.9], got ${show(options.band)}`);
    this.band = band;
    const maxLooks = Math.min(IMPOSTOR_MAX_LOOKS, layers);
    this.looks = integerIn(options.looks ?? 1, 1, maxLooks, 'looks');
    if (!Number.isInteger(clips) || clips < 1) throw new RangeError(`impostors need a character with at least one clip, got ${clips}`);
    this.poses = clips * this.frames;
    this.views = this.azimuths * this.elevations;
    const lookBytes = (side: number) => this.poses * this.views * side * side * ATLAS_TEXEL_BYTES;
    while (cell > 16 && this.looks * lookBytes(cell) > budget) cell /= 2;
    const bytes = this.looks * lookBytes(cell);
    if (bytes > budget) {
      const looks = this.looks > 1 ? `${this.looks} looks x ` : '';
      throw new RangeError(`impostors.budgetBytes ${budget} is under the smallest atlas: ${looks}${clips} clips x ${this.frames} frames x ${this.views} views x 16 x 16 texels x ${ATLAS_TEXEL_BYTES} bytes = ${bytes}; allow more or bake fewer ${this.looks > 1 ? 'looks, ' : ''}frames or views`);
    }
    this.cellSize = cell;
    this.switchPixels = pixels ?? cell / 2;
    this.columns = Math.min(this.poses, Math.floor(largest / cell));
    this.rows = Math.ceil(this.poses / this.columns) * this.views;
    this.width = this.columns * cell;
    this.height = this.rows * cell;
    if (this.height > largest) {
      throw new RangeError(`the impostor atlas needs ${this.width} x ${this.height} texels, over the device's maxTextureDimension2D ${largest}: bake fewer frames, views or a smaller cellSize`);
    }
    this.capacity = Math.max(this.looks, Math.min(maxLooks, Math.floor(budget / this.bytes)));
  }

  /** Bytes of one layer (one look) of the atlas's three textures. */
  get bytes(): number {
    return this.width * this.height * ATLAS_TEXEL_BYTES;
  }

  /** The (column, row) cell of pose `pose` seen from view `view`. */
  cell(pose: number, view: number): [number, number] {
    return [pose % this.columns, Math.floor(pose / this.columns) * this.views + view];
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

/** The model-space sphere the cells frame: the centre and half-diagonal of a box (min x, y, z, max x, y, z). */
export function boxSphere(box: ArrayLike<number>): { centre: [number, number, number]; radius: number } {
  const centre: [number, number, number] = [(box[0] + box[3]) / 2, (box[1] + box[4]) / 2, (box[2] + box[5]) / 2];
  return { centre, radius: Math.hypot(box[3] - box[0], box[4] - box[1], box[5] - box[2]) / 2 };
}

function integerIn(value: unknown, low: number, high: number, name: string): number {
  if (!Number.isInteger(value) || (value as number) < low || (value as number) > high) throw new RangeError(`impostors.${name} must be an integer in [${low}, ${high}], got ${show(value)}`);
  return value as number;
}
