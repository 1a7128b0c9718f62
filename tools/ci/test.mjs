// `npm test`: the type check (tsc --noEmit), the API reference check (typedoc --emit none) and
// every test (vitest run), started together. The two checks take about 45 s of CPU between them
// (tsc 32 s, typedoc 13 s, measured 2026-12-03)
// and print nothing when they pass; run before the tests they added that much to the wall time,
// while the browser tests leave a 2-core machine's CPU idle about 40% of the time (waits on
// Chromium's GPU process). Each check's output is held and printed after the tests, so the
// test log reads as before; the exit status is the first failure's (1 when any fails).
// Arguments go to vitest (`npm test -- test/math` runs the checks and that folder's tests).
import { spawn } from 'node:child_process';

/** Runs a local bin; resolves to its exit code and, when `quiet`, its held output. */
function run(command, args, quiet) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', shell: process.platform === 'win32' });
    let output = '';
    if (quiet) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.on('error', (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const checks = [
  ['tsc --noEmit', run('npx', ['--no-install', 'tsc', '--noEmit'], true)],
  // --skipErrorChecking: typedoc's program is tsconfig.json's, the one tsc checks beside it, and
  // its own type-check of it was two thirds of its CPU (35.5 s with it, 12.4 s without, here);
  // its validation (undocumented exports, broken links, unexported types) runs as before.
  ['typedoc --emit none', run('npx', ['--no-install', 'typedoc', '--emit', 'none', '--skipErrorChecking'], true)],
];
const tests = await run('npx', ['--no-install', 'vitest', 'run', ...process.argv.slice(2)], false);
let status = tests.code === 0 ? 0 : 1;
for (const [name, pending] of checks) {
  const { code, output } = await pending;
  if (code !== 0) {
    status = 1;
    process.stderr.write(`\n${name} failed (exit ${code}):\n${output}`);
  } else {
    process.stdout.write(`${name}: passed\n`);
  }
}
process.exit(status);
