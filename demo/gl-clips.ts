import type { ClipLibrary, GLCanvasCrowd, GLCrowdOptions, LightOptions } from '../src/index';
import { GLCrowd } from '../src/webgl2/index';
import { Population } from './population';
import { bodiesBakedBytes, type Body, type ClipsChoice, type LoadedBodies } from './scene';
import type { BodiesScene } from './scenes/crowd-scene';

/**
 * The clips scene's bodies on WebGL 2 (gl-app.ts): the first body is the demo's GLCanvasCrowd
 * (it clears the canvas and draws first), each body beside it (WalkerBody #2, the picked body) a
 * GLCrowd on the same WebGL 2 context, encoded and drawn after it into the canvas's framebuffer
 * without clearing (GLCrowd.encode, draw: into the framebuffer bound, which they leave bound), so all share one
 * depth buffer and one camera. The bodies, placement and overlay are the WebGPU clips scene's
 * (loadBodies, CrowdActivity over this BodiesScene). The beside crowds are owned here: destroy()
 * frees them; a restored context rebuilds them (GLCrowd.restore), as the canvas crowd does itself.
 */
export class GLClipsBodies implements BodiesScene {
  readonly bodies: readonly Body<GLCrowd>[];
  readonly population: Population;
  readonly library?: ClipLibrary;
  readonly clipsChoice?: ClipsChoice;
  /** The crowds beside the first, in `bodies` order (owned). */
  private readonly beside: readonly GLCrowd[];
  private readonly canvas: HTMLCanvasElement | OffscreenCanvas;
  private readonly onRestored = () => { for (const crowd of this.beside) crowd.restore(); };

  /** `population`: the first body's (the demo's, on `crowd`); `options`: the canvas crowd's, for each crowd beside it. */
  constructor(label: string, crowd: GLCanvasCrowd, population: Population, loaded: LoadedBodies, options: GLCrowdOptions) {
    const made: GLCrowd[] = [];
    try {
      for (const { character } of loaded.beside) made.push(new GLCrowd(crowd.gl, character, options));
    } catch (error) {
      for (const c of made) c.destroy();
      throw error;
    }
    this.beside = made;
    this.population = population;
    this.library = loaded.library;
    this.clipsChoice = loaded.choice;
    this.bodies = [
      { label, character: crowd.character, crowd, population },
      ...loaded.beside.map((b, i) => ({ ...b, crowd: made[i], population: new Population(made[i], b.character) })),
    ];
    this.canvas = crowd.canvas;
    this.canvas.addEventListener('webglcontextrestored', this.onRestored);
  }

  get bakedBytes(): number {
    return bodiesBakedBytes(this.bodies);
  }

  /** Draw calls of the crowds beside the first (the canvas crowd counts its own). */
  get besideDrawCalls(): number {
    let calls = 0;
    for (const crowd of this.beside) calls += crowd.drawCallCount;
    return calls;
  }

  /** GPU bytes of the crowds beside the first. */
  get besideGpuBytes(): number {
    let bytes = 0;
    for (const crowd of this.beside) bytes += crowd.gpuBytes;
    return bytes;
  }

  /** A panel setting the canvas crowd took, on every crowd beside it. */
  configure(settings: { culling: boolean; lod: boolean; animationLod: boolean; shadows: boolean }, lights: LightOptions): void {
    for (const crowd of this.beside) {
      crowd.culling = settings.culling;
      crowd.lod = settings.lod;
      crowd.animationLod = settings.animationLod;
      crowd.shadows = settings.shadows;
      crowd.setLights(lights);
    }
  }

  /**
   * Advances, culls, poses and draws the crowds beside the first, after the canvas crowd's
   * render(viewProjection) (which cleared the canvas): into the canvas's framebuffer, over its
   * depth. `dt` in seconds; `eye` the camera's position; `viewportHeight` in device pixels.
   */
  drawBeside(dt: number, viewProjection: Float32Array, eye: ArrayLike<number>, viewportHeight: number): void {
    for (const crowd of this.beside) {
      crowd.update(dt);
      crowd.setCamera(viewProjection, eye, { viewportHeight });
      crowd.encode(); // its passes put back the canvas's framebuffer and viewport that render() left
      crowd.draw(viewProjection);
    }
  }

  /** Frees the crowds beside the first (the first is the demo's). */
  destroy(): void {
    this.canvas.removeEventListener('webglcontextrestored', this.onRestored);
    for (const crowd of this.beside) crowd.destroy();
  }
}
