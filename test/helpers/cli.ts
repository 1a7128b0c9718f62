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
