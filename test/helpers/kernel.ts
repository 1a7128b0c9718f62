import type { Crowd } from '../../src/runtime/crowd';
import type { CrowdKernel } from '../../src/runtime/feature';

const kernels = new WeakMap<Crowd, CrowdKernel>();

/**
 * The kernel side of `crowd` (its instance store, clock, ...), for tests that look inside: got the
 * way any feature gets it, by installing one (a probe with no hooks), once per crowd.
 */
export function kernelOf(crowd: Crowd): CrowdKernel {
  let kernel = kernels.get(crowd);
  if (!kernel) {
    kernel = crowd.install({ featureName: 'test-probe' });
    kernels.set(crowd, kernel);
  }
  return kernel;
}
