/**
 * The end of a CI run (.ci/run): the slowest test files with their wall times from vitest's JSON
 * report, then one closing line any runner reader understands ("Tests: N passed, N failed,
 * N skipped"), and a failure under CI=true when tests were skipped (CI must run the GPU and
 * browser tests). Exit code 1 on a skip under CI or an unreadable report.
 *
 *   node tools/ci/report.mjs [test-results/vitest.json]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const path = process.argv[2] ?? 'test-results/vitest.json';
const report = JSON.parse(readFileSync(path, 'utf8'));
/** Files listed by wall time; two run at a time, so their sum exceeds the run's length. */
const SLOWEST = 15;

const files = report.testResults
  .map((f) => ({ name: relative(process.cwd(), f.name), seconds: (f.endTime - f.startTime) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds);
const first = Math.min(...report.testResults.map((f) => f.startTime));
const last = Math.max(...report.testResults.map((f) => f.endTime));
console.log(`\nTest files: ${files.length}; vitest from first start to last end ${((last - first) / 1000).toFixed(0)} s; slowest ${SLOWEST}:`);
for (const f of files.slice(0, SLOWEST)) console.log(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.name}`);

const skipped = report.numPendingTests + report.numTodoTests;
console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (process.env.CI === 'true' && skipped > 0) {
  console.error('CI=true: tests were skipped; the GPU and browser tests must run here');
  process.exit(1);
}
