/**
 * Peer benchmark: how much CPU per frame three.js spends animating a crowd the way its users do
 * today, so the GPU path can be compared against it.
 *
 * For each instance count the model is loaded with three.js `GLTFLoader.parse()` (images and
 * textures are stripped from the glTF JSON first, so nothing is decoded and no DOM is needed),
 * then every instance gets its own `SkeletonUtils.clone(gltf.scene)` and its own `AnimationMixer`
 * playing the two named clips at once, blended by weight, from random start times.
 *
 * One frame is exactly the CPU work three.js does per frame for such a crowd before drawing:
 *   1. `mixer.update(dt)` for every instance (samples both clips, blends, writes bone TRS),
 *   2. `updateMatrixWorld()` of every clone's scene (bone local and world matrices),
 *   3. `skeleton.update()` of every SkinnedMesh's skeleton (boneMatrices = matrixWorld * boneInverse,
 *      which `WebGLRenderer` calls once per skeleton per frame).
 * Nothing is drawn and no GPU upload is timed.
 *
 * Memory: every clone is a full Object3D graph, so big crowds need a big V8 heap. The per-instance
 * heap cost is measured on a small probe crowd first; a count whose estimate exceeds `maxHeapBytes`,
 * 80% of the V8 heap limit (`--max-old-space-size`) or 80% of physical memory is skipped with a note.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { totalmem } from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { AnimationMixer } from 'three';
import type { AnimationClip, Object3D, Skeleton, SkinnedMesh } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/examples/jsm/utils/SkeletonUtils.js';
import { readModelResource } from '../node-io';
import { seededRandom } from '../random';

export interface PeerRow {
  instances: number;
  msPerFrame: number;
  jointMatricesPerSecond: number;
  note?: string;
}

export interface PeerOptions {
  /** Timed frames per count. Default: adaptive, about 3 s of timed frames (at least 3, at most 200). */
  frames?: number;
  /** Untimed frames before timing. Default: adaptive, about 1 s of frames (at least 1, at most 30). */
  warmupFrames?: number;
  /** Skip a count whose estimated memory exceeds this. Default 6 GB (6e9 bytes). */
  maxHeapBytes?: number;
  /** Progress lines (default: none). */
  log?: (message: string) => void;
}

const GB = 1e9;
const DT = 1 / 60;
const PROBE_INSTANCES = 200;
const TIMED_BUDGET_MS = 3000;
const WARMUP_BUDGET_MS = 1000;

