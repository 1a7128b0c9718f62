/**
 * Draws the same instances of one character with the WebGPU crowd (Crowd: pose.wgsl, skin.wgsl)
 * and with the WebGL 2 skin pass (GLSkinPass), into two 320 x 240 canvases, for
 * test/e2e/gl-skin.test.ts. The GL side's joint matrices come from the TypeScript twin on the CPU
 * (CpuPoser over the lookup tables, sampleLut: what pose.wgsl computes), written into a
 * GLJointTarget; its world transforms into an INSTANCE record texture; its list holds every
 * instance at level 0. `window.drawBoth(url, options)` resolves when both are drawn (DrawOptions).
 * Violations (made up, the test expects them caught): 'joint-row' swaps rows 1 and 2 of every
 * joint matrix of the GL side; 'texture-transform' draws the GL side with every material's
 * KHR_texture_transform dropped (identity).
 */
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleLut } from '../../../src/anim/lut';
import type { Pose } from '../../../src/math/pose';
import { Crowd, CrowdAppearance, loadCharacter, mat4, MeshoptSimplifier, requiredCrowdLimits, type Character, type LightOptions } from '../../../src/index';
import { APPEARANCE } from '../../../src/features/appearance/appearance-layout';
import { INSTANCE } from '../../../src/runtime/layout';
import type { GLAppearanceSource } from '../../../src/webgl2/gl-appearance';
import type { GLJointTarget } from '../../../src/webgl2/gl-joints';
import { GLShadowPass } from '../../../src/webgl2/gl-shadow-pass';
import { GLSkinPass } from '../../../src/webgl2/gl-skin-pass';
import { GLRecordTexture } from '../../../src/webgl2/record-texture';

const WIDTH = 320;
const HEIGHT = 240;

type Violation = 'joint-row' | 'texture-transform';

/** Shadow map size of the shadows case (texels). */
const SHADOW_MAP = 1024;

/** What drawBoth draws. */
interface DrawOptions {
  /** Instances, side by side. */
  count: number;
  violation?: Violation;
  /**
   * The character is loaded with mesh LOD levels (MeshoptSimplifier) and both sides draw every
   * instance at the coarsest level (the WebGPU crowd through its cull pass with a huge
   * pixelError; the GL side's list for that level, after two unused entries).
   */
  coarsest?: boolean;
  /** Both sides lit by a procedural environment as well (lights.environment). */
  environment?: boolean;
  /**
   * Sun shadows: the WebGPU crowd with CrowdOptions.shadows (and a camera); the GL side a
   * GLShadowPass drawn with the crowd's light view-projection (Crowd.shadowMap), every instance a caster.
   */
  shadows?: boolean;
  /**
   * Per-instance appearance (the Mannequin's two variant images): the WebGPU crowd with
   * CrowdAppearance, the GL side a GLAppearanceSource of the same records (LOOKS, instance k the
   * k % 3-th).
   */
  appearance?: boolean;
}

/** The looks of the appearance case: a tinted variant 1 with both heads; variant 2 without HeadWide and Hat; the own texture tinted, without HeadBox. */
const LOOKS: { tint: [number, number, number]; variant: number; parts: number }[] = [
  { tint: [1, 0.6, 0.6], variant: 1, parts: 0b0111 },
  { tint: [1, 1, 1], variant: 2, parts: 0b0011 },
  { tint: [0.5, 0.8, 1], variant: 0, parts: 0b1101 },
];

/** The Mannequin's variant images as RGBA8. */
async function mannequinVariants(): Promise<ImageData[]> {
  return Promise.all([1, 2].map(async (k) => {
    const bitmap = await createImageBitmap(await (await fetch(`/models/Mannequin/Mannequin.variant${k}.png`)).blob(), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
    const context = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, bitmap.width, bitmap.height);
  }));
}

/** The GL side's appearance: LOOKS written as the feature's APPEARANCE records. */
function glAppearance(gl: WebGL2RenderingContext, count: number, variants: readonly ImageData[], variedPrimitives: number): GLAppearanceSource {
  const records = new GLRecordTexture(gl, 'page.appearances', count * APPEARANCE.size);
  const record = new ArrayBuffer(APPEARANCE.size);
  for (let s = 0; s < count; s++) {
    const look = LOOKS[s % LOOKS.length];
    new Float32Array(record, APPEARANCE.tint, 4).set([...look.tint, 1]);
    new Uint32Array(record, APPEARANCE.variant, 1)[0] = look.variant;
    new Uint32Array(record, APPEARANCE.parts, 1)[0] = look.parts;
    records.write(s * APPEARANCE.size, record);
  }
  return { records, layout: APPEARANCE, variantImages: variants, variedPrimitives };
}

