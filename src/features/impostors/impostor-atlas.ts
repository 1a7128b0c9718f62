import { show } from '../../math/show';
import { POSE_WORDS } from './impostor-layout';
import type { BakedMaterials } from './impostor-materials';
import { densestPacking } from './impostor-packing';
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
/** Bytes a texel more where a material baked emits light or has an occlusion map (`emissiveOcclusion`): an RGBA8 texture of the emitted colour and the occluded share. */
export const ATLAS_TEXEL_BYTES_EMISSIVE_OCCLUSION = 4;

/**
 * How much less area over the views the poses' own boxes must frame than the box of every pose for
 * AtlasGrid to frame each pose about its own centre (AtlasGrid.frameHalf, poseOffsets). Where
 * clips travel or lie apart it pays many times over (the Walker's 19 clips: 4.1x from the side,
 * 8.7x from above; the Mannequin's three 2.4x from the side), where they stay in place it does not
 * show (the Fox: 1.08x to 1.37x by view, and its figures at the switch moved by the cells' texel
 * alignment either way, 1.4 to 5.4 and 5.8 to 8.5 over its pixels, docs/impostors.md).
 */
export const POSE_FRAMES_GAIN = 1.5;

/**
 * The boxes an atlas frames (impostor-box.ts impostorBoxes): the box of every baked pose (min x,
 * y, z, max x, y, z; model units), and each pose's own at pose x 6 (pose: clip x frames + frame).
 * `plainPoses`: where the atlas holds props of chosen instances, each pose's own box without them
 * (the quad of a look that holds none of them); the same as `poses` where absent.
 */
export interface PoseBoxes {
  readonly box: ArrayLike<number>;
  readonly poses: ArrayLike<number>;
  readonly plainPoses?: ArrayLike<number>;
}

/** The most looks (atlas layers) an atlas may hold: WebGPU's default maxTextureArrayLayers. */
export const IMPOSTOR_MAX_LOOKS = 256;


