/**
 * The lights of a three.js scene, handed to crowds with shading 'crowd' (ThreeCrowdRenderer's
 * `lights: 'scene'`, the default): each frame, after three's render updated the world matrices,
 * the scene's lights are read into a few numbers; only when they differ from the last ones (or
 * the scene's environment texture changed) is `crowd.setLights` called, so a still scene costs a
 * walk of its graph and no allocation, and a moving sun costs one setLights a frame (a few small
 * arrays, no GPU object; the environment is kept: see KernelPasses.setLights).
 *
 * What maps to what (docs/three.md, "The scene's lights"). Units need no conversion: crowd-skin's
 * lights are three's (physically correct, r155+: a DirectionalLight of intensity I and colour c
 * gives irradiance I c cos(theta), an AmbientLight I c), and three's Color is linear in its working
 * colour space (linear sRGB by default), which is what CrowdOptions.lights' colours are:
 * - DirectionalLight -> lights.sun: colour x intensity, direction from its world position to its
 *   target's. With several, the strongest (luminance of colour x intensity) is the sun; the others
 *   are ignored (the crowd's shading has one directional light, which its shadow map follows).
 * - AmbientLight -> every one summed into the ambient term (as three sums them).
 * - HemisphereLight -> every one summed into lights.hemisphere's sky and ground, taken as pointing
 *   up (+y: three's default position); a tilted hemisphere light is lit as if it pointed up.
 * - scene.environment (x scene.environmentIntensity) -> lights.environment, when its pixels are on
 *   the CPU: an equirectangular DataTexture (RGBA, float, half float or 8-bit) or an image
 *   texture (an HTMLImageElement, canvas or ImageBitmap, read through a 2D canvas). Converted and
 *   prefiltered once per texture and `texture.version`. Cube textures and PMREM render targets live
 *   on the GPU only: ignored, with one console warning per texture. environmentRotation is ignored.
 * - PointLight, SpotLight, RectAreaLight, LightProbe: ignored (the crowd's shading has no such term).
 * Lights count as three counts them: an invisible light (or one under an invisible parent) and
 * one whose layers the camera does not see are left out. A scene without lights draws the crowd
 * black but for its emissive parts, as three draws its own meshes.
 */
import {
  DataUtils, FloatType, HalfFloatType, RGBAFormat, SRGBColorSpace, UnsignedByteType,
  type Camera, type Object3D, type Texture,
} from 'three/webgpu';
import type { Crowd, EnvironmentData, LightOptions } from '../index';

/** Where a crowd drawn with shading 'crowd' takes its lights from (ThreeCrowdRendererOptions.lights). */
export type ThreeCrowdLights = 'scene' | 'own';

const PREFIX = 'crowd-skin/three';
/** The crowd's default sun direction (unit length), for a scene without a DirectionalLight (its shadow map still needs one). */
const NO_SUN_DIRECTION = [-0.4, -1, -0.55].map((v, _, d) => v / Math.hypot(d[0], d[1], d[2]));
/** Largest value the prefiltered environment's half floats hold (EnvironmentData's range is [0, 65504)). */
const HALF_MAX = 65503;

// The gathered lights, packed: sun direction (3), sun colour x intensity (3), sky and ground
// irradiance (ambient included; 3 each), environment intensity (1).
const SUN_DIRECTION = 0;
const SUN = 3;
const SKY = 6;
const GROUND = 9;
const ENVIRONMENT_INTENSITY = 12;
const PACKED = 13;

interface LightLike extends Object3D {
  isLight?: boolean; isDirectionalLight?: boolean; isAmbientLight?: boolean; isHemisphereLight?: boolean;
  color: { r: number; g: number; b: number };
  groundColor?: { r: number; g: number; b: number };
  intensity: number;
  target?: Object3D;
}

interface SceneLike extends Object3D {
  isScene?: boolean;
  environment?: Texture | null;
  environmentIntensity?: number;
}

/**
 * Reads a three.js scene's lights into the crowds' setLights, only when they changed. Owned by a
 * ThreeCrowdRenderer; keeps the last lights and the converted environment image (which it owns).
 */