/** A smooth linear-RGB sky (rows top to bottom): a gradient over a darker ground, and a warm blob up and towards +z. */
function skyEnvironment(): LightOptions {
  const [width, height] = [64, 32];
  const data = new Float32Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const elevation = (0.5 - (y + 0.5) / height) * Math.PI;
      const phi = ((x + 0.5) / width - 0.5) * 2 * Math.PI;
      const d = [Math.cos(elevation) * Math.cos(phi), Math.sin(elevation), Math.cos(elevation) * Math.sin(phi)];
      const t = Math.min(Math.max((d[1] + 0.2) / 0.4, 0), 1);
      const blob = 3 * Math.exp(-6 * (1 - (0.45 * d[0] + 0.55 * d[1] + 0.7 * d[2]) / Math.hypot(0.45, 0.55, 0.7)));
      const c = [0.3 + (0.5 - 0.3 * d[1] - 0.3) * t + blob, 0.25 + (0.6 - 0.25 * d[1] - 0.25) * t + blob * 0.7, 0.18 + (0.9 - 0.18) * t + blob * 0.35];
      data.set([...c, 1], (y * width + x) * 4);
    }
  }
  return { environment: { image: { width, height, data } } };
}

/** Instance k: the clip k % clips at a time that differs per instance, side by side along x, each turned a little. */
interface Placement { clip: number; time: number; world: Float32Array }

function placements(character: Character, count: number): { instances: Placement[]; viewProjection: Float32Array; eye: number[] } {
  const { min, max } = character.bounds;
  const size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
  const spacing = Math.max(size[0], size[2]) * 1.1;
  const clips = Math.max(1, character.clipNames.length);
  const instances: Placement[] = [];
  for (let k = 0; k < count; k++) {
    const world = mat4.translation([(k - (count - 1) / 2) * spacing, 0, 0]);
    mat4.rotateY(world, 0.4 * k - 0.3, world);
    const clip = k % clips;
    const duration = character.clipDurations[clip] ?? 0;
    instances.push({ clip, time: duration * (0.13 + 0.29 * k) % Math.max(duration, 1e-9), world });
  }
  const target: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const radius = Math.hypot(size[0] + spacing * (count - 1), size[1], size[2]) / 2;
  const d = radius / Math.sin(Math.PI / 8) * 1.0;
  const dir = [0.25, 0.35, 1];
  const len = Math.hypot(...dir);
  const eye = [target[0] + dir[0] / len * d, target[1] + dir[1] / len * d, target[2] + dir[2] / len * d];
  const viewProjection = mat4.multiply(mat4.perspective(Math.PI / 4, WIDTH / HEIGHT, d * 0.1, d * 4), mat4.lookAt(eye, target, [0, 1, 0])) as Float32Array;
  return { instances, viewProjection, eye };
}

let gpuDevice: GPUDevice | undefined;

/** The light of the WebGPU crowd's shadow map, for the GL side's; the appearance feature's varied primitives. */
interface Drawn { shadow?: { lightViewProjection: Float32Array; mapSize: number }; variedPrimitives?: number }

