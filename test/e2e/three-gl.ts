/**
 * crowd-skin/three on three's WebGL 2 backend, checked on three.test.ts's page of examples/three
 * without navigator.gpu (issues 37 and 38): per-instance appearance against the WebGPU page's
 * picture, a finite paletteSize, a KTX2 base colour against its PNG original, and the crowd back
 * after a lost context. Each case drives window.threeExample (main.js) and compares screenshots
 * of one Fox standing where three-depth.ts's arrange puts it (the other 99 far behind the camera,
 * frozen by three.test.ts's WebGL 2 case).
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Character } from '../../src/index';
import type { ThreeCrowdRenderer } from '../../src/three/index';
import { drawing } from './held-frames';
import { differenceMask, erode, maskCount, meanDifference, shareChangedIn, unionMask, type Image } from './pixels';
import { arrange, type ThreeExample } from './three-depth';

/**
 * The WebGPU page's Fox and the scene without it, and the WebGL 2 page's Fox (Walk at 0.3 s,
 * frozen), from three.test.ts's WebGL 2 case; the WebGL 2 page's Fox with its appearance (tinted,
 * its variant, every part shown), from the appearance case.
 */
export interface GLPictures { gpuFox: Image; gpuEmpty: Image; glFox: Image; glLook?: Image }

/** What a case gets: the WebGPU page, the WebGL 2 page (its problems collected), their pictures, and the screenshot taker. */
export interface GLCase {
  page: Promise<{ page: Page; problems: string[] }>;
  gl: { page: Page; problems: string[] };
  pictures: GLPictures;
  shot(page: Page, name: string): Promise<Image>;
}

/** The example's window.threeExample with what these cases read. */
type Example = ThreeExample & { scene: { add(o: unknown): void; remove(o: unknown): void }; crowds: ThreeCrowdRenderer; restored: number; look?: unknown };

/** Where the page imports crowd-skin from: the file the example's 'crowd-skin' maps to (vite.config.ts), so it is the same module. */
const API = `/@fs${fileURLToPath(new URL('../../src/index.ts', import.meta.url))}`;

/** The WebGL 2 page's console problems but three's one warning about its fallback and its error on the lost context. */
const glProblems = (problems: string[]) => problems.filter((p) => !/WebGPU is not available, running under WebGL2 backend|WebGL Device Lost/.test(p));

/** The Fox under test (ids[0]) here or away, screenshot two frames later (the page draws only for them: three.test.ts holds its frames). */
const picture = (c: GLCase, page: Page, name: string, fox: 'here' | 'away' = 'here') => drawing(page, () => arrange(page, (n) => c.shot(page, n), name, { fox, box: 'hidden' }));

/**
 * The example's crowd given CrowdAppearance (one variant image) on both pages, the Fox tinted and
 * showing the variant: the WebGL 2 picture is the WebGPU one within three.test.ts's tolerances;
 * then, on WebGL 2, its parts mask 0 hides it and its shadow. Leaves the Fox tinted, every part shown.
 */
