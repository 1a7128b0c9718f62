import { CLIP_CLOCK, INSTANCE_STRUCT, type GeneratedShader } from '../../runtime/wgsl-constants';

/**
 * The impostor draw's atlas uniform (shaders/impostors/impostor.wgsl `Atlas`), written per frame:
 * the model-space sphere around the animation box (its centre: the cells' centre; its radius: the depth's scale), the grid (impostor-atlas.ts AtlasGrid), the crowd
 * clock in ticks (the clip clock's, src/runtime/clip-clock.ts), whether an environment lights it
 * and the looks baked (impostor-looks.ts: one atlas layer each).
 */
export const IMPOSTOR_ATLAS = {
  size: 64,
  centre: 0, //        vec3f: model units
  radius: 12, //       f32: model units
  columns: 16, //      u32: cells across
  rows: 20, //         u32: cells down
  frames: 24, //       u32: frames per clip
  azimuths: 28, //     u32
  elevations: 32, //   u32
  maxElevation: 36, // f32: radians
  ticks: 40, //        i32: crowd clock in CLOCK_TICKS_PER_SECOND
  views: 44, //        u32: azimuths x elevations
  environment: 48, //  u32: 1 when the crowd has lights.environment (bound at 10 and 11), else 0
  varied: 52, //       u32: parts mask of the primitives a variant changes (a look's variant is 0 where none of its parts is)
  looks: 56, //        u32: looks baked (layers; the table bound at 12, sorted by variant, then parts)
  standIn: 60, //      u32: the layer drawn for a look without one (the most used look's)
} as const;

/** Steps of the impostor draw's parallax march across the animation box (impostor.wgsl sampleCell). */
export const PARALLAX_STEPS = 32;
/** How far behind the baked surface, in march steps, a step still meets it (impostor.wgsl sampleCell). */
export const PARALLAX_THICKNESS = 1.5;

/** The generated blocks of the impostor shaders: a turn in radians, the parallax march's steps and thickness, the instance record and the clip clock (draw); none (bake). */
export const IMPOSTOR_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/impostors/impostor.wgsl', constants: [['TAU', 2 * Math.PI, 'f32'], ['PARALLAX_STEPS', PARALLAX_STEPS, 'u32'], ['PARALLAX_THICKNESS', PARALLAX_THICKNESS, 'f32']], structs: `${INSTANCE_STRUCT}\n\n${CLIP_CLOCK}` },
  { file: 'shaders/impostors/bake.wgsl', constants: [], structs: '' },
];
