/**
 * The lights a crowd shades with (CrowdOptions.lights, docs/materials.md): one directional sun
 * (which the shadow map follows) plus an ambient and a hemisphere term, in three.js's units
 * (a sun of intensity I and colour c gives irradiance I c cos(theta); an ambient of intensity I
 * gives irradiance I c on every normal), so a three.js scene with the same lights matches.
 */

import { resolveEnvironment, type EnvironmentOptions, type ResolvedEnvironment } from './environment-map';

/** RGB in linear [0, inf) (not sRGB), as three.js's Color after its sRGB -> linear conversion. */
export type LinearRgb = readonly [number, number, number];

/** The directional sun (CrowdOptions.lights.sun): what the shadow map follows. */
export interface SunOptions {
  /** Direction the light travels (world space; normalised here; default [-0.4, -1, -0.55]). */
  direction?: readonly [number, number, number];
  /** Linear RGB (default white). */
  color?: LinearRgb;
  /** Irradiance scale (default 0.65 pi: the look of the crowd before lights were settable). */
  intensity?: number;
}

/** A uniform ambient term (CrowdOptions.lights.ambient), as three.js's AmbientLight. */
export interface AmbientOptions {
  /** Linear RGB (default white). */
  color?: LinearRgb;
  /** Irradiance scale on every normal (default 0.35 pi). */
  intensity?: number;
}

/** A sky/ground term (CrowdOptions.lights.hemisphere), as three.js's HemisphereLight. */
export interface HemisphereOptions {
  /** Irradiance colour of normals pointing +y (linear RGB; default white). */
  sky?: LinearRgb;
  /** Irradiance colour of normals pointing -y (linear RGB; default black). */
  ground?: LinearRgb;
  /** Irradiance scale (default 1). */
  intensity?: number;
}

/** CrowdOptions.lights: each part replaces its default; `ambient: false` / no hemisphere drops that term. */
export interface LightOptions {
  /** The sun (default: from above and in front, white, 0.65 pi). */
  sun?: SunOptions;
  /** The ambient term, or false for none (default: white, 0.35 pi). */
  ambient?: AmbientOptions | false;
  /** The hemisphere term (default: none). */
  hemisphere?: HemisphereOptions;
  /** An equirectangular environment lighting every surface, or false for none (default: none; docs/materials.md). */
  environment?: EnvironmentOptions | false;
}

/** Lights resolved to what the shader reads (skin.wgsl Camera): colour x intensity, unit direction. */
export interface ResolvedLights {
  direction: Float32Array;
  sun: Float32Array;
  /** Irradiance of a normal pointing +y / -y: ambient plus the hemisphere's sky / ground. */
  sky: Float32Array;
  ground: Float32Array;
  /** The checked environment (undefined: none): SkinPass prefilters it into an EnvironmentMap. */
  environment?: ResolvedEnvironment;
}

export const DEFAULT_LIGHT_DIRECTION: readonly [number, number, number] = [-0.4, -1, -0.55];

/**
 * Checks `options` (undefined: the defaults) and resolves it; throws a TypeError / RangeError
 * naming the first field that is wrong (`lights.sun.intensity must be ...`).
 */
