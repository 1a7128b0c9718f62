import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AnimationController } from '../../src/anim/control/controller';
import { defaultControllerConfig, parseControllerConfig, type ControllerConfig } from '../../src/anim/control/config';
import { Crowd, type InstanceId } from '../../src/runtime/crowd';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import type { LayerStackArrays } from '../../src/anim/layer-stack';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice } from '../helpers/gpu';
import { modelPath } from '../helpers/models';
import { kernelOf } from '../helpers/kernel';
import { expectSameState, plainState } from '../helpers/plain-state';

/**
 * Every public method of Crowd, CrowdControllers and AnimationController, given NaN, Infinity,
 * wrong types, unknown or removed ids, out-of-range values, too many layers, transforms of the
 * wrong length...: each call must throw an error whose message names the input, and leave the
 * crowd exactly as it was. snapshot() captures everything observable (and the internals behind
 * it: CPU record and stack mirrors byte for byte, slot maps, dirty ranges, controller state),
 * before and after every refusal.
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

interface Fixture {
  crowd: Crowd;
  controllers: CrowdControllers;
  config: ControllerConfig;
  /** A plain instance (two clips blended). */
  plain: InstanceId;
  /** An instance with override and additive layers. */
  layered: InstanceId;
  /** A removed instance (its id is free). */
  removed: InstanceId;
  /** A crowd mask. */
  mask: number;
  /** Controllers of both drivers, by instance. */
  cpuId: InstanceId;
  gpuId: InstanceId;
  cpu: AnimationController;
  gpu: AnimationController;
  /** A second crowd at its capacity (one instance layered), without removed ids. */
  full: { crowd: Crowd; controllers: CrowdControllers };
}

interface CesiumFixture {
  crowd: Crowd;
  controllers: CrowdControllers;
  /** A controller of a config without locomotion or actions. */
  controller: AnimationController;
}

/**
 * Counts the GPU buffers, textures and query sets made on `device` and not destroyed yet, by
 * wrapping its create calls: a refusal must not leave one behind (nor destroy one).
 */
function trackGpuObjects(device: GPUDevice): { readonly live: number } {
  const live = new Set<object>();
  for (const name of ['createBuffer', 'createTexture', 'createQuerySet'] as const) {
    const create = (device[name] as (descriptor: never) => { destroy(): void }).bind(device);
    (device as unknown as Record<string, unknown>)[name] = (descriptor: never) => {
      const object = create(descriptor);
      const destroy = object.destroy.bind(object);
      live.add(object);
      object.destroy = () => {
        live.delete(object);
        destroy();
      };
      return object;
    };
  }
  return { get live() { return live.size; } };
}

const gpuObjects = device ? trackGpuObjects(device) : { live: 0 };

/**
 * The crowd's full observable state: count, clock, each live instance's animation, transform,
 * joint-matrix index, stack and controller; the CPU mirrors of the records and stacks (bytes);
 * masks; and, to catch what no getter shows, every field of the crowd and controllers.
 */
function snapshot(crowd: Crowd, controllers: CrowdControllers) {
  const store = kernelOf(crowd).store;
  const live = [];
  for (let handle = 0; handle < store.handleCount; handle++) {
    if (!store.has(handle)) continue;
    const id = store.idOf(handle);
    let controller: unknown = null;
    try {
      controller = plainState(controllers.get(id), new Set());
    } catch { /* no controller */ }
    live.push({
      id, animation: crowd.getAnimation(id), transform: Array.from(crowd.getTransform(id)), joints: crowd.jointMatrixIndex(id),
      stack: store.stackOf(id), controller, gpuDriven: controllers.isGpuDriven(id),
    });
  }
  return {
    count: crowd.count, clock: crowd.clock, capacity: store.capacity, plainCount: store.plainCount, layeredCount: store.layeredCount,
    handles: store.handleCount, generation: store.generation, masks: store.masks.count, controllers: controllers.count,
    flags: [crowd.culling, crowd.lod, crowd.animationLod, crowd.shadows, crowd.skinning, controllers.readBack],
    gpuObjects: gpuObjects.live,
    records: new Uint32Array(store.records.bytes.slice(0)),
    stacks: new Uint32Array(store.stacks.bytes.slice(0)),
    live,
    internals: plainState({ crowd, controllers }, new Set()),
  };
}

/** A valid stack in arrays (one override layer), for setStack cases to spoil one field of. */
const STACK: LayerStackArrays = {
  baseClip: 2, baseTime: 0.1, baseSpeed: 1, layerCount: 1,
  layerClip: [1], layerTime: [0], layerSpeed: [1], layerWeight: [0.5], layerMask: [-1],
};

/** A refusal: a call that must throw an error matching `error` and change nothing. */
interface Refusal<F> {
  name: string;
  call: (f: F) => unknown;
  error: RegExp;
  /** Which crowd of the fixture the call works on (default 'main'). */
  target?: 'main' | 'full';
}

/** Messages of errors the JavaScript engine raises: a refusal must never end in one. */
const INTERNAL = /Cannot read|Cannot set|Cannot destructure|Cannot convert|is not a function|is not iterable|is not a constructor|Invalid typed array|out of bounds|Maximum call stack/;

const layer = { clip: 'Survey', weight: 0.5 };
const NaNAt = (i: number) => IDENTITY.map((v, k) => (k === i ? NaN : v));

/** add() refusals: (what, init, error), tried on a crowd with room and on a full one (a refused add must not grow it). */
const addRefusals: [string, unknown, RegExp][] = [
  ['add(null)', null as never, /init must be an object \{ clipA, .*transform \}, got null/],
  ['add(string)', 'Walk' as never, /init must be an object .*, got "Walk"/],
  ['unknown clip name', { clipA: 'Jog' }, /clipA: no clip "Jog" in .*"Survey", "Walk", "Run"/],
  ['clip index out of range', { clipB: 7 }, /clipB: no clip 7/],
  ['fractional clip index', { clipA: 1.5 }, /clipA: no clip 1.5/],
  ['null clip', { clipA: null as never }, /clipA: a clip is named by its name or index, got null/],
  ['timeA NaN', { timeA: NaN }, /timeA must be a finite number, got NaN/],
  ['timeB Infinity', { timeB: Infinity }, /timeB must be a finite number, got Infinity/],
  ['speedA -Infinity', { speedA: -Infinity }, /speedA must be a finite number, got -Infinity/],
  ['speedB string', { speedB: '2' as never }, /speedB must be a finite number, got "2"/],
  ['blend 1.5', { blend: 1.5 }, /blend must be in \[0, 1\], got 1.5/],
  ['blend -0.1', { blend: -0.1 }, /blend must be in \[0, 1\], got -0.1/],
  ['blend NaN', { blend: NaN }, /blend must be in \[0, 1\], got NaN/],
  ['blend string', { blend: '0.5' as never }, /blend must be in \[0, 1\], got "0.5"/],
  ['transform of 3', { transform: [1, 2, 3] }, /transform must have 16 numbers \(column-major 4x4\), got 3/],
  ['transform of 17', { transform: new Float32Array(17) }, /transform must have 16 numbers .*got 17/],
  ['transform with NaN', { transform: NaNAt(5) }, /transform element 5 must be a finite number, got NaN/],
  // float32 bounds (issue 41): 1e39 is Infinity on the GPU; the cull pass squares world distances past 1e12.
  ['transform with 1e39', { transform: IDENTITY.map((v, k) => (k === 12 ? 1e39 : v)) }, /transform element 12 must be a number in \[-1e12, 1e12\] \(float32 on the GPU: the cull pass squares world distances\), got 1e\+39/],
  ['transform with 2e12', { transform: IDENTITY.map((v, k) => (k === 0 ? 2e12 : v)) }, /transform element 0 must be a number in \[-1e12, 1e12\]/],
  ['speedA 1e39', { speedA: 1e39 }, /speedA must be a number in \[-3.4028235e38, 3.4028235e38\] \(the GPU holds it as float32\), got 1e\+39/],
  ['transform string', { transform: 'x'.repeat(16) as never }, /transform must be 16 numbers .*, got "x+"/],
  ['transform null', { transform: null as never }, /transform must be 16 numbers .*, got null/],
  ['unknown field', { speed: 2 } as never, /add: unknown field "speed" \(fields: clipA, clipB, timeA, timeB, speedA, speedB, blend, transform\)/],
];

