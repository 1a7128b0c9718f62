/**
 * `npm run bench -- --section controllers --against REF`: the per-frame CPU scenes measured for
 * this tree and for a worktree of REF in one process, frame by frame in alternation, so that a
 * busy machine slows both alike and the ratio says what changed (issue 42: runs of one tree at a
 * time, minutes apart on a shared machine, could not tell a regression from the load).
 *
 * Both libraries share the process, so an effect of one on the whole process (a module that
 * patches a global on import, say) slows both and does not show in the ratio; compare the
 * milliseconds with a run of the section alone for that.
 * REF's library is loaded from its own worktree (made under the system's temporary directory,
 * its node_modules a link to this tree's), and the scene code here drives both: what differs is
 * the library, not the measurement. REF must have the bench's entry points this uses
 * (tools/bench/ours.ts characterFromFile, tools/bench/full-crowd.ts fullCrowd,
 * src/features/controllers/crowd-controllers.ts, src/anim/control/config.ts), as every commit
 * since bfe6218 does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { ControllerConfig } from '../../src/anim/control/config';
import type { Character } from '../../src/character/character';
import type { CrowdControllers, CrowdControllersOptions } from '../../src/features/controllers/crowd-controllers';
import type { Crowd } from '../../src/runtime/crowd';
import type { CrowdOptions } from '../../src/runtime/crowd-types';
import { seededRandom } from '../random';
import { median } from './timed-frame';

export { median };

/** What the scenes take from a tree: its own loader, crowd and controllers (each tree's modules are its own). */
export interface TreeLibrary {
  /** 'this tree' or the REF as given, with its commit. */
  readonly label: string;
  /** A module of the tree by its path from the tree's root (refused by name when the tree lacks it): what other sections' paired scenes build from (tools/bench/paired-scenes.ts). */
  readonly load: (path: string) => Promise<Record<string, any>>; // each tree's own module, typed by the caller

  readonly characterFromFile: (path: string) => Promise<Character>;
  readonly fullCrowd: (device: GPUDevice, character: Character, options: CrowdOptions) => Crowd;
  readonly CrowdControllers: new (crowd: Crowd, config: ControllerConfig, options?: CrowdControllersOptions) => CrowdControllers;
  readonly parseControllerConfig: (json: unknown, clipNames: readonly string[]) => ControllerConfig;
}

/** The library of the tree at `root` (absolute), loaded by its own module paths. */
export async function treeLibrary(root: string, label: string): Promise<TreeLibrary> {
  const load = async (path: string) => {
    const file = join(root, path);
    if (!existsSync(file)) throw new Error(`--against: ${label} has no ${path}, which the paired scenes load`);
    return import(pathToFileURL(file).href);
  };
  const [ours, full, controllers, config] = await Promise.all([
    load('tools/bench/ours.ts'), load('tools/bench/full-crowd.ts'), load('src/features/controllers/crowd-controllers.ts'), load('src/anim/control/config.ts'),
  ]);
  return { label, load, characterFromFile: ours.characterFromFile, fullCrowd: full.fullCrowd, CrowdControllers: controllers.CrowdControllers, parseControllerConfig: config.parseControllerConfig };
}

/**
 * A worktree of `ref` (a commit, branch or tag of this repository) at
 * <tmpdir>/crowd-skin-against-<commit>, made once and reused, with node_modules linked to this
 * tree's (REF's own dependencies are not installed: a REF needing one this tree lacks fails to
 * load, by name). Returns its root and commit.
 */
export function worktreeOf(ref: string, repo = process.cwd()): { root: string; commit: string } {
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  } catch {
    throw new Error(`--against: ${ref} is not a commit of ${repo}`);
  }
  const root = join(tmpdir(), `crowd-skin-against-${commit.slice(0, 12)}`);
  if (!existsSync(join(root, '.git'))) git('worktree', 'add', '--detach', root, commit);
  else if (execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() !== commit) {
    throw new Error(`--against: ${root} exists but is not at ${commit}; remove it (git worktree remove ${root})`);
  }
  if (!existsSync(join(root, 'node_modules'))) symlinkSync(resolve(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, commit };
}

/** One tree's scene: a frame (the timed work) and its end. */
export interface Scene {
  frame(): void;
  destroy(): void;
}

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const DT = 1 / 60;

/**
 * `lib`'s fullCrowd of `count`: a tree from before paletteSize took Infinity (e0b8c4e) refuses it,
 * and there a joint set per instance was the default, so it gets the default instead.
 */
function crowdOf(lib: TreeLibrary, device: GPUDevice, character: Character, count: number, options: Partial<CrowdOptions>): Crowd {
  const all = { ...FORMATS, capacity: count, ...options };
  try {
    return lib.fullCrowd(device, character, all);
  } catch (error) {
    if (options.paletteSize !== Infinity || !(error instanceof RangeError) || !/paletteSize/.test(error.message)) throw error;
    return lib.fullCrowd(device, character, { ...all, paletteSize: undefined });
  }
}

/**
 * The controllers section's gpu-driver frame (tools/bench/ours.ts benchControllers) on `lib`:
 * `count` controlled instances, about 1 in 300 changing speed or requesting an action a frame
 * (the same seeded sequence in every tree); the frame is the inputs + controllers.update +
 * crowd.update + encode + finish, not submitted.
 */
