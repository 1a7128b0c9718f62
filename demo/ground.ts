import { GridPass } from './grid-pass';
import { MarkerPass } from './marker-pass';
import type { OrbitCamera } from './orbit-camera';
import type { Renderer } from './renderer';
import { SELECTION_COLOR } from './selection';
import { RING_COLOR } from './theme';

/**
 * The ground of the WebGPU demo, drawn by the Renderer after the crowds: the grid (GridPass,
 * receiving the first crowds' shadows) and the rings on it (MarkerPass): the followed
 * character's (cyan), the selected one's (yellow-green) and a scene's (the steering scene's
 * pillars, grey), as GLGround is the WebGL 2 demo's. update() writes the frame's uniforms and
 * fills `markers`; the passes live on one device: after a lost one, destroy() and restore()
 * make them again on the new device.
 */
export class Ground {
  /** Minor grid cell along x and z, world units (kept across restore). */
  readonly cellSize = new Float32Array([1, 1]);
  /** The rings to draw this frame, filled by update() (reused: no allocation per frame). */
  readonly markers: MarkerPass[] = [];
  private grid: GridPass;
  private marker: MarkerPass;
  /** The ring under the character a click selected. */
  private selectionMarker: MarkerPass;
  /** A ring per scene ring (SceneActivity.rings), made on first use. */
  private readonly ringMarkers: MarkerPass[] = [];

  constructor(private device: GPUDevice, private renderer: Renderer) {
    this.grid = new GridPass(device, renderer);
    this.marker = new MarkerPass(device, renderer);
    this.selectionMarker = new MarkerPass(device, renderer, SELECTION_COLOR);
  }

  /** Makes the passes again on `device` for `renderer` (after destroy(), the old device lost). */
  restore(device: GPUDevice, renderer: Renderer): void {
    this.device = device;
    this.renderer = renderer;
    this.grid = new GridPass(device, renderer);
    this.marker = new MarkerPass(device, renderer);
    this.selectionMarker = new MarkerPass(device, renderer, SELECTION_COLOR);
  }

  /**
   * Writes this frame's uniforms: the grid's (when `grid`), then the rings': `followed` and
   * `selected` (x, z, radius each, or undefined for none) and `ringCount` rings of `rings`
   * (x, z, radius each), lifted a share of the character `height` above the ground so that they
   * do not fight it; `markers` holds the rings to draw. Returns the grid pass to draw, or
   * undefined when `grid` is false. Allocation-free once the scene's rings are made.
   */
  update(camera: OrbitCamera, grid: boolean, height: number, followed: Float32Array | undefined, selected: Float32Array | undefined,
    rings: Float32Array, ringCount: number): GridPass | undefined {
    const vp = camera.viewProjection, markers = this.markers;
    if (grid) {
      this.grid.cellSize.set(this.cellSize);
      this.grid.update(vp, camera.eye, camera.target, camera.fogStart, camera.fogEnd);
    }
    markers.length = 0;
    if (followed) {
      this.marker.update(vp, followed[0], followed[1], followed[2], height * 0.004);
      markers.push(this.marker);
    }
    if (selected) {
      this.selectionMarker.update(vp, selected[0], selected[1], selected[2], height * 0.006);
      markers.push(this.selectionMarker);
    }
    for (let i = 0; i < ringCount; i++) {
      const ring = (this.ringMarkers[i] ??= new MarkerPass(this.device, this.renderer, RING_COLOR));
      ring.update(vp, rings[3 * i], rings[3 * i + 1], rings[3 * i + 2], height * 0.01);
      markers.push(ring);
    }
    return grid ? this.grid : undefined;
  }

  /** Destroys the passes' GPU objects (the device was lost; restore() makes them again). */
  destroy(): void {
    for (const pass of [this.grid, this.marker, this.selectionMarker, ...this.ringMarkers]) pass.destroy();
    this.ringMarkers.length = 0;
    this.markers.length = 0;
  }
}
