/**
 * Simulation: runs one controller headless through a script of timed inputs and prints one
 * JSON line per frame: {"t", "state", "base", "layers", "additive"}, where base/layers/additive
 * are exactly what `npm run pose -- --layers` takes. See README, "Animation control".
 *
 *   npm run --silent simulate -- --model public/models/Fox/Fox.glb --script walk.json [--fps 60] [--config FILE]
 *   npx crowd-skin simulate Fox.glb --script walk.json
 *
 * The controller config is --config, else <model>.controller.json next to the model, else one
 * derived from the clip names.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { defaultControllerConfig, parseControllerConfig } from '../src/anim/control/config';
import { ControllerRuntime } from '../src/anim/control/controller';
import { parseScript, simulate as runScript } from '../src/anim/control/simulate';
import { buildRig } from '../src/bake/build-rig';
import { numberOption, parseArgs } from './args';
import { readGltfFile } from './node-io';

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
  const options = parseArgs(argv, ['model', 'script', 'fps', 'config'], []);
  const model = options.get('model');
  const scriptPath = options.get('script');
  if (!model) throw new Error('--model PATH is required');
  if (!scriptPath) throw new Error('--script FILE.json is required');
  const fps = numberOption(options, 'fps', 60)!;
  if (!(fps > 0)) throw new Error(`--fps must be > 0, got ${fps}`);
  const rig = buildRig(await readGltfFile(model));
  const clipNames = rig.clips.map((c) => c.name);
  const configPath = options.get('config') ?? model.replace(/\.(glb|gltf)$/i, '.controller.json');
  const config = existsSync(configPath)
    ? parseControllerConfig(await readJson(configPath, 'config'), clipNames, configPath)
    : defaultControllerConfig(clipNames);
  const runtime = new ControllerRuntime(config, rig.clips.map((c) => c.duration));
  const script = parseScript(await readJson(scriptPath, 'script'), runtime);
  const lines = runScript(runtime, script, fps).map((frame) => JSON.stringify(frame)).join('\n');
  await new Promise<void>((done) => process.stdout.write(lines + '\n', () => done()));
}
