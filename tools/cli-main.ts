/**
 * `crowd-skin <command> [MODEL] [options]`: the command-line tool's dispatcher, `main`; the
 * executable is tools/cli.ts (package.json `bin`, built into dist/cli.js; `npm run pose` and
 * `npm run simulate` run it from source). The tests call `main` in this process
 * (test/helpers/cli.ts runCliHere) where a child process would cost a Node start each.
 *
 *   crowd-skin inspect Fox.glb [--json]              what the model holds (tools/inspect.ts)
 *   crowd-skin pose Fox.glb --clip Walk --time 0.3   joint matrices as JSON (tools/pose.ts)
 *   crowd-skin simulate Robot.glb --script s.json    a controller run headless (tools/simulate.ts)
 *
 * A first argument that is not an option is the model, the same as `--model PATH`. Errors go
 * to stderr as `<command>: <message>` with exit code 1.
 */
import { version } from '../package.json';
import { inspect } from './inspect';
import { pose } from './pose';
import { simulate } from './simulate';

const COMMANDS: Record<string, (argv: string[]) => Promise<void>> = { inspect, pose, simulate };

const USAGE = `crowd-skin ${version}: tools for glTF characters animated by crowd-skin

usage: crowd-skin <command> MODEL [options]     (MODEL may also be given as --model PATH)

  inspect MODEL [--clips FILE ...] [--json]
      clips (and the file each came from) and durations, skins, joints, primitives, influences per vertex, baked table
      bytes, rest-pose bounds, memory per instance, loader warnings
  pose MODEL [--clips FILE ...] [--skin N] --clip A --time T [--clip-b B --time-b U --blend W]
       [--backend exact|lut|gpu] [--positions [--stride K]]
  pose MODEL --layers JSON|@FILE [--backend ...] [--positions ...]
      one JSON object: joint names and matrices (column-major) of one skin at one pose;
      --backend gpu needs the optional package \`webgpu\`
  simulate MODEL [--clips FILE ...] --script FILE.json [--fps 60] [--config FILE] [--backend cpu|gpu] [--root-motion in-place|apply]
      runs one animation controller through a script, one JSON line per frame;
      --backend gpu runs it through the GPU-driven path (needs \`webgpu\` too)

--clips FILE (repeatable) adds the clips of other glTF files, bound by joint name, after the
model's own; --clip, the config and the script name clips in that combined list.
Options also take the form --name=value (negative numbers: --time=-0.43).
`;

/** `--model PATH` in place of a leading positional model path. */
function withModelOption(args: string[]): string[] {
  return args.length > 0 && !args[0].startsWith('-') ? ['--model', args[0], ...args.slice(1)] : args;
}

/**
 * Runs one command line (`argv` without the node and script paths): prints to process.stdout and
 * process.stderr and resolves to the exit code, 0 or 1. It never exits the process itself.
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`crowd-skin: unknown command '${command}' (commands: ${Object.keys(COMMANDS).join(', ')}; --help for usage)\n`);
    return 1;
  }
  try {
    await run(withModelOption(args));
    return 0;
  } catch (error) {
    process.stderr.write(`${command}: ${(error as Error).message}\n`);
    return 1;
  }
}
