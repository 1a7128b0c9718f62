import type GUI from 'lil-gui';
import type { LightOptions } from '../src/index';
import { demoSky } from './sky';

/**
 * The demo's light panel (docs/demo.md): the crowd's sun, ambient, hemisphere and environment
 * lights (CrowdOptions.lights, set at run time with Crowd.setLights), as the user edits them and
 * as the URL keeps them. The environment is the generated sky of demo/sky.ts, on by default.
 * Colours are sRGB hex as a colour picker gives them (three.js's convention), converted to linear
 * RGB for the crowd.
 */
export interface LightState {
  /** Compass direction the sun shines from, degrees (0: from +z, 90: from +x). */
  sunAzimuth: number;
  /** Height of the sun over the horizon, degrees in [5, 90]. */
  sunElevation: number;
  /** Sun irradiance scale, [0, 10] (the crowd's default 0.65 pi). */
  sunIntensity: number;
  /** Sun colour, sRGB '#rrggbb'. */
  sunColor: string;
  /** Ambient irradiance scale, [0, 5] (0: no ambient, the demo's default: the environment lights the shade; the crowd's own default is 0.35 pi). */
  ambientIntensity: number;
  ambientColor: string;
  /** Hemisphere irradiance scale, [0, 5] (default 0: none). */
  hemisphereIntensity: number;
  /** Hemisphere colour of normals pointing up / down, sRGB '#rrggbb'. */
  sky: string;
  ground: string;
  /** The environment light (the generated sky, demo/sky.ts): on by default, so metals reflect something. */
  environment: boolean;
  /** Its radiance scale, [0, 5] (lights.environment.intensity; default 1). */
  environmentIntensity: number;
}

/**
 * The demo's lights at start: the crowd's own default sun (src/runtime/lights.ts: along
 * [-0.4, -1, -0.55], white, 0.65 pi) and, in place of its white ambient of 0.35 pi, the
 * environment light of the generated sky (demo/sky.ts) at intensity 1. The sky lights a
 * dielectric about as the ambient did (more from above than below), so adding it to the ambient
 * would wash the crowd out; unlike the ambient, it is also what a metal reflects. The ambient's
 * colour stays the crowd's default, for the slider.
 */
export const DEFAULT_LIGHTS: Readonly<LightState> = {
  sunAzimuth: Math.atan2(0.4, 0.55) * 180 / Math.PI, sunElevation: Math.asin(1 / Math.hypot(0.4, 1, 0.55)) * 180 / Math.PI,
  sunIntensity: 0.65 * Math.PI, sunColor: '#ffffff', ambientIntensity: 0, ambientColor: '#ffffff',
  hemisphereIntensity: 0, sky: '#bfd9ff', ground: '#4d3b26', environment: true, environmentIntensity: 1,
};

const NUMBERS = { sunAzimuth: [-180, 180], sunElevation: [5, 90], sunIntensity: [0, 10], ambientIntensity: [0, 5], hemisphereIntensity: [0, 5], environmentIntensity: [0, 5] } as const;
const COLORS = ['sunColor', 'ambientColor', 'sky', 'ground'] as const;

/** The crowd's LightOptions for `state` (every part given, so nothing of an earlier setLights stays). */
export function lightOptions(state: LightState): LightOptions {
  const az = state.sunAzimuth * Math.PI / 180;
  const el = state.sunElevation * Math.PI / 180;
  // The light travels from the sun towards the ground: minus the direction towards the sun.
  const towards: [number, number, number] = [Math.cos(el) * Math.sin(az), Math.sin(el), Math.cos(el) * Math.cos(az)];
  return {
    sun: { direction: [-towards[0], -towards[1], -towards[2]], color: linear(state.sunColor), intensity: state.sunIntensity },
    ambient: state.ambientIntensity > 0 ? { color: linear(state.ambientColor), intensity: state.ambientIntensity } : false,
    hemisphere: state.hemisphereIntensity > 0 ? { sky: linear(state.sky), ground: linear(state.ground), intensity: state.hemisphereIntensity } : undefined,
    environment: state.environment ? { image: demoSky(), intensity: state.environmentIntensity } : false,
  };
}