export class SceneLights {
  /** The lights gathered this frame (PACKED numbers, see above). */
  private readonly gathered = new Float32Array(PACKED);
  /** The lights last handed to setLights. */
  private readonly applied = new Float32Array(PACKED).fill(Number.NaN);
  /** Bumped each time the lights change: a crowd whose recorded generation differs gets them. */
  private generation = 0;
  private readonly crowdGeneration = new WeakMap<Crowd, number>();
  /** scene.environment as last converted, its version, and the image made of it (undefined: none usable). */
  private environmentTexture: Texture | null = null;
  private environmentVersion = -1;
  private environmentImage: EnvironmentData | ImageData | undefined;
  /** Whether the environment image changed since the lights were last applied. */
  private environmentChanged = false;
  private readonly warned = new WeakSet<Texture>();
  /** The options handed to setLights, re-filled in place (setLights copies what it keeps). */
  private readonly options = {
    sun: { direction: [0, 0, 0] as [number, number, number], color: [0, 0, 0] as [number, number, number], intensity: 1 },
    ambient: false as const,
    hemisphere: { sky: [0, 0, 0] as [number, number, number], ground: [0, 0, 0] as [number, number, number], intensity: 1 },
    environment: false as false | { image: EnvironmentData | ImageData; intensity: number },
  } satisfies LightOptions;
  private readonly environmentOptions = { image: undefined as unknown as EnvironmentData | ImageData, intensity: 1 };
  /** The strongest directional light found by the walk, and its luminance. */
  private sun: LightLike | undefined;
  private sunLuminance = -1;

  /**
   * Gathers `scene`'s lights as seen by `camera` (call after three's render: world matrices of this
   * frame) and gives them to each crowd of `crowds` not in `skip` (those three draws) that has not
   * had them yet. Allocates nothing unless the lights changed.
   */
  update(scene: Object3D, camera: Camera, crowds: readonly Crowd[], skip: { has(crowd: Crowd): boolean }): void {
    this.gather(scene, camera);
    if (!sameNumbers(this.gathered, this.applied) || this.environmentChanged) {
      this.applied.set(this.gathered);
      this.environmentChanged = false;
      this.generation++;
      this.fillOptions();
    }
    for (let i = 0; i < crowds.length; i++) {
      const crowd = crowds[i];
      if (skip.has(crowd) || this.crowdGeneration.get(crowd) === this.generation) continue;
      try {
        crowd.setLights(this.options);
      } catch (error) {
        throw new Error(`${PREFIX}: the scene's lights could not be given to a crowd (ThreeCrowdRendererOptions.lights 'scene'): ${(error as Error).message}`, { cause: error });
      }
      this.crowdGeneration.set(crowd, this.generation);
    }
  }

  /** Fills `gathered` from the scene (no allocation). */
  private gather(scene: Object3D, camera: Camera): void {
    const g = this.gathered;
    g.fill(0);
    this.sun = undefined;
    this.sunLuminance = -1;
    this.walk(scene, camera);
    const sun = this.sun as LightLike | undefined;
    if (sun) {
      const intensity = nonNegative(sun.intensity);
      g[SUN] = nonNegative(sun.color.r) * intensity;
      g[SUN + 1] = nonNegative(sun.color.g) * intensity;
      g[SUN + 2] = nonNegative(sun.color.b) * intensity;
      // The way the light travels: from the light's world position to its target's (three's lightTargetDirection).
      const from = sun.matrixWorld.elements;
      const to = sun.target ? sun.target.matrixWorld.elements : undefined;
      const x = (to ? to[12] : 0) - from[12], y = (to ? to[13] : 0) - from[13], z = (to ? to[14] : 0) - from[14];
      const length = Math.hypot(x, y, z);
      if (length > 0 && Number.isFinite(length)) {
        g[SUN_DIRECTION] = x / length; g[SUN_DIRECTION + 1] = y / length; g[SUN_DIRECTION + 2] = z / length;
      } else {
        setDefaultDirection(g);
      }
    } else {
      setDefaultDirection(g);
    }
    const environment = (scene as SceneLike).isScene ? (scene as SceneLike).environment ?? null : null;
    g[ENVIRONMENT_INTENSITY] = environment ? nonNegative((scene as SceneLike).environmentIntensity ?? 1) : 0;
    this.convertEnvironment(environment);
  }

