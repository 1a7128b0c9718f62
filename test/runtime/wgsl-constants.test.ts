import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../../src/bake/bake';
import { COUNT_FROM_PARAMS, DQ_POLAR_ITERATIONS, DQ_VEC4S, LAYER_STACK, LAYERS_NONE, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS } from '../../src/runtime/layout';
import { GENERATED_SHADERS } from '../../tools/wgsl-shaders';
import { CLIP_CLOCK, currentConstantBlock, POSE_CONSTANTS, POSE_RECORD_STRUCTS, replaceConstantBlock, wgslConstantBlock } from '../../src/runtime/wgsl-constants';
import { ACTION_IN, ACTION_NONE, ACTION_OUT, ACTION_PLAY } from '../../src/anim/control/controller';
import { MAX_FADES, SOURCE_CLIP, SOURCE_LOCOMOTION } from '../../src/anim/control/crossfader';
import { MAX_BLEND } from '../../src/anim/control/output';
import { HOLD_SECONDS } from '../../src/anim/control/playback';
import { CONTROL, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE } from '../../src/runtime/layout';
import { SPEED_TIE } from '../../src/anim/control/locomotion';

const pose = readFileSync(new URL('../../shaders/pose.wgsl', import.meta.url), 'utf8');

/** Every `const NAME: u32 = VALUE;` of a WGSL source, as numbers. */
function wgslU32Constants(source: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [, name, value] of source.matchAll(/const (\w+): u32 = (0x[0-9a-f]+|\d+)u;/g)) found.set(name, Number(value));
  return found;
}

describe('shared constants: shaders/pose.wgsl and TypeScript', () => {
  it('the shader\'s generated block is what src/runtime/wgsl-constants.ts generates now', () => {
    expect(currentConstantBlock(pose), 'run npm run gen:wgsl').toBe(wgslConstantBlock(POSE_CONSTANTS, `${POSE_RECORD_STRUCTS}\n\n${CLIP_CLOCK}`));
  });

  it('every shared constant has the value of its TypeScript twin, in the shader as read', () => {
    const wgsl = wgslU32Constants(pose);
    const twins: Record<string, number> = {
      TRACK_NONE, TRACK_STEP, TRACK_INDEX_MASK, LAYERS_NONE, MASK_NONE, REFERENCE_REST, REFERENCE_IDENTITY,
      MAX_OVERRIDE_LAYERS, MAX_ADDITIVE_LAYERS, STACK_LAYERS, COUNT_FROM_PARAMS, DQ_VEC4S, DQ_POLAR_ITERATIONS,
    };
    expect(Object.fromEntries(POSE_CONSTANTS)).toEqual(twins);
    for (const [name, value] of Object.entries(twins)) expect(wgsl.get(name), name).toBe(value);
  });

  it('the shader declares no u32 constant outside the generated block (so none can drift by hand)', () => {
    const outside = replaceConstantBlock(pose, '');
    expect([...wgslU32Constants(outside).keys()]).toEqual([]);
  });

  it('the stack array is sized by the constant, and the record size follows it', () => {
    expect(pose).toMatch(/layers: array<Layer, STACK_LAYERS>/);
    expect(pose).not.toMatch(/array<Layer, \d/);
    expect(LAYER_STACK.size).toBe(8 + STACK_LAYERS * 48);
  });

  it('every shader with a generated block carries the block generated now (shaders/controllers/control.wgsl too)', () => {
    for (const { file, constants, structs } of GENERATED_SHADERS) {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(currentConstantBlock(source), `${file}: run npm run gen:wgsl`).toBe(wgslConstantBlock(constants, structs));
      expect([...wgslU32Constants(replaceConstantBlock(source, '')).keys()], file).toEqual([]);
    }
    expect(GENERATED_SHADERS.map((g) => g.file)).toEqual(['shaders/pose.wgsl', 'shaders/controllers/control.wgsl', 'shaders/culling/cull.wgsl', 'shaders/skin.wgsl', 'shaders/props/prop.wgsl', 'shaders/root-motion/root-motion.wgsl', 'shaders/morph/morph.wgsl']);
  });

  it('the control records use the controllers\' own values for phases, sources, limits and the clamp hold', () => {
    expect([CONTROL.ACTION_NONE, CONTROL.ACTION_IN, CONTROL.ACTION_PLAY, CONTROL.ACTION_OUT]).toEqual([ACTION_NONE, ACTION_IN, ACTION_PLAY, ACTION_OUT]);
    expect([CONTROL.SOURCE_CLIP, CONTROL.SOURCE_LOCOMOTION]).toEqual([SOURCE_CLIP, SOURCE_LOCOMOTION]);
    expect([CONTROL.MAX_FADES, CONTROL.MAX_BLEND, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE]).toEqual([MAX_FADES, MAX_BLEND, HOLD_SECONDS, SPEED_TIE]);
  });

  it('a drifted value is caught: a block generated from other values differs from the file', () => {
    const drifted = POSE_CONSTANTS.map(([name, value]) => [name, name === 'MAX_ADDITIVE_LAYERS' ? value + 1 : value] as const);
    expect(currentConstantBlock(pose)).not.toBe(wgslConstantBlock(drifted));
    expect(() => replaceConstantBlock('fn main() {}', wgslConstantBlock())).toThrow(/no generated constant block/);
    expect(() => wgslConstantBlock([['HALF', 0.5]])).toThrow(/HALF = 0.5 is not a u32/);
  });
});