export function controllerScene(lib: TreeLibrary, device: GPUDevice, character: Character, config: ControllerConfig, count: number, options: Partial<CrowdOptions> = {}): Scene {
  const crowd = crowdOf(lib, device, character, count, options);
  const controllers = new lib.CrowdControllers(crowd, config, { driver: 'gpu' });
  const next = seededRandom(5);
  const side = Math.ceil(Math.sqrt(count));
  const actions = config.actions.map((a) => a.name);
  for (let i = 0; i < count; i++) {
    controllers.add(crowd.add(), (i % side) * 3, Math.floor(i / side) * 3, next() * 6.28).setSpeed(next() * 2);
  }
  return {
    frame() {
      for (let k = 0; k < count / 300; k++) {
        const c = controllers.get(Math.floor(next() * count));
        if (next() < 0.5) c.setSpeed(next() * 2); else if (actions.length) c.requestAction(actions[Math.floor(next() * actions.length)]);
      }
      controllers.update(DT);
      crowd.update(DT);
      const encoder = device.createCommandEncoder();
      crowd.encode(encoder);
      encoder.finish();
    },
    destroy: () => crowd.destroy(),
  };
}

/** A steady crowd on `lib`: `count` instances (every feature the character takes, no controllers), nothing changing; the frame is crowd.update + encode + finish. */
export function steadyScene(lib: TreeLibrary, device: GPUDevice, character: Character, count: number, options: Partial<CrowdOptions> = {}): Scene {
  const crowd = crowdOf(lib, device, character, count, options);
  for (let i = 0; i < count; i++) crowd.add();
  crowd.update(0); // the first upload is not a frame
  return {
    frame() {
      crowd.update(DT);
      const encoder = device.createCommandEncoder();
      crowd.encode(encoder);
      encoder.finish();
    },
    destroy: () => crowd.destroy(),
  };
}

/** Per-frame CPU ms of two scenes run in alternation (which goes first swaps each frame). */
export interface PairedTimes {
  /** ms per timed frame, by scene. */
  readonly times: [number[], number[]];
}

/**
 * Runs `warmup` untimed then `frames` timed frames of each scene, frame by frame in alternation
 * (the first of each pair swaps every frame, so neither always follows the other's garbage).
 */
export function runPaired(scenes: [Scene, Scene], warmup: number, frames: number): PairedTimes {
  const times: [number[], number[]] = [[], []];
  for (let f = 0; f < warmup + frames; f++) {
    for (let k = 0; k < 2; k++) {
      const s = (f + k) % 2;
      const t0 = performance.now();
      scenes[s].frame();
      const t1 = performance.now();
      if (f >= warmup) times[s].push(t1 - t0);
    }
  }
  return { times };
}

/** A row of the paired table: a scene's median and 95th percentile in each tree, and the ratio of medians (this tree / REF). */
export interface PairedRow {
  scene: string;
  /** 'the section\'s' (a joint set per instance, paletteSize Infinity) or 'default' (CrowdOptions.paletteSize left out). */
  palette: 'Infinity' | 'default';
  instances: number;
  ours: { median: number; p95: number };
  ref: { median: number; p95: number };
  ratio: number;
}

/** The 95th percentile of `values` (not empty). */
export const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

/**
 * The paired measurements of the controllers section: RobotExpressive under the gpu driver, then
 * a steady crowd (no controllers, nothing changing), each at every one of `counts`, each tree with
 * its own character and config, in alternation frame by frame; each with the section's crowd
 * (fullCrowd: paletteSize Infinity) and with the default paletteSize (what a page gets: past
 * 65,536 instances the palette runs). `frames` timed frames per scene after the gpu driver's 62 s
 * warm-up (its refresh sweep included) or 2 s for the steady crowd.
 */
export async function benchPaired(device: GPUDevice, libs: [TreeLibrary, TreeLibrary], robotPath: string, counts: number[], frames: number,
  log: (line: string) => void = () => {}): Promise<PairedRow[]> {
  const json = JSON.parse(await readFile(robotPath.replace('.glb', '.controller.json'), 'utf8'));
  const characters = await Promise.all(libs.map((lib) => lib.characterFromFile(robotPath)));
  const configs = libs.map((lib, k) => lib.parseControllerConfig(json, characters[k].clipNames));
  const gc = () => (globalThis as { gc?: () => void }).gc?.();
  const rows: PairedRow[] = [];
  for (const palette of ['Infinity', 'default'] as const) {
    // fullCrowd sets paletteSize Infinity unless the options say otherwise (since 2dc3188; before it, the default was every set that fits).
    const options: Partial<CrowdOptions> = palette === 'Infinity' ? { paletteSize: Infinity } : { paletteSize: undefined };
    for (const [scene, warmup] of [['controllers, gpu driver', 62 * 60], ['steady crowd', 120]] as const) {
      for (const count of counts) {
        log(`against: ${scene}, ${count} instances, paletteSize ${palette}…`);
        gc();
        const make = (k: number) => (scene === 'steady crowd' ? steadyScene(libs[k], device, characters[k], count, options)
          : controllerScene(libs[k], device, characters[k], configs[k], count, options));
        const scenes: [Scene, Scene] = [make(0), make(1)];
        gc();
        const { times } = runPaired(scenes, warmup, frames);
        for (const s of scenes) s.destroy();
        const [a, b] = times.map((t) => ({ median: median(t), p95: p95(t) }));
        rows.push({ scene, palette, instances: count, ours: a, ref: b, ratio: a.median / b.median });
      }
    }
  }
  return rows;
}
