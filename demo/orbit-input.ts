import type { OrbitCamera } from './orbit-camera';

/** Radians of orbit per pixel dragged. */
const ORBIT_SPEED = 0.006;

/**
 * Mouse and touch control of an OrbitCamera on `element`:
 * left drag / one finger orbits, wheel / pinch zooms, right or shift drag / two fingers pan.
 * Pointer events only (they cover mouse, pen and touch); the page must not scroll the canvas
 * (`touch-action: none` in index.html).
 */
export class OrbitInput {
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private pinchDistance = 0;
  private pinchX = 0;
  private pinchY = 0;
  private panning = false;

  constructor(private readonly element: HTMLElement, private readonly camera: OrbitCamera) {
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
    this.panning = e.button === 2 || e.shiftKey;
    if (this.pointers.size === 2) this.startPinch();
  };

  private readonly onMove = (e: PointerEvent): void => {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
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
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 2) this.startPinch();
  };

  private readonly onWheel = (e: WheelEvent): void => {
    e.preventDefault();
    const pixels = e.deltaMode === WheelEvent.DOM_DELTA_LINE ? e.deltaY * 16 : e.deltaY;
    this.camera.zoom(Math.exp(pixels * 0.0015));
  };

  private startPinch(): void {
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