export async function benchThreePeer(
  modelPath: string,
  clipNames: [string, string],
  instanceCounts: number[],
  options: PeerOptions = {},
): Promise<PeerRow[]> {
  const log = options.log ?? (() => {});
  const maxHeapBytes = options.maxHeapBytes ?? 6 * GB;
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  const budget = Math.min(maxHeapBytes, 0.8 * heapLimit, 0.8 * totalmem());
  const budgetWhy =
    budget === maxHeapBytes ? `maxHeapBytes ${fmtGB(maxHeapBytes)}`
    : budget === 0.8 * heapLimit ? `80% of V8 heap limit ${fmtGB(heapLimit)}; raise --max-old-space-size`
    : `80% of physical memory ${fmtGB(totalmem())}`;

  const gltf = await loadGltfWithoutImages(modelPath);
  const clipA = findClip(gltf, clipNames[0]);
  const clipB = findClip(gltf, clipNames[1]);
  const random = seededRandom(0x5eed);

  // Per-instance memory, measured on a probe crowd (after one frame, so lazily made state exists).
  const gc = getGc();
  gc();
  const before = memoryInUse();
  let probe: Crowd | null = buildCrowd(gltf, clipA, clipB, PROBE_INSTANCES, random);
  runFrame(probe);
  gc();
  let bytesPerInstance = Math.max(1, (memoryInUse() - before) / PROBE_INSTANCES);
  const jointsPerInstance = probe.jointsPerInstance;
  probe = null;
  log(`three.js peer: ${jointsPerInstance} joints per instance, ~${Math.round(bytesPerInstance / 1024)} KiB heap per instance, ` +
    `V8 heap limit ${fmtGB(heapLimit)}, memory budget ${fmtGB(budget)} (${budgetWhy})`);

  const rows: PeerRow[] = [];
  for (const instances of instanceCounts) {
    gc();
    const baseline = memoryInUse();
    const estimate = baseline + instances * bytesPerInstance;
    if (estimate > budget) {
      rows.push({ instances, msPerFrame: NaN, jointMatricesPerSecond: NaN,
        note: `skipped: ~${fmtGB(estimate)} needed, budget ${fmtGB(budget)} (${budgetWhy})` });
      log(`${instances}: ${rows[rows.length - 1].note}`);
      continue;
    }

    const buildStart = performance.now();
    let crowd: Crowd | null = buildCrowd(gltf, clipA, clipB, instances, random);
    const buildMs = performance.now() - buildStart;

    // First frame is untimed; its duration sizes the warm-up and the timed run.
    const first = runFrame(crowd).total;
    const warmup = options.warmupFrames ?? clamp(Math.floor(WARMUP_BUDGET_MS / first), 1, 30);
    for (let i = 1; i < warmup; i++) runFrame(crowd);
    const steady = warmup > 1 ? runFrame(crowd).total : first;
    const frames = options.frames ?? clamp(Math.floor(TIMED_BUDGET_MS / steady), 3, 200);

    const total: number[] = [], mixer: number[] = [], world: number[] = [], skin: number[] = [];
    for (let i = 0; i < frames; i++) {
      const t = runFrame(crowd);
      total.push(t.total); mixer.push(t.mixer); world.push(t.world); skin.push(t.skin);
    }
    // msPerFrame is the MEDIAN of the timed frames (robust to a stray major GC in a short run).
    const msPerFrame = median(total);
    const usedBytes = memoryInUse() - baseline;
    bytesPerInstance = Math.max(bytesPerInstance, usedBytes / instances);
    rows.push({
      instances,
      msPerFrame,
      jointMatricesPerSecond: (instances * jointsPerInstance) / (msPerFrame / 1000),
      note: `median of ${frames} (+${warmup} warm-up); mixer ${median(mixer).toFixed(1)} + matrixWorld ${median(world).toFixed(1)} + skeleton ${median(skin).toFixed(1)} ms; ` +
        `build ${(buildMs / 1000).toFixed(1)} s, ~${fmtGB(usedBytes)}`,
    });
    log(`${instances}: ${msPerFrame.toFixed(2)} ms/frame (${rows[rows.length - 1].note})`);
    crowd = null;
  }
  return rows;
}

interface Crowd {
  mixers: AnimationMixer[];
  roots: Object3D[];
  skeletons: Skeleton[];
  jointsPerInstance: number;
}

/** One clone, one mixer and two blended actions per instance. */
function buildCrowd(gltf: GLTF, clipA: AnimationClip, clipB: AnimationClip, count: number, random: () => number): Crowd {
  const mixers: AnimationMixer[] = [], roots: Object3D[] = [], skeletons: Skeleton[] = [];
  let jointsPerInstance = 0;
  for (let i = 0; i < count; i++) {
    const root = SkeletonUtils.clone(gltf.scene);
    const mixer = new AnimationMixer(root);
    const a = mixer.clipAction(clipA);
    const b = mixer.clipAction(clipB);
    // Both actions stay enabled with weights summing to 1, i.e. a cross-fade held mid-way, so both
    // clips are sampled every frame (a `crossFadeTo` would disable the first action once it ends).
    const w = 0.25 + 0.5 * random();
    a.setEffectiveWeight(w).play();
    b.setEffectiveWeight(1 - w).play();
    a.time = random() * clipA.duration;
    b.time = random() * clipB.duration;
    const own = new Set<Skeleton>();
    root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) own.add((o as SkinnedMesh).skeleton); });
    if (i === 0) for (const s of own) jointsPerInstance += s.bones.length;
    for (const s of own) skeletons.push(s);
    mixers.push(mixer);
    roots.push(root);
  }
  if (count > 0 && jointsPerInstance === 0) throw new Error('model has no skinned mesh');
  return { mixers, roots, skeletons, jointsPerInstance };
}