/** sRGB '#rrggbb' to linear RGB, as three.js's Color.set does under ColorManagement. */
export function linear(hex: string): [number, number, number] {
  const value = parseInt(hex.slice(1), 16);
  const channel = (shift: number) => {
    const c = ((value >> shift) & 255) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return [channel(16), channel(8), channel(0)];
}

/**
 * Reads the light parameters (`sunAz`, `sunEl`, `sunI`, `sunColor`, `ambI`, `ambColor`, `hemiI`,
 * `sky`, `ground`, `env` (0 or 1), `envI`); a bad value adds a sentence to `problems` and keeps the default.
 */
export function readLights(params: URLSearchParams, problems: string[]): LightState {
  const state: LightState = { ...DEFAULT_LIGHTS };
  for (const [key, [min, max]] of Object.entries(NUMBERS) as [keyof typeof NUMBERS, readonly [number, number]][]) {
    const raw = params.get(PARAM[key]);
    if (raw === null) continue;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) problems.push(`URL parameter ${PARAM[key]}=${raw} is not a number; using the default`);
    else {
      if (value < min || value > max) problems.push(`URL parameter ${PARAM[key]}=${raw} is outside [${min}, ${max}]; clamped`);
      state[key] = Math.min(max, Math.max(min, value));
    }
  }
  for (const key of COLORS) {
    const raw = params.get(PARAM[key]);
    if (raw === null) continue;
    if (/^[0-9a-f]{6}$/i.test(raw)) state[key] = `#${raw.toLowerCase()}`;
    else problems.push(`URL parameter ${PARAM[key]}=${raw} must be a colour rrggbb (hex); using the default`);
  }
  const environment = params.get(PARAM.environment);
  if (environment === '1' || environment === '0') state.environment = environment === '1';
  else if (environment !== null) problems.push(`URL parameter ${PARAM.environment}=${environment} must be 0 (no environment light) or 1; using the default`);
  return state;
}

/** Writes the light parameters that differ from the defaults. */
export function writeLights(params: URLSearchParams, state: LightState): void {
  for (const key of Object.keys(NUMBERS) as (keyof typeof NUMBERS)[]) if (state[key] !== DEFAULT_LIGHTS[key]) params.set(PARAM[key], String(round(state[key])));
  for (const key of COLORS) if (state[key] !== DEFAULT_LIGHTS[key]) params.set(PARAM[key], state[key].slice(1));
  if (state.environment !== DEFAULT_LIGHTS.environment) params.set(PARAM.environment, state.environment ? '1' : '0');
}

/** The "Lights" folder of the panel, editing `state` in place; `changed` runs after each edit. */
export function addLightFolder(gui: GUI, state: LightState, changed: () => void): GUI {
  const folder = gui.addFolder('Lights').close();
  // Shown rounded; the defaults stay exact (the crowd's own default lights).
  folder.add(state, 'sunAzimuth', -180, 180, 1).name('sun azimuth °').decimals(1).onChange(changed);
  folder.add(state, 'sunElevation', 5, 90, 1).name('sun elevation °').decimals(1).onChange(changed);
  folder.add(state, 'sunIntensity', 0, 10, 0.01).name('sun intensity').decimals(2).onChange(changed);
  folder.addColor(state, 'sunColor').name('sun colour').onChange(changed);
  folder.add(state, 'ambientIntensity', 0, 5, 0.01).name('ambient').decimals(2).onChange(changed);
  folder.addColor(state, 'ambientColor').name('ambient colour').onChange(changed);
  folder.add(state, 'hemisphereIntensity', 0, 5, 0.01).name('hemisphere').onChange(changed);
  folder.addColor(state, 'sky').name('sky colour').onChange(changed);
  folder.addColor(state, 'ground').name('ground colour').onChange(changed);
  folder.add(state, 'environment').name('environment (sky)').onChange(changed);
  folder.add(state, 'environmentIntensity', 0, 5, 0.01).name('environment intensity').decimals(2).onChange(changed);
  folder.add({ reset: () => { Object.assign(state, DEFAULT_LIGHTS); folder.controllersRecursive().forEach((c) => c.updateDisplay()); changed(); } }, 'reset');
  return folder;
}

const PARAM: Record<keyof LightState, string> = {
  sunAzimuth: 'sunAz', sunElevation: 'sunEl', sunIntensity: 'sunI', sunColor: 'sunColor',
  ambientIntensity: 'ambI', ambientColor: 'ambColor', hemisphereIntensity: 'hemiI', sky: 'sky', ground: 'ground',
  environment: 'env', environmentIntensity: 'envI',
};

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