export async function expectAppearanceAsWebGPU(c: GLCase): Promise<void> {
  void ktx2Files().catch(() => {}); // made in Node while the pages draw (awaited, and any error thrown, by the KTX2 case)
  const { page } = await c.page;
  const gl = c.gl.page, { gpuFox, gpuEmpty, glFox } = c.pictures;
  const look = (on: Page, parts: 'all' | 'none') => on.evaluate(async ({ api, parts }) => {
    const example = (window as unknown as { threeExample: Example }).threeExample;
    const { CrowdAppearance } = await (new Function('u', 'return import(u)'))(api) as typeof import('../../src/index');
    // One variant: a 2 x 2 image of one colour (sRGB), on the Fox's textured primitive.
    const variant = { width: 2, height: 2, data: new Uint8Array(16).map((_, i) => [90, 200, 230, 255][i % 4]) };
    const appearance = (example.look ??= new CrowdAppearance(example.crowd, { variants: [variant] })) as InstanceType<typeof CrowdAppearance>;
    appearance.set(example.ids[0], { tint: [1, 0.6, 0.4], variant: 1, parts: parts === 'all' ? appearance.allParts : 0 });
  }, { api: API, parts });
  // The two pages at once (their shaders are made anew for the appearance: the case's cost).
  await Promise.all([look(page, 'all'), look(gl, 'all')]);
  const [gpuLook, glLook] = await Promise.all([picture(c, page, 'webgpu-look'), picture(c, gl, 'webgl2-look')]);
  c.pictures.glLook = glLook;
  await look(gl, 'none');
  const glHidden = await picture(c, gl, 'webgl2-look-hidden');
  await look(gl, 'all');
  const fox = differenceMask(gpuFox, gpuEmpty);
  const changed = shareChangedIn(glLook, glFox, erode(fox));
  const view = meanDifference(glLook, gpuLook), onFox = meanDifference(glLook, gpuLook, fox), hidden = meanDifference(glHidden, gpuEmpty, fox);
  console.log(`three on WebGL 2, appearance: the look changes ${(changed * 100).toFixed(1)}% of the Fox; mean difference to WebGPU's ${view.toFixed(3)}/255 ` +
    `over the view, ${onFox.toFixed(2)}/255 over the Fox; parts 0: ${hidden.toFixed(2)}/255 from the scene without the Fox`);
  expect(changed, 'the tint and variant do not change the Fox on WebGL 2').toBeGreaterThan(0.5);
  expect(view, 'the tinted WebGL 2 picture is not the WebGPU one (issue 37: 1/255 mean)').toBeLessThan(1);
  expect(onFox, 'the tinted Fox differs from WebGPU\'s').toBeLessThan(3);
  expect(hidden, 'parts 0 does not hide the Fox and its shadow').toBeLessThan(1);
  expect(glProblems(c.gl.problems)).toEqual([]);
}

/**
 * A second crowd of Foxes with paletteSize 1 on the WebGL 2 page: slot 0 far behind the camera,
 * slot 1 standing where the example's Fox stood, so the one joint set (0) is slot 1's: drawn with
 * its own pose, it is the example's Fox's picture (a draw that read the slot as its joint set
 * would show set 1, a shared pose of another clip).
 */
export async function expectPaletteSets(c: GLCase): Promise<void> {
  const gl = c.gl.page, { glFox, gpuFox, gpuEmpty } = c.pictures;
  const made = await gl.evaluate(() => {
    const example = (window as unknown as { threeExample: Example }).threeExample;
    const { crowds, crowd, lift, scale } = example;
    const palette = crowds.createCrowd(crowd.character as Character, { capacity: 2, paletteSize: 1 });
    const walk = { clipA: 'Walk', clipB: 'Walk', timeA: 0.3, timeB: 0.3, speedA: 0, speedB: 0, blend: 0 };
    palette.setPlacement(palette.add(walk), 0, lift, -100, 0, scale);
    palette.setPlacement(palette.add(walk), 0, lift, 14, Math.PI / 2, scale);
    example.scene.add(crowds.sceneObject(palette));
    Object.assign(example, { palette });
    return { active: (palette as unknown as { jointEntries?: unknown }).jointEntries !== undefined };
  });
  const shared = await picture(c, gl, 'webgl2-palette', 'away');
  const result = await gl.evaluate(() => {
    const example = (window as unknown as { threeExample: Example & { palette: ThreeExample['crowd'] } }).threeExample;
    const { crowds, palette } = example;
    const entries = Array.from((palette as unknown as { jointEntries: Uint32Array }).jointEntries.slice(0, 2));
    const visible = palette.cullStats?.visible;
    example.scene.remove(crowds.sceneObject(palette as never));
    crowds.removeCrowd(palette as never);
    return { entries, visible };
  });
  const fox = differenceMask(gpuFox, gpuEmpty);
  const onFox = meanDifference(shared, glFox, fox);
  console.log(`three on WebGL 2, paletteSize 1: entries ${JSON.stringify(result.entries)}, ${result.visible} visible; ${onFox.toFixed(3)}/255 from the example's Fox`);
  expect(made.active, 'the palette is not active (capacity 2, paletteSize 1)').toBe(true);
  expect(result.visible).toBe(1);
  expect(result.entries[1] & 0xffff, 'slot 1 holds the one joint set').toBe(0);
  expect(onFox, 'the Fox drawn from its palette set is not the Fox drawn from its own').toBeLessThan(0.5);
  expect(glProblems(c.gl.problems)).toEqual([]);
}

