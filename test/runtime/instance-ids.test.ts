import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCharacter, type Character } from '../../src/character/character';
import { CrowdAppearance } from '../../src/features/appearance/crowd-appearance';
import { CrowdEvents } from '../../src/features/clip-events/crowd-events';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import { CrowdMorph } from '../../src/features/morph/crowd-morph';
import { CrowdProps } from '../../src/features/props/crowd-props';
import { CrowdRootMotion } from '../../src/features/root-motion/crowd-root-motion';
import { Crowd, type InstanceId } from '../../src/runtime/crowd';
import type { CrowdFeature } from '../../src/runtime/feature';
import { HANDLE_SPAN } from '../../src/runtime/instance-ids';
import { robotControllerConfig } from '../helpers/control';
import { openTestDevice } from '../helpers/gpu';
import { kernelOf } from '../helpers/kernel';
import { BUNDLED_MODELS, modelPath, REPO_ROOT } from '../helpers/models';
import { expectSameState, plainState } from '../helpers/plain-state';

/**
 * Stale instance ids (issue 24; src/runtime/instance-ids.ts): an instance is removed, others are
 * added until its handle is reused, and every public method that takes an instance id, of the
 * crowd and of every feature, refuses the old id by name ("instance 1 does not exist: it was
 * removed (its handle now holds instance 16777217)") and leaves the crowd, its features and the
 * new instance exactly as they were. The methods are enumerated from the classes' prototypes:
 * each must be in the table of id-taking calls or in one of the lists of methods that take none,
 * so a new method fails this test until it is listed (and, if it takes an id, refuses a stale one).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

interface Fixture {
  /** RobotExpressive with clip events, props, morph targets and controllers (GPU- and CPU-driven). */
  crowd: Crowd;
  events: CrowdEvents;
  props: CrowdProps;
  morph: CrowdMorph;
  appearance: CrowdAppearance;
  controllers: CrowdControllers;
  prop: Character;
  attachment: number;
  /** A Walker crowd with root motion. */
  walkers: Crowd;
  rootMotion: CrowdRootMotion;
  /** Removed ids, and the ids now living on their handles (main crowd, walkers). */
  stale: InstanceId;
  fresh: InstanceId;
  staleWalker: InstanceId;
  freshWalker: InstanceId;
}

/** An id-taking method called with a stale id; `walkers` when it works on the root-motion crowd. */
type StaleCall = { call: (f: Fixture, id: InstanceId) => unknown; walkers?: true };