/**
 * Where each (pose, view) image lies in the atlas. Poses are clip x frames + frame; views are
 * elevation x azimuths + azimuth. Each image frames the projection in its view (viewFrame) of the
 * frame box (the box, or each pose's about its own centre: frameHalf, poseOffsets), a rectangle of model units, and the rectangles are packed at one density (`density` texels a
 * model unit) in shelves (impostor-packing.ts packShelves): a view seen end-on gets fewer texels than one seen from
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
  /** The model-space box of every baked pose (min x, y, z, max x, y, z; model units): the quad spans its projection, the parallax march its depth, the switch its sphere. */
  readonly box: Float64Array;
  /**
   * The half extents (model units) each cell frames about its pose's centre (`poseOffsets`): each
   * axis's largest over the poses' own boxes where that frames POSE_FRAMES_GAIN less area over the
   * views, else (or without pose boxes) the box's own. Each view's cell frames this box's
   * projection, so a clip whose root travels, or clips far apart, do not widen every cell (the
   * Walker's 19 clips: its side views' rectangles 4.1x smaller in area than the box's).
   */
  readonly frameHalf: readonly [number, number, number];
  /** Per pose at 3 x pose: its own box's centre less the box's centre (model units; 0 where the cells frame the box): the point its cells are centred on. */
  readonly poseOffsets: Float64Array;
  /** Whether the cells frame each pose about its own centre (frameHalf, poseOffsets), not the box. */
  readonly posed: boolean;
  /**
   * Per pose at 6 x pose: its own box (min x, y, z, max x, y, z; model units), or the box where
   * none was given: the draw's quad spans the shown poses' (impostor.wgsl quadRect), whatever the
   * cells frame.
   */
  readonly poseBoxes: Float64Array;
  /** poseBoxes without the props of chosen instances (PoseBoxes.plainPoses): the quad of a look that holds none of them. */
  readonly plainPoseBoxes: Float64Array;
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
  /** The top texel row of each shelf (impostor-packing.ts packShelves), then the atlas's height: the bake draws whole shelves. */
  readonly shelves: readonly number[];
  /** The character's one (roughness, metalness) (uniformSurface), kept out of the atlas; undefined: baked per texel. */
  readonly surface: readonly [number, number] | undefined;
  /** Bytes a texel: ATLAS_TEXEL_BYTES, or ATLAS_TEXEL_BYTES_UNIFORM with `surface`; ATLAS_TEXEL_BYTES_TINT_MASK more with `tintMask`, ATLAS_TEXEL_BYTES_EMISSIVE_OCCLUSION with `emissiveOcclusion`. */
  readonly texelBytes: number;
  /** Whether the depth texture's G holds the share of each texel's coverage that takes the instance's tint (RG8: props are baked, which CrowdAppearance does not tint). */
  readonly tintMask: boolean;
  /** Whether every material baked is unlit (allUnlit): the draw shows the tinted base colour, unlit, as the mesh does. */
  readonly unlit: boolean;
  /** The most any material baked emits in a channel (emissiveScale; 0: none): the emissive-occlusion texture holds the emitted colour over it. */
  readonly emissiveScale: number;
  /** Whether a material baked has an occlusion map (hasOcclusion). */
  readonly occlusion: boolean;

  /**
   * @param clips clips baked (ImpostorOptions.clips resolved: bakedClips), each over `frames` frames
   * @param box the box of every pose (min x, y, z, max x, y, z; model units; impostorBox), or it with each pose's own (PoseBoxes, impostorBoxes), or a function of the checked `frames` option that makes either: each view's cell frames the projection of the poses' largest half extents about its pose's centre
   * @param largest the device's maxTextureDimension2D
   * @param layers the device's maxTextureArrayLayers
   * @param materials what the baked materials ask of the texels (BakedMaterials; none by default)
   */
  constructor(clips: number, box: ArrayLike<number> | PoseBoxes | ((frames: number) => ArrayLike<number> | PoseBoxes), largest: number, options: ImpostorOptions = {}, layers = IMPOSTOR_MAX_LOOKS, materials: BakedMaterials = {}) {
    const { surface, tintMask = false, unlit = false, emissiveScale = 0, occlusion = false } = materials;
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
    const boxes = typeof box === 'function' ? box(this.frames) : box;
    const given: Partial<PoseBoxes> & Pick<PoseBoxes, 'box'> = 'poses' in boxes ? boxes : { box: boxes };
    this.box = Float64Array.from(given.box);
    this.views = this.azimuths * this.elevations;
    // The views' rectangles (model units): each pose's cells about its own centre where that frames
    // POSE_FRAMES_GAIN less area over the views than the box does, else about the box's centre.
    const whole: [number, number, number] = [0, 1, 2].map((c) => (this.box[c + 3] - this.box[c]) / 2) as [number, number, number];
    const framed = given.poses && poseFrames(this.box, given.poses, this.poses);
    const d = new Float64Array(3);
    const rectanglesOf = ([x, y, z]: readonly number[]) => Array.from({ length: this.views }, (_, view): [number, number] => {
      const { right, up } = viewBasis(this.direction(view, d));
      const [r, u] = viewFrame([-x, -y, -z, x, y, z], right, up);
      return [2 * r, 2 * u];
    });
    const area = (rectangles: [number, number][]) => rectangles.reduce((sum, [w, h]) => sum + w * h, 0);
    const all = rectanglesOf(whole), own = framed ? rectanglesOf(framed.half) : all;
    const chosen = framed && area(all) >= POSE_FRAMES_GAIN * area(own) ? framed : undefined;
    this.posed = chosen !== undefined;
    this.frameHalf = chosen?.half ?? whole;
    this.poseOffsets = chosen?.offsets ?? new Float64Array(3 * this.poses);
    this.poseBoxes = given.poses ? Float64Array.from(given.poses) : Float64Array.from({ length: 6 * this.poses }, (_, i) => this.box[i % 6]);
    const plain = given.plainPoses;
    if (plain && plain.length !== this.poseBoxes.length) throw new RangeError(`impostors: ${plain.length / 6} plain pose boxes for ${this.poses} poses`);
    this.plainPoseBoxes = plain ? Float64Array.from(plain) : this.poseBoxes;
    const rectangles = chosen ? own : all;
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
    this.unlit = unlit;
    this.emissiveScale = emissiveScale;
    this.occlusion = occlusion;
    this.texelBytes = (surface ? ATLAS_TEXEL_BYTES_UNIFORM : ATLAS_TEXEL_BYTES) + (tintMask ? ATLAS_TEXEL_BYTES_TINT_MASK : 0) + (this.emissiveOcclusion ? ATLAS_TEXEL_BYTES_EMISSIVE_OCCLUSION : 0);
    // The densest packing of the rectangles within the square cells' texels: at most the bytes of square cells of `cell` at 9 bytes a texel: 9/7 as many texels at 7.
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

  /**
   * The radius (model units) of the sphere around what each cell frames: the switch's measure
   * (`switchPixels` across its diameter), so that the cells' texels a pixel at the switch are what
   * `cellSize` sets whether the cells frame the box or each pose (a clip whose root travels then
   * switches nearer: the Mannequin's walk and run 1.3x). The box's sphere where the cells frame it.
   */
  get frameRadius(): number {
    return this.posed ? Math.hypot(...this.frameHalf) : boxSphere(this.box).radius;
  }

  /** The box each cell frames about its pose's centre (min x, y, z, max x, y, z: -frameHalf, frameHalf). */
  get frameBox(): [number, number, number, number, number, number] {
    const [x, y, z] = this.frameHalf;
    return [-x, -y, -z, x, y, z];
  }

  /** Whether the atlas has the emissive-occlusion texture: a material baked emits light or has an occlusion map. */
  get emissiveOcclusion(): boolean {
    return this.emissiveScale > 0 || this.occlusion;
  }

  /** What the emissive-occlusion texture's RGB is stored over (bake.wgsl and impostor.wgsl EMISSIVE_SCALE): emissiveScale, 1 where nothing emits (the texture there holds occlusion alone). */
  get emittedUnit(): number {
    return this.emissiveScale || 1;
  }

  /** Bytes of one layer (one look) of the atlas's textures. */
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
   * (pose, view) cell's top-left texel x | y << 16; from u32 `views x (1 + poses)`, 16 a pose
   * (f32): its own box's centre less the box's centre (x, y, z, then 0: where the cells frame each
   * pose, its offset, poseOffsets) and its half extents (x, y, z, then 0) (poseBoxes), then the
   * same of its plain box (plainPoseBoxes).
   */
  cellTable(): Uint32Array<ArrayBuffer> {
    const cells = this.views * (1 + this.poses);
    const table = new Uint32Array(cells + POSE_WORDS * this.poses);
    for (let view = 0; view < this.views; view++) table[view] = this.sizes[2 * view] | (this.sizes[2 * view + 1] << 16);
    for (let i = 0; i < this.poses * this.views; i++) table[this.views + i] = this.corners[2 * i] | (this.corners[2 * i + 1] << 16);
    const poses = new Float32Array(table.buffer, 4 * cells);
    const box = this.box;
    for (const [at, b] of [[0, this.poseBoxes], [POSE_WORDS / 2, this.plainPoseBoxes]] as const) {
      for (let pose = 0; pose < this.poses; pose++) {
        for (let c = 0; c < 3; c++) {
          poses[POSE_WORDS * pose + at + c] = (b[6 * pose + c] + b[6 * pose + c + 3]) / 2 - (box[c] + box[c + 3]) / 2;
          poses[POSE_WORDS * pose + at + 4 + c] = (b[6 * pose + c + 3] - b[6 * pose + c]) / 2;
        }
      }
    }
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
 * forms the same rectangle from the box's half extents (impostor.wgsl `quadRect` for the quad, `poseFrame` for the cells).
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

/** The model-space sphere around a box (the switch's measure and the depth's scale): the centre and half-diagonal of a box (min x, y, z, max x, y, z). */
export function boxSphere(box: ArrayLike<number>): { centre: [number, number, number]; radius: number } {
  const centre: [number, number, number] = [(box[0] + box[3]) / 2, (box[1] + box[4]) / 2, (box[2] + box[5]) / 2];
  return { centre, radius: Math.hypot(box[3] - box[0], box[4] - box[1], box[5] - box[2]) / 2 };
}

/**
 * The half extents each cell would frame and each pose's offset (AtlasGrid.frameHalf, poseOffsets)
 * from the box of every pose and each pose's own (`poses`, 6 numbers a pose of `count`). A
 * RangeError where the poses' boxes are not `count` boxes inside the box.
 */
function poseFrames(box: Float64Array, poses: ArrayLike<number>, count: number): { half: [number, number, number]; offsets: Float64Array } {
  const offsets = new Float64Array(3 * count);
  if (poses.length !== 6 * count) throw new RangeError(`impostors: ${poses.length / 6} pose boxes for ${count} poses`);
  const half: [number, number, number] = [0, 0, 0];
  for (let p = 0; p < count; p++) {
    for (let c = 0; c < 3; c++) {
      const low = poses[6 * p + c], high = poses[6 * p + c + 3];
      if (!(low <= high && low >= box[c] && high <= box[c + 3])) throw new RangeError(`impostors: pose ${p}'s box is not inside the atlas's box on axis ${c}`);
      half[c] = Math.max(half[c], (high - low) / 2);
      offsets[3 * p + c] = (low + high) / 2 - (box[c] + box[c + 3]) / 2;
    }
  }
  return { half, offsets };
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