/**
 * CesiumMan with its texture as PNG and as UASTC KTX2 (gl-crowd.test.ts's files), each a crowd
 * drawn by three on the WebGL 2 page where the Fox stands, the KTX2 one through three's Basis
 * transcoder: the two pictures within the UASTC error (gl-crowd.test.ts's bound, 3/255).
 */
export async function expectKtx2AsPng(c: GLCase): Promise<void> {
  const gl = c.gl.page;
  const basis = `/@fs${fileURLToPath(new URL('../../node_modules/three/examples/jsm/libs/basis/basis_transcoder', import.meta.url))}`;
  const mimes = await gl.evaluate(async ({ api, basis, files }) => {
    const example = (window as unknown as { threeExample: Example }).threeExample;
    const crowdSkin = await (new Function('u', 'return import(u)'))(api) as typeof import('../../src/index');
    // three's Basis Universal transcoder, as docs/loading.md hands it in (a classic script defining BASIS).
    const BASIS = new Function(`${await (await fetch(`${basis}.js`)).text()}\nreturn BASIS;`)() as (o: { wasmBinary: ArrayBuffer }) => Promise<object>;
    const ktx2 = crowdSkin.ktx2Decoder(await BASIS({ wasmBinary: await (await fetch(`${basis}.wasm`)).arrayBuffer() }));
    const men = [];
    const characters = await Promise.all(files.map((file) => crowdSkin.loadCharacter(file, { decoders: { ktx2 } })));
    for (const [k, character] of characters.entries()) {
      const crowd = example.crowds.createCrowd(character, { capacity: 1 });
      const id = crowd.add({ clipA: 0, timeA: 0.4, speedA: 0, transform: [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, k === 0 ? 14 : -100, 1] });
      example.scene.add(example.crowds.sceneObject(crowd));
      men.push({ crowd, id, mime: character.rig.primitives[0].material.baseColorImage!.mimeType });
    }
    Object.assign(example, { men });
    return men.map((m) => m.mime);
  }, { api: API, basis, files: await ktx2Files() });
  /** Which man stands at 14 m (the other 100 m behind the camera), screenshot two frames later. */
  const man = async (k: 0 | 1) => {
    await gl.evaluate((k) => {
      const example = (window as unknown as { threeExample: Example & { men: { crowd: ThreeExample['crowd']; id: number }[] } }).threeExample;
      example.men.forEach(({ crowd, id }, i) => crowd.setTransform(id, [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, i === k ? 14 : -100, 1]));
    }, k);
    return picture(c, gl, `webgl2-cesium-${k === 0 ? 'png' : 'ktx2'}`, 'away');
  };
  const [pngMan, ktx2Man] = [await man(0), await man(1)];
  await gl.evaluate(() => {
    const example = (window as unknown as { threeExample: Example & { men: { crowd: ThreeExample['crowd'] }[] } }).threeExample;
    for (const { crowd } of example.men) {
      example.scene.remove(example.crowds.sceneObject(crowd as never));
      example.crowds.removeCrowd(crowd as never);
    }
  });
  const drawn = unionMask(differenceMask(pngMan, c.pictures.gpuEmpty), differenceMask(ktx2Man, c.pictures.gpuEmpty));
  const mean = meanDifference(ktx2Man, pngMan, drawn);
  console.log(`three on WebGL 2, KTX2: ${JSON.stringify(mimes)}, CesiumMan over ${maskCount(drawn)} px, ${mean.toFixed(2)}/255 from the PNG picture`);
  expect(mimes).toEqual(['image/png', 'image/ktx2']);
  expect(maskCount(drawn), 'CesiumMan is drawn').toBeGreaterThan(300);
  expect(mean, 'the KTX2 picture is not the PNG one').toBeLessThan(3);
  expect(glProblems(c.gl.problems)).toEqual([]);
}

