/**
 * src/three/scene-lights.ts: on the CPU, a three.js scene's lights read into the LightOptions a
 * crowd with shading 'crowd' is given (stand-in crowds record their setLights calls), only when
 * they changed; then in Node on WebGPU, a ThreeCrowdRenderer with lights 'scene' draws the same
 * bytes as one with lights 'own' given those numbers by hand, frame after frame. The pictures of
 * both shadings under three's lights are test/e2e/three-lighting.test.ts's.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  AmbientLight, Color, CubeTexture, DataTexture, DirectionalLight, FloatType, Group, HalfFloatType, HemisphereLight,
  DataUtils, EquirectangularReflectionMapping, PerspectiveCamera, PointLight, RGBAFormat, RedFormat, Scene, SpotLight, WebGPURenderer,
} from 'three/webgpu';
import type { Crowd, EnvironmentData, LightOptions } from '../../src/index';
import { ThreeCrowdRenderer, type ThreeCrowdLights } from '../../src/three/index';
import { SceneLights } from '../../src/three/scene-lights';
import { startAllocationWatch } from '../helpers/allocations';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice } from '../helpers/gpu';

// three's renderer starts its frame clock with self.requestAnimationFrame, as in a browser or a worker.
Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });
const device = await openTestDevice();

/** What a stand-in crowd was given: the options deep-copied (they are reused), the environment image apart. */
type Given = Omit<LightOptions, 'environment'> & { environment: false | { intensity?: number; image: undefined } };

/** A crowd that records the lights it is given; its last environment image is in lastImage. */
function standInCrowd(): { crowd: Crowd; calls: Given[] } {
  const calls: Given[] = [];
  const crowd = {
    setLights(options: LightOptions) {
      const { environment, ...rest } = options;
      calls.push(structuredClone({ ...rest, environment: environment ? { intensity: environment.intensity, image: undefined } : false }));
      lastImage.set(crowd, environment ? environment.image : undefined);
    },
  } as unknown as Crowd;
  return { crowd, calls };
}
const lastImage = new Map<Crowd, unknown>();
const NONE = new Set<Crowd>();

function camera(): PerspectiveCamera {
  const c = new PerspectiveCamera();
  c.updateMatrixWorld();
  return c;
}

/** `scene`'s world matrices updated, as three's render does before the bridge reads them. */
function update(lights: SceneLights, scene: Scene, crowds: Crowd[], skip: Set<Crowd> = NONE, seen = camera()): void {
  scene.updateMatrixWorld();
  lights.update(scene, seen, crowds, skip);
}

const rgb = (c: Color, s: number) => [c.r * s, c.g * s, c.b * s];

