/**
 * ThreeCrowdRenderer's crowds on three's WebGL 2 backend (index.ts): made as GLCrowds on three's
 * context with their three side (ThreeGLShading, three-gl-shading.ts), and adopted by a
 * ThreeCrowdRenderer on a new WebGPURenderer after the context was lost and restored. Each
 * GLCrowd's three side is kept here (a WeakMap: it goes with the crowd), so that it travels with
 * the crowd from one renderer to the next, as ThreeShading does with a WebGPU Crowd.
 */
import type { Renderer } from 'three/webgpu';
import type { Character } from '../character/character';
import { GLCrowd, type GLCrowdOptions } from '../webgl2/gl-crowd';
import { ThreeGLShading } from './three-gl-shading';
import type { ThreeShadingOptions } from './three-shading';

const PREFIX = 'crowd-skin/three';

/** The three side of each GLCrowd a ThreeCrowdRenderer made, until the crowd is destroyed. */
const glShadings = new WeakMap<GLCrowd, ThreeGLShading>();

/**
 * createCrowd on three's WebGL 2 backend: a GLCrowd on `gl`, without a draw of its own (three
 * draws it: ThreeGLShading). Refuses shading 'crowd' and options.shadows by name, leaving nothing made.
 */
export function createGLCrowd(renderer: Renderer, gl: WebGL2RenderingContext, character: Character, shading: 'crowd' | 'three' | undefined,
  options: GLCrowdOptions, three: ThreeShadingOptions): { crowd: GLCrowd; shading: ThreeGLShading } {
  if (shading === 'crowd') {
    throw new RangeError(`${PREFIX}: shading 'crowd' draws with crowd-skin's own WebGPU pass into three's target, and this renderer runs three's WebGL 2 backend ` +
      "(no WebGPU here, or forceWebGL): make the crowd with { shading: 'three' } (the default on WebGL 2), which three draws, lit and shadowed by the scene (docs/three.md)");
  }
  if (options.shadows !== undefined) {
    throw new RangeError(`${PREFIX}: options.shadows is the shadow map of crowd-skin's own pass; three draws this crowd (WebGL 2: shading 'three') ` +
      "and its shadows with the scene's shadow-casting lights (castShadow / receiveShadow): leave shadows out");
  }
  let crowd: GLCrowd | undefined;
  try {
    crowd = new GLCrowd(gl, character, options, false); // three draws it: no GL skin pass of its own
    const made = new ThreeGLShading(crowd, gl, three);
    glShadings.set(crowd, made);
    return { crowd, shading: made };
  } catch (error) {
    crowd?.destroy();
    throw error;
  } finally {
    // The crowd's textures, programs and buffers were made on three's context: three's cache of its GL state is stale.
    renderer.resetState();
  }
}

/**
 * adoptCrowd on three's WebGL 2 backend: `crowd` (made by a ThreeCrowdRenderer, released from it
 * with removeCrowd(crowd, false)) rebuilt on `gl`, its context restored (GLCrowd.restore: every
 * instance as it was), and its three side's list texture made anew; returns that three side.
 * Refused by name: a GLCrowd no ThreeCrowdRenderer made, one on another context, a context still lost.
 */
export function adoptGLCrowd(renderer: Renderer, gl: WebGL2RenderingContext, crowd: GLCrowd): ThreeGLShading {
  const shading = glShadings.get(crowd);
  if (!shading) throw new RangeError(`${PREFIX}: adoptCrowd: this GLCrowd was not made by a ThreeCrowdRenderer's createCrowd (or was destroyed)`);
  if (crowd.gl !== gl) {
    throw new RangeError(`${PREFIX}: adoptCrowd: the crowd lives on another WebGL 2 context; after a lost context, make the new WebGPURenderer on the same canvas ` +
      '({ canvas: old.domElement }: its context, restored) and adopt the crowd there');
  }
  if (gl.isContextLost()) throw new Error(`${PREFIX}: adoptCrowd: the WebGL 2 context is still lost; adopt the crowd after the canvas's webglcontextrestored`);
  try {
    crowd.restore();
    shading.restore();
  } finally {
    renderer.resetState();
  }
  return shading;
}

/** Frees the three side of `crowd` (removeCrowd with destroy, dispose). */
export function releaseGLCrowd(crowd: GLCrowd): void {
  glShadings.get(crowd)?.destroy();
  glShadings.delete(crowd);
}