let files: Promise<string[]> | undefined;
/** CesiumMan with its texture scaled to 64 x 64, as PNG and as UASTC KTX2 (gl-crowd.test.ts's files), as data URLs; made once. */
function ktx2Files(): Promise<string[]> {
  return files ??= (async () => {
    const { ktx2Compressed, smallTextures } = await import('../helpers/compress');
    const { modelPath } = await import('../helpers/models');
    const png = await smallTextures(modelPath('CesiumMan'), 64);
    const url = (file: ArrayBuffer) => `data:model/gltf-binary;base64,${Buffer.from(file).toString('base64')}`;
    return [url(png), url(await ktx2Compressed(png))];
  })();
}

/**
 * The WebGL 2 context lost and restored (WEBGL_lose_context): the example makes a new renderer on
 * the canvas and adopts the crowd (main.js), which comes back as it was, appearance included:
 * the picture after is the appearance case's (the cases between leave the Fox as they found it).
 */
export async function expectRestoredAfterLoss(c: GLCase): Promise<void> {
  const gl = c.gl.page, { gpuFox, gpuEmpty } = c.pictures;
  // The Fox as the appearance case left it (the cases between put it back), as the pictures after are taken.
  const before = c.pictures.glLook!;
  await gl.evaluate(async () => {
    const example = (window as unknown as { threeExample: Example }).threeExample;
    const canvas = example.crowds.gl!.canvas as HTMLCanvasElement;
    const lose = example.crowds.gl!.getExtension('WEBGL_lose_context')!;
    const lost = new Promise((resolve) => canvas.addEventListener('webglcontextlost', resolve, { once: true }));
    lose.loseContext();
    await lost;
    // After the event's dispatch (Chrome allows the restore once the listeners prevented the default).
    await new Promise((resolve) => setTimeout(resolve, 0));
    lose.restoreContext();
  });
  await drawing(gl, () => gl.waitForFunction(() => (window as unknown as { threeExample: Example }).threeExample.restored === 1, undefined, { timeout: 120_000, polling: 100 }));
  // The restore leaves no GL error (GLCrowd.restore lets the lost context's objects go rather than deleting them on the new one).
  expect(await gl.evaluate(() => (window as unknown as { threeExample: Example }).threeExample.crowds.gl!.getError()), 'a GL error after the restore').toBe(0);
  const after = await picture(c, gl, 'webgl2-after-loss');
  const state = await gl.evaluate(() => {
    const example = (window as unknown as { threeExample: Example }).threeExample;
    const refused = (crowd: unknown) => { try { example.crowds.adoptCrowd(crowd as never); return 'adopted'; } catch (error) { return (error as Error).message; } };
    const refusals = [refused(example.crowd), refused({ gl: example.crowds.gl })];
    return { backend: example.crowds.backend, count: example.crowd.count, error: example.crowds.gl!.getError(), refusals };
  });
  const fox = differenceMask(gpuFox, gpuEmpty);
  const view = meanDifference(after, before), onFox = meanDifference(after, before, fox);
  console.log(`three on WebGL 2, lost context: ${JSON.stringify(state)}; after restore ${view.toFixed(3)}/255 over the view, ${onFox.toFixed(3)}/255 over the Fox from before`);
  expect(state.refusals[0]).toMatch(/adoptCrowd: this crowd is drawn here already/);
  expect(state.refusals[1]).toMatch(/adoptCrowd: this GLCrowd was not made by a ThreeCrowdRenderer's createCrowd/);
  expect({ ...state, refusals: undefined }).toEqual({ backend: 'webgl2', count: 100, error: 0, refusals: undefined });
  expect(onFox, 'the Fox is not drawn as before the lost context').toBeLessThan(0.5);
  expect(view).toBeLessThan(0.1);
  expect(glProblems(c.gl.problems)).toEqual([]);
}