describe('SceneLights: three.js lights -> crowd.setLights', () => {
  it('maps the sun (colour x intensity, position -> target), the ambient and hemisphere lights (summed) in three\'s units', () => {
    const scene = new Scene();
    const sun = new DirectionalLight(0xffeedd, 2.5);
    sun.position.set(1, 3, 2);
    sun.target.position.set(0, 1, 0);
    scene.add(sun, sun.target, new AmbientLight(0x404040, 0.5), new HemisphereLight(0x8899ff, 0x443322, 1.5), new HemisphereLight(0xffffff, 0x000000, 0.25));
    const { crowd, calls } = standInCrowd();
    update(new SceneLights(), scene, [crowd]);
    expect(calls).toHaveLength(1);
    const got = calls[0];
    const length = Math.hypot(1, 2, 2);
    expect(got.sun!.direction![0]).toBeCloseTo(-1 / length, 6);
    expect(got.sun!.direction![1]).toBeCloseTo(-2 / length, 6);
    expect(got.sun!.direction![2]).toBeCloseTo(-2 / length, 6);
    // Colours are three's linear working-space values (0xffeedd is sRGB hex, converted by Color).
    const sunColour = rgb(new Color(0xffeedd), 2.5);
    got.sun!.color!.forEach((v, i) => expect(v).toBeCloseTo(sunColour[i], 5));
    expect(got.sun!.intensity).toBe(1);
    expect(got.ambient).toBe(false);
    const ambient = rgb(new Color(0x404040), 0.5);
    const sky = rgb(new Color(0x8899ff), 1.5).map((v, i) => v + ambient[i] + 0.25);
    const ground = rgb(new Color(0x443322), 1.5).map((v, i) => v + ambient[i]);
    got.hemisphere!.sky!.forEach((v, i) => expect(v).toBeCloseTo(sky[i], 5));
    got.hemisphere!.ground!.forEach((v, i) => expect(v).toBeCloseTo(ground[i], 5));
    expect(got.environment).toBe(false);
  });

  it('takes the strongest DirectionalLight as the sun; ignores point and spot lights, invisible lights, lights under an invisible parent and lights on layers the camera does not see', () => {
    const scene = new Scene();
    const weak = new DirectionalLight(0xffffff, 1);
    const red = new DirectionalLight(0xff0000, 4); // brighter in red, but luminance 0.2126 x 4 = 0.85
    const strongest = new DirectionalLight(0xffffff, 3);
    strongest.position.set(0, 1, 0);
    const hidden = new DirectionalLight(0xffffff, 100);
    hidden.visible = false;
    const parent = new Group();
    parent.visible = false;
    parent.add(new AmbientLight(0xffffff, 100));
    const otherLayer = new AmbientLight(0xffffff, 100);
    otherLayer.layers.set(3);
    scene.add(weak, red, strongest, hidden, parent, otherLayer, new PointLight(0xffffff, 100), new SpotLight(0xffffff, 100));
    const { crowd, calls } = standInCrowd();
    update(new SceneLights(), scene, [crowd]);
    expect(calls[0].sun!.color).toEqual([3, 3, 3]);
    expect(calls[0].sun!.direction).toEqual([0, -1, 0]);
    expect(calls[0].hemisphere!.sky).toEqual([0, 0, 0]);
    expect(calls[0].hemisphere!.ground).toEqual([0, 0, 0]);
    // The layer becomes visible to a camera that enables it.
    const wide = camera();
    wide.layers.enable(3);
    update(new SceneLights(), scene, [crowd], NONE, wide);
    expect(calls[1].hemisphere!.sky).toEqual([100, 100, 100]);
  });

  it('a scene without lights gives black lights (as three draws its own meshes), and a usable sun direction', () => {
    const { crowd, calls } = standInCrowd();
    update(new SceneLights(), new Scene(), [crowd]);
    expect(calls[0].sun!.color).toEqual([0, 0, 0]);
    expect(Math.hypot(...calls[0].sun!.direction!)).toBeCloseTo(1, 6);
    expect(calls[0].hemisphere!.sky).toEqual([0, 0, 0]);
  });

  it('calls setLights only when the lights change, once per crowd, never for the crowds three draws, and allocates nothing while they stay', () => {
    const scene = new Scene();
    const sun = new DirectionalLight(0xffffff, 2);
    scene.add(sun);
    const lights = new SceneLights();
    const a = standInCrowd(), b = standInCrowd(), shaded = standInCrowd();
    const skip = new Set([shaded.crowd]);
    update(lights, scene, [a.crowd, shaded.crowd], skip);
    update(lights, scene, [a.crowd, shaded.crowd], skip);
    expect(a.calls).toHaveLength(1);
    expect(shaded.calls).toHaveLength(0);
    // A crowd made later gets the current lights once.
    update(lights, scene, [a.crowd, b.crowd, shaded.crowd], skip);
    expect([a.calls.length, b.calls.length]).toEqual([1, 1]);
    const watch = startAllocationWatch();
    try {
      for (let i = 0; i < 10; i++) lights.update(scene, camera(), [a.crowd, b.crowd, shaded.crowd], skip);
    } finally {
      watch.stop();
    }
    expect(watch.count, 'typed arrays made by updates of a still scene').toBe(0);
    expect(a.calls).toHaveLength(1);
    sun.intensity = 3;
    update(lights, scene, [a.crowd, b.crowd], skip);
    expect([a.calls.length, b.calls.length]).toEqual([2, 2]);
    expect(a.calls[1].sun!.color).toEqual([3, 3, 3]);
    sun.position.set(1, 0, 0);
    update(lights, scene, [a.crowd], skip);
    expect(a.calls[2].sun!.direction).toEqual([-1, 0, 0]);
  });

  it('scene.environment: an equirectangular float or half-float DataTexture becomes lights.environment (rows top = up, x environmentIntensity), converted once per texture version', () => {
    // 1 x 2 texels: v = 0 (bottom row, three's DataTexture row 0) is red, v = 1 (top) is blue.
    const texels = new Float32Array([1, 0, 0, 1, 0, 0, 70000, 1]);
    const texture = new DataTexture(texels, 1, 2, RGBAFormat, FloatType);
    texture.mapping = EquirectangularReflectionMapping;
    texture.needsUpdate = true;
    const scene = new Scene();
    scene.environment = texture;
    scene.environmentIntensity = 0.7;
    const lights = new SceneLights();
    const { crowd, calls } = standInCrowd();
    update(lights, scene, [crowd]);
    expect(calls[0].environment).toEqual({ intensity: expect.closeTo(0.7, 6) as unknown as number, image: undefined });
    const image = lastImage.get(crowd) as EnvironmentData;
    // Top row first (blue, clamped into the half-float range), then the bottom (red).
    expect(Array.from(image.data)).toEqual([0, 0, 65503, 1, 1, 0, 0, 1]);
    // The same texture: the same image object (setLights keeps the prefiltered map for it).
    scene.environmentIntensity = 0.5;
    update(lights, scene, [crowd]);
    expect(calls).toHaveLength(2);
    expect(lastImage.get(crowd)).toBe(image);
    texels[0] = 2;
    texture.needsUpdate = true;
    update(lights, scene, [crowd]);
    expect(calls).toHaveLength(3);
    expect(lastImage.get(crowd)).not.toBe(image);
    expect((lastImage.get(crowd) as EnvironmentData).data[4]).toBe(2);

    const half = new DataTexture(new Uint16Array([0.25, 0.5, 0.75, 1, 2, 3, 4, 1].map((v) => DataUtils.toHalfFloat(v))), 1, 2, RGBAFormat, HalfFloatType);
    half.flipY = true; // row 0 is the top then
    half.needsUpdate = true;
    scene.environment = half;
    update(lights, scene, [crowd]);
    expect(Array.from((lastImage.get(crowd) as EnvironmentData).data)).toEqual([0.25, 0.5, 0.75, 1, 2, 3, 4, 1]);
    scene.environment = null;
    update(lights, scene, [crowd]);
    expect(calls.at(-1)!.environment).toBe(false);
  });

  it('scene.environment that lives on the GPU or in another format: lit without it, one warning per texture', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const scene = new Scene();
      const lights = new SceneLights();
      const { crowd, calls } = standInCrowd();
      scene.environment = new CubeTexture();
      update(lights, scene, [crowd]);
      update(lights, scene, [crowd]);
      expect(calls[0].environment).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/cube texture.*pixels are on the GPU only.*lights: 'own'/);
      const red = new DataTexture(new Float32Array(4), 2, 2, RedFormat, FloatType);
      red.needsUpdate = true;
      scene.environment = red;
      update(lights, scene, [crowd]);
      expect(calls.at(-1)!.environment).toBe(false);
      expect(String(warn.mock.calls[1][0])).toMatch(/DataTexture of format .* read RGBAFormat textures/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe.skipIf(!device)("ThreeCrowdRenderer, lights 'scene', in Node (WebGPU)", () => {
  const WIDTH = 96, HEIGHT = 64;
  const canvas = () => ({ width: WIDTH, height: HEIGHT, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} }) as unknown as HTMLCanvasElement;

  /** A ThreeCrowdRenderer with `lights`, and a crowd of one Fox, 0.8 m tall, side-on at the origin, at Walk 0.3 s. */
  async function foxCrowd(lights: ThreeCrowdLights) {
    const renderer = new WebGPURenderer({ device: device as never, canvas: canvas() });
    await renderer.init();
    renderer.setSize(WIDTH, HEIGHT, false);
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu', lights });
    const fox = await testCharacter('Fox');
    const crowd = crowds.createCrowd(fox, { capacity: 1 });
    const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
    crowd.setPlacement(crowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 }), 0, -fox.bounds.min[1] * scale, 0, Math.PI / 2, scale);
    crowd.update(0);
    return { crowds, crowd };
  }

  async function picture(crowds: ThreeCrowdRenderer<'webgpu'>, scene: Scene, seen: PerspectiveCamera): Promise<number[]> {
    await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, seen));
    const { width, height } = crowds.target;
    return Array.from(await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, width, height) as Uint8Array);
  }

  it("draws what crowd.setLights with the scene's numbers draws, each frame: a sun moved (no matrix update of ours) and a hemisphere light", async () => {
    const scene = new Scene();
    const sun = new DirectionalLight(0xffccaa, 2);
    sun.position.set(1, 2, 3);
    const sky = new HemisphereLight(0x8899ff, 0x443322, 0.8);
    scene.add(sun, sky);
    const seen = new PerspectiveCamera(40, WIDTH / HEIGHT, 0.1, 50);
    seen.position.set(0, 0.35, 2.2);
    seen.lookAt(0, 0.35, 0);
    const bySceneLights = await foxCrowd('scene');
    const byHand = await foxCrowd('own');
    const empty = new Scene();
    const ownDefault = await picture(byHand.crowds, empty, seen);
    const handLights = (direction: [number, number, number]): LightOptions => ({
      sun: { direction, color: [sun.color.r, sun.color.g, sun.color.b], intensity: 2 },
      ambient: false,
      hemisphere: { sky: [sky.color.r, sky.color.g, sky.color.b], ground: [sky.groundColor.r, sky.groundColor.g, sky.groundColor.b], intensity: 0.8 },
    });

    const first = await picture(bySceneLights.crowds, scene, seen);
    byHand.crowd.setLights(handLights([-1, -2, -3]));
    expect(first.join(), "lights 'scene' vs the same lights by hand").toBe((await picture(byHand.crowds, empty, seen)).join());
    expect(first.join(), 'the default lights draw the same picture: the check cannot tell').not.toBe(ownDefault.join());

    sun.position.set(-3, 2, 1); // three's render updates its world matrix; the bridge reads it after
    const moved = await picture(bySceneLights.crowds, scene, seen);
    byHand.crowd.setLights(handLights([3, -2, -1]));
    expect(moved.join(), 'the sun moved: lights by hand').toBe((await picture(byHand.crowds, empty, seen)).join());
    expect(moved.join(), 'moving the sun changed nothing').not.toBe(first.join());
    bySceneLights.crowds.dispose();
    byHand.crowds.dispose();
  });

  it("refuses createCrowd's own lights while the scene's are taken, and a lights mode it does not know", async () => {
    const { crowds, crowd } = await foxCrowd('scene');
    expect(() => crowds.createCrowd(crowd.character, { lights: {} })).toThrow(/options.lights would be replaced by the scene's lights.*\{ lights: 'own' \}/);
    expect(() => new ThreeCrowdRenderer(crowds.renderer, { backend: 'webgpu', lights: 'three' as 'own' })).toThrow(/lights must be 'scene' or 'own', got three/);
    crowds.dispose();
  });
});