async function drawGpu(character: Character, instances: Placement[], viewProjection: Float32Array, eye: number[], coarsest: boolean, lights: LightOptions | undefined,
  shadows: boolean, variants: readonly ImageData[] | undefined): Promise<Drawn> {
  if (!gpuDevice) {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter');
    gpuDevice = await adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
  }
  const device = gpuDevice;
  const context = (document.getElementById('gpu') as HTMLCanvasElement).getContext('webgpu')!;
  const colorFormat = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format: colorFormat, alphaMode: 'opaque' });
  const crowd = new Crowd(device, character, {
    colorFormat, depthFormat: 'depth24plus', lights, ...(coarsest ? { lod: { pixelError: 1e9 }, animationLod: false } : {}),
    ...(shadows ? { shadows: { mapSize: SHADOW_MAP }, animationLod: false } : {}),
  });
  if (coarsest || shadows) crowd.setCamera(viewProjection, eye, { viewportHeight: HEIGHT });
  const looks = variants && new CrowdAppearance(crowd, { variants });
  instances.forEach((p, k) => {
    const id = crowd.add({ ...(character.clipNames.length ? { clipA: p.clip, timeA: p.time } : {}), transform: p.world });
    looks?.set(id, LOOKS[k % LOOKS.length]);
  });
  crowd.update(0);
  const depth = device.createTexture({ size: [WIDTH, HEIGHT], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  const pass = encoder.beginRenderPass({
    colorAttachments: [{ view: context.getCurrentTexture().createView(), clearValue: [0, 0, 0, 1], loadOp: 'clear', storeOp: 'store' }],
    depthStencilAttachment: { view: depth.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' },
  });
  crowd.draw(pass, viewProjection);
  pass.end();
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
  const map = crowd.shadowMap;
  if (shadows && !map) throw new Error('the WebGPU crowd drew no shadow map');
  const shadow = map && { lightViewProjection: Float32Array.from(map.lightViewProjection), mapSize: map.mapSize };
  const variedPrimitives = looks?.appearance.variedPrimitives;
  crowd.destroy();
  depth.destroy();
  return { shadow, variedPrimitives };
}

/** The GL joint target of `instances` from the TypeScript twin: slot s's joint j at texel (j, s) (one instance a row). */
function twinJoints(gl: WebGL2RenderingContext, character: Character, instances: Placement[], violation?: Violation): GLJointTarget {
  const { rig, baked, gpu } = character;
  const poser = new CpuPoser(rig, (clip: number, time: number, out: Pose) => sampleLut(baked, clip, time, out));
  const J = gpu.slotCount;
  const rows = [0, 1, 2].map(() => new Float32Array(J * instances.length * 4));
  instances.forEach((p, s) => {
    if (character.clipNames.length) poser.evaluate({ clipA: p.clip, timeA: p.time });
    else poser.evaluate({ clipA: 0, timeA: 0 });
    rig.skins.forEach((_, k) => {
      const m = poser.jointMatrices(k);
      for (let j = 0; j < m.length / 16; j++) {
        const texel = (s * J + gpu.skinSlotOffset[k] + j) * 4;
        for (let r = 0; r < 3; r++) {
          const row = violation === 'joint-row' && r > 0 ? 3 - r : r;
          for (let c = 0; c < 4; c++) rows[r][texel + c] = m[j * 16 + c * 4 + row];
        }
      }
    });
  });
  const textures = rows.map((data) => {
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, J, instances.length);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, J, instances.length, gl.RGBA, gl.FLOAT, data);
    return texture;
  });
  return { rows: textures as [WebGLTexture, WebGLTexture, WebGLTexture], width: J, height: instances.length, jointCount: J, slotsPerRow: 1 };
}

function drawGl(character: Character, instances: Placement[], viewProjection: Float32Array, violation: Violation | undefined, coarsest: boolean, lights: LightOptions | undefined,
  { shadow, variedPrimitives }: Drawn, variants: readonly ImageData[] | undefined): number {
  const gl = (document.getElementById('gl') as HTMLCanvasElement).getContext('webgl2', { antialias: false, preserveDrawingBuffer: true })!;
  const drawn = violation === 'texture-transform' ? withoutTextureTransforms(character) : character;
  const appearance = variants && glAppearance(gl, instances.length, variants, variedPrimitives ?? 0);
  const pass = new GLSkinPass(gl, drawn, { lights, appearance });
  const joints = twinJoints(gl, character, instances, violation);
  const records = new GLRecordTexture(gl, 'page.instances', instances.length * INSTANCE.size);
  instances.forEach((p, s) => records.write(s * INSTANCE.size + INSTANCE.world, p.world));
  // Level `level`'s list after `first` unused entries (slot 0), the other levels' empty.
  const level = coarsest ? pass.levels - 1 : 0;
  const first = coarsest ? 2 : 0;
  const slots = Uint32Array.from({ length: first + instances.length }, (_, i) => Math.max(0, i - first));
  const offsets = new Uint32Array(pass.levels).fill(first);
  const counts = new Uint32Array(pass.levels);
  counts[level] = instances.length;
  const lists = { slots, offsets, counts, levels: pass.levels };
  let shadowPass: GLShadowPass | undefined;
  if (shadow) {
    shadowPass = new GLShadowPass(gl, pass, { mapSize: shadow.mapSize });
    shadowPass.update(shadow.lightViewProjection);
    shadowPass.draw(joints, records, lists);
    pass.setShadowMap(shadowPass.texture, shadow.lightViewProjection, shadow.mapSize);
  }
  gl.viewport(0, 0, WIDTH, HEIGHT);
  gl.clearColor(0, 0, 0, 1);
  gl.clearDepth(1);
  gl.depthMask(true);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  pass.draw(viewProjection, joints, records, lists);
  gl.finish();
  const error = gl.getError();
  if (error !== gl.NO_ERROR) throw new Error(`WebGL error 0x${error.toString(16)}`);
  pass.destroy();
  shadowPass?.destroy();
  appearance?.records.destroy();
  records.destroy();
  for (const texture of joints.rows) gl.deleteTexture(texture);
  return pass.programCount;
}