const crowdRefusals: Refusal<Fixture>[] = [
  ...addRefusals.map(([what, init, error]) => ({ name: `add ${what}`, call: (f: Fixture) => f.crowd.add(init as never), error })),
  ...addRefusals.map(([what, init, error]) => ({ name: `add to a full crowd: ${what}`, target: 'full' as const, call: (f: Fixture) => f.full.crowd.add(init as never), error })),
  // remove
  { name: 'remove removed id', call: (f) => f.crowd.remove(f.removed), error: /instance \d+ does not exist: it was removed/ },
  { name: 'remove unknown id', call: (f) => f.crowd.remove(999), error: /instance 999 does not exist: it was never added \(ids come from Crowd\.add\)/ },
  { name: 'remove -1', call: (f) => f.crowd.remove(-1), error: /instance -1 does not exist/ },
  { name: 'remove 1.5', call: (f) => f.crowd.remove(1.5), error: /instance id must be an integer from Crowd\.add, got 1.5/ },
  { name: 'remove NaN', call: (f) => f.crowd.remove(NaN), error: /instance id must be an integer from Crowd\.add, got NaN/ },
  { name: 'remove string id', call: (f) => f.crowd.remove('0' as never), error: /instance id must be an integer from Crowd\.add, got "0"/ },
  { name: 'remove undefined', call: (f) => f.crowd.remove(undefined as never), error: /instance id must be an integer from Crowd\.add, got undefined/ },
  // setTransform
  { name: 'setTransform removed id', call: (f) => f.crowd.setTransform(f.removed, IDENTITY), error: /instance \d+ does not exist/ },
  { name: 'setTransform of 3', call: (f) => f.crowd.setTransform(f.plain, [1, 2, 3]), error: /transform must have 16 numbers .*got 3/ },
  { name: 'setTransform of 0', call: (f) => f.crowd.setTransform(f.plain, []), error: /transform must have 16 numbers .*got 0/ },
  { name: 'setTransform NaN', call: (f) => f.crowd.setTransform(f.plain, NaNAt(15)), error: /transform element 15 must be a finite number, got NaN/ },
  { name: 'setTransform Infinity', call: (f) => f.crowd.setTransform(f.plain, IDENTITY.map((v, i) => (i === 12 ? Infinity : v))), error: /transform element 12 must be a finite number, got Infinity/ },
  { name: 'setTransform null', call: (f) => f.crowd.setTransform(f.plain, null as never), error: /transform must be 16 numbers .*, got null/ },
  { name: 'setTransform strings', call: (f) => f.crowd.setTransform(f.plain, IDENTITY.map(String) as never), error: /transform element 0 must be a finite number, got "1"/ },
  { name: 'setTransform number', call: (f) => f.crowd.setTransform(f.plain, 1 as never), error: /transform must be 16 numbers .*, got 1/ },
  // setAnimation
  { name: 'setAnimation removed id', call: (f) => f.crowd.setAnimation(f.removed, { blend: 0 }), error: /instance \d+ does not exist/ },
  { name: 'setAnimation null', call: (f) => f.crowd.setAnimation(f.plain, null as never), error: /change must be an object \{ clipA, .* \} \(any subset\), got null/ },
  { name: 'setAnimation number', call: (f) => f.crowd.setAnimation(f.plain, 0.5 as never), error: /change must be an object .*, got 0.5/ },
  { name: 'setAnimation unknown clip', call: (f) => f.crowd.setAnimation(f.plain, { clipA: 'Jog' }), error: /clipA: no clip "Jog"/ },
  { name: 'setAnimation clip -1', call: (f) => f.crowd.setAnimation(f.plain, { clipB: -1 }), error: /clipB: no clip -1/ },
  { name: 'setAnimation timeA NaN', call: (f) => f.crowd.setAnimation(f.plain, { timeA: NaN }), error: /timeA must be a finite number, got NaN/ },
  { name: 'setAnimation speedB Infinity', call: (f) => f.crowd.setAnimation(f.plain, { speedB: Infinity }), error: /speedB must be a finite number, got Infinity/ },
  { name: 'setAnimation blend 2', call: (f) => f.crowd.setAnimation(f.plain, { blend: 2 }), error: /blend must be in \[0, 1\], got 2/ },
  { name: 'setAnimation misspelt field', call: (f) => f.crowd.setAnimation(f.plain, { blnd: 0.5 } as never), error: /setAnimation: unknown field "blnd" \(fields: clipA, clipB, timeA, timeB, speedA, speedB, blend\)/ },
  { name: 'setAnimation transform', call: (f) => f.crowd.setAnimation(f.plain, { transform: IDENTITY } as never), error: /setAnimation: unknown field "transform"/ },
  { name: 'setAnimation on a layered instance, blend NaN', call: (f) => f.crowd.setAnimation(f.layered, { clipA: 'Run', blend: NaN }), error: /blend must be in \[0, 1\], got NaN/ },
  // setBlend
  { name: 'setBlend removed id', call: (f) => f.crowd.setBlend(f.removed, 0.5), error: /instance \d+ does not exist/ },
  { name: 'setBlend 1.01', call: (f) => f.crowd.setBlend(f.plain, 1.01), error: /blend must be in \[0, 1\], got 1.01/ },
  { name: 'setBlend NaN', call: (f) => f.crowd.setBlend(f.plain, NaN), error: /blend must be in \[0, 1\], got NaN/ },
  { name: 'setBlend string', call: (f) => f.crowd.setBlend(f.plain, '0.5' as never), error: /blend must be in \[0, 1\], got "0.5"/ },
  { name: 'setBlend undefined', call: (f) => f.crowd.setBlend(f.plain, undefined as never), error: /blend must be in \[0, 1\], got undefined/ },
  // createMask
  { name: 'createMask unknown root', call: (f) => f.crowd.createMask({ root: 'Tail' }), error: /mask root: no joint named 'Tail'/ },
  { name: 'createMask null', call: (f) => f.crowd.createMask(null as never), error: /mask must be \{"root": JOINT\}/ },
  { name: 'createMask string', call: (f) => f.crowd.createMask('b_Head_05' as never), error: /mask must be \{"root": JOINT\}/ },
  { name: 'createMask weight 2', call: (f) => f.crowd.createMask({ weights: { b_Head_05: 2 } }), error: /mask weight of 'b_Head_05' must be a number in \[0, 1\], got 2/ },
  { name: 'createMask unknown joint', call: (f) => f.crowd.createMask({ weights: { Nope: 1 } }), error: /mask weights: no joint named 'Nope'/ },
  { name: 'createMask default NaN', call: (f) => f.crowd.createMask({ weights: {}, default: NaN }), error: /mask default must be a number in \[0, 1\], got NaN/ },
  { name: 'createMask weights null', call: (f) => f.crowd.createMask({ weights: null as never }), error: /mask must be \{"root": JOINT\}/ },
  // setLayers
  { name: 'setLayers removed id', call: (f) => f.crowd.setLayers(f.removed, { layers: [layer] }), error: /instance \d+ does not exist/ },
  { name: 'setLayers undefined', call: (f) => f.crowd.setLayers(f.plain, undefined as never), error: /setLayers: init must be \{ layers, additive \} or null, got undefined/ },
  { name: 'setLayers number', call: (f) => f.crowd.setLayers(f.plain, 5 as never), error: /setLayers: init must be \{ layers, additive \} or null, got 5/ },
  { name: 'setLayers array', call: (f) => f.crowd.setLayers(f.plain, [layer] as never), error: /setLayers: init must be \{ layers, additive \} or null, got an array/ },
  { name: 'setLayers layers not an array', call: (f) => f.crowd.setLayers(f.plain, { layers: 'Survey' as never }), error: /layers must be an array, got "Survey"/ },
  { name: 'setLayers additive not an array', call: (f) => f.crowd.setLayers(f.plain, { additive: { clip: 'Run' } as never }), error: /additive must be an array, got an object/ },
  { name: 'setLayers misspelt field', call: (f) => f.crowd.setLayers(f.plain, { layer: [layer] } as never), error: /setLayers: unknown field "layer" \(fields: layers, additive\)/ },
  { name: 'setLayers null layer', call: (f) => f.crowd.setLayers(f.plain, { layers: [null as never] }), error: /layers\[0\] must be an object \{ clip, time, speed, weight, mask \}, got null/ },
  { name: 'setLayers 5 layers', call: (f) => f.crowd.setLayers(f.plain, { layers: [layer, layer, layer, layer, layer] }), error: /at most 4 override layers per instance, got 5/ },
  { name: 'setLayers 3 additive', call: (f) => f.crowd.setLayers(f.plain, { additive: [1, 2, 3].map(() => ({ ...layer, reference: 'rest' as const })) }), error: /at most 2 additive layers per instance, got 3/ },
  { name: 'setLayers unknown clip', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, clip: 'Jog' }] }), error: /layers\[0\]\.clip: no clip "Jog"/ },
  { name: 'setLayers weight 2', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, weight: 2 }] }), error: /layers\[0\]\.weight must be in \[0, 1\], got 2/ },
  { name: 'setLayers weight NaN', call: (f) => f.crowd.setLayers(f.plain, { layers: [layer, { ...layer, weight: NaN }] }), error: /layers\[1\]\.weight must be in \[0, 1\], got NaN/ },
  { name: 'setLayers weight missing', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ clip: 'Walk' } as never] }), error: /layers\[0\]\.weight must be in \[0, 1\], got undefined/ },
  { name: 'setLayers time Infinity', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, time: Infinity }] }), error: /layers\[0\]\.time must be a finite number, got Infinity/ },
  { name: 'setLayers speed NaN', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, speed: NaN }] }), error: /layers\[0\]\.speed must be a finite number, got NaN/ },
  { name: 'setLayers unknown mask', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, mask: 99 }] }), error: /layers\[0\]\.mask 99 does not exist \(the crowd has \d+ masks\)/ },
  { name: 'setLayers mask -1', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, mask: -1 }] }), error: /layers\[0\]\.mask -1 does not exist/ },
  { name: 'setLayers misspelt layer field', call: (f) => f.crowd.setLayers(f.plain, { layers: [{ ...layer, wieght: 1 } as never] }), error: /layers\[0\]: unknown field "wieght" \(fields: clip, time, speed, weight, mask\)/ },
  { name: 'setLayers bad reference', call: (f) => f.crowd.setLayers(f.plain, { additive: [{ ...layer, clip: 'Run', reference: 'bind' as never }] }), error: /additive\[0\]\.reference must be 'rest' or \{ clip, time \}, got "bind"/ },
  { name: 'setLayers reference clip', call: (f) => f.crowd.setLayers(f.plain, { additive: [{ ...layer, clip: 'Run', reference: { clip: 'Jog' } }] }), error: /additive\[0\]\.reference\.clip: no clip "Jog"/ },
  { name: 'setLayers reference time NaN', call: (f) => f.crowd.setLayers(f.plain, { additive: [{ ...layer, clip: 'Run', reference: { clip: 'Run', time: NaN } }] }), error: /additive\[0\]\.reference\.time must be a finite number, got NaN/ },
  { name: 'setLayers on a layered instance, second layer bad', call: (f) => f.crowd.setLayers(f.layered, { layers: [layer, { ...layer, clip: 9 }] }), error: /layers\[1\]\.clip: no clip 9/ },
  // setLayerWeight
  { name: 'setLayerWeight removed id', call: (f) => f.crowd.setLayerWeight(f.removed, 0, 0.5), error: /instance \d+ does not exist/ },
  { name: 'setLayerWeight on a plain instance', call: (f) => f.crowd.setLayerWeight(f.plain, 0, 0.5), error: /instance \d+ has no layers \(setLayers first\)/ },
  { name: 'setLayerWeight index 1 of 1', call: (f) => f.crowd.setLayerWeight(f.layered, 1, 0.5), error: /override layer 1 does not exist \(the instance has 1\)/ },
  { name: 'setLayerWeight index 0.5', call: (f) => f.crowd.setLayerWeight(f.layered, 0.5, 0.5), error: /override layer 0.5 does not exist/ },
  { name: 'setLayerWeight weight 1.5', call: (f) => f.crowd.setLayerWeight(f.layered, 0, 1.5), error: /layer weight must be in \[0, 1\], got 1.5/ },
  { name: 'setLayerWeight weight NaN', call: (f) => f.crowd.setLayerWeight(f.layered, 0, NaN, 'additive'), error: /layer weight must be in \[0, 1\], got NaN/ },
  { name: 'setLayerWeight additive 1 of 1', call: (f) => f.crowd.setLayerWeight(f.layered, 1, 0.5, 'additive'), error: /additive layer 1 does not exist \(the instance has 1\)/ },
  { name: 'setLayerWeight unknown kind', call: (f) => f.crowd.setLayerWeight(f.layered, 0, 0.5, 'additve' as never), error: /kind must be 'override' or 'additive', got "additve"/ },
  // setStack
  { name: 'setStack removed id', call: (f) => f.crowd.setStack(f.removed, STACK), error: /instance \d+ does not exist/ },
  { name: 'setStack null', call: (f) => f.crowd.setStack(f.plain, null as never), error: /stack must be an object \(LayerStackArrays\), got null/ },
  { name: 'setStack layerCount 5', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerCount: 5 }), error: /layerCount must be an integer in \[0, 4\], got 5/ },
  { name: 'setStack layerCount 1.5', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerCount: 1.5 }), error: /layerCount must be an integer in \[0, 4\], got 1.5/ },
  { name: 'setStack layerCount -1', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerCount: -1 }), error: /layerCount must be an integer in \[0, 4\], got -1/ },
  { name: 'setStack baseClip 7', call: (f) => f.crowd.setStack(f.plain, { ...STACK, baseClip: 7 }), error: /baseClip 7 does not exist \(the model has 3 clips\)/ },
  { name: 'setStack baseClip string', call: (f) => f.crowd.setStack(f.plain, { ...STACK, baseClip: '1' as never }), error: /baseClip "1" does not exist/ },
  { name: 'setStack baseTime NaN', call: (f) => f.crowd.setStack(f.plain, { ...STACK, baseTime: NaN }), error: /baseTime must be a finite number, got NaN/ },
  { name: 'setStack baseSpeed Infinity', call: (f) => f.crowd.setStack(f.plain, { ...STACK, baseSpeed: Infinity }), error: /baseSpeed must be a finite number, got Infinity/ },
  { name: 'setStack ahead NaN', call: (f) => f.crowd.setStack(f.plain, STACK, undefined, NaN), error: /ahead must be a finite number, got NaN/ },
  { name: 'setStack layer weight 1.5', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerWeight: [1.5] }), error: /layers\[0\]\.weight must be in \[0, 1\], got 1.5/ },
  { name: 'setStack layer clip 9', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerClip: [9] }), error: /layers\[0\]\.clip 9 does not exist/ },
  { name: 'setStack layer time NaN', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerTime: [NaN] }), error: /layers\[0\]\.time must be a finite number, got NaN/ },
  { name: 'setStack layer speed Infinity', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerSpeed: [Infinity] }), error: /layers\[0\]\.speed must be a finite number, got Infinity/ },
  { name: 'setStack mask not among maskIds', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerMask: [3] }, []), error: /layers\[0\]\.mask 3 is not -1 or an index of the 0 mask ids given/ },
  { name: 'setStack unknown mask id', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerMask: [5] }), error: /layers\[0\]\.mask 5 does not exist \(the crowd has \d+ masks\)/ },
  { name: 'setStack maskIds naming no mask', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerMask: [0] }, [42]), error: /layers\[0\]\.mask 42 does not exist/ },
  { name: 'setStack mask -2', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerMask: [-2] }), error: /layers\[0\]\.mask -2 does not exist/ },
  { name: 'setStack maskIds not an array', call: (f) => f.crowd.setStack(f.plain, STACK, 5 as never), error: /maskIds must be an array of mask ids, got 5/ },
  { name: 'setStack arrays shorter than layerCount', call: (f) => f.crowd.setStack(f.plain, { ...STACK, layerCount: 2 }), error: /layers\[1\]\.clip undefined does not exist/ },
  { name: 'setStack on a layered instance, bad weight', call: (f) => f.crowd.setStack(f.layered, { ...STACK, layerCount: 2, layerClip: [1, 0], layerTime: [0, 0], layerSpeed: [1, 1], layerWeight: [0.5, -1], layerMask: [-1, -1] }), error: /layers\[1\]\.weight must be in \[0, 1\], got -1/ },
  // setPlacement
  { name: 'setPlacement removed id', call: (f) => f.crowd.setPlacement(f.removed, 0, 0, 0, 0), error: /instance \d+ does not exist/ },
  { name: 'setPlacement x NaN', call: (f) => f.crowd.setPlacement(f.plain, NaN, 0, 0, 0), error: /x must be a finite number, got NaN/ },
  { name: 'setPlacement y Infinity', call: (f) => f.crowd.setPlacement(f.plain, 0, Infinity, 0, 0), error: /y must be a finite number, got Infinity/ },
  { name: 'setPlacement z NaN', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, NaN, 0), error: /z must be a finite number, got NaN/ },
  { name: 'setPlacement yaw NaN', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, NaN), error: /yaw must be a finite number, got NaN/ },
  { name: 'setPlacement yaw Infinity', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, Infinity), error: /yaw must be a finite number, got Infinity/ },
  { name: 'setPlacement scale 0', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, 0, 0), error: /scale must be a positive finite number, got 0/ },
  { name: 'setPlacement scale -1', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, 0, -1), error: /scale must be a positive finite number, got -1/ },
  { name: 'setPlacement scale NaN', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, 0, NaN), error: /scale must be a positive finite number, got NaN/ },
  { name: 'setPlacement x 2e12', call: (f) => f.crowd.setPlacement(f.plain, 2e12, 0, 0, 0), error: /x must be a number in \[-1e12, 1e12\] \(float32 on the GPU: the cull pass squares world distances\), got 2000000000000/ },
  { name: 'setPlacement z -1e39', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, -1e39, 0), error: /z must be a number in \[-1e12, 1e12\]/ },
  { name: 'setPlacement scale 1e13', call: (f) => f.crowd.setPlacement(f.plain, 0, 0, 0, 0, 1e13), error: /scale must be a number in \[-1e12, 1e12\]/ },
  { name: 'setTransform 1e39', call: (f) => f.crowd.setTransform(f.plain, IDENTITY.map((v, k) => (k === 13 ? -1e39 : v))), error: /transform element 13 must be a number in \[-1e12, 1e12\]/ },
  { name: 'setAnimation speedB 1e39', call: (f) => f.crowd.setAnimation(f.plain, { speedB: -1e39 }), error: /speedB must be a number in \[-3.4028235e38, 3.4028235e38\]/ },
  { name: 'setPlacement x string', call: (f) => f.crowd.setPlacement(f.plain, '1' as never, 0, 0, 0), error: /x must be a finite number, got "1"/ },
  // getters that take an id or an output
  { name: 'getAnimation removed id', call: (f) => f.crowd.getAnimation(f.removed), error: /instance \d+ does not exist/ },
  { name: 'getAnimation unknown id', call: (f) => f.crowd.getAnimation(999), error: /instance 999 does not exist/ },
  { name: 'getAnimation string id', call: (f) => f.crowd.getAnimation('1' as never), error: /instance id must be an integer from Crowd\.add, got "1"/ },
  { name: 'getTransform removed id', call: (f) => f.crowd.getTransform(f.removed), error: /instance \d+ does not exist/ },
  { name: 'getTransform short out', call: (f) => f.crowd.getTransform(f.plain, new Float32Array(3)), error: /out must be a Float32Array of at least 16 numbers, got 3/ },
  { name: 'getTransform plain array out', call: (f) => f.crowd.getTransform(f.plain, [] as never), error: /out must be a Float32Array of at least 16 numbers/ },
  { name: 'jointMatrixIndex removed id', call: (f) => f.crowd.jointMatrixIndex(f.removed), error: /instance \d+ does not exist/ },
  { name: 'jointMatrixIndex 2.5', call: (f) => f.crowd.jointMatrixIndex(2.5), error: /instance id must be an integer from Crowd\.add, got 2.5/ },
  // update, camera, LOD, flags
  { name: 'update NaN', call: (f) => f.crowd.update(NaN), error: /dt must be a finite number of seconds, got NaN/ },
  { name: 'update Infinity', call: (f) => f.crowd.update(Infinity), error: /dt must be a finite number of seconds, got Infinity/ },
  { name: 'update string', call: (f) => f.crowd.update('0.1' as never), error: /dt must be a finite number of seconds, got "0.1"/ },
  { name: 'update undefined', call: (f) => f.crowd.update(undefined as never), error: /dt must be a finite number of seconds, got undefined/ },
  { name: 'setCamera matrix of 15', call: (f) => f.crowd.setCamera(IDENTITY.slice(1), [0, 0, 0]), error: /viewProjection must have 16 numbers, got 15/ },
  { name: 'setCamera matrix NaN', call: (f) => f.crowd.setCamera(NaNAt(3), [0, 0, 0]), error: /viewProjection element 3 must be a finite number, got NaN/ },
  { name: 'setCamera matrix null', call: (f) => f.crowd.setCamera(null as never, [0, 0, 0]), error: /viewProjection must have 16 numbers, got null/ },
  { name: 'setCamera position of 2', call: (f) => f.crowd.setCamera(IDENTITY, [0, 0]), error: /camera position must have 3 numbers, got 2/ },
  { name: 'setCamera position Infinity', call: (f) => f.crowd.setCamera(IDENTITY, [0, Infinity, 0]), error: /camera position element 1 must be a finite number, got Infinity/ },
  { name: 'setCamera position 2e12', call: (f) => f.crowd.setCamera(IDENTITY, [0, 2e12, 0]), error: /camera position element 1 must be a number in \[-1e12, 1e12\] \(float32 on the GPU: the cull pass squares world distances\)/ },
  { name: 'setCamera matrix 1e39', call: (f) => f.crowd.setCamera(IDENTITY.map((v, k) => (k === 5 ? 1e39 : v)), [0, 0, 0]), error: /viewProjection element 5 must be a number in \[-3.4028235e38, 3.4028235e38\] \(the GPU holds it as float32\)/ },
  { name: 'setCamera viewportHeight 0', call: (f) => f.crowd.setCamera(IDENTITY, [0, 0, 0], { viewportHeight: 0 }), error: /viewportHeight must be a positive number of pixels, got 0/ },
  { name: 'setCamera viewportHeight NaN', call: (f) => f.crowd.setCamera(IDENTITY, [0, 0, 0], { viewportHeight: NaN }), error: /viewportHeight must be a positive number of pixels, got NaN/ },
  { name: 'setCamera options null', call: (f) => f.crowd.setCamera(IDENTITY, [0, 0, 0], null as never), error: /camera options must be an object \{ viewportHeight \}, got null/ },
  { name: 'forceLodLevel past the levels', call: (f) => f.crowd.forceLodLevel(4), error: /LOD level must be an integer in \[0, 3\] or undefined, got 4/ },
  { name: 'forceLodLevel -1', call: (f) => f.crowd.forceLodLevel(-1), error: /LOD level must be an integer in \[0, 3\] or undefined, got -1/ },
  { name: 'forceLodLevel NaN', call: (f) => f.crowd.forceLodLevel(NaN), error: /LOD level must be an integer .* got NaN/ },
  { name: 'forceLodLevel 0.5', call: (f) => f.crowd.forceLodLevel(0.5), error: /LOD level must be an integer .* got 0.5/ },
  { name: 'shadows on without a shadow map', call: (f) => { f.crowd.shadows = true; }, error: /this crowd was created without shadows \(CrowdOptions\.shadows\)/ },
  { name: 'shadows = string', call: (f) => { f.crowd.shadows = 'yes' as never; }, error: /shadows must be true or false, got "yes"/ },
  { name: 'culling = string', call: (f) => { f.crowd.culling = 'no' as never; }, error: /culling must be true or false, got "no"/ },
  { name: 'lod = 1', call: (f) => { f.crowd.lod = 1 as never; }, error: /lod must be true or false, got 1/ },
  { name: 'animationLod = null', call: (f) => { f.crowd.animationLod = null as never; }, error: /animationLod must be true or false, got null/ },
  { name: 'skinning = string', call: (f) => { f.crowd.skinning = 'dq' as never; }, error: /skinning must be 'linear' or 'dual-quaternion', got "dq"/ },
  { name: 'skinning = undefined', call: (f) => { f.crowd.skinning = undefined as never; }, error: /skinning must be 'linear' or 'dual-quaternion', got undefined/ },
  { name: 'encode(undefined)', call: (f) => f.crowd.encode(undefined as never), error: /encoder must be a GPUCommandEncoder, got undefined/ },
  { name: 'draw(undefined)', call: (f) => f.crowd.draw(undefined as never, IDENTITY), error: /pass must be a GPURenderPassEncoder, got undefined/ },
  { name: 'draw with a matrix of 3', call: (f) => withRenderPass(f.crowd.device, (pass) => f.crowd.draw(pass, [1, 2, 3])), error: /viewProjection must have 16 numbers, got 3/ },
  { name: 'draw with a NaN matrix', call: (f) => withRenderPass(f.crowd.device, (pass) => f.crowd.draw(pass, NaNAt(0))), error: /viewProjection element 0 must be a finite number, got NaN/ },
  // Crowd: construction (nothing may be left behind: the snapshot counts live GPU objects)
  ...([
    ['options null', null, /options must be an object \{ colorFormat, depthFormat, .*\} \(CrowdOptions\), got null/],
    ['capacity 0', { capacity: 0 }, /capacity must be a positive integer, got 0/],
    ['capacity 1.5', { capacity: 1.5 }, /capacity must be a positive integer, got 1.5/],
    ['capacity NaN', { capacity: NaN }, /capacity must be a positive integer, got NaN/],
    ['capacity string', { capacity: '8' }, /capacity must be a positive integer, got "8"/],
    // The joint buffer stops at the sets that fit (a palette past them): the records are what run out.
    ['capacity past the device limits', { capacity: 2 ** 30 }, /Crowd\.instances needs .*maxStorageBufferBindingSize/],
    ['paletteSize 0', { paletteSize: 0 }, /paletteSize must be a positive integer or Infinity \(joint sets of instances being drawn\), got 0/],
    ['paletteSize 1.5', { paletteSize: 1.5 }, /paletteSize must be a positive integer or Infinity \(joint sets of instances being drawn\), got 1.5/],
    ['unknown cullBounds', { cullBounds: 'tight' }, /cullBounds must be 'reach' or 'authored', got "tight"/],
    ['culling string', { culling: 'yes' }, /culling must be true or false, got "yes"/],
    ['maxDistance -1', { maxDistance: -1 }, /maxDistance must be a positive number of world units \(or Infinity\), got -1/],
    ['lod string', { lod: 'fine' }, /lod must be true, false or \{ pixelError \}, got "fine"/],
    ['lod pixelError 0', { lod: { pixelError: 0 } }, /lod\.pixelError must be a positive number of pixels, got 0/],
    ['animationLod threshold -1', { animationLod: { every2ndBelow: -1 } }, /animationLod\.every2ndBelow must be a number of pixels >= 0, got -1/],
    ['animationLod thresholds crossed', { animationLod: { every2ndBelow: 10, every4thBelow: 20 } }, /animationLod\.every4thBelow \(20\) must not exceed every2ndBelow \(10\)/],
    ['shadows string', { shadows: 'on' }, /shadows must be true, false or \{ mapSize, distance, reach, strength \}, got "on"/],
    ['shadows distance -1', { shadows: { distance: -1 } }, /shadows\.distance must be a positive number of world units, got -1/],
    ['shadows reach NaN', { shadows: { reach: NaN } }, /shadows\.reach must be a positive number of world units, got NaN/],
    ['shadows strength 2', { shadows: { strength: 2 } }, /shadows\.strength must be in \[0, 1\], got 2/],
    ['shadows mapSize 0', { shadows: { mapSize: 0 } }, /shadows\.mapSize must be an integer in \[1, \d+\], got 0/],
    ['shadows mapSize past the device limit', { shadows: { mapSize: 1e6 } }, /shadows\.mapSize must be an integer in \[1, \d+\], got 1000000/],
    ['no colorFormat', { colorFormat: undefined }, /colorFormat and depthFormat must name the render pass's formats, got undefined and "depth24plus"/],
    ['sampleCount 2', { sampleCount: 2 }, /sampleCount must be 1 or 4 \(WebGPU's MSAA counts\), got 2/],
    ['skinning unknown', { skinning: 'dq' }, /skinning must be 'linear' or 'dual-quaternion', got "dq"/],
    ['skinning number', { skinning: 1 }, /skinning must be 'linear' or 'dual-quaternion', got 1/],
  ] as [string, unknown, RegExp][]).map(([what, options, error]) => ({
    name: `new Crowd: ${what}`,
    call: (f: Fixture) => new Crowd(device!, f.crowd.character, (options === null ? null : { ...FORMATS, ...(options as object) }) as never),
    error,
  })),
  // CrowdControllers: construction
  { name: 'CrowdControllers unknown driver', call: (f) => new CrowdControllers(f.crowd, f.config, { driver: 'gpu2' as never }), error: /driver must be 'gpu' or 'cpu', got "gpu2"/ },
  { name: 'CrowdControllers options null', call: (f) => new CrowdControllers(f.crowd, f.config, null as never), error: /options must be an object \{ driver \}, got null/ },
  { name: 'CrowdControllers config null', call: (f) => new CrowdControllers(f.crowd, null as never), error: /config must be a ControllerConfig \(parseControllerConfig or defaultControllerConfig\), got null/ },
  { name: 'CrowdControllers config for another model', call: (f) => new CrowdControllers(f.crowd, defaultControllerConfig(['A', 'B'])), error: /controller config was made for another model \(its clip names differ\)/ },
  { name: 'CrowdControllers config with a bad second mask', call: (f) => new CrowdControllers(f.crowd, { ...f.config, masks: [{ root: 'b_Neck_04' }, { root: 'Nope' }] }), error: /config\.masks\[1\] root: no joint named 'Nope'/ },
  // CrowdControllers: add, get, remove, update, readBack, locomotionState
  { name: 'controllers.add twice', call: (f) => f.controllers.add(f.cpuId), error: /instance \d+ already has a controller/ },
  { name: 'controllers.add removed id', call: (f) => f.controllers.add(f.removed), error: /instance \d+ does not exist/ },
  { name: 'controllers.add unknown id', call: (f) => f.controllers.add(999), error: /instance 999 does not exist/ },
  { name: 'controllers.add string id', call: (f) => f.controllers.add(String(f.cpuId) as never), error: /instance id must be an integer from Crowd\.add, got "\d+"/ },
  { name: 'controllers.add x NaN', call: (f) => f.controllers.add(f.plain, NaN), error: /x must be a finite number, got NaN/ },
  { name: 'controllers.add x 2e12', call: (f) => f.controllers.add(f.plain, 2e12, 0), error: /x must be a number in \[-1e12, 1e12\] \(float32 on the GPU: the cull pass squares world distances\)/ },
  { name: 'controllers.add heading 1e39', call: (f) => f.controllers.add(f.plain, 0, 0, 1e39), error: /heading must be a number in \[-3.4028235e38, 3.4028235e38\]/ },
  { name: 'controllers.add z Infinity', call: (f) => f.controllers.add(f.plain, 0, Infinity), error: /z must be a finite number, got Infinity/ },
  { name: 'controllers.add heading NaN', call: (f) => f.controllers.add(f.plain, 0, 0, NaN), error: /heading must be a finite number, got NaN/ },
  { name: 'controllers.add x string', call: (f) => f.controllers.add(f.plain, '1' as never), error: /x must be a finite number, got "1"/ },
  { name: 'controllers.add unknown driver', call: (f) => f.controllers.add(f.plain, 0, 0, 0, { driver: 'wasm' as never }), error: /driver must be 'gpu' or 'cpu', got "wasm"/ },
  { name: 'controllers.add options null', call: (f) => f.controllers.add(f.plain, 0, 0, 0, null as never), error: /options must be an object \{ driver \}, got null/ },
  { name: 'controllers.get without a controller', call: (f) => f.controllers.get(f.plain), error: /instance \d+ has no controller/ },
  { name: 'controllers.get removed id', call: (f) => f.controllers.get(f.removed), error: /instance \d+ does not exist: it was removed/ },
  { name: 'controllers.get string id', call: (f) => f.controllers.get(String(f.cpuId) as never), error: /instance id must be an integer from Crowd\.add, got "\d+"/ },
  { name: 'controllers.remove without a controller', call: (f) => f.controllers.remove(f.plain), error: /instance \d+ has no controller/ },
  { name: 'controllers.remove unknown id', call: (f) => f.controllers.remove(999), error: /instance 999 does not exist: it was never added/ },
  { name: 'controllers.remove string id', call: (f) => f.controllers.remove(String(f.cpuId) as never), error: /instance id must be an integer from Crowd\.add, got "\d+"/ },
  { name: 'controllers.update -0.1', call: (f) => f.controllers.update(-0.1), error: /dt must be a finite number of seconds >= 0, got -0.1/ },
  { name: 'controllers.update NaN', call: (f) => f.controllers.update(NaN), error: /dt must be a finite number of seconds >= 0, got NaN/ },
  { name: 'controllers.update Infinity', call: (f) => f.controllers.update(Infinity), error: /dt must be a finite number of seconds >= 0, got Infinity/ },
  { name: 'controllers.update string', call: (f) => f.controllers.update('0.1' as never), error: /dt must be a finite number of seconds >= 0, got "0.1"/ },
  { name: 'controllers.readBack = string', call: (f) => { f.controllers.readBack = 'yes' as never; }, error: /readBack must be true or false, got "yes"/ },
  { name: 'controllers.locomotionState without a controller', call: (f) => f.controllers.locomotionState(f.plain, {} as never), error: /instance \d+ has no controller/ },
  { name: 'controllers.locomotionState out null', call: (f) => f.controllers.locomotionState(f.cpuId, null as never), error: /out must be an object \(LocomotionReadback\), got null/ },
];

/** Commands refused by a controller, tried on the CPU-driven and the GPU-driven one alike. */
const commandRefusals: { name: string; call: (c: AnimationController) => unknown; error: RegExp }[] = [
  { name: 'setSpeed NaN', call: (c) => c.setSpeed(NaN), error: /speed must be in \[0, 2\] \(0 idle, 1 walk, 2 run\), got NaN/ },
  { name: 'setSpeed -1', call: (c) => c.setSpeed(-1), error: /speed must be in \[0, 2\].*got -1/ },
  { name: 'setSpeed 2.5', call: (c) => c.setSpeed(2.5), error: /speed must be in \[0, 2\].*got 2.5/ },
  { name: 'setSpeed Infinity', call: (c) => c.setSpeed(Infinity), error: /speed must be in \[0, 2\].*got Infinity/ },
  { name: 'setSpeed string', call: (c) => c.setSpeed('1' as never), error: /speed must be in \[0, 2\].*got "1"/ },
  { name: 'move x NaN', call: (c) => c.move(NaN, 0), error: /move direction must be finite numbers, got \(NaN, 0\)/ },
  { name: 'move z Infinity', call: (c) => c.move(0, Infinity), error: /move direction must be finite numbers, got \(0, Infinity\)/ },
  { name: 'move strings', call: (c) => c.move('1' as never, 0), error: /move direction must be finite numbers, got \("1", 0\)/ },
  { name: 'move run not a boolean', call: (c) => c.move(1, 0, 'yes' as never), error: /run must be true or false, got "yes"/ },
  { name: 'face NaN', call: (c) => c.face(NaN), error: /facing must be a finite heading in radians or null, got NaN/ },
  { name: 'face 1e39', call: (c) => c.face(1e39), error: /facing must be a number in \[-3.4028235e38, 3.4028235e38\] \(the GPU holds it as float32\)/ },
  { name: 'face Infinity', call: (c) => c.face(Infinity), error: /facing must be a finite heading in radians or null, got Infinity/ },
  { name: 'face string', call: (c) => c.face('0' as never), error: /facing must be a finite heading in radians or null, got "0"/ },
  { name: 'face undefined', call: (c) => c.face(undefined as never), error: /facing must be a finite heading in radians or null, got undefined/ },
  { name: 'requestAction unknown', call: (c) => c.requestAction('Jump'), error: /no action "Jump" \(actions: "Look"\)/ },
  { name: 'requestAction number', call: (c) => c.requestAction(5 as never), error: /no action 5 \(actions: "Look"\)/ },
  { name: 'requestAction undefined', call: (c) => c.requestAction(undefined as never), error: /no action undefined/ },
  { name: 'play unknown clip', call: (c) => c.play('Jog'), error: /no clip "Jog"/ },
  { name: 'play clip 7', call: (c) => c.play(7), error: /no clip 7/ },
  { name: 'play null', call: (c) => c.play(null as never), error: /a clip is named by its name or index, got null/ },
  { name: 'fadeTo unknown clip', call: (c) => c.fadeTo('Jog'), error: /no clip "Jog"/ },
  { name: 'fadeTo seconds -1', call: (c) => c.fadeTo('Walk', { seconds: -1 }), error: /fade seconds must be >= 0 and finite, got -1/ },
  { name: 'fadeTo seconds NaN', call: (c) => c.fadeTo('Walk', { seconds: NaN }), error: /fade seconds must be >= 0 and finite, got NaN/ },
  { name: 'fadeTo seconds Infinity', call: (c) => c.fadeTo('Walk', { seconds: Infinity }), error: /fade seconds must be >= 0 and finite, got Infinity/ },
  { name: 'fadeTo unknown kind', call: (c) => c.fadeTo('Walk', { kind: 'slow' as never }), error: /fade kind must be one of smooth, frozen, first-frame, immediate, got "slow"/ },
  { name: 'fadeTo unknown curve', call: (c) => c.fadeTo('Walk', { curve: 'quadratic' as never }), error: /fadeTo options\.curve must be "linear", "cubic" or a function of u in \[0, 1\], got "quadratic"/ },
  { name: 'fadeTo curve returning NaN', call: (c) => c.fadeTo('Walk', { curve: (u) => (u < 0.5 ? u : NaN) }), error: /fadeTo options\.curve: custom blend curve returned NaN at u = 0\.5/ },
  { name: 'fadeTo options null', call: (c) => c.fadeTo('Walk', null as never), error: /fadeTo options must be an object \{ seconds, kind, curve \}, got null/ },
  { name: 'update -1', call: (c) => c.update(-1), error: /dt must be a finite number of seconds >= 0, got -1/ },
  { name: 'update NaN', call: (c) => c.update(NaN), error: /dt must be a finite number of seconds >= 0, got NaN/ },
  { name: 'advanceDiscrete Infinity', call: (c) => c.advanceDiscrete(Infinity), error: /dt must be a finite number of seconds >= 0, got Infinity/ },
];

/** Commands a controller of a config without locomotion or actions refuses. */
const noLocomotionRefusals: Refusal<CesiumFixture>[] = [
  { name: 'setSpeed without locomotion', call: (f) => f.controller.setSpeed(1), error: /this model's controller config has no "locomotion" section/ },
  { name: 'move without locomotion', call: (f) => f.controller.move(1, 0), error: /has no "locomotion" section/ },
  { name: 'face without locomotion', call: (f) => f.controller.face(0), error: /has no "locomotion" section/ },
  { name: 'stop without locomotion', call: (f) => f.controller.stop(), error: /has no "locomotion" section/ },
  { name: 'requestAction unknown', call: (f) => f.controller.requestAction('Look'), error: /no action "Look" \(actions: "clip0"\)/ },
  { name: 'play unknown clip', call: (f) => f.controller.play('Walk'), error: /no clip "Walk"/ },
];

/** Runs `draw` inside a render pass on a 4 x 4 target (ended and discarded whatever happens). */
function withRenderPass(device: GPUDevice, draw: (pass: GPURenderPassEncoder) => void): void {
  const color = device.createTexture({ size: [4, 4], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [4, 4], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginRenderPass({
    colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
  });
  try {
    draw(pass);
  } finally {
    pass.end();
    encoder.finish();
    color.destroy();
    depth.destroy();
  }
}

/**
 * Expects `call` to throw an error matching `error` (not one of the engine's own) and to leave
 * `state()` as it was: the same data (plain-state.ts expectSameState, toEqual where it differs).
 * toEqual on the 390 KB snapshot took six times as long as taking it; the exact text compared
 * after it (JSON with a replacer spelling out NaN, the infinities and -0) was still 7.0 s of the
 * file's 17 s of CPU (a profile), plainState's arrays of numbers another 3.7 s. With the mirrors
 * and buffers as typed copies, compared byte for byte, the file takes 5.4 to 5.7 s (14.2 to 18.0).
 */
function expectRefusal(state: () => unknown, call: () => unknown, error: RegExp): void {
  const before = state();
  let thrown: unknown;
  try {
    call();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'the call was accepted').toBeInstanceOf(Error);
  const message = (thrown as Error).message;
  expect(message).not.toMatch(INTERNAL);
  expect(message).toMatch(error);
  const after = state();
  expectSameState(after, before);
}

const foxConfig = (names: readonly string[]) =>
  parseControllerConfig(JSON.parse(readFileSync(modelPath('Fox').replace(/\.glb$/, '.controller.json'), 'utf8')), names);

describe.skipIf(!device)('every public method refuses bad input by name and leaves the crowd as it was', () => {
  let fox: Fixture;
  let cesium: CesiumFixture;
  let refused = 0;

  beforeAll(async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    const config = foxConfig(character.clipNames);
    const controllers = new CrowdControllers(crowd, config);
    const mask = crowd.createMask({ root: 'b_Spine01_02' });
    const at = (x: number) => IDENTITY.map((v, i) => (i === 12 ? x : v));
    const plain = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, timeA: 0.2, speedB: 0.5, transform: at(2) });
    const layered = crowd.add({ clipA: 'Survey', timeA: 1, transform: at(4) });
    crowd.setLayers(layered, { layers: [{ clip: 'Walk', weight: 0.6, mask }], additive: [{ clip: 'Run', weight: 0.4, reference: 'rest' }] });
    const cpuId = crowd.add();
    const gpuId = crowd.add();
    const cpu = controllers.add(cpuId, 1, 2, 0.5, { driver: 'cpu' });
    const gpu = controllers.add(gpuId, -1, 0, 0);
    for (let i = 0; i < 3; i++) crowd.add({ clipA: i % 3, timeA: i * 0.3, transform: at(-2 * i) });
    const removed = crowd.add({ clipA: 'Run' }); // the 8th: grows past 4
    crowd.remove(removed);
    cpu.setSpeed(1);
    gpu.setSpeed(0.5);
    gpu.requestAction('Look');
    cpu.fadeTo('Run', { seconds: 1 });
    for (let f = 0; f < 5; f++) {
      controllers.update(1 / 30);
      crowd.update(1 / 30);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    // Commands after the last update: a GPU-driven controller has discrete state to catch up on, a CPU one has pending changes.
    controllers.update(1 / 30);
    expect(kernelOf(crowd).store.layeredCount).toBe(3);
    expect(crowd.count).toBe(7);
    expect(kernelOf(crowd).store.capacity).toBe(8);
    const fullCrowd = new Crowd(device!, character, { ...FORMATS, capacity: 2 });
    fullCrowd.add({ clipA: 'Walk' });
    fullCrowd.setLayers(fullCrowd.add({ clipA: 'Run' }), { layers: [{ clip: 'Survey', weight: 0.5 }] });
    fullCrowd.update(0.1);
    expect(kernelOf(fullCrowd).store.capacity).toBe(fullCrowd.count);
    const full = { crowd: fullCrowd, controllers: new CrowdControllers(fullCrowd, config) };
    fox = { crowd, controllers, config, plain, layered, removed, mask, cpuId, gpuId, cpu, gpu, full };

    const man = await testCharacter('CesiumMan');
    const manCrowd = new Crowd(device!, man, { ...FORMATS, capacity: 2 });
    const manControllers = new CrowdControllers(manCrowd, defaultControllerConfig(man.clipNames), { driver: 'cpu' });
    const controller = manControllers.add(manCrowd.add(), 1, 1);
    manControllers.update(0.1);
    cesium = { crowd: manCrowd, controllers: manControllers, controller };
  });

  for (const r of crowdRefusals) {
    it(r.name, () => {
      const { crowd, controllers } = r.target === 'full' ? fox.full : fox;
      expectRefusal(() => snapshot(crowd, controllers), () => r.call(fox), r.error);
      refused++;
    });
  }

  for (const driver of ['cpu', 'gpu'] as const) {
    for (const r of commandRefusals) {
      it(`${driver}-driven controller: ${r.name}`, () => {
        expectRefusal(() => snapshot(fox.crowd, fox.controllers), () => r.call(fox[driver]), r.error);
        refused++;
      });
    }
  }

  for (const r of noLocomotionRefusals) {
    it(`controller without locomotion: ${r.name}`, () => {
      expectRefusal(() => snapshot(cesium.crowd, cesium.controllers), () => r.call(cesium), r.error);
      refused++;
    });
  }

  it('after every refusal the crowd still works: valid calls succeed and the frame has no GPU error', async () => {
    const total = crowdRefusals.length + 2 * commandRefusals.length + noLocomotionRefusals.length;
    console.log(`API refusals tested: ${refused} of ${total}`);
    expect(refused).toBe(total);
    const { crowd, controllers } = fox;
    crowd.setBlend(fox.plain, 0.5);
    crowd.setLayerWeight(fox.layered, 0, 0.25);
    fox.cpu.setSpeed(2);
    fox.gpu.face(1);
    const id = crowd.add({ clipA: 'Run' });
    fox.full.crowd.add(); // grows now
    expect(kernelOf(fox.full.crowd).store.capacity).toBe(4);
    controllers.update(1 / 30);
    crowd.update(1 / 30);
    await expectNoGpuError(device!, () => {
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    });
    expect(crowd.getAnimation(id).clipA).toBe(2);
    crowd.destroy();
    fox.full.crowd.destroy();
    cesium.crowd.destroy();
  });
});
