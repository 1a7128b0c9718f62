import type { Character } from '../character/character';
import { checkNumbers } from '../runtime/record-buffer';
import type { ClearColor } from './canvas-crowd';
import { GLCrowd, type GLCrowdOptions } from './gl-crowd';

/**
 * A WebGL 2 crowd that draws into a canvas (made by createCrowd): GLCrowd, plus a frame call,
 * render(viewProjection), that reads as the WebGPU one does, and the context's loss handled:
 * on `webglcontextlost` it asks to be restored (preventDefault) and keeps every instance on the
 * CPU; on `webglcontextrestored` it rebuilds its textures and programs (GLCrowd.restore);
 * `restored` counts those.
 */
export class GLCanvasCrowd extends GLCrowd {
  /** Times the crowd was restored after its context was lost. */
  restored = 0;
  /** The canvas drawn into (not owned). */
  readonly canvas: HTMLCanvasElement | OffscreenCanvas;
  private readonly clearValue: ClearColor;
  private readonly onLost = (event: Event) => event.preventDefault();
  private readonly onRestored = () => {
    this.restore();
    this.restored++;
  };

  constructor(canvas: HTMLCanvasElement | OffscreenCanvas, gl: WebGL2RenderingContext, character: Character, options: GLCrowdOptions, clearColor: ClearColor) {
    super(gl, character, options);
    this.canvas = canvas;
    this.clearValue = clearColor;
    canvas.addEventListener('webglcontextlost', this.onLost);
    canvas.addEventListener('webglcontextrestored', this.onRestored);
  }

  /**
   * Draws a frame into the canvas: binds and clears its framebuffer, culls and poses (encode),
   * draws every instance with `viewProjection` (column-major, world -> clip, z in [0, 1], as on
   * WebGPU). Call update(dt) first. Nothing while the context is lost. Leaves the canvas's
   * framebuffer bound and the viewport on the whole canvas, for the page's own draws after it.
   */
  render(viewProjection: ArrayLike<number>): void {
    checkNumbers(viewProjection, 16, 'viewProjection');
    const gl = this.gl;
    if (gl.isContextLost()) return;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight);
    gl.clearColor(this.clearValue[0], this.clearValue[1], this.clearValue[2], this.clearValue[3]);
    gl.clearDepth(1);
    gl.depthMask(true);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    this.encode(); // puts back the canvas's framebuffer and viewport
    this.draw(viewProjection);
  }

  /** Frees the crowd's GL objects and stops listening to the canvas. */
  override destroy(): void {
    this.canvas.removeEventListener('webglcontextlost', this.onLost);
    this.canvas.removeEventListener('webglcontextrestored', this.onRestored);
    super.destroy();
  }
}