function runFrame(crowd: Crowd): { total: number; mixer: number; world: number; skin: number } {
  const t0 = performance.now();
  for (const m of crowd.mixers) m.update(DT);
  const t1 = performance.now();
  for (const r of crowd.roots) r.updateMatrixWorld();
  const t2 = performance.now();
  for (const s of crowd.skeletons) s.update();
  const t3 = performance.now();
  return { total: t3 - t0, mixer: t1 - t0, world: t2 - t1, skin: t3 - t2 };
}

/** Loads a .glb (or a .gltf, inlining its external buffers) with images and textures removed. */
async function loadGltfWithoutImages(modelPath: string): Promise<GLTF> {
  const bytes = await readFile(modelPath);
  let data: ArrayBuffer | string;
  if (bytes.length >= 12 && bytes.readUInt32LE(0) === 0x46546c67) {
    data = stripGlb(bytes);
  } else {
    const json = JSON.parse(bytes.toString('utf8')) as GltfJson;
    for (const [i, buffer] of (json.buffers ?? []).entries()) {
      if (buffer.uri && !buffer.uri.startsWith('data:')) {
        const file = await readModelResource(modelPath, buffer.uri, `buffer ${i}`); // only files in the model's folder
        buffer.uri = `data:application/octet-stream;base64,${Buffer.from(file).toString('base64')}`;
      }
    }
    stripImages(json);
    data = JSON.stringify(json);
  }
  return new GLTFLoader().parseAsync(data, '');
}

interface GltfJson {
  buffers?: { uri?: string }[];
  images?: unknown[];
  textures?: unknown[];
  samplers?: unknown[];
  materials?: Record<string, unknown>[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
  [key: string]: unknown;
}

/** Removes images, textures, samplers and every material texture reference (`*Texture: { index }`). */
function stripImages(json: GltfJson): void {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  const strip = (value: unknown): void => {
    if (Array.isArray(value)) { value.forEach(strip); return; }
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      if (/texture$/i.test(key) && v !== null && typeof v === 'object' && 'index' in v) delete record[key];
      else strip(v);
    }
  };
  strip(json.materials);
  const textureExtension = /^(KHR_texture_|EXT_texture_)/;
  if (json.extensionsUsed) json.extensionsUsed = json.extensionsUsed.filter((e) => !textureExtension.test(e));
  if (json.extensionsRequired) json.extensionsRequired = json.extensionsRequired.filter((e) => !textureExtension.test(e));
}

/** Rebuilds a GLB with the JSON chunk stripped of images; the BIN chunk is kept as is. */
function stripGlb(glb: Buffer): ArrayBuffer {
  const jsonLength = glb.readUInt32LE(12);
  if (glb.readUInt32LE(16) !== 0x4e4f534a) throw new Error('GLB: first chunk is not JSON');
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8')) as GltfJson;
  stripImages(json);
  let jsonBytes = Buffer.from(JSON.stringify(json), 'utf8');
  const pad = (4 - (jsonBytes.length % 4)) % 4;
  if (pad) jsonBytes = Buffer.concat([jsonBytes, Buffer.alloc(pad, 0x20)]);
  const rest = glb.subarray(20 + jsonLength); // BIN chunk (header + data), if any
  const out = Buffer.alloc(12 + 8 + jsonBytes.length + rest.length);
  out.writeUInt32LE(0x46546c67, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(out.length, 8);
  out.writeUInt32LE(jsonBytes.length, 12);
  out.writeUInt32LE(0x4e4f534a, 16);
  jsonBytes.copy(out, 20);
  rest.copy(out, 20 + jsonBytes.length);
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
}

function findClip(gltf: GLTF, name: string): AnimationClip {
  const clip = gltf.animations.find((c) => c.name === name);
  if (!clip) throw new Error(`clip '${name}' not found (have: ${gltf.animations.map((c) => c.name).join(', ')})`);
  return clip;
}

/** `global.gc` when node runs with --expose-gc, else one obtained via the V8 flag at run time. */
function getGc(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function memoryInUse(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function median(values: number[]): number {
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Number.isFinite(v) ? v : hi));
}

function fmtGB(bytes: number): string {
  return `${(bytes / GB).toFixed(bytes < 10 * GB ? 2 : 1)} GB`;
}

