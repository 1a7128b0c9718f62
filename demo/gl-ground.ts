import { GLGridPass, type GLGroundShadow } from './gl-grid-pass';
import { GLMarkerPass } from './gl-marker-pass';
import { MARKER_COLOR } from './marker-pass';
import type { OrbitCamera } from './orbit-camera';
import { SELECTION_COLOR } from './selection';
import { RING_COLOR } from './theme';

/**
 * The ground of the WebGL 2 demo, drawn after the crowd: the grid (GLGridPass, darkened in the
 * crowds' shadow maps given by setShadow) and the rings on it
 * (GLMarkerPass), in the WebGPU demo's colours: the followed character's (cyan), the selected
 * one's (yellow-green) and a scene's (the steering scene's pillars, grey). Its programs go with a
 * lost context: restore() makes them again on the restored one.
 */
export class GLGround {
  /** Minor grid cell along x and z, world units (kept across restore). */
  readonly cellSize = new Float32Array([1, 1]);
  private grid: GLGridPass;
  private markers: GLMarkerPass;

  constructor(gl: WebGL2RenderingContext) {
    this.grid = new GLGridPass(gl);
    this.markers = new GLMarkerPass(gl);
  }

  /** Makes the programs again on `gl` after its context was restored. */
  restore(gl: WebGL2RenderingContext): void {
    this.grid = new GLGridPass(gl);
    this.markers = new GLMarkerPass(gl);
  }

  /** The shadow map of crowd `slot` (0 to GL_GROUND_SHADOWS - 1: GLCrowd.shadowMap after its encode) the grid receives this frame, or none. */
  setShadow(slot: number, shadow: GLGroundShadow | undefined): void {
    this.grid.setShadow(slot, shadow);
  }

  /**
   * Draws the grid (when `grid`), then the rings: `followed` and `selected` (x, z, radius each, or
   * undefined for none) and `ringCount` rings of `rings` (x, z, radius each), lifted a share of the
   * character `height` above the ground so that they do not fight it. Allocation-free.
   */
  draw(camera: OrbitCamera, grid: boolean, height: number, followed: Float32Array | undefined, selected: Float32Array | undefined, rings: Float32Array, ringCount: number): void {
    const vp = camera.viewProjection, markers = this.markers;
    if (grid) {
      this.grid.cellSize.set(this.cellSize);
      this.grid.update(vp, camera.eye, camera.target, camera.fogStart, camera.fogEnd);
      this.grid.draw();
    }
    if (followed) markers.draw(vp, followed[0], followed[1], followed[2], height * 0.004, MARKER_COLOR);
    if (selected) markers.draw(vp, selected[0], selected[1], selected[2], height * 0.006, SELECTION_COLOR);
    for (let i = 0; i < ringCount; i++) markers.draw(vp, rings[3 * i], rings[3 * i + 1], rings[3 * i + 2], height * 0.01, RING_COLOR);
  }
}