/** A copy of `character` whose materials have no KHR_texture_transform (the 'texture-transform' violation). */
function withoutTextureTransforms(character: Character): Character {
  const identity = Float32Array.from({ length: 30 }, (_, i) => (i % 6 === 0 || i % 6 === 4 ? 1 : 0));
  const primitives = character.rig.primitives.map((p) => ({ ...p, material: { ...p.material, uvTransforms: identity } }));
  return { ...character, rig: { ...character.rig, primitives } };
}

async function drawBoth(url: string, { count, violation, coarsest = false, environment = false, shadows = false, appearance = false }: DrawOptions): Promise<{ warnings: string[]; programs: number; levels: number }> {
  const character = await loadCharacter(url, coarsest ? { lod: { simplifier: MeshoptSimplifier } } : {});
  const { instances, viewProjection, eye } = placements(character, count);
  const lights = environment ? skyEnvironment() : undefined;
  const variants = appearance ? await mannequinVariants() : undefined;
  const drawn = await drawGpu(character, instances, viewProjection, eye, coarsest, lights, shadows, variants);
  const programs = drawGl(character, instances, viewProjection, violation, coarsest, lights, drawn, variants);
  return { warnings: [...character.warnings], programs, levels: character.lods?.errors.length ?? 1 };
}

/**
 * What GLSkinPass says to bad input: each refused call's message, then whether the canvas was
 * left as it was (cleared to (0, 0, 1)) and GL reported no error.
 */
async function refusals(url: string): Promise<{ messages: string[]; untouched: boolean }> {
  const character = await loadCharacter(url);
  const gl = (document.getElementById('gl') as HTMLCanvasElement).getContext('webgl2', { antialias: false, preserveDrawingBuffer: true })!;
  const messages: string[] = [];
  const refused = (call: () => unknown) => {
    try {
      call();
      messages.push('(accepted)');
    } catch (error) {
      messages.push((error as Error).message);
    }
  };
  refused(() => new GLSkinPass(gl, character, { skinning: 'dual-quaternion' }));
  refused(() => new GLSkinPass(gl, character, { lights: { sun: { intensity: -1 } } }));
  const pass = new GLSkinPass(gl, character);
  const { instances, viewProjection } = placements(character, 2);
  const joints = twinJoints(gl, character, instances);
  const records = new GLRecordTexture(gl, 'page.instances', 2 * INSTANCE.size);
  const unwritten = new GLRecordTexture(gl, 'page.unwritten', 2 * INSTANCE.size);
  instances.forEach((p, s) => records.write(s * INSTANCE.size + INSTANCE.world, p.world));
  const lists = (slots: number[], offsets = [0], counts = [slots.length], levels = 1) => ({ slots: Uint32Array.from(slots), offsets: Uint32Array.from(offsets), counts: Uint32Array.from(counts), levels });
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.viewport(0, 0, WIDTH, HEIGHT);
  gl.clearColor(0, 0, 1, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  refused(() => pass.draw(viewProjection.subarray(0, 15), joints, records, lists([0, 1])));
  refused(() => pass.draw(viewProjection, { ...joints, jointCount: joints.jointCount + 1 }, records, lists([0, 1])));
  refused(() => pass.draw(viewProjection, joints, unwritten, lists([0, 1])));
  refused(() => pass.draw(viewProjection, joints, records, lists([0, 1], [0, 0], [2, 0], pass.levels + 1)));
  refused(() => pass.draw(viewProjection, joints, records, lists([0, 1], [], [], 1)));
  refused(() => pass.draw(viewProjection, joints, records, lists([0, 1], [1], [2])));
  refused(() => pass.draw(viewProjection, joints, records, lists([0, 2])));
  const pixels = new Uint8Array(WIDTH * HEIGHT * 4);
  gl.readPixels(0, 0, WIDTH, HEIGHT, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  let untouched = gl.getError() === gl.NO_ERROR;
  for (let i = 0; i < pixels.length; i += 4) untouched &&= pixels[i] === 0 && pixels[i + 1] === 0 && pixels[i + 2] === 255;
  pass.destroy();
  records.destroy();
  unwritten.destroy();
  for (const texture of joints.rows) gl.deleteTexture(texture);
  return { messages, untouched };
}

(window as unknown as { drawBoth: typeof drawBoth; refusals: typeof refusals }).drawBoth = drawBoth;
(window as unknown as { refusals: typeof refusals }).refusals = refusals;
document.body.dataset.ready = '1';
