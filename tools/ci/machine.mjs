/**
 * Prints what a CI run's time depends on besides the tests: the processor, its cores, the load
 * average, and the time of a fixed single-threaded workload (a float loop and SHA-256 over
 * 64 MiB), so a slow run can be told from a slow or busy machine (docs/testing.md, "How long it
 * takes"). Plain Node, no dependencies: .ci/run calls it before and after the tests.
 *
 *   node tools/ci/machine.mjs [label]
 */
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';

const label = process.argv[2] ?? 'machine';

/** Milliseconds of one fixed workload on one core; the best of three, so a burst of other work counts less. */
function workloadMs() {
  const data = Buffer.alloc(64 * 1024 * 1024, 7);
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    let x = 0.5;
    for (let i = 0; i < 20_000_000; i++) x = x * 1.0000001 + Math.sqrt(i & 1023) * 1e-9;
    sink += x + createHash('sha256').update(data).digest()[0];
    best = Math.min(best, performance.now() - start);
  }
  if (!Number.isFinite(sink)) throw new Error('unreachable');
  return best;
}

const info = cpus();
const [one, five] = loadavg();
console.log(`${label}: ${info.length} cores, ${info[0]?.model ?? 'unknown processor'}; load average ${one.toFixed(1)} (1 min), ${five.toFixed(1)} (5 min); reference workload ${workloadMs().toFixed(0)} ms on one core`);