/** Every public method that takes an instance id (directly, or in a list), keyed Class.method. */
const TAKES_ID: Record<string, StaleCall> = {
  'Crowd.jointMatrixIndex': { call: (f, id) => f.crowd.jointMatrixIndex(id) },
  'Crowd.remove': { call: (f, id) => f.crowd.remove(id) },
  'Crowd.getTransform': { call: (f, id) => f.crowd.getTransform(id) },
  'Crowd.setTransform': { call: (f, id) => f.crowd.setTransform(id, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 5, 1]) },
  'Crowd.worldTransform': { call: (f, id) => f.crowd.worldTransform(id) },
  'Crowd.setPlacement': { call: (f, id) => f.crowd.setPlacement(id, 3, 0, 3, 1) },
  'Crowd.setAnimation': { call: (f, id) => f.crowd.setAnimation(id, { clipA: 1, blend: 0.5 }) },
  'Crowd.setBlend': { call: (f, id) => f.crowd.setBlend(id, 0.75) },
  'Crowd.getAnimation': { call: (f, id) => f.crowd.getAnimation(id) },
  'Crowd.setLayers': { call: (f, id) => f.crowd.setLayers(id, { layers: [{ clip: 0, weight: 0.5 }] }) },
  'Crowd.setLayerWeight': { call: (f, id) => f.crowd.setLayerWeight(id, 0, 0.25) },
  'Crowd.setStack': {
    call: (f, id) => f.crowd.setStack(id, { baseClip: 1, baseTime: 0, baseSpeed: 1, layerCount: 0, layerClip: [], layerTime: [], layerSpeed: [], layerWeight: [], layerMask: [] }),
  },
  // Crowd's deprecated per-feature methods (src/runtime/legacy.ts).
  'Crowd.attach': { call: (f, id) => f.crowd.attach(f.prop, { joint: f.crowd.character.jointNames[0], instances: [f.fresh, id] }) },
  'Crowd.setAttachmentInstances': { call: (f, id) => f.crowd.setAttachmentInstances(f.attachment, [id]) },
  'Crowd.setMorphWeights': { call: (f, id) => f.crowd.setMorphWeights(id, null) },
  'Crowd.setMorphWeight': { call: (f, id) => f.crowd.setMorphWeight(id, 0, 1) },
  'Crowd.getMorphWeights': { call: (f, id) => f.crowd.getMorphWeights(id) },
  'Crowd.setRootMotion': { call: (f, id) => f.walkers.setRootMotion(id, false), walkers: true },
  'Crowd.movesByRootMotion': { call: (f, id) => f.walkers.movesByRootMotion(id), walkers: true },
  'CrowdProps.attach': { call: (f, id) => f.props.attach(f.prop, { joint: f.crowd.character.jointNames[0], instances: [id] }) },
  'CrowdProps.setInstances': { call: (f, id) => f.props.setInstances(f.attachment, [f.fresh, id]) },
  'CrowdMorph.set': { call: (f, id) => f.morph.set(id, [0.5, ...f.crowd.character.morphTargets.slice(1).map(() => NaN)]) },
  'CrowdMorph.setOne': { call: (f, id) => f.morph.setOne(id, 0, 0.9) },
  'CrowdMorph.get': { call: (f, id) => f.morph.get(id) },
  'CrowdAppearance.setTint': { call: (f, id) => f.appearance.setTint(id, 1, 0, 0) },
  'CrowdAppearance.setVariant': { call: (f, id) => f.appearance.setVariant(id, 0) },
  'CrowdAppearance.setParts': { call: (f, id) => f.appearance.setParts(id, 1) },
  'CrowdAppearance.set': { call: (f, id) => f.appearance.set(id, { tint: [0, 1, 0], parts: 1 }) },
  'CrowdAppearance.getTint': { call: (f, id) => f.appearance.getTint(id) },
  'CrowdAppearance.getVariant': { call: (f, id) => f.appearance.getVariant(id) },
  'CrowdAppearance.getParts': { call: (f, id) => f.appearance.getParts(id) },
  'CrowdRootMotion.setMoves': { call: (f, id) => f.rootMotion.setMoves(id, false), walkers: true },
  'CrowdRootMotion.moves': { call: (f, id) => f.rootMotion.moves(id), walkers: true },
  'CrowdControllers.add': { call: (f, id) => f.controllers.add(id, 1, 1, 0, { driver: 'cpu' }) },
  'CrowdControllers.remove': { call: (f, id) => f.controllers.remove(id) },
  'CrowdControllers.get': { call: (f, id) => f.controllers.get(id) },
  'CrowdControllers.isGpuDriven': { call: (f, id) => f.controllers.isGpuDriven(id) },
  'CrowdControllers.locomotionState': { call: (f, id) => f.controllers.locomotionState(id, { x: 0, z: 0, velocityX: 0, velocityZ: 0, heading: 0, phase: 0, age: 0 }) },
};

/** Public methods that take no instance id (instances, if any, are added or reported, not named). */
const NO_ID = [
  'Crowd.install', 'Crowd.hasFeature', 'Crowd.restore', 'Crowd.add', 'Crowd.addMany', 'Crowd.clear', 'Crowd.createMask', 'Crowd.update', 'Crowd.encode', 'Crowd.draw', 'Crowd.drawFeatures', 'Crowd.destroy',
  'Crowd.readCullStats', 'Crowd.forceLodLevel', 'Crowd.setCamera', 'Crowd.clearCamera', 'Crowd.setCasterCamera', 'Crowd.setLights',
  'Crowd.detach', 'Crowd.attachmentRecords', 'Crowd.setClipEvents', 'Crowd.clipEvents', 'Crowd.onEvent',
  'CrowdProps.detach', 'CrowdProps.records', 'CrowdProps.propDraw', 'CrowdProps.drawBand', 'CrowdMorph.target', 'CrowdAppearance.partMask',
  // CrowdEvents.on's listeners hear ids: the 'listeners hear the id' test below.
  'CrowdEvents.setClipEvents', 'CrowdEvents.setAll', 'CrowdEvents.on', 'CrowdEvents.clipEvents', 'CrowdEvents.rescheduleAll',
  'CrowdControllers.update',
];

/** @internal methods of the clip-events contract (ClipEventScheduler, src/anim/events/scheduler.ts): features call them with handles. */
const INTERNAL_HANDLES = ['CrowdEvents.setExternal', 'CrowdEvents.isExternal', 'CrowdEvents.emit', 'CrowdEvents.fire'];

/** CrowdFeature's per-instance hooks take handles from the kernel, never ids from the application. */
const HOOKS: (keyof CrowdFeature)[] = ['added', 'changing', 'changed', 'placed', 'removed', 'transformAt'];
/** CrowdFeature's other hooks (no instance at all). */
const OTHER_HOOKS: (keyof CrowdFeature)[] = ['cleared', 'prepare', 'settle', 'encode', 'draw', 'rebase', 'passesCreated', 'restore', 'destroy'];

