import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { baseUrlOf, compressedFuzzSeeds, fuzzCases, fuzzSeeds, MUTATION_NAMES, type FuzzCase } from '../helpers/fuzz-gltf';
import { ModelError } from '../../src/bake/errors';
import { AllocationLimit } from '../helpers/allocations';
import { classifyError, runCase, type Outcome } from '../helpers/fuzz-runner';

/**
 * Fuzzing the loader: seeded mutations of every bundled model, every model in test/models,
 * hand-built rigs and meshopt, Draco and KTX2 copies (their compressed data truncated, corrupted
 * or zeroed among the rest; test/helpers/fuzz-gltf.ts lists the mutations) go through the real
 * loader, parse -> validate -> bake -> CPU pose (test/helpers/fuzz-runner.ts). Every case must
 * end in a ModelError that names the place in the file, or a valid load whose tables and posed
 * joint matrices are all finite. Anything else fails the test: another error class, a message
 * with "undefined" in it, a non-finite value, a typed array over ALLOCATION_LIMIT asked for, or a
 * case over its time budget (the worker running it is terminated: a hang cannot stall the test).
 *
 *   npx vitest run test/bake/fuzz.test.ts                      # 500 cases (part of npm test)
 *   FUZZ_CASES=5000 npx vitest run test/bake/fuzz.test.ts      # more
 *   FUZZ_SEED=7 FUZZ_BUDGET_MS=20000 ...                       # another sequence, another budget
 *
 * A failure prints the case's index, seed file and mutation; FUZZ_SEED and FUZZ_CASES replay it.
 */
const CASES = Number(process.env.FUZZ_CASES ?? 500);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
/** Per case, ms. The slowest cases (RecursiveSkeletons, 840 channels, with a clip knocked off its key grid) take 1-2 s alone and up to 12 s on a loaded machine. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 30_000);
/**
 * The largest typed array a case may ask for: 512 MiB. The loader's own bounds are far below
 * (64 MiB of implied accessor values, 64 MiB of tables); a count that reached an allocation
 * unchecked would ask for gigabytes.
 */
const ALLOCATION_LIMIT = 512 * 2 ** 20;

interface Result extends Outcome { testCase: FuzzCase }

const WORKER = new URL('../helpers/fuzz-worker.mjs', import.meta.url);

/** Runs cases one at a time in a worker thread, replacing the worker when a case runs past the budget or crashes it. */
class FuzzPool {
  private worker?: Worker;
  private ready?: Promise<void>;
  private pending?: { resolve: (o: Outcome) => void };

  constructor(private readonly workerUrl = WORKER, private readonly budgetMs = BUDGET_MS) {}

