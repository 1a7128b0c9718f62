/**
 * The WebGL 2 crowd's CPU culling (src/webgl2/gl-cull.ts): CPU ms a frame of GLCull.run for the
 * demo-sized crowd, culling, mesh LOD and animation LOD on, against a floor in the same process
 * (one loop that reads every instance's translation from the same records). No GL context is
 * needed: the store runs over a RecordDevice whose buffers are all GLUnreadBuffers. Used by
 * tools/bench.ts (`--section gl-cull`).
 */
import type { Character } from '../../src/character/character';
import { CullSettings } from '../../src/runtime/culling/cull-settings';
import { InstanceStore } from '../../src/runtime/instance-store';
import { INSTANCE } from '../../src/runtime/layout';
import type { RecordDevice } from '../../src/runtime/record-device';
import { PaletteTwin } from '../../src/runtime/culling/palette-twin';
import { GLCull } from '../../src/webgl2/gl-cull';
import { GLUnreadBuffer } from '../../src/webgl2/gl-record-device';
import { mat4 } from 'wgpu-matrix';
import { median } from './timed-frame';

/** `paletteMs`: PaletteTwin.assign after the cull with a budget of PALETTE_BENCH_BUDGET sets (held and shared: its last frame's). */
export interface GLCullRow { view: string; instances: number; cullMs: number; floorMs: number; visible: number; posed: number; paletteMs: number; held: number; shared: number }

/** The palette budget the bench's assign runs with: fewer sets than the 10,000 crowd seen from above draws, so that some share. */
export const PALETTE_BENCH_BUDGET = 4096;

/** A RecordDevice with no memory behind its buffers: the store's records and limits only. */
const CPU_ONLY: RecordDevice<GLUnreadBuffer> = {
  limits: { maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31 },
  queue: { writeBuffer() {} },
  createBuffer: (d) => new GLUnreadBuffer(d.label, d.size),
};

/** The classes a GL cull scene is built from: this tree's, or another tree's (`--against`, tools/bench/paired-scenes.ts). */
export interface GLCullModules {
  InstanceStore: typeof InstanceStore;
  CullSettings: typeof CullSettings;
  GLCull: typeof GLCull;
  GLUnreadBuffer: typeof GLUnreadBuffer;
}

const THIS_TREE: GLCullModules = { InstanceStore, CullSettings, GLCull, GLUnreadBuffer };

/**
 * `count` instances of `character` on a square grid 1.5 m apart, 1 m tall, random yaws, in a store
 * over buffers without memory, and the camera seen from 'inside' (eye at 1.7 m among them, looking
 * level, 70 degrees) or 'above' (the whole crowd in view from 45 degrees up): `frame` runs the cull once.
 */
export function glCullScene(character: Character, count: number, view: 'inside' | 'above', mods: GLCullModules = THIS_TREE) {
  const cpuOnly: RecordDevice<GLUnreadBuffer> = { ...CPU_ONLY, createBuffer: (d) => new mods.GLUnreadBuffer(d.label, d.size) };
  const store = new mods.InstanceStore(cpuOnly, {
    nodeCount: character.gpu.nodeCount, slotCount: character.gpu.slotCount, clipDurations: character.clipDurations, capacity: count,
    lodLevels: character.lods?.errors.length ?? 1, paletteSize: Infinity,
  });
  const side = Math.ceil(Math.sqrt(count)), half = (side * 1.5) / 2;
  let seed = 1;
  const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const bounds = character.animationBounds, height = bounds.reach[4] - bounds.reach[1];
  for (let i = 0; i < count; i++) {
    const slot = store.slot(store.add());
    // Scaled to 1 m tall, as the demo's crowd is (its model units vary: the Fox is some 100 tall).
    store.records.setPlacement(slot, (i % side) * 1.5 - half, 0, Math.floor(i / side) * 1.5 - half, random() * 6.283, 1 / height);
  }
  const eye = view === 'inside' ? [0, 1.7, 0] : [0, half * 1.4, -half * 1.4];
  const target = view === 'inside' ? [0, 1.7, 10] : [0, 0, 0];
  const vp = mat4.multiply(mat4.perspective(70 * Math.PI / 180, 16 / 9, 0.1, 5000), mat4.lookAt(eye, target, [0, 1, 0]));
  const settings = new mods.CullSettings(character.lods?.errors ?? [0], height);
  settings.setCamera(vp, eye, 1080);
  const cull = new mods.GLCull(store.lodLevels, bounds.reach, bounds.reachLayered);
  return { store, settings, cull, frame: () => cull.run(store, settings.fill()), destroy: () => {} };
}

/**
 * glCullScene's crowd; `rounds` rounds of 50 frames each (after one warm-up round).
 * Medians of the per-round ms per frame; the cull, the palette's assign (the WebGL 2 crowd's
 * GLPalette work beside the cull when CrowdOptions.paletteSize is finite; the lists of the cull's
 * last frame, steady: kept sets, shared poses rebucketed) and the floor alternate round by round.
 */
export function benchGLCull(character: Character, count: number, view: 'inside' | 'above', rounds: number): GLCullRow {
  const { store, settings, cull } = glCullScene(character, count, view);
  const f32 = new Float32Array(store.records.bytes);
  let sink = 0;
  const floor = () => {
    for (let s = 0; s < count; s++) { const w = s * (INSTANCE.size / 4); sink += f32[w + 12] + f32[w + 14]; }
  };
  const cullTimes: number[] = [], floorTimes: number[] = [], paletteTimes: number[] = [];
  const twin = new PaletteTwin(), records = new Uint32Array(store.records.bytes);
  twin.reset(store.capacity, PALETTE_BENCH_BUDGET, PALETTE_BENCH_BUDGET);
  const stale = (slot: number) => cull.makeStale(slot);
  let posed = 0;
  for (let round = 0; round <= rounds; round++) {
    let t = performance.now();
    for (let f = 0; f < 50; f++) { cull.run(store, settings.fill()); posed += round > 0 ? cull.poseCount : 0; }
    const cullMs = (performance.now() - t) / 50;
    t = performance.now();
    for (let f = 0; f < 50; f++) floor();
    const floorMs = (performance.now() - t) / 50;
    t = performance.now();
    for (let f = 0; f < 50; f++) twin.assign(cull, undefined, count, records, f * 3000, stale);
    const paletteMs = (performance.now() - t) / 50;
    if (round > 0) { cullTimes.push(cullMs); floorTimes.push(floorMs); paletteTimes.push(paletteMs); }
  }
  if (sink === 0.5) console.error('(unreachable: keeps the floor loop alive)');
  return { view, instances: count, cullMs: median(cullTimes), floorMs: median(floorTimes), visible: cull.visible, posed: posed / (rounds * 50), paletteMs: median(paletteTimes), held: twin.held, shared: twin.shared };
}