/** The classes whose methods are enumerated, with the source files whose `private` / `protected` methods are not public. */
const CLASSES: [string, { prototype: object }, string[]][] = [
  ['Crowd', Crowd, ['src/runtime/crowd.ts', 'src/runtime/crowd-instances.ts', 'src/runtime/culling/crowd-camera.ts', 'src/runtime/legacy.ts']],
  ['CrowdProps', CrowdProps, ['src/features/props/crowd-props.ts']],
  ['CrowdMorph', CrowdMorph, ['src/features/morph/crowd-morph.ts']],
  ['CrowdAppearance', CrowdAppearance, ['src/features/appearance/crowd-appearance.ts']],
  ['CrowdRootMotion', CrowdRootMotion, ['src/features/root-motion/crowd-root-motion.ts']],
  ['CrowdEvents', CrowdEvents, ['src/features/clip-events/crowd-events.ts']],
  ['CrowdControllers', CrowdControllers, ['src/features/controllers/crowd-controllers.ts']],
];

/** Names of the methods (not accessors: none takes an id) on `cls`'s prototype chain, up to Object. */
function methodNames(cls: { prototype: object }): Set<string> {
  const names = new Set<string>();
  for (let p = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, name)!;
      if (name !== 'constructor' && typeof d.value === 'function') names.add(name);
    }
  }
  return names;
}

/** Names of the methods declared `private` or `protected` in `files`. */
function hiddenNames(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/^ {2}(?:private|protected) (?:readonly )?(?:get |set )?(\w+)[(<]/gm)) names.add(m[1]);
  }
  return names;
}

function loadWalker(): Promise<Character> {
  const bytes = readFileSync(modelPath('Walker'));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'apply' } });
}

function loadSword(): Promise<Character> {
  const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
}

/** Adds instances to `crowd` until one lands on the handle of removed `stale`; returns its id (the others stay). */
function addUntilReused(crowd: Crowd, stale: InstanceId): InstanceId {
  const store = kernelOf(crowd).store;
  for (let i = 0; i < 64; i++) {
    const id = crowd.add({ clipA: i % crowd.character.clipNames.length, timeA: 0.1 * i });
    if (store.handle(id) === stale % HANDLE_SPAN) return id;
  }
  throw new Error(`the handle of instance ${stale} was never reused`);
}

/** Everything observable of a crowd and its features (internals included), and of the instance `id`. */
function snapshot(crowd: Crowd, features: object, id: InstanceId) {
  const store = kernelOf(crowd).store;
  return {
    count: crowd.count, clock: crowd.clock,
    records: new Uint32Array(store.records.bytes.slice(0)),
    stacks: new Uint32Array(store.stacks.bytes.slice(0)),
    instance: { animation: crowd.getAnimation(id), transform: Array.from(crowd.getTransform(id)), joints: crowd.jointMatrixIndex(id), world: Array.from(crowd.worldTransform(id)) },
    internals: plainState({ crowd, features }),
  };
}

