import { appendFileSync, mkdirSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { destroyFileDevices } from './gpu';

/**
 * Run before every test file (vite.config.ts `setupFiles`; files share their worker process,
 * `isolate: false`).
 *
 * - Destroys, once the file's own `afterAll` hooks have run, every device the file opened with
 *   openTestDevice that it left alive (a device opened at a file's top level lived on, with its
 *   SwiftShader memory and threads, for the rest of the worker's files).
 * - Writes a line when the file starts and one when it ends into test-results/workers/<pid>.log,
 *   so that a worker that dies inside a file (vitest: "Worker exited unexpectedly", with no file
 *   named) is traced to it: .ci/run prints it (tools/ci/crashes.mjs).
 */
const file = expect.getState().testPath ?? 'unknown file';
const LOG_FOLDER = 'test-results/workers';
mkdirSync(LOG_FOLDER, { recursive: true });
const log = (what: string) => appendFileSync(`${LOG_FOLDER}/${process.pid}.log`, `${what} ${file}\n`);
log('start');
// Hooks registered here run after the file's own afterAll hooks (vitest runs after-hooks last registered first).
afterAll(() => {
  destroyFileDevices();
  log('end');
});
