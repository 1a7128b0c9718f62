/**
 * FrameCamera hands the crowd three's camera in the crowd's clip space (z in [0, 1], what its
 * culling and LOD assume) on either of three's backends: on the WebGL 2 backend three's matrices
 * have z in [-1, 1] and are converted (without it, the near half of the view's depth would be
 * culled: the made-up violation, toCrowdClip left out, fails both expectations below).
 */
import { describe, expect, it } from 'vitest';
import { PerspectiveCamera, Scene, WebGLCoordinateSystem, WebGPUCoordinateSystem, type Renderer } from 'three/webgpu';
import { FrameCamera, type CameraTaker } from '../../src/three/frame-camera';

/** Clip-space z / w of world point `p` under the column-major `m`. */
function depth(m: ArrayLike<number>, p: readonly number[]): number {
  const z = m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14];
  const w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
  return z / w;
}

describe('FrameCamera', () => {
  for (const [name, system] of [['WebGPU', WebGPUCoordinateSystem], ['WebGL 2', WebGLCoordinateSystem]] as const) {
    it(`gives the crowd z in [0, 1] from near to far on three's ${name} backend`, () => {
      const renderer = { coordinateSystem: system, shadowMap: { enabled: false } } as unknown as Renderer;
      const frame = new FrameCamera(renderer);
      const camera = new PerspectiveCamera(90, 1, 1, 100); // at the origin, looking down -z
      const seen: { vp?: number[]; eye?: number[] } = {};
      const taker: CameraTaker = {
        setCamera: (vp, eye) => { seen.vp = Array.from(vp); seen.eye = Array.from(eye); },
        setCasterCamera: () => {},
      };
      frame.prepare(new Scene(), camera);
      frame.apply(taker, camera, 400, false);
      expect(camera.coordinateSystem).toBe(system);
      expect(depth(seen.vp!, [0, 0, -1])).toBeCloseTo(0, 6);
      expect(depth(seen.vp!, [0, 0, -100])).toBeCloseTo(1, 6);
      expect(seen.eye).toEqual([0, 0, 0]);
      // afterRender (the default shading's draw) is in the same space.
      expect(depth(frame.afterRender(camera).elements, [0, 0, -1])).toBeCloseTo(0, 6);
    });
  }
});