  /** Adds `object`'s lights and its visible children's (three's StandardDrawingPipeline.project rules). */
  private walk(object: Object3D, camera: Camera): void {
    if (object.visible === false) return;
    const light = object as LightLike;
    if (light.isLight && object.layers.test(camera.layers)) {
      const g = this.gathered;
      const intensity = nonNegative(light.intensity);
      if (light.isDirectionalLight) {
        const luminance = (0.2126 * nonNegative(light.color.r) + 0.7152 * nonNegative(light.color.g) + 0.0722 * nonNegative(light.color.b)) * intensity;
        if (luminance > this.sunLuminance) {
          this.sun = light;
          this.sunLuminance = luminance;
        }
      } else if (light.isAmbientLight) {
        addColor(g, SKY, light.color, intensity);
        addColor(g, GROUND, light.color, intensity);
      } else if (light.isHemisphereLight && light.groundColor) {
        addColor(g, SKY, light.color, intensity);
        addColor(g, GROUND, light.groundColor, intensity);
      }
    }
    const children = object.children;
    for (let i = 0; i < children.length; i++) this.walk(children[i], camera);
  }

  /** Converts `texture` to an environment image when it or its version changed (an event). */
  private convertEnvironment(texture: Texture | null): void {
    if (texture === this.environmentTexture && (!texture || texture.version === this.environmentVersion)) return;
    this.environmentTexture = texture;
    this.environmentVersion = texture ? texture.version : -1;
    this.environmentImage = texture ? this.environmentImageOf(texture) : undefined;
    this.environmentChanged = true;
  }

  private fillOptions(): void {
    const g = this.applied;
    const { sun, hemisphere } = this.options;
    copy3(g, SUN_DIRECTION, sun.direction);
    copy3(g, SUN, sun.color);
    copy3(g, SKY, hemisphere.sky);
    copy3(g, GROUND, hemisphere.ground);
    if (this.environmentImage) {
      this.environmentOptions.image = this.environmentImage;
      this.environmentOptions.intensity = g[ENVIRONMENT_INTENSITY];
      this.options.environment = this.environmentOptions;
    } else {
      this.options.environment = false;
    }
  }

  /** `texture`'s pixels as an equirectangular environment image (rows top = up), or undefined when they are not on the CPU. */
  private environmentImageOf(texture: Texture): EnvironmentData | ImageData | undefined {
    const t = texture as Texture & { isCubeTexture?: boolean; isPMREMTexture?: boolean; isRenderTargetTexture?: boolean };
    const image = t.image as { width?: number; height?: number; data?: ArrayBufferView | null } | null | undefined;
    if (t.isCubeTexture || t.isPMREMTexture || t.isRenderTargetTexture) {
      return this.warn(texture, `scene.environment is a ${t.isCubeTexture ? 'cube texture' : 'render target\'s texture (a PMREM?)'}, whose pixels are on the GPU only; crowds with shading 'crowd' ` +
        'take an equirectangular image (a DataTexture, or an image texture): they are lit without this environment. Give them one with crowd.setLights ' +
        "on a ThreeCrowdRenderer made with { lights: 'own' }, or use shading 'three'");
    }
    if (!image || !image.width || !image.height) return undefined; // not loaded yet: texture.version changes when it is
    if (image.data) return this.dataImage(texture, image as { width: number; height: number; data: ArrayBufferView });
    return this.browserImage(texture, image as unknown as CanvasImageSource & { width: number; height: number });
  }

