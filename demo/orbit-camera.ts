import { mat4 } from 'wgpu-matrix';

const UP = new Float32Array([0, 1, 0]);
const MIN_PITCH = 0.03;
const MAX_PITCH = 1.5;
/** How fast the target catches up with a followed character (follow()), 1/seconds. */
const FOLLOW_RATE = 4;

/**
 * An orbit camera around a target on the ground: yaw and pitch in radians, distance in world
 * units. update() writes view, projection and viewProjection into arrays it owns (wgpu-matrix
 * with `dst`), so a frame allocates nothing. Also derives the fog and far-plane distances
 * from `sceneRadius` (how far the crowd extends from the target).
 */
export class OrbitCamera {
  yaw = 0.6;
  pitch = 0.35;
  distance = 10;
  minDistance = 0.1;
  maxDistance = 1000;
  /** Vertical field of view, radians. */
  readonly fovY = (45 * Math.PI) / 180;
  readonly target = new Float32Array(3);
  readonly eye = new Float32Array(3);
  readonly view = new Float32Array(16);
  readonly projection = new Float32Array(16);
  readonly viewProjection = new Float32Array(16);
  /** Radius of the populated area around the origin, world units. */
  sceneRadius = 10;
  /** Ground fog starts and ends at these distances from the eye (set by update). */
  fogStart = 0;
  fogEnd = 0;

  /**
   * Frames a crowd centred on the origin: `halfX`, `halfZ` are half its extent (world units),
   * `height` one character's height. Looks from the front (+Z), a little from the side and
   * above, close enough that the crowd spans most of the view's width.
   */
  frame(halfX: number, halfZ: number, height: number): void {
    this.sceneRadius = Math.hypot(halfX, halfZ) + height;
    this.target[0] = 0;
    this.target[1] = height * 0.4;
    this.target[2] = 0;
    this.yaw = 0.35;
    this.pitch = 0.36;
    // Far enough that the crowd's width (x; its depth z is foreshortened) fills the view,
    // never closer than a portrait of one character.
    const fit = (Math.max(halfX, halfZ * 0.6) * 1.1 + height) / Math.tan(this.fovY / 2);
    this.distance = Math.max(fit, height * 2.6);
    this.minDistance = height * 0.3;
    this.maxDistance = Math.max(this.distance * 6, height * 50);
  }

  orbit(dYaw: number, dPitch: number): void {
    this.yaw += dYaw;
    this.pitch = Math.min(MAX_PITCH, Math.max(MIN_PITCH, this.pitch + dPitch));
  }

  /** Multiplies the distance by `factor` (> 1 zooms out). */
  zoom(factor: number): void {
    this.distance = Math.min(this.maxDistance, Math.max(this.minDistance, this.distance * factor));
  }

  /** Moves the target on the ground toward (x, z) (world units) as a character followed for `dt` seconds: exponentially, at FOLLOW_RATE. */
  follow(x: number, z: number, dt: number): void {
    const k = 1 - Math.exp(-FOLLOW_RATE * dt);
    this.target[0] += (x - this.target[0]) * k;
    this.target[2] += (z - this.target[2]) * k;
  }

  /** Moves the target on the ground plane by screen-space fractions of the view height. */
  pan(dx: number, dy: number): void {
    const scale = 2 * this.distance * Math.tan(this.fovY / 2);
    const cos = Math.cos(this.yaw);
    const sin = Math.sin(this.yaw);
    // Camera right on the ground is (cos, 0, -sin); forward on the ground is (-sin, 0, -cos).
    this.target[0] += (-dx * cos - dy * sin) * scale;
    this.target[2] += (dx * sin - dy * cos) * scale;
  }

  update(aspect: number): void {
    const cosPitch = Math.cos(this.pitch);
    this.eye[0] = this.target[0] + this.distance * cosPitch * Math.sin(this.yaw);
    this.eye[1] = this.target[1] + this.distance * Math.sin(this.pitch);
    this.eye[2] = this.target[2] + this.distance * cosPitch * Math.cos(this.yaw);
    const reach = this.distance + this.sceneRadius + Math.hypot(this.target[0], this.target[2]);
    this.fogStart = reach;
    this.fogEnd = reach * 2.5;
    const far = this.fogEnd * 1.5;
    const near = Math.max(this.distance * 0.02, far * 1e-5);
    mat4.perspective(this.fovY, aspect, near, far, this.projection);
    mat4.lookAt(this.eye, this.target, UP, this.view);
    mat4.multiply(this.projection, this.view, this.viewProjection);
  }
}
