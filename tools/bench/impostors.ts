/**
 * The far crowd as impostors (issue 40): Foxes on a square grid, every one in view (a camera
 * straight down over the whole grid, LOD as for a 1080-pixel-high view), drawn with
 * CrowdImpostors against the same crowd drawn with meshes only, and against 10,000 in view with
 * meshes; vertices a frame (the cull stats), CPU ms and GPU ms; the atlas's bake time and bytes.
 * Used by tools/bench.ts (`npm run bench -- --section impostors`).
 */
import { mat4 } from 'wgpu-matrix';
import type { Character } from '../../src/character/character';
import { CrowdImpostors, type PartialLayers } from '../../src/features/impostors/crowd-impostors';
import { CrowdProps } from '../../src/features/props/crowd-props';
import { projectionScale } from '../../src/runtime/culling/cull-math';
import { Crowd } from '../../src/runtime/crowd';

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const TARGET_WIDTH = 640;
const TARGET_HEIGHT = 360;
/** Grid spacing, model units (the Fox is about 185 long). */
const SPACING = 220;
const WARM_UP = 2;

export interface ImpostorRow {
  instances: number;
  how: 'meshes' | 'impostors';
  /** Impostors drawn as dots (the cull stats'). */
  dots: number;
  visible: number;
  posed: number;
  /** Instances drawn as impostors (the band's included). */
  impostors: number;
  /** Instances in the band (drawn both ways). */
  band: number;
  vertices: number;
  cpuMs: number;
  /** GPU ms of the whole frame (compute and render passes) by timestamp-query, else submit to done. */
  gpuMs: number;
  /** GPU ms of the cull and palette passes, and of the render pass (timestamp-query; NaN without it). */
  cullMs: number;
  drawMs: number;
  /** The process's CPU ms (all threads) from submit to done: on SwiftShader the frame's work, less moved by other processes' load than gpuMs. */
  workMs: number;
  /** The framing sphere's span on the target, pixels, at the camera's height (the nearest Foxes). */
  spherePixels: number;
  method: string;
}

/** How the frame is drawn beyond the crowd and its impostors. */
export interface ImpostorView {
  /** Samples a pixel of the target (1 or 4; the demo draws 4). Default 1. */
  samples?: number;
  /**
   * Where the switch lies, a multiple of the camera's height (the Foxes are 1 to 1.15 x it away):
   * the crowd's viewport height is set to put it there. Default: 1.2 with a band (every Fox inside
   * it), else a 1080-pixel view. A meshes-only frame with it set sees the same LOD (its impostors
   * made and turned off).
   */
  switchAt?: number;
  /** ImpostorOptions.dotPixels (default: the feature's). */
  dotPixels?: number;
  /** The target's size, pixels. Default 640 x 360. */
  width?: number;
  height?: number;
  /**
   * A prop every Fox holds (CrowdProps.attach without instances): drawn on the meshes, baked into
   * the impostors; with `every`, one Fox in `every` holds it (attach with instances: a layer of
   * the atlas for its holders' prop set, where `looks` lets one be baked).
   */
  prop?: { character: Character; joint: string; offset: readonly number[]; every?: number };
  /** ImpostorOptions.looks (default: the feature's, 1). */
  looks?: number;
  /**
   * Every Fox a blend of three clips in a layer stack (its clip, the next at 0.4 over it, the third
   * at 0.3 over both: shares 0.42, 0.28, 0.3): posed from its stack as a mesh, shown as its two
   * heaviest by the impostors (the shown pass, before the cull pass). 'masked': the third clip's
   * layer over the upper body alone (a mask from b_Spine02_03), which the atlas cannot show
   * (ImpostorOptions.partialLayers: a mesh, or left out).
   */
  layered?: boolean | 'masked';
  /** ImpostorOptions.partialLayers (default: the feature's, 'mesh'). */
  partialLayers?: PartialLayers;
  /** The grid's spacing, model units (default SPACING, the Fox's). */
  spacing?: number;
  /** The clips the instances take in turn (default 0, 1, 2: the Fox's three). */
  clips?: readonly number[];
  /** CrowdOptions.shadows (default off): the sun's shadow map, cast by the meshes in its reach, received by everything. */
  shadows?: boolean;
}

