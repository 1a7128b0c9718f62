/**
 * What ThreeCrowdRenderer checks of three's renderer and device before a crowd shares them: the
 * depth conventions our own pass relies on (shading 'crowd') and vertex-stage storage buffers.
 * Each refusal names the setting and what to do instead.
 */
import type { Renderer } from 'three/webgpu';

const PREFIX = 'crowd-skin/three';

/**
 * A crowd drawn by our own pass (shading 'crowd', or the impostors and props of a crowd of shading
 * 'three': `features` then says so) tests depth with `less` on z in [0, 1] in three's depth buffer: three must agree.
 */
export function checkDepthConventions(renderer: Renderer, features?: string): void {
  // A crowd three draws whose impostors or props our pass draws cannot turn to shading 'three' for them: say what to turn off instead.
  const instead = (setting: string) => features ? `${features}: create the renderer without ${setting}, or draw this crowd without them (impostors.enabled = false, or no CrowdImpostors; no CrowdProps)`
    : `create the renderer without ${setting}, or make the crowd with { shading: 'three' }, which three draws with its own depth`;
  if (renderer.reversedDepthBuffer) {
    throw new Error(`${PREFIX}: the renderer was made with { reversedDepthBuffer: true } (near = 1, depth test 'greater'); ` +
      "a crowd drawn by its own pass tests depth with 'less' on standard depth, so it cannot share a reversed depth buffer yet (its pipelines would need " +
      `the reversed test and projection): ${instead('reversedDepthBuffer')}`);
  }
  if (renderer.logarithmicDepthBuffer) {
    throw new Error(`${PREFIX}: the renderer was made with { logarithmicDepthBuffer: true }, which writes a logarithmic depth from three's fragment shaders; ` +
      `a crowd drawn by its own pass writes the rasterised clip-space depth, so the two would not compare: ${instead('logarithmicDepthBuffer')}`);
  }
}

/** three asks for a 'compatibility' adapter; a compatibility-mode device may offer no vertex-stage storage buffers. */
export function checkVertexStorage(device: GPUDevice): void {
  const limit = (device.limits as GPUSupportedLimits & { maxStorageBuffersInVertexStage?: number }).maxStorageBuffersInVertexStage;
  if (limit !== undefined && limit < 1) {
    throw new Error(`${PREFIX}: three's GPUDevice offers no storage buffers in the vertex stage (limits.maxStorageBuffersInVertexStage = ${limit}, ` +
      'a WebGPU compatibility-mode device); the crowd\'s vertex shader reads its joint matrices from one. Create a core device yourself ' +
      '(adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) })) and pass it as new WebGPURenderer({ device })');
  }
}
