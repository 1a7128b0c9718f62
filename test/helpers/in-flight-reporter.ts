import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter (vite.config.ts `reporters`): at the run's end, the test files that started
 * and never ended, the ones a test worker died inside (vitest's "Worker exited unexpectedly"
 * names none). It runs in vitest's main process, so it costs the test files nothing (a setup file
 * writing each file's start and end from the workers cost about 0.14 s of CPU a file). A worker
 * that dies after its last file ended (CI's failure of 2026-12-05: all 175 files passed) leaves
 * none in flight: the kernel's lines and the core's backtrace say what it was then
 * (tools/ci/crashes.mjs).
 */
export default class InFlightReporter implements Reporter {
  private readonly inFlight = new Set<string>();

  onTestModuleStart(module: TestModule): void {
    this.inFlight.add(module.moduleId);
  }

  onTestModuleEnd(module: TestModule): void {
    this.inFlight.delete(module.moduleId);
  }

  onTestRunEnd(): void {
    if (this.inFlight.size === 0) return;
    const files = [...this.inFlight].map((file) => relative(process.cwd(), file));
    console.error(`\nTest files started and never ended (a test worker died inside them): ${files.join(', ')}`);
  }
}
