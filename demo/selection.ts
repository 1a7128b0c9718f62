import type { Crowd, CrowdPicking, GLCrowd, PickCamera, ScreenRect } from '../src/index';
import type { OrbitCamera } from './orbit-camera';
import { OrbitInput } from './orbit-input';
import type { SceneActivity } from './scenes';

/** Ring colour of the selected character (display RGB, opacity): yellow-green, apart from the followed character's cyan ring and the orange models. */
export const SELECTION_COLOR = [0.8, 1.0, 0.15, 0.95] as const;

/**
 * The demo's selection: a click picks the character under the pointer on its posed mesh
 * (CrowdPicking.pickPointer), Shift + drag counts the characters inside the rectangle
 * (CrowdPicking.selectRect). Answers arrive a frame or two later; an answer for a crowd that was
 * replaced meanwhile is dropped. The App draws a ring under the selected character (ring()) and
 * the overlay shows it (describe()).
 */
export class Selection {
  private crowd: Crowd | GLCrowd | undefined;
  private picking: CrowdPicking | undefined;
  private selected: number | undefined;
  private boxCount: number | undefined;
  private readonly box: HTMLElement;
  private readonly camera: PickCamera & { viewProjection: Float32Array } = { viewProjection: new Float32Array(16), width: 1, height: 1 };
  private readonly transform = new Float32Array(16);

  constructor(private readonly canvas: HTMLCanvasElement) {
    const box = document.getElementById('selection-box');
    if (!box) throw new Error('index.html has no #selection-box');
    this.box = box;
  }

  /** The crowd picked from now on (a new scene): the selection is dropped. */
  setCrowd(crowd: Crowd | GLCrowd | undefined, picking: CrowdPicking | undefined): void {
    this.crowd = crowd;
    this.picking = picking;
    this.selected = this.boxCount = undefined;
  }

  /** A click at (x, y), CSS pixels from the canvas's top left, seen through `viewProjection`: selects what is there, or nothing. */
  click(x: number, y: number, viewProjection: Float32Array): void {
    const { crowd, picking } = this;
    if (!crowd || !picking || picking.pending > 0) return;
    picking.pickPointer(x, y, this.cameraOf(viewProjection)).then((hit) => {
      if (this.crowd === crowd) this.selected = hit?.id;
    }, (error: Error) => console.warn(`picking failed: ${error.message}`));
  }

  /** The rectangle being dragged (CSS pixels from the canvas's top left), drawn over the canvas. */
  dragBox(rect: ScreenRect): void {
    const s = this.box.style;
    this.box.hidden = false;
    s.left = `${Math.min(rect.x0, rect.x1)}px`;
    s.top = `${Math.min(rect.y0, rect.y1)}px`;
    s.width = `${Math.abs(rect.x1 - rect.x0)}px`;
    s.height = `${Math.abs(rect.y1 - rect.y0)}px`;
  }

  /** Hides the dragged rectangle (a scene took the box). */
  hideBox(): void {
    this.box.hidden = true;
  }

  /** The drag ended on `rect`: counts the characters inside it. */
  endBox(rect: ScreenRect, viewProjection: Float32Array): void {
    this.box.hidden = true;
    const { crowd, picking } = this;
    if (!crowd || !picking || picking.pending > 0) return;
    picking.selectRect(rect, this.cameraOf(viewProjection)).then((ids) => {
      if (this.crowd === crowd) this.boxCount = ids.length;
    }, (error: Error) => console.warn(`box selection failed: ${error.message}`));
  }

  /** Where the selected character stands: x, z and a ring radius into `out`; false when none is (or it was removed). */
  ring(out: Float32Array): boolean {
    const { crowd, selected } = this;
    if (!crowd || selected === undefined) return false;
    let m: Float32Array;
    try {
      m = crowd.getTransform(selected, this.transform);
    } catch {
      this.selected = undefined; // removed (fewer instances, another scene)
      return false;
    }
    const { min, max } = crowd.character.bounds;
    const scale = Math.hypot(m[0], m[1], m[2]);
    out[0] = m[12];
    out[1] = m[14];
    out[2] = 0.4 * Math.max(max[0] - min[0], max[2] - min[2]) * scale;
    return true;
  }

  /** Overlay lines: the selected character's id, clips and state; the box selection's count. */
  describe(lines: string[], data: DOMStringMap): void {
    const { crowd, selected } = this;
    delete data.picked;
    if (crowd && selected !== undefined) {
      try {
        const a = crowd.getAnimation(selected);
        const names = crowd.character.clipNames;
        data.picked = String(selected);
        lines.push(`selected #${selected}: ${names[a.clipA]} ${a.timeA.toFixed(2)} s` +
          (a.blend > 0 ? ` + ${names[a.clipB]} ${a.timeB.toFixed(2)} s (blend ${a.blend.toFixed(2)})` : '') +
          (a.speedA !== 1 ? `, speed ${a.speedA.toFixed(2)}` : ''));
      } catch {
        this.selected = undefined;
      }
    }
    if (this.boxCount !== undefined) {
      data.boxSelected = String(this.boxCount);
      lines.push(`box-selected ${this.boxCount.toLocaleString('en-US')}`);
    }
  }

  private cameraOf(viewProjection: Float32Array): PickCamera {
    this.camera.viewProjection.set(viewProjection);
    this.camera.width = this.canvas.clientWidth || 1;
    this.camera.height = this.canvas.clientHeight || 1;
    return this.camera;
  }
}

/**
 * Wires `canvas`'s pointer to `camera` (orbit, zoom) and to picking: a click or a Shift + drag
 * box goes first to the running scene when it takes pointer input (`activity()`: steering
 * selects agents and sends them), else to `selection`. Both demos (WebGPU and WebGL 2) use it.
 */
export function listenPointer(canvas: HTMLCanvasElement, camera: OrbitCamera, selection: Selection, activity: () => SceneActivity | undefined): void {
  // The view as picking takes it (CSS pixels), refilled at each click or box: no allocation then.
  const view = { viewProjection: new Float32Array(16), width: 1, height: 1 };
  const pickCamera = (): PickCamera => {
    view.viewProjection.set(camera.viewProjection);
    view.width = canvas.clientWidth || 1;
    view.height = canvas.clientHeight || 1;
    return view;
  };
  new OrbitInput(canvas, camera, {
    click: (x, y) => { if (!activity()?.click?.(x, y, pickCamera())) selection.click(x, y, camera.viewProjection); },
    dragBox: (rect) => selection.dragBox(rect),
    endBox: (rect) => {
      if (activity()?.box?.(rect, pickCamera())) selection.hideBox();
      else selection.endBox(rect, camera.viewProjection);
    },
  });
}