describe.skipIf(!device)('stale instance ids are refused by every method that takes an id, once their handle is reused', () => {
  let f: Fixture;

  beforeAll(async () => {
    const [robot, walker, prop] = await Promise.all([loadCharacter(readFileSync(modelPath('RobotExpressive')).buffer.slice(0) as ArrayBuffer), loadWalker(), loadSword()]);
    const crowd = new Crowd(device!, robot, { ...FORMATS, capacity: 4 });
    const events = new CrowdEvents(crowd);
    const props = new CrowdProps(crowd);
    const morph = new CrowdMorph(crowd);
    const appearance = new CrowdAppearance(crowd);
    const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
    const first = [0, 1, 2].map(() => crowd.add({ clipA: 'Walking' }));
    expect(first, 'generation-0 ids are 0, 1, 2, ... as before').toEqual([0, 1, 2]);
    const stale = first[1];
    morph.setOne(stale, 0, 0.3);
    controllers.add(stale, 0, 0, 0);
    const attachment = props.attach(prop, { joint: robot.jointNames[0], instances: [first[0], stale] });
    crowd.remove(stale);
    const fresh = addUntilReused(crowd, stale);
    expect(fresh).toBe(stale + HANDLE_SPAN);
    // The new instance has state of its own in every feature that a stale id would reach.
    controllers.add(fresh, 2, 1, 0.5);
    morph.setOne(fresh, 0, 0.7);
    appearance.set(fresh, { tint: [0.5, 0.25, 1], parts: 1 });
    props.setInstances(attachment, [fresh]);
    crowd.setLayers(crowd.add(), { layers: [{ clip: 'Walking', weight: 0.5 }] });
    events.setClipEvents('Walking', [{ name: 'step', time: 0.2 }]);
    for (let i = 0; i < 3; i++) {
      controllers.update(1 / 30);
      crowd.update(1 / 30);
    }

    const walkers = new Crowd(device!, walker, { ...FORMATS, capacity: 2 });
    const rootMotion = new CrowdRootMotion(walkers);
    const staleWalker = walkers.add();
    walkers.add();
    walkers.remove(staleWalker);
    const freshWalker = addUntilReused(walkers, staleWalker);
    walkers.update(0.1);
    f = { crowd, events, props, morph, appearance, controllers, prop, attachment, walkers, rootMotion, stale, fresh, staleWalker, freshWalker };
  });

  it('lists every public method of the crowd and its features: each takes an id (and is tried below) or is listed as taking none', () => {
    const listed = new Set([...Object.keys(TAKES_ID), ...NO_ID, ...INTERNAL_HANDLES]);
    const hooks = new Set<string>([...HOOKS, ...OTHER_HOOKS]);
    const unlisted: string[] = [];
    const gone: string[] = [];
    for (const [name, cls, files] of CLASSES) {
      const hidden = hiddenNames(files);
      const methods = methodNames(cls);
      for (const method of methods) {
        const key = `${name}.${method}`;
        if (!hidden.has(method) && !listed.has(key) && !hooks.has(method)) unlisted.push(key);
      }
      for (const key of listed) if (key.startsWith(`${name}.`) && !methods.has(key.slice(name.length + 1))) gone.push(key);
    }
    expect(unlisted, 'public methods in no list: add them to TAKES_ID (and refuse a stale id) or NO_ID').toEqual([]);
    expect(gone, 'listed methods that no longer exist').toEqual([]);
  });

  for (const [name, { call, walkers }] of Object.entries(TAKES_ID)) {
    it(`${name} refuses the removed instance's id by name and leaves the new instance untouched`, () => {
      const crowd = walkers ? f.walkers : f.crowd;
      const stale = walkers ? f.staleWalker : f.stale;
      const fresh = walkers ? f.freshWalker : f.fresh;
      const features = walkers ? { rootMotion: f.rootMotion } : { events: f.events, props: f.props, morph: f.morph, appearance: f.appearance, controllers: f.controllers };
      const before = snapshot(crowd, features, fresh);
      let thrown: unknown;
      try {
        call(f, stale);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, 'the stale id was accepted').toBeInstanceOf(RangeError);
      expect((thrown as Error).message).toMatch(new RegExp(`instance ${stale} does not exist: it was removed \\(its handle now holds instance ${fresh}\\)`));
      expectSameState(snapshot(crowd, features, fresh), before);
    });
  }

  it('the new instance answers under its own id, with its own state in every feature', () => {
    const { crowd, fresh } = f;
    expect(f.controllers.isGpuDriven(fresh)).toBe(true);
    expect(f.controllers.get(fresh)).toBeDefined();
    expect(f.morph.get(fresh)[0]).toBeCloseTo(0.7, 6);
    expect(crowd.getAnimation(fresh)).toBeDefined();
    expect(f.rootMotion.moves(f.freshWalker)).toBe(true);
  });

  it('listeners hear the id of the instance now on the handle, from its records and from its GPU-driven controller', () => {
    const crowd = new Crowd(device!, f.crowd.character, { ...FORMATS, capacity: 2 });
    const events = new CrowdEvents(crowd);
    new CrowdMorph(crowd);
    const controllers = new CrowdControllers(crowd, robotControllerConfig(crowd.character));
    const heard = new Set<number>();
    events.on((id) => heard.add(id));
    const a = crowd.add({ clipA: 'Walking' });
    const b = crowd.add({ clipA: 'Walking' });
    crowd.remove(a);
    crowd.remove(b);
    const plainId = crowd.add({ clipA: 'Walking' });
    const controlledId = crowd.add();
    expect([plainId, controlledId].map((id) => id % HANDLE_SPAN).sort()).toEqual([0, 1]);
    expect(Math.min(plainId, controlledId)).toBeGreaterThanOrEqual(HANDLE_SPAN);
    controllers.add(controlledId).setSpeed(1);
    const walkClips = crowd.character.clipNames.filter((n) => /Walk|Idle|Running/.test(n));
    for (const clip of walkClips) events.setClipEvents(clip, [{ name: 'beat', time: 0.1 }]);
    for (let i = 0; i < 90; i++) {
      controllers.update(1 / 30);
      crowd.update(1 / 30);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    expect([...heard].sort()).toEqual([plainId, controlledId].sort());
    crowd.destroy();
  });
});
