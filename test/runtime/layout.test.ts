import { readFileSync } from 'node:fs';
import { IMPOSTOR_ATLAS, IMPOSTOR_SHOWN, SHOWN_PARAMS } from '../../src/features/impostors/impostor-layout';
import { describe, expect, it } from 'vitest';
import {
  CAMERA, CONTROL_FADE, CONTROL_INPUT, CONTROL_PARAMS, CONTROL_SOURCE, CONTROL_STATE, CONTROL_UPDATE, LOCOMOTION_DRIVE, CULL_PARAMS, INSTANCE, JOINT_SLOT, LAYER, LAYER_STACK, LOD_RANGE,
  MATERIAL, MORPH_HEADER, MORPH_PARAMS, NODE, POSE_PARAMS, ROOT_ANCHOR, ROOT_MOTION_PARAMS,
  JOINT_BYTES, JOINT_DQ, JOINT_MATRIX_BYTES,
} from '../../src/runtime/layout';
import { PROP_PARAMS } from '../../src/runtime/layout';

// Alignment and size of each WGSL type used in the shared structs (WGSL spec, "Alignment and Size").
const TYPES: Record<string, { align: number; size: number }> = {
  u32: { align: 4, size: 4 }, i32: { align: 4, size: 4 }, f32: { align: 4, size: 4 },
  vec2f: { align: 8, size: 8 }, vec3f: { align: 16, size: 12 }, vec4f: { align: 16, size: 16 }, vec4u: { align: 16, size: 16 },
  mat4x4f: { align: 16, size: 64 },
};

/**
 * Field offsets, total size and alignment of `struct name` in a WGSL source, by WGSL's layout
 * rules. Fields may be other structs of the source and `array<T, N>` with N a literal or a
 * `const` of the source.
 */
function wgslLayout(source: string, name: string): { offsets: Record<string, number>; size: number; align: number } {
  const body = new RegExp(`struct ${name} \\{([^}]*)\\}`).exec(source)?.[1].replace(/\/\/.*$/gm, ''); // comments out
  if (!body) throw new Error(`struct ${name} not found`);
  const typeOf = (type: string): { align: number; size: number } => {
    const array = /^array<(\w+),\s*(\w+)>$/.exec(type);
    if (array) {
      const element = typeOf(array[1]);
      const count = /^\d+$/.test(array[2]) ? Number(array[2]) : Number(new RegExp(`const ${array[2]}: u32 = (\\d+)u;`).exec(source)?.[1]);
      if (!(count > 0)) throw new Error(`struct ${name}: array length ${array[2]} not found`);
      const stride = Math.ceil(element.size / element.align) * element.align;
      return { align: element.align, size: stride * count };
    }
    return TYPES[type] ?? wgslLayout(source, type);
  };
  const offsets: Record<string, number> = {};
  let offset = 0;
  let structAlign = 0;
  for (const [, field, type] of body.matchAll(/(\w+)\s*:\s*(array<\w+,\s*\w+>|\w+)/g)) {
    const t = typeOf(type);
    offset = Math.ceil(offset / t.align) * t.align;
    offsets[field] = offset;
    offset += t.size;
    structAlign = Math.max(structAlign, t.align);
  }
  return { offsets, size: Math.ceil(offset / structAlign) * structAlign, align: structAlign };
}

/** Compares a layout.ts table with a WGSL struct; WGSL fields named pad* are padding, absent from layout.ts. */
function expectMatches(layout: Record<string, number>, wgsl: { offsets: Record<string, number>; size: number; align?: number }) {
  const { size, ...fields } = layout;
  const named = Object.fromEntries(Object.entries(wgsl.offsets).filter(([name]) => !name.startsWith('pad')));
  expect(fields).toEqual(named);
  expect(size).toBe(wgsl.size);
}

const pose = readFileSync(new URL('../../shaders/pose.wgsl', import.meta.url), 'utf8');
const skin = readFileSync(new URL('../../shaders/skin.wgsl', import.meta.url), 'utf8');
const control = readFileSync(new URL('../../shaders/controllers/control.wgsl', import.meta.url), 'utf8');
const cull = readFileSync(new URL('../../shaders/culling/cull.wgsl', import.meta.url), 'utf8');
const prop = readFileSync(new URL('../../shaders/props/prop.wgsl', import.meta.url), 'utf8');
const rootMotion = readFileSync(new URL('../../shaders/root-motion/root-motion.wgsl', import.meta.url), 'utf8');
const morph = readFileSync(new URL('../../shaders/morph/morph.wgsl', import.meta.url), 'utf8');

