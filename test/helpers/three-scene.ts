/**
 * three's WebGPURenderer in Node on the test device (test/three/*.test.ts): a renderer on a
 * stand-in canvas, the bridge's target read back, and image comparisons over what either image
 * covers (as test/e2e/materials.test.ts compares crowd-skin with three.js).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { WebGPURenderer, type Camera, type Scene } from 'three/webgpu';
import { ThreeCrowdRenderer } from '../../src/three/index';
import { expectNoGpuError } from './gpu';
import { REPO_ROOT } from './models';

Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

/**
 * A WebGPURenderer of `width` x `height` pixels on `device`, initialised, and a ThreeCrowdRenderer
 * on it that leaves the crowds' own lights alone (`lights: 'own'`): these tests light shading
 * 'crowd' by hand with the numbers they give three's lights (scene-lights.test.ts tests 'scene').
 */
export async function threeCrowds(device: GPUDevice, width: number, height: number): Promise<ThreeCrowdRenderer<'webgpu'>> {
  const canvas = { width, height, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
  const renderer = new WebGPURenderer({ device: device as never, canvas });
  await renderer.init();
  renderer.setSize(width, height, false);
  return new ThreeCrowdRenderer(renderer, { lights: 'own', backend: 'webgpu' });
}

/** An RGBA8 picture, rows top to bottom (as three's WebGPU backend reads a render target back). */
export interface Picture { width: number; height: number; data: Uint8Array }

/** `scene` with its crowds, rendered into the bridge's target and read back (8-bit sRGB). */
export async function renderPicture(crowds: ThreeCrowdRenderer<'webgpu'>, scene: Scene, camera: Camera): Promise<Picture> {
  await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, camera));
  const { width, height } = crowds.target;
  const data = await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, width, height) as Uint8Array;
  return { width, height, data: Uint8Array.from(data) };
}

/** How two pictures differ over the pixels either covers (not the background): mean absolute channel difference, share off by more than `threshold`. */
export interface PictureDifference { mean: number; share: number; covered: number }

/**
 * `a` against `b` over the pixels of columns [x0, x1) that are not `background` (8-bit RGB) in
 * either: the mean absolute channel difference (0-255) and the share of them off by more than
 * `threshold` in some channel.
 */
export function comparePictures(a: Picture, b: Picture, background: readonly number[], threshold: number, x0 = 0, x1 = a.width): PictureDifference {
  let sum = 0, over = 0, covered = 0;
  const isBackground = (p: Picture, o: number) => p.data[o] === background[0] && p.data[o + 1] === background[1] && p.data[o + 2] === background[2];
  for (let y = 0; y < a.height; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * a.width + x) * 4;
      if (isBackground(a, o) && isBackground(b, o)) continue;
      covered++;
      let worst = 0;
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(a.data[o + c] - b.data[o + c]);
        sum += d;
        worst = Math.max(worst, d);
      }
      if (worst > threshold) over++;
    }
  }
  return { mean: covered ? sum / (3 * covered) : 0, share: covered ? over / covered : 0, covered };
}

/** Pixels of columns [x0, x1) that are not `background`. */
export function coveredPixels(p: Picture, background: readonly number[], x0 = 0, x1 = p.width): number {
  let n = 0;
  for (let y = 0; y < p.height; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * p.width + x) * 4;
      if (p.data[o] !== background[0] || p.data[o + 1] !== background[1] || p.data[o + 2] !== background[2]) n++;
    }
  }
  return n;
}

/** Mean colour (8-bit RGB) of the covered pixels of columns [x0, x1). */
export function meanColor(p: Picture, background: readonly number[], x0 = 0, x1 = p.width): number[] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = 0; y < p.height; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * p.width + x) * 4;
      if (p.data[o] === background[0] && p.data[o + 1] === background[1] && p.data[o + 2] === background[2]) continue;
      for (let c = 0; c < 3; c++) sum[c] += p.data[o + c];
      n++;
    }
  }
  return sum.map((s) => s / Math.max(1, n));
}

/** Writes `p` to test-results/three/`name`.png, for a person to look at. */
export function savePicture(p: Picture, name: string): void {
  mkdirSync(PICTURES, { recursive: true });
  const png = new PNG({ width: p.width, height: p.height });
  png.data.set(p.data);
  writeFileSync(join(PICTURES, `${name}.png`), PNG.sync.write(png));
}

const PICTURES = join(REPO_ROOT, 'test-results/three');