/**
 * `frames` measured frames of `count` Foxes all in view, as meshes or with impostors; medians.
 * `band`: the impostors' band (ImpostorOptions.band) with every Fox inside it (mesh LOD as the
 * crowd's defaults: the band has its full width whatever the levels, its meshes at the switch's
 * level) and the viewport height set so that the switch lies 1.2 x the camera's height away.
 */
export async function benchImpostorFrame(device: GPUDevice, character: Character, count: number, how: ImpostorRow['how'], frames: number, band?: number, view: ImpostorView = {}): Promise<ImpostorRow> {
  const samples = view.samples ?? 1;
  const targetWidth = view.width ?? TARGET_WIDTH, targetHeight = view.height ?? TARGET_HEIGHT;
  const switchAt = view.switchAt ?? (band === undefined ? undefined : 1.2);
  const crowd = new Crowd(device, character, { ...FORMATS, capacity: 1024, sampleCount: samples, ...(view.shadows ? { shadows: true } : {}) });
  const feature = how === 'impostors' || switchAt !== undefined ? new CrowdImpostors(crowd, { ...(band === undefined ? {} : { band }), ...(view.dotPixels === undefined ? {} : { dotPixels: view.dotPixels }), ...(view.looks === undefined ? {} : { looks: view.looks }), ...(view.partialLayers === undefined ? {} : { partialLayers: view.partialLayers }) }) : undefined;
  const props = view.prop && new CrowdProps(crowd);
  if (view.prop && !view.prop.every) props!.attach(view.prop.character, { joint: view.prop.joint, offset: view.prop.offset });
  if (feature && how === 'meshes') feature.enabled = false;
  else await feature?.bake();
  const side = Math.ceil(Math.sqrt(count));
  const spacing = view.spacing ?? SPACING, clips = view.clips ?? [0, 1, 2];
  const positions = new Float32Array(3 * count), clipsA = new Uint32Array(count), timesA = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    positions[3 * i] = (i % side) * spacing;
    positions[3 * i + 2] = Math.floor(i / side) * spacing;
    clipsA[i] = clips[i % clips.length];
    timesA[i] = (i % 97) * 0.031;
  }
  const ids = crowd.addMany({ count, positions, clipsA, timesA });
  const every = view.prop?.every;
  if (every) props!.attach(view.prop!.character, { joint: view.prop!.joint, offset: view.prop!.offset, instances: Array.from(ids).filter((_, i) => i % every === 0) });
  if (view.layered) {
    const mask = view.layered === 'masked' ? { mask: crowd.createMask({ root: 'b_Spine02_03' }) } : {};
    for (let i = 0; i < count; i++) {
      crowd.setLayers(ids[i], { layers: [{ clip: (i + 1) % 3, time: timesA[i], weight: 0.4 }, { clip: (i + 2) % 3, time: timesA[i], weight: 0.3, ...mask }] });
    }
  }
  const extent = side * spacing;
  const centre = [extent / 2, 0, extent / 2];
  const fovY = 0.9;
  const height = (extent * 0.6) / Math.tan(fovY / 2);
  const eye = [centre[0], height, centre[2] + 1];
  const viewProjection = mat4.multiply(mat4.perspective(fovY, targetWidth / targetHeight, height / 4, height * 2), mat4.lookAt(eye, centre, [0, 1, 0]));
  const color = device.createTexture({ size: [targetWidth, targetHeight], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT, sampleCount: samples });
  const resolved = samples > 1 ? device.createTexture({ size: [targetWidth, targetHeight], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT }) : undefined;
  const depth = device.createTexture({ size: [targetWidth, targetHeight], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT, sampleCount: samples });
  const timestamps = device.features.has('timestamp-query');
  // 0, 1: the cull pass; 2, 3: the pose pass; 4, 5: the render pass; 6: the frame's start (an empty pass before the crowd's: the features' passes before the cull's, such as the impostors' shown pass, count).
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 7 }) : undefined;
  const resolve = device.createBuffer({ size: 56, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 56, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  // The switch (the framing sphere at switchPixels: the box's, or a pose's frame's where the cells
  // frame each pose, ImpostorAtlasInfo.frameHalf) switchAt x the height away: with a band at 1.2,
  // every Fox (1 to 1.15 x the height away) is in a band of 0.25.
  const sphere = feature ? 2 * Math.hypot(...feature.atlas.frameHalf) : 0;
  const viewportHeight = switchAt === undefined || !feature ? 1080 : (switchAt * height * 2 * feature.switchPixels) / (sphere * projectionScale(viewProjection));
  crowd.setCamera(viewProjection, eye, { viewportHeight });
  const cullGpu: number[] = [], drawGpu: number[] = [], dots: number[] = [];
  const cpu: number[] = [], gpu: number[] = [], work: number[] = [], visible: number[] = [], posed: number[] = [], impostors: number[] = [], vertices: number[] = [], inBand: number[] = [];
  device.pushErrorScope('validation');
  for (let f = 0; f < frames + WARM_UP; f++) {
    const start = performance.now();
    crowd.update(1 / 60);
    const encoder = device.createCommandEncoder();
    if (querySet) encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 6 } }).end();
    crowd.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 }, querySet && { querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 });
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: color.createView(), resolveTarget: resolved?.createView(), loadOp: 'clear', storeOp: resolved ? 'discard' : 'store' }],
      depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      timestampWrites: querySet && { querySet, beginningOfPassWriteIndex: 4, endOfPassWriteIndex: 5 },
    });
    crowd.draw(pass, viewProjection);
    pass.end();
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 7, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, read, 0, 56);
    }
    const commands = encoder.finish();
    const cpuMs = performance.now() - start;
    const submitted = performance.now();
    const processCpu = process.cpuUsage();
    device.queue.submit([commands]);
    await device.queue.onSubmittedWorkDone();
    let gpuMs = performance.now() - submitted;
    const used = process.cpuUsage(processCpu);
    if (querySet) {
      await read.mapAsync(GPUMapMode.READ);
      const t = new BigUint64Array(read.getMappedRange());
      gpuMs = Number(t[5] - t[6]) / 1e6;
      if (f >= WARM_UP) { cullGpu.push(Number(t[1] - t[0]) / 1e6); drawGpu.push(Number(t[5] - t[4]) / 1e6); }
      read.unmap();
    }
    const stats = await crowd.readCullStats();
    if (f >= WARM_UP) {
      cpu.push(cpuMs); gpu.push(gpuMs); work.push((used.user + used.system) / 1000); visible.push(stats.visible); posed.push(stats.posed); vertices.push(stats.vertices);
      impostors.push(how === 'impostors' ? stats.perLevel[stats.perLevel.length - 1] : 0);
      inBand.push(stats.band ?? 0);
      dots.push(stats.dots ?? 0);
    }
  }
  const error = await device.popErrorScope();
  if (error) throw new Error(`impostors: ${count} ${how}: ${error.message}`);
  for (const r of [color, depth, resolve, read]) r.destroy();
  resolved?.destroy();
  querySet?.destroy();
  crowd.destroy();
  return {
    instances: count, how, visible: median(visible), posed: median(posed), impostors: median(impostors), band: median(inBand), dots: median(dots), vertices: median(vertices),
    cpuMs: median(cpu), gpuMs: median(gpu), cullMs: querySet ? median(cullGpu) : NaN, drawMs: querySet ? median(drawGpu) : NaN, workMs: median(work), spherePixels: (sphere * projectionScale(viewProjection) * targetHeight) / (2 * height), method: timestamps ? 'timestamp-query (frame start, before the features\' passes and the cull pass, to render pass end)' : 'submit to done',
  };
}

/** The atlas with the default options: bake ms (made, recorded, and done on the GPU) and bytes. */
export async function benchBake(device: GPUDevice, character: Character): Promise<{ ms: number; bytes: number; frames: number; azimuths: number; elevations: number; cellSize: number; width: number; height: number }> {
  const crowd = new Crowd(device, character, FORMATS);
  const impostors = new CrowdImpostors(crowd);
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  await impostors.bake();
  const ms = performance.now() - start;
  const { bytes, frames, azimuths, elevations, cellSize, width, height } = impostors.atlas;
  crowd.destroy();
  return { ms, bytes, frames, azimuths, elevations, cellSize, width, height };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
