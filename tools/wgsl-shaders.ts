/**
 * Every shader with a generated constant block: the kernel's (src/runtime/wgsl-constants.ts),
 * each feature's (src/features/<name>/*-wgsl.ts) and the WebGL 2 backend's GLSL
 * (src/webgl2/glsl-texts.ts). Gathered here, outside src/, so that the kernel names no feature;
 * `npm run gen:wgsl` (tools/gen-wgsl.ts) writes the blocks and test/runtime/wgsl-constants.test.ts
 * checks them. A `.glsl` file gets a GLSL block (src/webgl2/glsl-constants.ts) from the same
 * TypeScript constants: one source of truth for both shading languages.
 */
import { readFileSync } from 'node:fs';
import { CONTROL_SHADER } from '../src/features/controllers/control-wgsl';
import { IMPOSTOR_SHADERS } from '../src/features/impostors/impostor-layout';
import { MORPH_SHADER } from '../src/features/morph/morph-wgsl';
import { PICK_SHADER, SELECT_SHADER } from '../src/features/picking/picking-wgsl';
import { PROP_SHADER } from '../src/features/props/prop-wgsl';
import { ROOT_MOTION_SHADER } from '../src/features/root-motion/root-motion-wgsl';
import { STEERING_SHADER } from '../src/features/steering/steering-wgsl';
import { ENVIRONMENT_SHADER } from '../src/runtime/environment-map';
import { KERNEL_SHADERS, wgslConstantBlock, type GeneratedShader } from '../src/runtime/wgsl-constants';
import { glslConstantBlock } from '../src/webgl2/glsl-constants';
import { GL_DRAW_SHADERS, GL_POSE_SHADERS } from '../src/webgl2/glsl-texts';

const [pose, cull, skin, palette] = KERNEL_SHADERS;

/**
 * skin.wgsl's three.js BRDF section (fSchlick, vGgxSmithCorrelated, dGgx, dfgLookup and the DFG
 * table), between its two `// ---- ` marker lines: the impostor shader lights its atlas texels with
 * the same terms, so its generated block carries this text rather than a hand-kept copy.
 */
export function skinBrdfTerms(skinSource = readFileSync(new URL('../shaders/skin.wgsl', import.meta.url), 'utf8')): string {
  const start = skinSource.indexOf('// ---- three.js MeshStandardMaterial terms');
  const end = skinSource.indexOf('// ---- end of the three.js terms', start);
  if (start < 0 || end < 0) throw new Error('shaders/skin.wgsl: the three.js BRDF section\'s marker lines are missing');
  return skinSource.slice(start, end).trimEnd();
}

/**
 * skin.wgsl's perturbedNormal (three.js's normal_fragment_maps), between its `// ---- ` marker
 * lines, as the impostor bake takes it: on its Surface input, the map sampled over the footprint
 * of the mesh's pixel at the switch (bake.wgsl `footprint`: a cell's texel covers a fraction of it).
 */
export function bakePerturbedNormal(skinSource = readFileSync(new URL('../shaders/skin.wgsl', import.meta.url), 'utf8')): string {
  const start = skinSource.indexOf('// ---- the normal map\'s perturbed normal');
  const end = skinSource.indexOf('// ---- end of the perturbed normal', start);
  if (start < 0 || end < 0) throw new Error('shaders/skin.wgsl: the perturbed normal\'s marker lines are missing');
  let text = skinSource.slice(start, end).trimEnd();
  for (const [from, to] of [['in: VertexOut', 'in: Surface'], ['textureSample(normalTexture, normalSampler, uv)', 'textureSampleGrad(normalTexture, normalSampler, uv, dpdx(uv) * footprint(in).x, dpdy(uv) * footprint(in).y)']]) {
    if (text.split(from).length !== 2) throw new Error(`shaders/skin.wgsl: perturbedNormal must hold \`${from}\` once, for the impostor bake's copy`);
    text = text.replace(from, to);
  }
  return text;
}

const [impostor, bake, ...impostorRest] = IMPOSTOR_SHADERS;
const impostorWithBrdf: GeneratedShader = { ...impostor, structs: `${impostor.structs}\n\n${skinBrdfTerms()}` };
const bakeWithNormal: GeneratedShader = { ...bake, structs: bake.structs ? `${bake.structs}\n\n${bakePerturbedNormal()}` : bakePerturbedNormal() };

export const GENERATED_SHADERS: readonly GeneratedShader[] = [pose, CONTROL_SHADER, cull, palette, skin, PROP_SHADER, ROOT_MOTION_SHADER, MORPH_SHADER, PICK_SHADER, SELECT_SHADER,
  // The mip chain pass shares no number with TypeScript: an empty block, so a shared one added later has its place.
  { file: 'shaders/mipmaps.wgsl', constants: [], structs: '' }, ENVIRONMENT_SHADER, STEERING_SHADER, impostorWithBrdf, bakeWithNormal, ...impostorRest,
  // WebGL 2 (GLSL ES 3.00).
  ...GL_POSE_SHADERS, ...GL_DRAW_SHADERS];

/** The generated block `shader`'s file should hold: GLSL for a .glsl file, else WGSL. */
export function generatedBlock(shader: GeneratedShader): string {
  return shader.file.endsWith('.glsl') ? glslConstantBlock(shader.constants, shader.structs) : wgslConstantBlock(shader.constants, shader.structs);
}