  /** A DataTexture's RGBA float, half float or 8-bit texels as linear floats, rows top (up) first. */
  private dataImage(texture: Texture, image: { width: number; height: number; data: ArrayBufferView }): EnvironmentData | undefined {
    const { width, height, data: source } = image;
    const kind = texture.type === FloatType && source instanceof Float32Array ? 'float'
      : texture.type === HalfFloatType && source instanceof Uint16Array ? 'half'
        : texture.type === UnsignedByteType && source instanceof Uint8Array ? 'byte' : undefined;
    if (texture.format !== RGBAFormat || !kind || (source as unknown as ArrayLike<number>).length !== width * height * 4) {
      return this.warn(texture, `scene.environment is a DataTexture of format ${texture.format} and type ${texture.type} (${source.constructor.name}); crowds with shading 'crowd' ` +
        'read RGBAFormat textures of FloatType, HalfFloatType or UnsignedByteType, width x height x 4 values: they are lit without this environment');
    }
    const srgb = kind === 'byte' && texture.colorSpace === SRGBColorSpace;
    const data = new Float32Array(width * height * 4);
    const row = width * 4;
    for (let y = 0; y < height; y++) {
      // Texture rows go up from v = 0 unless flipY; EnvironmentData's go down from the top.
      const from = (texture.flipY ? y : height - 1 - y) * row;
      for (let i = 0; i < row; i++) {
        const raw = kind === 'float' ? (source as Float32Array)[from + i] : kind === 'half' ? DataUtils.fromHalfFloat((source as Uint16Array)[from + i]) : (source as Uint8Array)[from + i] / 255;
        const linear = srgb && (i & 3) !== 3 ? srgbToLinear(raw) : raw;
        data[y * row + i] = linear >= 0 ? Math.min(linear, HALF_MAX) : 0; // NaN and negatives to 0
      }
    }
    return { width, height, data };
  }

  /** An image texture read through a 2D canvas: ImageData when sRGB (how setLights takes 8-bit pictures), else linear floats. */
  private browserImage(texture: Texture, image: CanvasImageSource & { width: number; height: number }): EnvironmentData | ImageData | undefined {
    if (typeof document === 'undefined' && typeof OffscreenCanvas === 'undefined') return this.warn(texture, 'scene.environment is an image texture, and there is no canvas here to read it');
    if ((image as HTMLImageElement).complete === false) return undefined; // still loading: three bumps texture.version when it is loaded
    const { width, height } = image;
    const canvas = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(width, height) : Object.assign(document.createElement('canvas'), { width, height });
    const context = canvas.getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
    if (!context) return this.warn(texture, 'scene.environment is an image texture, and no 2D canvas context could be made to read it');
    if (!texture.flipY) {
      // Row 0 of the image is v = 0 (down) then: draw it upside down so the top row is up.
      context.translate(0, height);
      context.scale(1, -1);
    }
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, width, height);
    if (texture.colorSpace === SRGBColorSpace) return pixels;
    return { width, height, data: Float32Array.from(pixels.data, (v) => v / 255) };
  }

  private warn(texture: Texture, message: string): undefined {
    if (!this.warned.has(texture)) {
      this.warned.add(texture);
      console.warn(`${PREFIX}: ${message}`);
    }
    return undefined;
  }
}

function sameNumbers(a: Float32Array, b: Float32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `value` if it is a finite number above 0, else 0 (setLights refuses negatives; three does not). */
function nonNegative(value: number): number {
  return value > 0 && Number.isFinite(value) ? value : 0;
}

function addColor(into: Float32Array, at: number, color: { r: number; g: number; b: number }, intensity: number): void {
  into[at] += nonNegative(color.r) * intensity;
  into[at + 1] += nonNegative(color.g) * intensity;
  into[at + 2] += nonNegative(color.b) * intensity;
}

function setDefaultDirection(g: Float32Array): void {
  for (let i = 0; i < 3; i++) g[SUN_DIRECTION + i] = NO_SUN_DIRECTION[i];
}

function copy3(from: Float32Array, at: number, into: [number, number, number]): void {
  into[0] = from[at]; into[1] = from[at + 1]; into[2] = from[at + 2];
}

function srgbToLinear(c: number): number {
  return c < 0.04045 ? c * 0.0773993808 : Math.pow(c * 0.9478672986 + 0.0521327014, 2.4);
}
