import type { ScreenRect } from '../src/index';
import type { OrbitCamera } from './orbit-camera';

/** Radians of orbit per pixel dragged. */
const ORBIT_SPEED = 0.006;
/** CSS pixels a pointer may move between press and release and still click (more is a camera drag). */
const CLICK_SLOP = 4;

/** What a click and a Shift + drag do (coordinates: CSS pixels from the element's top left). */
export interface PointerSelect {
  click(x: number, y: number): void;
  /** The rectangle while it is dragged, and when it is let go. */
  dragBox(rect: ScreenRect): void;
  endBox(rect: ScreenRect): void;
}

/**
 * Mouse and touch control of an OrbitCamera on `element`:
 * left drag / one finger orbits, wheel / pinch zooms, right drag / two fingers pan; a click (a
 * press and release that moved at most CLICK_SLOP pixels, one pointer) selects, Shift + left drag
 * box-selects (`select`). Pointer events only (they cover mouse, pen and touch); the page must not
 * scroll the canvas (`touch-action: none` in index.html).
 */
export class OrbitInput {
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private pinchDistance = 0;
  private pinchX = 0;
  private pinchY = 0;
  private panning = false;
  /** The press being watched for a click, or the corner a Shift + drag started at. */
  private readonly press = { x: 0, y: 0, moved: 0, clicking: false, boxing: false };
  private readonly rect: ScreenRect = { x0: 0, y0: 0, x1: 0, y1: 0 };

  constructor(private readonly element: HTMLElement, private readonly camera: OrbitCamera, private readonly select?: PointerSelect) {
    element.addEventListener('pointerdown', this.onDown);
    element.addEventListener('pointermove', this.onMove);
    element.addEventListener('pointerup', this.onUp);
    element.addEventListener('pointercancel', this.onUp);
    element.addEventListener('wheel', this.onWheel, { passive: false });
    element.addEventListener('contextmenu', (e) => e.preventDefault());
  }

  private readonly onDown = (e: PointerEvent): void => {
    this.element.setPointerCapture(e.pointerId);
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    this.panning = e.button === 2;
    const press = this.press;
    const first = this.pointers.size === 1 && e.button === 0;
    [press.x, press.y] = this.local(e);
    press.moved = 0;
    press.clicking = first;
    press.boxing = first && e.shiftKey && this.select !== undefined;
    if (press.boxing) {
      this.rect.x0 = this.rect.x1 = press.x;
      this.rect.y0 = this.rect.y1 = press.y;
    }
    if (this.pointers.size === 2) this.startPinch();
  };

  private readonly onMove = (e: PointerEvent): void => {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    this.press.moved += Math.hypot(dx, dy);
    if (this.press.boxing) {
      [this.rect.x1, this.rect.y1] = this.local(e);
      this.select!.dragBox(this.rect);
      return;
    }
    if (this.pointers.size >= 2) {
      this.movePinch();
    } else if (this.panning) {
      const h = this.element.clientHeight || 1;
      this.camera.pan(dx / h, dy / h);
    } else {
      this.camera.orbit(-dx * ORBIT_SPEED, dy * ORBIT_SPEED);
    }
  };

  private readonly onUp = (e: PointerEvent): void => {
    if (!this.pointers.delete(e.pointerId)) return;
    const press = this.press;
    if (press.boxing && this.pointers.size === 0) {
      [this.rect.x1, this.rect.y1] = this.local(e);
      this.select!.endBox(this.rect);
    } else if (press.clicking && this.pointers.size === 0 && press.moved <= CLICK_SLOP && e.type === 'pointerup') {
      this.select?.click(press.x, press.y);
    }
    press.clicking = press.boxing = false;
    if (this.pointers.size === 2) this.startPinch();
  };

  /** The event's position in CSS pixels from the element's top left. */
  private local(e: PointerEvent): [number, number] {
    const box = this.element.getBoundingClientRect();
    return [e.clientX - box.left, e.clientY - box.top];
  }

  private readonly onWheel = (e: WheelEvent): void => {
    e.preventDefault();
    const pixels = e.deltaMode === WheelEvent.DOM_DELTA_LINE ? e.deltaY * 16 : e.deltaY;
    this.camera.zoom(Math.exp(pixels * 0.0015));
  };

  private startPinch(): void {
    this.press.clicking = this.press.boxing = false;
    const [a, b] = this.pointers.values();
    this.pinchDistance = Math.hypot(a.x - b.x, a.y - b.y);
    this.pinchX = (a.x + b.x) / 2;
    this.pinchY = (a.y + b.y) / 2;
  }

  /** Two fingers: spread to zoom in, move together to pan. */
  private movePinch(): void {
    const [a, b] = this.pointers.values();
    const distance = Math.hypot(a.x - b.x, a.y - b.y);
    const x = (a.x + b.x) / 2;
    const y = (a.y + b.y) / 2;
    if (this.pinchDistance > 0 && distance > 0) this.camera.zoom(this.pinchDistance / distance);
    const h = this.element.clientHeight || 1;
    this.camera.pan((x - this.pinchX) / h, (y - this.pinchY) / h);
    this.pinchDistance = distance;
    this.pinchX = x;
    this.pinchY = y;
  }
}
