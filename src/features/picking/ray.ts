import { mat4, vec3 } from 'wgpu-matrix';
import { checkF32, F32_HOLDS, F32_WHY, WORLD, WORLD_WHY } from '../../math/float32';
import { show } from '../../math/show';

/** A ray in world space: from `origin` along `direction` (any non-zero length; normalised on use). */
export interface Ray {
  /** Where the ray starts: x, y, z in world units. */
  origin: ArrayLike<number>;
  /** Which way it goes: x, y, z, any non-zero length. */
  direction: ArrayLike<number>;
}

/** A camera as it was drawn: its view-projection (column-major, world -> clip space, WebGPU depth [0, 1]) and the size of what it drew into. */
export interface PickCamera {
  /** World -> clip space, column-major 4x4 (WebGPU depth in [0, 1]): the matrix the frame was drawn with. */
  viewProjection: ArrayLike<number>;
  /** Width of the canvas or viewport, in the units of the pointer coordinates (CSS pixels for pointer events). */
  width: number;
  /** Its height, in the same units. */
  height: number;
}

/** A screen rectangle, corners in the pointer's units (x right, y down from the top left), in any order. */
export interface ScreenRect {
  /** One corner: x from the left. */
  x0: number;
  /** One corner: y from the top. */
  y0: number;
  /** The opposite corner: x from the left. */
  x1: number;
  /** The opposite corner: y from the top. */
  y1: number;
}

/** A ray checked and normalised: origin, unit direction and the distance searched along it (world units). */
export interface PickRay {
  origin: Float64Array;
  direction: Float64Array;
  maxDistance: number;
}

/** Scratch for the functions below (one thread: no allocation per call beyond what they return). */
const scratch = { inverse: mat4.create(), near: vec3.create(), far: vec3.create(), view: mat4.create(), projection: mat4.create(), up: vec3.create(), target: vec3.create() };

/** Checks and normalises `ray` (origin and maxDistance within WORLD, +-1e12); throws a RangeError or TypeError naming what is wrong. */
export function checkRay(ray: Ray, maxDistance: number): PickRay {
  if (typeof ray !== 'object' || ray === null) throw new TypeError(`ray must be { origin, direction }, got ${show(ray)}`);
  const origin = vector(ray.origin, 'ray.origin');
  const direction = vector(ray.direction, 'ray.direction');
  const length = Math.hypot(direction[0], direction[1], direction[2]);
  if (!(length > 0) || !Number.isFinite(length)) throw new RangeError(`ray.direction must have a non-zero finite length, got ${show(Array.from(direction))}`);
  for (let i = 0; i < 3; i++) direction[i] /= length;
  if (!(maxDistance > 0) || !Number.isFinite(maxDistance)) throw new RangeError(`maxDistance must be a positive finite number of world units, got ${show(maxDistance)}`);
  // The pick pass draws through a float32 view-projection from the origin to maxDistance: both world numbers.
  for (let i = 0; i < 3; i++) checkF32(origin[i], `ray.origin[${i}]`, WORLD, WORLD_WHY);
  checkF32(maxDistance, 'maxDistance', WORLD, WORLD_WHY);
  return { origin, direction, maxDistance };
}

/**
 * The ray through pointer (x, y) of `camera`: from the near plane to the far plane through the
 * pixel (for a perspective camera, the line from the eye through it), searched to the far plane.
 */
export function pointerRay(x: number, y: number, camera: PickCamera): PickRay {
  checkCamera(camera);
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw new RangeError(`pointer position must be finite numbers, got (${show(x)}, ${show(y)})`);
  const ndcX = (2 * x) / camera.width - 1;
  const ndcY = 1 - (2 * y) / camera.height;
  const inverse = mat4.inverse(camera.viewProjection as Float32Array, scratch.inverse);
  const near = vec3.transformMat4([ndcX, ndcY, 0], inverse, scratch.near);
  const far = vec3.transformMat4([ndcX, ndcY, 1], inverse, scratch.far);
  const direction = Float64Array.of(far[0] - near[0], far[1] - near[1], far[2] - near[2]);
  const length = Math.hypot(direction[0], direction[1], direction[2]);
  if (!(length > 0) || !Number.isFinite(length)) throw new RangeError('camera.viewProjection has no finite far plane (an infinite projection): use pick(ray, { maxDistance })');
  return checkRay({ origin: Float64Array.from(near), direction }, length);
}

/**
 * The view-projection that puts `ray` through the centre of a one-pixel target: an orthographic box
 * `halfWidth` wide on each side around it, from its origin (depth 0) to maxDistance (depth 1), so
 * that depth x maxDistance is the distance along the ray. Into `out`.
 */
export function rayViewProjection(ray: PickRay, halfWidth: number, out: Float32Array): Float32Array {
  const { origin, direction } = ray;
  const up = Math.abs(direction[1]) > 0.99 ? vec3.set(1, 0, 0, scratch.up) : vec3.set(0, 1, 0, scratch.up);
  const target = vec3.set(origin[0] + direction[0], origin[1] + direction[1], origin[2] + direction[2], scratch.target);
  mat4.lookAt(origin as unknown as Float32Array, target, up, scratch.view);
  mat4.ortho(-halfWidth, halfWidth, -halfWidth, halfWidth, 0, ray.maxDistance, scratch.projection);
  return mat4.multiply(scratch.projection, scratch.view, out) as Float32Array;
}

/** `rect` in normalised device coordinates of `camera` as (xMin, yMin, xMax, yMax), into `out`. */
export function rectToNdc(rect: ScreenRect, camera: PickCamera, out: Float32Array): Float32Array {
  checkCamera(camera);
  if (typeof rect !== 'object' || rect === null) throw new TypeError(`rect must be { x0, y0, x1, y1 }, got ${show(rect)}`);
  for (const key of ['x0', 'y0', 'x1', 'y1'] as const) {
    if (!Number.isFinite(rect[key])) throw new RangeError(`rect.${key} must be a finite number, got ${show(rect[key])}`);
  }
  const xs = [(2 * rect.x0) / camera.width - 1, (2 * rect.x1) / camera.width - 1];
  const ys = [1 - (2 * rect.y0) / camera.height, 1 - (2 * rect.y1) / camera.height];
  out[0] = Math.min(xs[0], xs[1]);
  out[1] = Math.min(ys[0], ys[1]);
  out[2] = Math.max(xs[0], xs[1]);
  out[3] = Math.max(ys[0], ys[1]);
  return out;
}

function checkCamera(camera: PickCamera): void {
  if (typeof camera !== 'object' || camera === null) throw new TypeError(`camera must be { viewProjection, width, height }, got ${show(camera)}`);
  const vp = camera.viewProjection;
  if (vp?.length !== 16 || !Array.prototype.every.call(vp, Number.isFinite)) throw new RangeError(`camera.viewProjection must be 16 finite numbers, got ${show(vp)}`);
  for (let i = 0; i < 16; i++) checkF32(vp[i], `camera.viewProjection[${i}]`, F32_HOLDS, F32_WHY); // selectRect uploads it
  if (!(camera.width > 0) || !(camera.height > 0) || !Number.isFinite(camera.width) || !Number.isFinite(camera.height)) {
    throw new RangeError(`camera.width and camera.height must be positive finite numbers, got ${show(camera.width)} x ${show(camera.height)}`);
  }
}

function vector(v: ArrayLike<number> | undefined, name: string): Float64Array {
  if (v?.length !== 3 || !Array.prototype.every.call(v, Number.isFinite)) throw new RangeError(`${name} must be 3 finite numbers, got ${show(v)}`);
  return Float64Array.from(v);
}
