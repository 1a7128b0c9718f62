/**
 * What per-instance appearance (src/features/appearance/) costs per frame: the same crowd of the
 * Mannequin drawn plain, with a CrowdAppearance whose every instance has a tint, a variant and a
 * parts mask (set once), and the same with 1% of the instances' tints changed every frame (the
 * record upload). GPU ms by TimedFrames (timestamp-query, or submit to done), CPU ms of
 * update + encode + draw recording (no submit, in rounds of their own before the GPU frames),
 * medians, the kinds interleaved round by round; beside them, the plain crowd with 1% of its transforms written again each frame (the
 * kernel's own record upload, as a yardstick for the 1% row). Used by tools/bench.ts (--section appearance).
 */
import type { Character } from '../../src/character/character';
import { CrowdAppearance } from '../../src/features/appearance/crowd-appearance';
import { Crowd } from '../../src/runtime/crowd';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';
import { mannequinTexture } from '../mannequin/build';
import { median, TimedFrames } from './timed-frame';

const WIDTH = 640;
const HEIGHT = 360;

export type AppearanceKind = 'plain' | 'plain, 1% placed a frame' | 'appearance' | 'appearance, 1% changed a frame';
export interface AppearanceRow { instances: number; kind: AppearanceKind; gpuMs: number; cpuMs: number; uploaded: number; method: string }

interface Subject { kind: AppearanceKind; crowd: Crowd; looks?: CrowdAppearance; ids: number[] }

/** `frames` GPU frames per kind (after 2 warm-up rounds) and `cpuRounds` CPU-only rounds (after 10). */
export async function benchAppearance(device: GPUDevice, character: Character, count: number, frames: number, cpuRounds: number): Promise<AppearanceRow[]> {
  const camera = new OrbitCamera();
  const kinds: AppearanceKind[] = ['plain', 'plain, 1% placed a frame', 'appearance', 'appearance, 1% changed a frame'];
  const subjects: Subject[] = kinds.map((kind) => {
    const crowd = new Crowd(device, character, { ...TimedFrames.formats, capacity: count });
    const population = new Population(crowd, character);
    population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
    const halfSide = spiralHalfSide(count);
    camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
    camera.update(WIDTH / HEIGHT);
    crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: HEIGHT });
    const ids = Array.from({ length: count }, (_, i) => i);
    if (kind.startsWith('plain')) return { kind, crowd, ids };
    const looks = new CrowdAppearance(crowd, { variants: [mannequinTexture(1), mannequinTexture(2)] });
    const heads = [looks.partMask(['Body', 'HeadBox']), looks.partMask(['Body', 'HeadWide']), looks.partMask(['Body', 'HeadBox', 'Hat'])];
    for (const id of ids) looks.set(id, { tint: [0.5 + (id % 5) / 8, 0.5 + (id % 7) / 12, 0.5 + (id % 3) / 4], variant: id % 3, parts: heads[id % 3] });
    return { kind, crowd, looks, ids };
  });
  const timed = new TimedFrames(device, WIDTH, HEIGHT);
  const color = device.createTexture({ size: [WIDTH, HEIGHT], format: TimedFrames.formats.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [WIDTH, HEIGHT], format: TimedFrames.formats.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const gpu = new Map<AppearanceKind, number[]>(kinds.map((k) => [k, []]));
  const cpu = new Map<AppearanceKind, number[]>(kinds.map((k) => [k, []]));
  const uploaded = new Map<AppearanceKind, number[]>(kinds.map((k) => [k, []]));
  const changed = Math.max(1, Math.round(count / 100));
  let next = 0;
  const world = new Float32Array(16);
  const change = (s: Subject) => {
    if (s.kind === 'appearance, 1% changed a frame') {
      for (let i = 0; i < changed; i++, next = (next + 1) % count) s.looks!.setTint(s.ids[next], (next % 4) / 4, 0.6, 1 - (next % 4) / 4);
    } else if (s.kind === 'plain, 1% placed a frame') {
      // The kernel's own record change of the same size, for comparison: the same transforms written again.
      for (let i = 0; i < changed; i++, next = (next + 1) % count) s.crowd.setTransform(s.ids[next], s.crowd.getTransform(s.ids[next], world));
    }
  };
  // CPU: update + encode + draw recording, no submit (the encoder is dropped); many short rounds, the kinds interleaved.
  for (let round = 0; round < cpuRounds + 10; round++) {
    for (const s of subjects) {
      change(s);
      const start = performance.now();
      s.crowd.update(1 / 60);
      const encoder = device.createCommandEncoder();
      s.crowd.encode(encoder);
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
        depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      });
      s.crowd.draw(pass, camera.viewProjection);
      pass.end();
      encoder.finish();
      const cpuMs = performance.now() - start;
      if (round >= 10) {
        cpu.get(s.kind)!.push(cpuMs);
        uploaded.get(s.kind)!.push(s.crowd.uploadedBytes);
      }
    }
  }
  // GPU: whole frames, submitted and waited for.
  for (let f = 0; f < frames + 2; f++) {
    for (const s of subjects) {
      change(s);
      const gpuMs = await timed.frame(s.crowd, camera.viewProjection);
      if (f >= 2) gpu.get(s.kind)!.push(gpuMs);
    }
  }
  timed.destroy();
  color.destroy();
  depth.destroy();
  for (const s of subjects) s.crowd.destroy();
  return kinds.map((kind) => ({ instances: count, kind, gpuMs: median(gpu.get(kind)!), cpuMs: median(cpu.get(kind)!), uploaded: median(uploaded.get(kind)!), method: timed.method }));
}