describe('buffer layouts: src/runtime/layout.ts matches the WGSL structs', () => {
  it('Instance: world at 0 (64 bytes), then twelve 4-byte fields from 64; 112 bytes', () => {
    // 16 floats of world = 64 bytes; clipA 64, clipB 68, phaseA 72, phaseB 76, speedA 80,
    // speedB 84, blend 88, layers 92, rateLoA 96, rateHiA 100, rateLoB 104, rateHiB 108; 112 is
    // already a multiple of the struct's 16-byte alignment.
    expectMatches(INSTANCE, wgslLayout(pose, 'Instance'));
    expect(INSTANCE.size).toBe(64 + 12 * 4);
  });

  it('Instance is the same struct in pose.wgsl, cull.wgsl, skin.wgsl and prop.wgsl', () => {
    expectMatches(INSTANCE, wgslLayout(cull, 'Instance'));
    expectMatches(INSTANCE, wgslLayout(skin, 'Instance'));
    expectMatches(INSTANCE, wgslLayout(prop, 'Instance'));
  });

  it('PropParams: local mat4x4f at 0, lengths vec4u at 64, then eight u32: 112 bytes', () => {
    expectMatches(PROP_PARAMS, wgslLayout(prop, 'PropParams'));
    expect(PROP_PARAMS.size).toBe(64 + 16 + 12 * 4);
  });

  it('CullParams: 2 x 6 planes (192 bytes), then vec3f + 4-byte field pairs, two vec4f, eleven 4-byte words and 1 pad word, the impostor clip mask: 480 bytes', () => {
    // planes 0 (6 x 16), lightPlanes 96, cameraPosition 192 (vec3f) + maxDistance 204, boxCentre 208 + instanceCount 220,
    // boxHalf 224 + plainCount 236, layeredCentre 240 + frame 252, layeredHalf 256 + listStride 268,
    // lodDistances 272, animationDistances 288, then flags 304 ... dispatchWidth 324, impostorDistance 328,
    // impostorList 332, impostorBand 336, bandList 340, bandLevel 344, padding, impostorClips 352 (8 vec4u).
    expectMatches(CULL_PARAMS, wgslLayout(cull, 'CullParams'));
    expect(CULL_PARAMS.size).toBe(192 + 5 * 16 + 2 * 16 + 12 * 4 + 8 * 16);
    expectMatches(LOD_RANGE, wgslLayout(cull, 'LodRange'));
  });

  it('Params: thirteen 4-byte fields, 52 bytes', () => {
    expectMatches(POSE_PARAMS, wgslLayout(pose, 'Params'));
    expect(POSE_PARAMS.size).toBe(14 * 4);
  });

  it('Layer: twelve 4-byte fields, 48 bytes; LayerStack: two counts then array<Layer, 6> at 8, 296 bytes', () => {
    expectMatches(LAYER, wgslLayout(pose, 'Layer'));
    // A struct of 4-byte fields is 4-byte aligned, so the array needs no padding after the counts.
    // The array's length is a WGSL const: resolve it from the shader's own declaration.
    const length = /struct LayerStack \{[^}]*layers: array<Layer, (\w+)>/.exec(pose)?.[1];
    const declared = new RegExp(`const ${length}: u32 = (\\d+)u;`).exec(pose)?.[1];
    expect(Number(declared)).toBe(6);
    expect(LAYER.size).toBe(12 * 4);
    expect(LAYER_STACK).toEqual({ size: 8 + 6 * 48, overrideCount: 0, additiveCount: 4, layers: 8 });
  });

  it('Node: parent i32 at 0, depth u32 at 4, 8 bytes', () => {
    expectMatches(NODE, wgslLayout(pose, 'Node'));
  });

  it('JointSlot: inverseBind at 0, node at 64, padded to 80 (16-byte struct alignment)', () => {
    expectMatches(JOINT_SLOT, wgslLayout(pose, 'JointSlot'));
    expect(JOINT_SLOT.size).toBe(64 + 4 + 12);
  });

  it('Material and Camera in skin.wgsl', () => {
    expectMatches(MATERIAL, wgslLayout(skin, 'Material'));
    // vec3f after a mat4x4f: offset 64, size 12, struct rounded up to 80.
    expectMatches(CAMERA, wgslLayout(skin, 'Camera'));
  });

  it('the control pass: Source 20, Fade 36, ControlInput 264 (3 fades inline), ControlState 32, ControlParams 52, Update 268', () => {
    expectMatches(CONTROL_SOURCE, wgslLayout(control, 'Source'));
    expectMatches(CONTROL_FADE, wgslLayout(control, 'Fade'));
    // clock, basis, epoch, hasLocomotion, fadeCount: 20 bytes; current Source 20..40; 3 x 36 fades 40..148; ...
    expectMatches(CONTROL_INPUT, wgslLayout(control, 'ControlInput'));
    expectMatches(CONTROL_STATE, wgslLayout(control, 'ControlState'));
    expectMatches(CONTROL_PARAMS, wgslLayout(control, 'ControlParams'));
    expectMatches(CONTROL_UPDATE, wgslLayout(control, 'Update'));
    expectMatches(LOCOMOTION_DRIVE, wgslLayout(control, 'LocomotionDrive'));
    // The pose records the control pass writes are the pose pass's, field for field.
    expectMatches(INSTANCE, wgslLayout(control, 'Instance'));
    expectMatches(LAYER, wgslLayout(control, 'Layer'));
    expect(wgslLayout(control, 'LayerStack').size).toBe(LAYER_STACK.size);
  });

  it('the root-motion pass: Anchor 80 (world, clock, two times, moves), RootParams 16, and the pose pass\'s Instance', () => {
    // world 0..64, clock 64, timeA 68, timeB 72, moves 76: 80 is a multiple of mat4x4f's 16-byte alignment.
    expectMatches(ROOT_ANCHOR, wgslLayout(rootMotion, 'Anchor'));
    expect(ROOT_ANCHOR.size).toBe(64 + 4 * 4);
    expectMatches(ROOT_MOTION_PARAMS, wgslLayout(rootMotion, 'RootParams'));
    expectMatches(INSTANCE, wgslLayout(rootMotion, 'Instance'));
  });

  it('dual-quaternion joint records: 4 vec4f (q, then the 3 rows of [S | t]), the stride both shaders use', () => {
    // q: 16 bytes at 0; rows: 3 x 16 bytes from 16; 64 in all, one vec4f more than the 48-byte matrix rows.
    expect(JOINT_DQ).toEqual({ size: 16 + 3 * 16, real: 0, rows: 16 });
    expect(JOINT_BYTES).toEqual({ linear: JOINT_MATRIX_BYTES, 'dual-quaternion': JOINT_DQ.size });
    const prop = readFileSync(new URL('../../shaders/props/prop.wgsl', import.meta.url), 'utf8');
    for (const source of [pose, skin, prop]) expect(/const DQ_VEC4S: u32 = (\d+)u;/.exec(source)?.[1]).toBe(String(JOINT_DQ.size / 16)); // generated (wgsl-constants.ts)
  });

  it('morph targets: MorphParams (nine 4-byte fields, 36 bytes) in morph.wgsl, MorphHeader (four u32, 16 bytes) in skin.wgsl', () => {
    expectMatches(MORPH_PARAMS, wgslLayout(morph, 'MorphParams'));
    expect(MORPH_PARAMS.size).toBe(9 * 4);
    expectMatches(MORPH_HEADER, wgslLayout(skin, 'MorphHeader'));
    // The displacements follow the header at 16 (vec4f alignment), where mesh-data.ts writes them.
    expect(skin).toMatch(/struct MorphTargets \{\s*header: MorphHeader,[^}]*deltas: array<vec4f>,\s*\}/);
    expectMatches(INSTANCE, wgslLayout(morph, 'Instance'));
    expect(wgslLayout(morph, 'LayerStack').size).toBe(LAYER_STACK.size);
  });

  it('impostor atlas uniform: Atlas in impostor.wgsl (vec3f + radius, fifteen 4-byte fields: 76 bytes, 80 with its alignment)', () => {
    const impostor = readFileSync(new URL('../../shaders/impostors/impostor.wgsl', import.meta.url), 'utf8');
    expectMatches(IMPOSTOR_ATLAS, wgslLayout(impostor, 'Atlas'));
  });

  it('impostor shown records and the shown pass\'s uniform: Shown in impostor.wgsl and shown.wgsl (nine 4-byte fields), ShownParams in shown.wgsl', () => {
    const impostor = readFileSync(new URL('../../shaders/impostors/impostor.wgsl', import.meta.url), 'utf8');
    const shown = readFileSync(new URL('../../shaders/impostors/shown.wgsl', import.meta.url), 'utf8');
    expectMatches(IMPOSTOR_SHOWN, wgslLayout(impostor, 'Shown'));
    expectMatches(IMPOSTOR_SHOWN, wgslLayout(shown, 'Shown'));
    expectMatches(SHOWN_PARAMS, wgslLayout(shown, 'ShownParams'));
    expect(wgslLayout(shown, 'LayerStack').size).toBe(LAYER_STACK.size);
    expectMatches(INSTANCE, wgslLayout(shown, 'Instance'));
  });

  it('the layout reader itself follows the WGSL rules on the classic trap', () => {
    // {clipA, clipB, timeA, timeB, blend: 5 x 4 bytes, world: mat4x4f} puts world at 32, not 20.
    const trap = wgslLayout('struct T { clipA: u32, clipB: u32, timeA: f32, timeB: f32, blend: f32, world: mat4x4f, }', 'T');
    expect(trap.offsets.world).toBe(32);
    expect(trap.size).toBe(96);
  });
});
