/**
 * Simulation: runs one controller headless through a script of timed inputs and prints one
 * JSON line per frame: {"t", "state", "base", "layers", "additive", "events"}, where
 * base/layers/additive are exactly what `npm run pose -- --layers` takes and events lists the
 * clip events (the config's "events") fired in the frame's step: [{"name", "clip", "time"}].
 * See docs/controllers.md and docs/clip-events.md.
 *
 *   npm run --silent simulate -- --model public/models/Fox/Fox.glb --script walk.json [--clips FILE ...] [--fps 60] [--config FILE] [--backend cpu|gpu] [--root-motion in-place|apply]
 *   npx crowd-skin simulate Fox.glb --script walk.json [--backend gpu]
 *
 * --backend cpu (the default) steps the CPU controller; gpu runs the same script through the
 * GPU-driven path (CrowdControllers on WebGPU in Node) and prints base / layers as the control
 * pass wrote them, read back frame by frame, so the two can be compared line by line.
 * The controller config is --config, else <model>.controller.json next to the model, else one
 * derived from the clip names. --clips FILE (repeatable) adds the clips of other glTF files
 * (tools/clip-files.ts) after the model's own, so the config and script name them too. --root-motion loads the model with its root motion taken out of
 * the clips (LoadOptions.rootMotion, that mode), so locomotion plays its clips at the rate that
 * matches their root speed to the movement, as a crowd of such a character does.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { defaultControllerConfig, parseControllerConfig } from '../src/anim/control/config';
import { ControllerRuntime } from '../src/anim/control/controller';
import { parseScript, simulate as runScript } from '../src/anim/control/simulate';
import type { ClipLibrary } from '../src/bake/clip-library';
import { listOption, numberOption, parseArgs } from './args';
import { readClipLibrary, rigWithClips } from './clip-files';
import { loadGpuPoser } from './pose';

/** The Character of a model file (tools/simulate-gpu.ts reads it; loaded on demand with it). */
async function loadCharacterFile(path: string, rootMotion: { mode: 'in-place' | 'apply' } | undefined, clips: ClipLibrary | undefined) {
  const { readCharacterFile } = await import('./simulate-gpu');
  // No mesh LOD levels (LoadOptions.lod): the simulation draws nothing.
  return readCharacterFile(path, { ...(rootMotion ? { rootMotion } : {}), ...(clips ? { clips: [clips] } : {}) });
}

async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((e: Error) => { throw new Error(`cannot read ${what} ${path}: ${e.message}`); });
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** `simulate [--model] PATH --script FILE ...`: prints one JSON line per frame to stdout. */
export async function simulate(argv: string[]): Promise<void> {
  const options = parseArgs(argv, ['model', 'clips', 'script', 'fps', 'config', 'backend', 'root-motion'], [], ['clips']);
  const clipPaths = listOption(options, 'clips');
  const model = options.get('model');
  const scriptPath = options.get('script');
  if (!model) throw new Error('--model PATH is required');
  if (!scriptPath) throw new Error('--script FILE.json is required');
  const fps = numberOption(options, 'fps', 60)!;
  if (!(fps > 0)) throw new Error(`--fps must be > 0, got ${fps}`);
  const backend = options.get('backend') ?? 'cpu';
  if (backend !== 'cpu' && backend !== 'gpu') throw new Error(`--backend must be cpu or gpu, got ${JSON.stringify(backend)}`);
  const mode = options.get('root-motion');
  if (mode !== undefined && mode !== 'in-place' && mode !== 'apply') throw new Error(`--root-motion must be in-place or apply, got ${JSON.stringify(mode)}`);
  const rootMotion = mode === undefined ? undefined : { mode } as const;
  // With root motion the model is loaded whole (baked), for its clips' root speeds.
  const library = await readClipLibrary(clipPaths);
  const character = rootMotion || backend === 'gpu' ? await loadCharacterFile(model, rootMotion, library) : undefined;
  const rig = character?.rig ?? (await rigWithClips(model, clipPaths)).rig;
  const clipNames = rig.clips.map((c) => c.name);
  const configPath = options.get('config') ?? model.replace(/\.(glb|gltf|vrm)$/i, '.controller.json');
  const durations = rig.clips.map((c) => c.duration);
  const config = existsSync(configPath)
    ? parseControllerConfig(await readJson(configPath, 'config'), clipNames, configPath, durations)
    : defaultControllerConfig(clipNames);
  const runtime = new ControllerRuntime(config, durations, character?.rootMotion ?? null);
  const script = parseScript(await readJson(scriptPath, 'script'), runtime);
  let frames;
  if (backend === 'gpu') {
    // Loaded on demand: the GPU backend needs the optional package `webgpu`.
    const [{ openNodeDevice }, { simulateOnGpu }] = await Promise.all([loadGpuPoser(), import('./simulate-gpu')]);
    const { device } = await openNodeDevice();
    try {
      frames = await simulateOnGpu(device, character!, config, script, fps);
    } finally {
      device.destroy();
    }
  } else {
    frames = runScript(runtime, script, fps);
  }
  const lines = frames.map((frame) => JSON.stringify(frame)).join('\n');
  await new Promise<void>((done) => process.stdout.write(lines + '\n', () => done()));
}
