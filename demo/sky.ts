import type { EnvironmentData } from '../src/index';

/** Texels of the generated sky (equirectangular, 2:1): small, smooth, made in about a millisecond. */
export const SKY_SIZE: readonly [number, number] = [128, 64];

/**
 * Where the sky's warm glow sits: towards the crowd's default sun (src/runtime/lights.ts, the
 * light travels along [-0.4, -1, -0.55], so the sun is up along [0.4, 1, 0.55]), unit length.
 * The glow stays there when the panel moves the sun.
 */
const GLOW = ((d: number[]) => d.map((x) => x / Math.hypot(...d)))([0.4, 1, 0.55]);

/**
 * The demo's environment light (lights.environment, docs/materials.md): a sky made in code at
 * start-up, so the page downloads nothing for it. Linear RGB radiance, rows top (+y) to bottom in
 * three.js's equirectangular orientation (a texel's direction: elevation from its row, u =
 * atan2(z, x) / 2 pi + 0.5). Brightest (about 1) at the horizon, a deeper blue (about 0.35, 0.5,
 * 0.8) overhead, a soft warm glow towards the default sun, and below the horizon a ground of
 * about 0.2 that darkens to 0.1 straight down: what a metal reflects, so that it reads as metal.
 */
export function generateSky(width = SKY_SIZE[0], height = SKY_SIZE[1]): EnvironmentData {
  const data = new Float32Array(width * height * 4);
  const horizon = [0.95, 0.98, 1.0];
  const zenith = [0.32, 0.48, 0.82];
  const groundNear = [0.24, 0.22, 0.19];
  const groundFar = [0.1, 0.09, 0.08];
  const glowColor = [1.0, 0.8, 0.55];
  for (let row = 0; row < height; row++) {
    const elevation = (0.5 - (row + 0.5) / height) * Math.PI;
    const y = Math.sin(elevation);
    const c = Math.cos(elevation);
    for (let column = 0; column < width; column++) {
      const phi = ((column + 0.5) / width - 0.5) * 2 * Math.PI;
      const x = c * Math.cos(phi);
      const z = c * Math.sin(phi);
      const at = (row * width + column) * 4;
      for (let k = 0; k < 3; k++) {
        let value: number;
        if (y >= 0) {
          // Sky: the horizon's haze fades into the zenith's blue; the glow is a broad lobe.
          const t = Math.pow(y, 0.6);
          const glow = 1.5 * Math.exp(-8 * (1 - (x * GLOW[0] + y * GLOW[1] + z * GLOW[2])));
          value = horizon[k] + (zenith[k] - horizon[k]) * t + glow * glowColor[k];
        } else {
          // Ground: lighter near the horizon, darker straight down; a soft edge of about 3 degrees.
          const t = Math.min(1, -y * 2);
          const ground = groundNear[k] + (groundFar[k] - groundNear[k]) * t;
          const edge = Math.max(0, 1 + y / 0.05);
          value = ground + (horizon[k] - ground) * edge * edge;
        }
        data[at + k] = value;
      }
      data[at + 3] = 1;
    }
  }
  return { width, height, data };
}

let sky: EnvironmentData | undefined;

/**
 * The page's one sky (made on the first call): the same object every time, so Crowd.setLights
 * keeps its prefiltered map while only the sun or the ambient light changes.
 */
export function demoSky(): EnvironmentData {
  sky ??= generateSky();
  return sky;
}
