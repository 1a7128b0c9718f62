import { CLIP_CLOCK, INSTANCE_STRUCT, POSE_RECORD_STRUCTS, type GeneratedShader } from '../../runtime/wgsl-constants';
import { CULL_COUNTERS, DOT_WORKGROUP, IMPOSTOR_CHUNK, IMPOSTOR_CLIPS, LAYERS_IDLE, LAYERS_INDEX, LAYERS_SHOWN, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, STACK_LAYERS } from '../../runtime/layout';

/**
 * The impostor draw's atlas uniform (shaders/impostors/impostor.wgsl `Atlas`), written per frame:
 * the model-space sphere around the animation box (its centre: the cells' centre; its radius: the depth's scale), the views and frames (impostor-atlas.ts AtlasGrid; where each cell lies is the cell table's, AtlasGrid.cellTable), the crowd
 * clock in ticks (the clip clock's, src/runtime/clip-clock.ts), whether an environment lights it
 * and the looks baked (impostor-looks.ts: one atlas layer each).
 */
export const IMPOSTOR_ATLAS = {
  size: 80,
  centre: 0, //        vec3f: model units
  radius: 12, //       f32: model units
  frames: 16, //       u32: frames per clip
  azimuths: 20, //     u32
  elevations: 24, //   u32
  maxElevation: 28, // f32: radians
  ticks: 32, //        i32: crowd clock in CLOCK_TICKS_PER_SECOND
  views: 36, //        u32: azimuths x elevations
  environment: 40, //  u32: 1 when the crowd has lights.environment (bound at 10 and 11), else 0
  varied: 44, //       u32: parts mask of the primitives a variant changes (a look's variant is 0 where none of its parts is)
  looks: 48, //        u32: looks baked (layers; the table from lookTable, sorted by props, variant, then parts)
  standIn: 52, //      u32: the layer drawn for a look without one (the most used look's)
  marchDistance: 56, // f32: model units (over the instance's scale) from the box's centre out to which the march takes every step (marchDistance); 0: everywhere
  clipSlots: 60, //    u32: word of the cell table (binding 14) where each character clip's index among the atlas's clips begins (ImpostorOptions.clips)
  pixelsAtUnit: 64, // f32: pixels one model unit spans one unit from the camera (projection x viewport height / 2): a dot's area (ImpostorRoute.pixelsAtUnit)
  cells: 68, //        u32: cells a layer (poses x views): where a layer's covered fractions begin (binding 18)
  lookTable: 72, //    u32: word of the cell table (binding 14) where the baked looks begin (4 words a look: props, variant, parts, 0)
  plainParts: 76, //   u32: the parts every instance shows without CrowdAppearance; 0: the appearance records' own
} as const;

/**
 * A layered instance's shown record (shaders/impostors/shown.wgsl and impostor.wgsl `Shown`), one
 * per layer stack record at its index, written by the shown pass each frame where it sets the
 * record's LAYERS_SHOWN bit: the two heaviest clips of the stack's blend as the impostor shows
 * them, in place of the record's clip A and clip B (their clock words as INSTANCE has them) and
 * clip B's share of the two.
 */
export const IMPOSTOR_SHOWN = {
  size: 36,
  clipA: 0, //    u32
  clipB: 4, //    u32
  phaseA: 8, //   u32
  phaseB: 12, //  u32
  rateLoA: 16, // u32
  rateHiA: 20, // u32
  rateLoB: 24, // u32
  rateHiB: 28, // u32
  blend: 32, //   f32: in [0, 1]
} as const;

/** The shown pass's uniform block (shown.wgsl `ShownParams`), written when the layered range or the row length changes. */
export const SHOWN_PARAMS = {
  size: 144,
  first: 0, //     u32: the first layered slot (InstanceStore.plainCount)
  count: 4, //     u32: layered instances
  rowLength: 8, // u32: instances a row of the 2D dispatch
  leaveOut: 12, // u32: 1 where partial layers are left out (ImpostorOptions.partialLayers 'leave-out'), 0 where they keep a mesh
  clips: 16, //    array<vec4u, 8>: bit c set, the atlas holds clip c (ImpostorRoute's bits)
} as const;

/** The shown record as WGSL (IMPOSTOR_SHOWN). */
const SHOWN_STRUCT = `struct Shown {
  clipA: u32,
  clipB: u32,
  phaseA: u32,
  phaseB: u32,
  rateLoA: u32,
  rateHiA: u32,
  rateLoB: u32,
  rateHiB: u32,
  blend: f32,
}`;

/** Steps of the impostor draw's parallax march across the animation box (impostor.wgsl sampleCell). */
export const PARALLAX_STEPS = 32;
/** How far behind the baked surface, in march steps, a step still meets it (impostor.wgsl sampleCell). */
export const PARALLAX_THICKNESS = 1.5;
/** The parallax march's steps per pixel of the impostor's size on screen (its framing sphere's diameter) past the distance where that reaches PARALLAX_STEPS (marchDistance). */
export const MARCH_STEPS_PER_PIXEL = 3;
/** Taps a side of the grid over a view cell that a dot averages (impostor.wgsl dotCell: DOT_TAPS^2, stratified); 2 lit 10% fewer pixels than the meshes, a fixed 8 x 8 grid 11% dimmer (docs/impostors.md, Dots). */
export const DOT_TAPS = 4;