export function resolveLights(options: LightOptions | undefined): ResolvedLights {
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('lights must be an object { sun?, ambient?, hemisphere?, environment? }');
  const known = ['sun', 'ambient', 'hemisphere', 'environment'];
  for (const key of Object.keys(options ?? {})) if (!known.includes(key)) throw new TypeError(`lights.${key} is not a light (expected ${known.join(', ')})`);
  const sun = section(options?.sun, 'lights.sun', ['direction', 'color', 'intensity']);
  const ambient = options?.ambient === false ? undefined : section(options?.ambient, 'lights.ambient', ['color', 'intensity']);
  const hemi = options?.hemisphere === undefined ? undefined : section(options.hemisphere, 'lights.hemisphere', ['sky', 'ground', 'intensity']);
  const environment = resolveEnvironment(options?.environment);
  const d = vector(sun.direction, 'lights.sun.direction', DEFAULT_LIGHT_DIRECTION, false);
  const length = Math.hypot(d[0], d[1], d[2]);
  if (length === 0) throw new RangeError('lights.sun.direction must not be the zero vector');
  const sunColor = scaled(vector(sun.color, 'lights.sun.color', [1, 1, 1]), intensity(sun.intensity, 'lights.sun.intensity', 0.65 * Math.PI));
  const ambientColor = ambient ? scaled(vector(ambient.color, 'lights.ambient.color', [1, 1, 1]), intensity(ambient.intensity, 'lights.ambient.intensity', 0.35 * Math.PI)) : [0, 0, 0];
  const hemiIntensity = hemi ? intensity(hemi.intensity, 'lights.hemisphere.intensity', 1) : 0;
  const sky = hemi ? scaled(vector(hemi.sky, 'lights.hemisphere.sky', [1, 1, 1]), hemiIntensity) : [0, 0, 0];
  const ground = hemi ? scaled(vector(hemi.ground, 'lights.hemisphere.ground', [0, 0, 0]), hemiIntensity) : [0, 0, 0];
  checkIrradiance(sunColor, 'lights.sun: color x intensity');
  checkIrradiance(ambientColor.map((a, i) => a + sky[i]), 'lights.ambient + lights.hemisphere.sky: color x intensity');
  checkIrradiance(ambientColor.map((a, i) => a + ground[i]), 'lights.ambient + lights.hemisphere.ground: color x intensity');
  return {
    direction: Float32Array.from(d, (x) => x / length),
    sun: Float32Array.from(sunColor),
    sky: Float32Array.from(ambientColor, (a, i) => a + sky[i]),
    ground: Float32Array.from(ambientColor, (a, i) => a + ground[i]),
    ...(environment ? { environment } : {}),
  };
}

/**
 * Writes `from` into `into`'s arrays in place (no allocation; the environment by reference): how a change of lights reaches a
 * SkinPass, whose update() uploads its ResolvedLights every frame and whose shadow map follows
 * `direction`.
 */
export function copyLights(from: ResolvedLights, into: ResolvedLights): void {
  into.direction.set(from.direction);
  into.sun.set(from.sun);
  into.sky.set(from.sky);
  into.ground.set(from.ground);
  into.environment = from.environment;
}

/**
 * LightOptions that resolve to `lights` again (sun intensity 1 with the colour x intensity, no
 * ambient, a hemisphere carrying ambient + sky / ground): a copy the caller cannot change later,
 * kept to re-make passes (restore, a new skinning method) with the lights last set.
 */
export function lightOptionsOf(lights: ResolvedLights): LightOptions {
  const v = (a: Float32Array): [number, number, number] => [a[0], a[1], a[2]];
  return { sun: { direction: v(lights.direction), color: v(lights.sun), intensity: 1 }, ambient: false, hemisphere: { sky: v(lights.sky), ground: v(lights.ground), intensity: 1 },
    ...(lights.environment ? { environment: { ...lights.environment } } : {}) };
}

/**
 * The most irradiance a light may resolve to, per channel: the shader multiplies it by the texel,
 * the material's factor (at most 1 each) and a tint (at most 1e6, CrowdAppearance) in float32, so
 * a pixel stays under 1e36 (a light of 1e39 was Infinity there).
 */
export const MAX_IRRADIANCE = 1e30;

/** Throws a RangeError naming `what` unless every channel of `rgb` is at most MAX_IRRADIANCE. */
function checkIrradiance(rgb: readonly number[], what: string): void {
  for (const v of rgb) if (!(v <= MAX_IRRADIANCE)) throw new RangeError(`${what} must be at most 1e30 a channel (float32 on the GPU: skin.wgsl multiplies it by colour and tint), got ${v}`);
}

function section<T extends object>(value: T | undefined, where: string, fields: string[]): Partial<Record<string, unknown>> & T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null) throw new TypeError(`${where} must be an object { ${fields.join(', ')} }`);
  for (const key of Object.keys(value)) if (!fields.includes(key)) throw new TypeError(`${where}.${key} is not a field (expected ${fields.join(', ')})`);
  return value as Partial<Record<string, unknown>> & T;
}

function vector(value: unknown, where: string, fallback: readonly number[], nonNegative = true): number[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw new TypeError(`${where} must be 3 numbers`);
  const v = Array.from(value as ArrayLike<number>);
  if (v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new RangeError(`${where} must be 3 finite numbers, got [${v.join(', ')}]`);
  if (nonNegative && v.some((x) => x < 0)) throw new RangeError(`${where} must not be negative, got [${v.join(', ')}]`);
  return v;
}

function intensity(value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new RangeError(`${where} must be a finite number >= 0, got ${String(value)}`);
  return value;
}

function scaled(v: number[], s: number): number[] {
  return v.map((x) => x * s);
}
