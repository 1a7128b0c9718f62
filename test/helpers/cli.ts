import { inject } from 'vitest';
import { execFile } from 'node:child_process';
import { REPO_ROOT } from './models';

/** What a CLI run left: its exit code, stdout and stderr. */
export interface Run { code: number; stdout: string; stderr: string }

/** Runs `node ARGS` in the repository root and collects what it printed. */
export function runNode(args: string[], cwd = REPO_ROOT): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }));
  });
}

/**
 * `crowd-skin ARGS`: tools/cli.ts as bundled once per test run by test/helpers/cli-bundle.ts
 * (the same sources `npm run pose` / `npm run simulate` run through tsx, which compiles them on
 * every start: 2.3 s against 0.8 s for `inspect`).
 */
export function runCli(...args: string[]): Promise<Run> {
  return runNode([inject('cliBundle'), ...args]);
}

/** The tail of the runs of runCliHere: one command at a time, each after the last has resolved. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * `crowd-skin ARGS` in this process: tools/cli-main.ts `main`, the dispatcher the executable
 * runs, with what it writes to process.stdout and process.stderr taken for the result (not
 * printed) while it runs, and its exit code. Runs queue up, so that one run's output never lands
 * in another's. A child process costs a Node start and a module load each (about 0.5 s of CPU for
 * `pose`, 1.4 s with `--backend gpu`): the CLI tests run their cases here and keep one run of the
 * bundled command each (runCli), which proves the executable itself. What a child process would
 * also get but this does not: output written by native code (Dawn's) straight to the file
 * descriptors.
 */
export function runCliHere(...args: string[]): Promise<Run> {
  const run = queue.then(() => captured(args));
  queue = run.catch(() => undefined);
  return run;
}

async function captured(args: string[]): Promise<Run> {
  const out = { stdout: '', stderr: '' };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const take = (stream: 'stdout' | 'stderr') => ((chunk: string | Uint8Array, encoding?: unknown, done?: unknown): boolean => {
    out[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const callback = typeof encoding === 'function' ? encoding : done;
    if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = take('stdout');
  process.stderr.write = take('stderr');
  try {
    // Imported here: the files that only start the executable (runCli) need none of the tools' modules.
    const { main } = await import('../../tools/cli-main');
    const code = await main(args);
    return { code, ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
}