/** Words a pose in the cell table after the cells (AtlasGrid.cellTable; impostor.wgsl poseWords, poseBox): its box, then its plain box, half the words each. */
export const POSE_WORDS = 16;

/**
 * Bytes before the slots in the dots' list (impostor.wgsl `DotList`, impostor-dots.ts): its
 * drawIndirect quadruple, the cull pass's dots' quadruple, padding to WebGPU's storage binding
 * offset alignment (the dots' draw binds the slots from here as its impostorList).
 */
export const DOT_LIST_HEADER = 256;
/** The fewest steps of the parallax march (impostor.wgsl marchSteps): below 8 the Fox's silhouette thins (docs/impostors-measured.md). */
export const MIN_MARCH_STEPS = 8;

/**
 * The distance (model units over the instance's scale, from the box's centre) out to which the
 * parallax march takes every step (PARALLAX_STEPS): the switch distance `switchDistance` (where
 * the framing sphere spans `switchPixels` pixels), or further where the sphere still spans
 * PARALLAX_STEPS / MARCH_STEPS_PER_PIXEL pixels there. 0 (every step everywhere) without a switch distance.
 */
export function marchDistance(switchDistance: number, switchPixels: number): number {
  if (!(switchDistance > 0) || !Number.isFinite(switchDistance)) return 0;
  return switchDistance * Math.max(1, (MARCH_STEPS_PER_PIXEL * switchPixels) / PARALLAX_STEPS);
}

/**
 * The parallax march's steps for an impostor `distance` model units (over its scale) from the
 * camera (impostor.wgsl marchSteps, its twin; `far` from marchDistance): PARALLAX_STEPS out to
 * `far` (so at the switch and in the band, where the impostor must match the mesh, the march is
 * as it was), past it MARCH_STEPS_PER_PIXEL a pixel of the impostor's size, at least
 * MIN_MARCH_STEPS (the Fox in a million in view, a pixel each: 8 steps, not 32). `far` 0: every step.
 */
export function marchSteps(far: number, distance: number): number {
  if (!(far > 0) || !(distance > 0)) return PARALLAX_STEPS;
  return Math.min(PARALLAX_STEPS, Math.max(MIN_MARCH_STEPS, Math.ceil((PARALLAX_STEPS * far) / distance)));
}

/** The generated blocks of the impostor shaders: a turn in radians, the parallax march's steps, thickness and fewest steps, the `layers` word's bits, the instance and shown records and the clip clock (draw); none (bake, the covered rectangles); the `layers` word's bits, the records and stacks and the layer counts (the shown pass). */
export const IMPOSTOR_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/impostors/impostor.wgsl', constants: [['TAU', 2 * Math.PI, 'f32'], ['PARALLAX_STEPS', PARALLAX_STEPS, 'u32'], ['PARALLAX_THICKNESS', PARALLAX_THICKNESS, 'f32'], ['MIN_MARCH_STEPS', MIN_MARCH_STEPS, 'u32'], ['IMPOSTOR_CHUNK', IMPOSTOR_CHUNK, 'u32'], ['COUNTER_IMPOSTOR', CULL_COUNTERS.impostor, 'u32'], ['COUNTER_BAND', CULL_COUNTERS.band, 'u32'], ['COUNTER_DOT', CULL_COUNTERS.dot, 'u32'], ['DOT_TAPS', DOT_TAPS, 'u32'], ['DOT_WORKGROUP', DOT_WORKGROUP, 'u32'], ['POSE_WORDS', POSE_WORDS, 'u32'], ['DOT_LIST_HEADER', DOT_LIST_HEADER, 'u32'], ['LAYERS_IDLE', LAYERS_IDLE, 'u32'], ['LAYERS_SHOWN', LAYERS_SHOWN, 'u32'], ['LAYERS_INDEX', LAYERS_INDEX, 'u32']], structs: `${INSTANCE_STRUCT}\n\n${SHOWN_STRUCT}\n\n${CLIP_CLOCK}` },
  { file: 'shaders/impostors/bake.wgsl', constants: [], structs: '' },
  { file: 'shaders/impostors/coverage.wgsl', constants: [], structs: '' },
  {
    file: 'shaders/impostors/shown.wgsl',
    constants: [['LAYERS_IDLE', LAYERS_IDLE], ['LAYERS_SHOWN', LAYERS_SHOWN], ['LAYERS_INDEX', LAYERS_INDEX], ['MASK_NONE', MASK_NONE], ['MAX_OVERRIDE_LAYERS', MAX_OVERRIDE_LAYERS], ['MAX_ADDITIVE_LAYERS', MAX_ADDITIVE_LAYERS], ['STACK_LAYERS', STACK_LAYERS], ['IMPOSTOR_CLIPS', IMPOSTOR_CLIPS]],
    structs: `${POSE_RECORD_STRUCTS}\n\n${SHOWN_STRUCT}`,
  },
];
