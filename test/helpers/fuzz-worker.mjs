// Worker thread for test/bake/fuzz.test.ts: loads TypeScript through tsx, then runs each case it
// is sent through the real loader (fuzz-runner.ts) and posts the outcome back. The test watches
// the clock: a case past its time budget gets this worker terminated (a hang is a failure).
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { runCase } = await tsImport('./fuzz-runner.ts', import.meta.url);
parentPort.on('message', async ({ id, bytes, path, baseUrl }) => {
  const outcome = await runCase(bytes, path, baseUrl, workerData.allocationLimit);
  parentPort.postMessage({ id, outcome });
});
parentPort.postMessage({ ready: true });
