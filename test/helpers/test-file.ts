import { appendFileSync, mkdirSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

/**
 * Run before every test file (vite.config.ts `setupFiles`; files share their worker process,
 * `isolate: false`): writes a line when the file starts and one when it ends into
 * test-results/workers/<pid>.log, so that a worker that dies inside a file (vitest: "Worker
 * exited unexpectedly", with no file named) is traced to it: .ci/run prints it
 * (tools/ci/crashes.mjs).
 *
 * Tried and not kept: destroying here the devices a file left alive (13 files open one at their
 * top level and keep it for the rest of their worker's files). Dawn's destroy waits for the
 * device's queued work, which otherwise drains beside the next file: crowd-picking and
 * palette-pass alone took 20 s against 16.5 s, and a whole CI run with it 886 s (a run beside
 * other work, so not all of it its own).
 */
const file = expect.getState().testPath ?? 'unknown file';
const LOG_FOLDER = 'test-results/workers';
mkdirSync(LOG_FOLDER, { recursive: true });
const log = (what: string) => appendFileSync(`${LOG_FOLDER}/${process.pid}.log`, `${what} ${file}\n`);
log('start');
// Hooks registered here run after the file's own afterAll hooks (vitest runs after-hooks last registered first).
afterAll(() => log('end'));