  private start(): void {
    const worker = new Worker(this.workerUrl, { workerData: { allocationLimit: ALLOCATION_LIMIT } });
    this.worker = worker;
    this.ready = new Promise((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    worker.on('message', (m: { id?: number; outcome?: Outcome }) => { if (m.outcome) this.pending?.resolve(m.outcome); });
    worker.on('error', (e) => this.pending?.resolve({ kind: 'other', message: `worker crashed: ${e.message}`, ms: 0 }));
    worker.on('exit', (code) => { if (this.worker === worker) { this.worker = undefined; this.pending?.resolve({ kind: 'other', message: `worker exited with code ${code}`, ms: 0 }); } });
  }

  async run(c: FuzzCase): Promise<Outcome> {
    if (!this.worker) this.start();
    await this.ready;
    const worker = this.worker!;
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await new Promise<Outcome>((resolve) => {
      this.pending = { resolve };
      timer = setTimeout(() => resolve({ kind: 'other', message: `no answer within the ${this.budgetMs} ms budget (a hang): worker terminated`, ms: this.budgetMs }), this.budgetMs);
      const bytes = c.bytes.slice();
      worker.postMessage({ id: c.index, bytes, path: c.path, baseUrl: baseUrlOf(c) }, [bytes.buffer]);
    });
    clearTimeout(timer);
    this.pending = undefined;
    if (outcome.ms >= this.budgetMs || !this.worker) {
      this.worker = undefined;
      await worker.terminate();
    }
    return outcome.ms > this.budgetMs ? { ...outcome, kind: 'other', message: `took ${Math.round(performance.now() - started)} ms, over the budget: ${outcome.message}` } : outcome;
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
  }
}

describe('fuzz harness validity: what counts as a failure', () => {
  it('classifies other error classes, stand-ins for values and messages that name no place as failures', () => {
    expect(classifyError(new TypeError("Cannot read properties of undefined (reading 'count')"))).toMatchObject({ kind: 'other' });
    expect(classifyError(new RangeError('Invalid typed array length: 146668'))).toMatchObject({ kind: 'other' });
    expect(classifyError(new ModelError('buffer 0: has 0 bytes, the file declares undefined'))).toMatchObject({ kind: 'other' });
    expect(classifyError(new ModelError('no clip null'))).toMatchObject({ kind: 'other' });
    expect(classifyError(new ModelError('something went wrong'))).toMatchObject({ kind: 'other' });
    expect(classifyError(new AllocationLimit(2 ** 33, 'Float32Array'))).toMatchObject({ kind: 'other' });
    expect(classifyError(new ModelError('accessor 3: count must be a non-negative integer, but it is JSON null'))).toMatchObject({ kind: 'named' });
  });

  it('fails a case that allocates more than the limit, before the memory is taken', async () => {
    const fox = fuzzSeeds().find((s) => s.name.endsWith('Fox.glb'))!;
    const outcome = await runCase(fox.bytes, fox.path, baseUrlOf({ path: fox.path } as FuzzCase), 1024);
    expect(outcome).toMatchObject({ kind: 'other', message: expect.stringMatching(/^unchecked allocation: new \w+ of \d+ bytes$/) });
  });

  it('fails a case that hangs: its worker is terminated at the budget and the next case gets a new one', async () => {
    const hangOnCase0 = `import { parentPort } from 'node:worker_threads';
      parentPort.on('message', ({ id }) => { if (id === 0) for (;;); parentPort.postMessage({ id, outcome: { kind: 'valid', message: 'ok', ms: 1 } }); });
      parentPort.postMessage({ ready: true });`;
    const pool = new FuzzPool(new URL(`data:text/javascript,${encodeURIComponent(hangOnCase0)}`), 300);
    const c = { index: 0, seed: 's', mutation: 'm', path: '/x/y.glb', bytes: new Uint8Array(4) };
    try {
      expect(await pool.run(c)).toMatchObject({ kind: 'other', message: 'no answer within the 300 ms budget (a hang): worker terminated' });
      expect(await pool.run({ ...c, index: 1 })).toMatchObject({ kind: 'valid' }); // on a fresh worker
    } finally {
      await pool.close();
    }
  });
});

describe('loader fuzz', () => {
  it(`${CASES} mutated files (seed ${SEED}) each end in a named ModelError or a finite valid load`, async () => {
    const seeds = [...fuzzSeeds(), ...(await compressedFuzzSeeds())];
    expect(seeds.length).toBeGreaterThanOrEqual(8 + 7 + 3); // the 8 distinct shared/public models, the hand-built rigs, meshopt, Draco and KTX2 copies
    const pool = new FuzzPool();
    const results: Result[] = [];
    try {
      for (const testCase of fuzzCases(seeds, CASES, SEED)) results.push({ ...(await pool.run(testCase)), testCase });
    } finally {
      await pool.close();
    }

    const count = (kind: string, of = results) => of.filter((r) => r.kind === kind).length;
    const byMutation = MUTATION_NAMES.map((name) => {
      const of = results.filter((r) => r.testCase.mutation.startsWith(`${name}:`) || r.testCase.mutation.startsWith(`${name} `));
      return { mutation: name, cases: of.length, named: count('named', of), valid: count('valid', of), other: count('other', of) };
    });
    const slowest = results.reduce((a, b) => (b.ms > a.ms ? b : a));
    console.log(`loader fuzz, seed ${SEED}: ${results.length} cases, ${count('named')} named errors, ${count('valid')} valid loads, ` +
      `${count('other')} other; slowest ${Math.round(slowest.ms)} ms (${slowest.testCase.seed}, ${slowest.testCase.mutation})`);
    console.table(byMutation);
    const failures = results.filter((r) => r.kind === 'other');
    for (const f of failures.slice(0, 20)) {
      console.error(`case ${f.testCase.index} (${f.testCase.seed}; ${f.testCase.mutation}): ${f.message}`);
    }
    expect(results).toHaveLength(CASES);
    expect(failures.map((f) => `case ${f.testCase.index} (${f.testCase.seed}; ${f.testCase.mutation}): ${f.message}`)).toEqual([]);
    // Both outcomes occur, and every mutation kind was drawn (so none silently stopped applying).
    expect(count('named')).toBeGreaterThan(CASES / 4);
    expect(count('valid')).toBeGreaterThan(CASES / 20);
    if (CASES >= 200) expect(byMutation.filter((m) => m.cases === 0).map((m) => m.mutation)).toEqual([]);
  }, 600_000);
});
