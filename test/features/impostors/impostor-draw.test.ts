import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdAppearance } from '../../../src/features/appearance/crowd-appearance';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../../src/features/impostors/impostor-atlas';
import { atlasGrid, bakedClips } from '../../../src/features/impostors/impostor-box';
import { distanceForPixels, projectionScale } from '../../../src/runtime/culling/cull-math';
import { Crowd } from '../../../src/runtime/crowd';
import { loadCharacter } from '../../../src/character/character';
import { PNG } from 'pngjs';
import { featureModelUrl, NORMAL_MAPPED } from '../../e2e/materials/feature-model';
import { arrayBufferOf, assetToGlb, GltfBuilder, translationMatrix } from '../../helpers/gltf-builder';
import { testCharacter } from '../../helpers/character';
import { gpuSuite } from '../../helpers/gpu-suite';
import { lookAt, renderCrowd } from '../../helpers/render';
import { mannequinTexture } from '../../../tools/mannequin/build';

const TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
// The field of view that puts the camera as far from the character at the switch as a 1080-pixel
// view with a 0.9 rad field of view does (cot(FOV / 2) x 128 = cot(0.45) x 1080): perspective
// across the character as in a real scene, not as in a 128-pixel view with a wide lens.
const SIZE = 128;
const FOV = 2 * Math.atan(Math.tan(0.45) * SIZE / 1080);
// The defaults (8 azimuths 45 degrees apart, 3 elevation rows, 80-texel cells each framing the
// box's projection, the switch at 40 pixels: half the cell) but 4 frames a clip (the frame shown
// is the baked frame nearest the clip's time: the tested times are baked frames at 4 as at 16).
const OPTIONS = { frames: 4 };

/**
 * Two images of one character against the black clear colour, `b` the mesh's: the mean absolute
 * difference (0..255, channels averaged) over the pixels both cover (`inside`: shading), over the
 * pixels either covers (`union`), over the pixels `b` covers (`mesh`: the character's pixels, each
 * with its full difference, background where `a` leaves it), and the fraction of the pixels either
 * covers that only one does (`outline`: shape).
 */
function compare(a: Uint8Array, b: Uint8Array): { inside: number; outline: number; pixels: number; union: number; mesh: number } {
  let sum = 0, both = 0, one = 0, edge = 0, onMesh = 0, meshPixels = 0;
  for (let i = 0; i < a.length; i += 4) {
    const ca = a[i] + a[i + 1] + a[i + 2] > 0, cb = b[i] + b[i + 1] + b[i + 2] > 0;
    const d = (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2])) / 3;
    if (cb) {
      meshPixels++;
      onMesh += d;
    }
    if (ca && cb) {
      both++;
      sum += d;
    } else if (ca || cb) {
      one++;
      edge += d;
    }
  }
  // union: the mean over every pixel either covers, a pixel only one covers against the black clear colour.
  return { inside: sum / Math.max(both, 1), outline: one / Math.max(both + one, 1), pixels: both + one, union: (sum + edge) / Math.max(both + one, 1), mesh: onMesh / Math.max(meshPixels, 1) };
}

/**
 * The most the impostor may differ from the mesh over the union of their outlines, /255 (a pixel
 * only one draws counts as its full difference: the outline's pixels weigh heavily at a Fox of
 * about 140 pixels): measured UNION_HERE on Dawn's SwiftShader. The measure, over the
 * character's (the mesh's) pixels, is held at 8.
 */
const UNION_LIMIT = 10;
/**
 * The most over the union half way between two view cells: measured UNION_BETWEEN (the parallax
 * march and the other cell's fallback draw a little outside the mesh's outline).
 */
const UNION_LIMIT_BETWEEN = 25;

/** Whether the impostor half way between two view cells matches the mesh: the 8 over the mesh's pixels, the union within UNION_LIMIT_BETWEEN. */
function matchesBetween(a: Uint8Array, b: Uint8Array): boolean {
  const c = compare(a, b);
  return c.mesh <= 8 && c.union <= UNION_LIMIT_BETWEEN && c.inside <= 8 && c.outline <= 0.1;
}

/** Whether two images of the character match as the impostor must match the mesh at the switch: over the union, and inside alone. */
function matches(a: Uint8Array, b: Uint8Array): boolean {
  const c = compare(a, b);
  return c.union <= UNION_LIMIT && c.inside <= 8 && c.outline <= 0.1;
}

/**
 * Whether two images of the Mannequin show the same look (the looks test): inside at most 8 and
 * at most 6% outline, no union bound. Its limbs a few pixels wide make the outline a large share
 * (2.6 to 2.8% since the draw marches each pixel's own perspective ray, 10.1% before: union 6.2
 * against 20.9): the look's variant and parts, not the outline's last pixel, are what it checks
 * (the variant ignored: 41.7/255 inside; the parts ignored: 11.0% outline, 16.5% before).
 */
function sameLook(a: Uint8Array, b: Uint8Array): boolean {
  const c = compare(a, b);
  return c.inside <= 8 && c.outline <= 0.06;
}

/**
 * A glTF (the materials test's feature character, edited) loaded with its PNG images decoded:
 * Node has no createImageBitmap (the loader decodes no PNG there), so each is decoded here and
 * handed to the crowd as a decoded (KTX2-path) image uploads its texels.
 */
async function loadDecoded(json: unknown): Promise<Character> {
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  const character = await loadCharacter(bytes.buffer as ArrayBuffer);
  for (const p of character.rig.primitives) {
    const m = p.material;
    for (const image of [m.baseColorImage, m.normalImage, m.occlusionImage, m.emissiveImage]) {
      if (!image || image.ktx2) continue;
      const png = PNG.sync.read(Buffer.from(image.bytes));
      const rgba = new Uint8Array(png.data);
      image.ktx2 = {
        width: png.width, height: png.height, rgba: [rgba], blocks: () => undefined, uploadGL: () => undefined,
        upload: (d: GPUDevice, format: GPUTextureFormat, label: string) => {
          const levels = Math.floor(Math.log2(Math.max(png.width, png.height))) + 1;
          const texture = d.createTexture({ label, size: [png.width, png.height], format, mipLevelCount: levels, usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT });
          d.queue.writeTexture({ texture }, rgba, { bytesPerRow: png.width * 4 }, [png.width, png.height]);
          return { texture, bytes: rgba.length, needsMipmaps: true };
        },
      };
    }
  }
  return character;
}

/** drawFacing's atlas: small enough for SwiftShader, cells large enough for the quads' details. */
const FACING = { frames: 2, azimuths: 4, elevations: 1, cellSize: 128 };

/**
 * `character` drawn just past the switch seen from view 0 (azimuth 0, +z), FACING's atlas, `samples`
 * a pixel (1 or 4): as impostors, then (`mesh`) as meshes; with `mesh` 'only', as meshes alone
 * from the same camera, no atlas baked (a made-up violation's reference).
 */
async function drawFacing(device: GPUDevice, character: Character, mesh: boolean | 'only', samples = 1): Promise<Uint8Array[]> {
  const crowd = new Crowd(device, character, { ...TARGETS, sampleCount: samples });
  // The camera from the atlas's box and switch, as CrowdImpostors lays them out (impostor-box.ts atlasGrid).
  const grid = atlasGrid(crowd, FACING, bakedClips(character, undefined), []);
  const impostors = mesh === 'only' ? undefined : new CrowdImpostors(crowd, FACING);
  crowd.add();
  const { centre, radius } = boxSphere(grid.box);
  const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
  const d = 1.02 * distanceForPixels(2 * radius, grid.switchPixels, projectionScale(probe.viewProjection), SIZE);
  const eye: [number, number, number] = [centre[0], centre[1], centre[2] + d];
  const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
  const images: Uint8Array[] = [];
  for (const on of mesh === 'only' ? [false] : mesh ? [true, false] : [true]) {
    if (impostors) impostors.enabled = on;
    crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
    crowd.update(0);
    images.push(await renderCrowd(device, crowd, viewProjection, SIZE, samples));
    if (on) expect((await crowd.readCullStats()).perLevel.at(-1)).toBe(1);
  }
  crowd.destroy();
  return images;
}

/** A quad of a quads character: its corners (x0, y0) to (x1, y1) at depth z, facing +z, and its material's index. */
type Quad = [x0: number, y0: number, x1: number, y1: number, z: number, material: number];

/** A character of quads facing +z (one joint, a clip that holds it still) with `materials` (glTF JSON). */
async function quadsCharacter(quads: Quad[], materials: object[], extensions: string[] = []): Promise<Character> {
  const b = new GltfBuilder();
  const primitive = ([x0, y0, x1, y1, z, material]: Quad) => ({
    attributes: {
      POSITION: b.addAccessor('VEC3', Float32Array.of(x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z)),
      JOINTS_0: b.addAccessor('VEC4', new Uint8Array(16)),
      WEIGHTS_0: b.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)),
    },
    indices: b.addAccessor('SCALAR', Uint16Array.of(0, 1, 2, 0, 2, 3)), material,
  });
  b.json.nodes.push({ name: 'root' }, { name: 'body', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 1] }];
  b.json.meshes = [{ primitives: quads.map(primitive) }];
  b.json.materials = materials;
  b.json.extensionsUsed = ['KHR_materials_unlit', ...extensions];
  b.json.skins = [{ joints: [0], inverseBindMatrices: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0))) }];
  b.json.animations = [{
    name: 'still', channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
    samplers: [{ input: b.addAccessor('SCALAR', Float32Array.of(0, 1)), output: b.addAccessor('VEC4', Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1)), interpolation: 'LINEAR' }],
  }];
  return loadCharacter(arrayBufferOf(assetToGlb(b.build())));
}

/** The materials test's sphere with an occlusion map: its primitive's and material's index in featureModelUrl. */
const OCCLUDED = 3;

/** The body: an opaque red quad, 1 x 1 model units. */
const BODY: Quad = [-0.5, 0, 0.5, 1, 0, 0];
const RED = { pbrMetallicRoughness: { baseColorFactor: [0.8, 0.2, 0.1, 1], metallicFactor: 0 } };

/**
 * The body with two cards 0.1 in front of it, each over a third of its width: one blue of alpha
 * 0.5 and one green of alpha 0 (a hair card's clear texels), both of alphaMode `cards`.
 */
function cardsOverBody(cards: 'BLEND' | 'OPAQUE'): Promise<Character> {
  return quadsCharacter([BODY, [-0.4, 0.2, -0.1, 0.8, 0.1, 1], [0.1, 0.2, 0.4, 0.8, 0.1, 2]], [
    RED,
    { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.3, 0.9, 0.5], metallicFactor: 0 }, alphaMode: cards },
    { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.9, 0.3, 0], metallicFactor: 0 }, alphaMode: cards },
  ]);
}

describe('impostor draw (GPU)', () => {
  let device: GPUDevice | undefined;
  let fox: Character;
  gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });

  it('at the switch distance the impostor differs from the mesh by at most 8/255 mean over the character, on a view cell and half way between two, tinted and in an environment\'s light; a wrong view cell or a frozen frame does not', async (context) => {
    if (!device) return context.skip();
    const crowd = new Crowd(device, fox, TARGETS);
    const impostors = new CrowdImpostors(crowd, OPTIONS);
    // Clip 1 at frame 1 of 4, playing: at clock 0 it shows frame 1; a quarter cycle later frame 2.
    const duration = fox.clipDurations[1];
    const id = crowd.add({ clipA: 1, timeA: duration / 4, speedA: 1 });
    const { centre, radius } = boxSphere(impostors.atlas.box);
    /** A camera on model direction (sin a cos e, sin e, cos a cos e) from the sphere's centre, just past the switch distance (the sphere spans switchPixels / 1.02 pixels). */
    const camera = (azimuth: number, elevation = 0) => {
      const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
      const switchAt = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE);
      const d = switchAt * 1.02;
      const eye: [number, number, number] = [centre[0] + Math.sin(azimuth) * Math.cos(elevation) * d, centre[1] + Math.sin(elevation) * d, centre[2] + Math.cos(azimuth) * Math.cos(elevation) * d];
      return lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
    };
    const render = async (azimuth: number, asImpostors: boolean, elevation = 0) => {
      impostors.enabled = asImpostors;
      const { viewProjection, eye } = camera(azimuth, elevation);
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, SIZE);
      const stats = await crowd.readCullStats();
      return { pixels, stats };
    };
    const side = Math.PI / 2; // exactly view 2 (azimuth 90 degrees)
    const between = (5 * Math.PI) / 8; // 112.5 degrees: half way between views 2 and 3 (90 and 135)
    const impostor = await render(side, true);
    expect(impostor.stats.perLevel.at(-1)).toBe(1); // the impostor level
    expect(impostor.stats.visible).toBe(1);
    expect(impostor.stats.posed).toBe(0); // impostor instances are not posed
    expect(impostor.stats.vertices).toBe(6); // two triangles of a list, not instanced
    const mesh = await render(side, false);
    expect(mesh.stats.perLevel.length).toBe(impostor.stats.perLevel.length - 1);
    const here = compare(impostor.pixels, mesh.pixels);
    expect(here.pixels).toBeGreaterThan(100);
    console.log(`impostor vs mesh at the switch: ${here.inside.toFixed(2)}/255 mean inside, ${here.union.toFixed(2)}/255 over the union, ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${(100 * here.outline).toFixed(1)}% of ${here.pixels} pixels outline`);
    // The measure: the mean over the character's pixels (the mesh's, each with its full
    // difference; MESH_HERE here, MESH_LATER a quarter cycle on), and over every pixel either draws.
    expect(here.mesh).toBeLessThanOrEqual(8);
    expect(here.union).toBeLessThanOrEqual(UNION_LIMIT);
    expect(here.inside).toBeLessThanOrEqual(8);
    expect(here.outline).toBeLessThanOrEqual(0.1);
    // Made-up wrong view cell: the mesh seen from the next view (azimuth 135) against this impostor.
    const wrongView = await render((3 * Math.PI) / 4, false);
    expect(matches(impostor.pixels, wrongView.pixels)).toBe(false);
    // Half way between two view cells: the cells' images, marched along the camera's ray with their depth (parallax), match the mesh there.
    const [halfway, halfwayMesh] = [await render(between, true), await render(between, false)];
    const there = compare(halfway.pixels, halfwayMesh.pixels);
    console.log(`half way between two view cells: ${there.inside.toFixed(2)}/255 mean inside, ${there.union.toFixed(2)}/255 over the union, ${there.mesh.toFixed(2)}/255 over the mesh's pixels, ${(100 * there.outline).toFixed(1)}% outline`);
    expect(matchesBetween(halfway.pixels, halfwayMesh.pixels)).toBe(true);
    // Made-up violations: the view cell's image as it is (the mesh from 90 degrees), and the frame's mesh from the other cell.
    expect(matchesBetween(halfway.pixels, mesh.pixels)).toBe(false);
    expect(matchesBetween(halfway.pixels, wrongView.pixels)).toBe(false);
    // Half way between two elevation rows (18.75 degrees: rows 0 and 37.5) on azimuth 90: the
    // issue's 8 over the mesh's pixels (3.9; without the draw's fallback to the other row's cell,
    // where neither azimuth's cell meets the ray, 12.4).
    const raised = (18.75 * Math.PI) / 180;
    const [above, aboveMesh] = [await render(side, true, raised), await render(side, false, raised)];
    const upThere = compare(above.pixels, aboveMesh.pixels);
    console.log(`half way between two elevation rows: ${upThere.inside.toFixed(2)}/255 mean inside, ${upThere.union.toFixed(2)}/255 over the union, ${upThere.mesh.toFixed(2)}/255 over the mesh's pixels, ${(100 * upThere.outline).toFixed(1)}% outline`);
    expect(upThere.mesh).toBeLessThanOrEqual(8);
    expect(upThere.inside).toBeLessThanOrEqual(8);
    // A quarter cycle on, the impostor shows frame 2 and matches the mesh there; the frame-1 image (a frozen frame) does not.
    crowd.update(duration / 4);
    const later = await render(side, true);
    const laterMesh = await render(side, false);
    const laterHere = compare(later.pixels, laterMesh.pixels);
    console.log(`a quarter cycle on: ${laterHere.union.toFixed(2)}/255 over the union, ${laterHere.mesh.toFixed(2)}/255 over the mesh's pixels`);
    expect(matches(later.pixels, laterMesh.pixels)).toBe(true);
    expect(laterHere.mesh).toBeLessThanOrEqual(8);
    expect(matches(impostor.pixels, laterMesh.pixels)).toBe(false);
    const [laterHalfway, laterHalfwayMesh] = [await render(between, true), await render(between, false)];
    const laterThere = compare(laterHalfway.pixels, laterHalfwayMesh.pixels);
    console.log(`a quarter cycle on, half way between two view cells: ${laterThere.union.toFixed(2)}/255 over the union, ${laterThere.mesh.toFixed(2)}/255 over the mesh's pixels`);
    expect(matchesBetween(laterHalfway.pixels, laterHalfwayMesh.pixels)).toBe(true);
    expect(matchesBetween(laterHalfway.pixels, halfwayMesh.pixels)).toBe(false); // a frozen frame
    // Appearance tints the impostor as it tints the mesh.
    expect(impostors.stale).toEqual([]);
    const looks = new CrowdAppearance(crowd);
    looks.set(id, { tint: [0.3, 1, 0.5] });
    expect(impostors.stale).toEqual([]); // one look (variant 0, every part): the atlas's
    const tinted = await render(side, true);
    const tintedMesh = await render(side, false);
    expect(matches(tinted.pixels, tintedMesh.pixels)).toBe(true);
    expect(matches(tinted.pixels, later.pixels)).toBe(false);
    // Lit by an environment alone (sky above, ground below; no sun or ambient), the impostor matches the mesh.
    const data = new Float32Array(16 * 8 * 4);
    for (let i = 0; i < 16 * 8; i++) data.set(i < 64 ? [0.5, 0.7, 1.2, 1] : [0.4, 0.25, 0.1, 1], 4 * i);
    crowd.setLights({ sun: { intensity: 0 }, ambient: false, environment: { image: { width: 16, height: 8, data } } });
    const lit = await render(side, true);
    const litMesh = await render(side, false);
    const litHere = compare(lit.pixels, litMesh.pixels);
    console.log(`impostor vs mesh in the environment's light: ${litHere.inside.toFixed(2)}/255 mean inside, ${litHere.union.toFixed(2)}/255 over the union, ${litHere.mesh.toFixed(2)}/255 over the mesh's pixels, ${(100 * litHere.outline).toFixed(1)}% outline`);
    expect(matches(lit.pixels, litMesh.pixels)).toBe(true);
    expect(matches(lit.pixels, tinted.pixels)).toBe(false); // the light did change
    crowd.destroy();
  }, 180_000);

  it('an instance\'s appearance variant and parts mask show on its impostor as on its mesh (a layer of the atlas per look); a new look is baked at the next update; past the layers, stale says so', async (context) => {
    if (!device) return context.skip();
    // A 256-pixel image with the perspective of a 1080-pixel view at 0.9 rad, the switch at 128
    // pixels (256-texel cells): the Mannequin's limbs are a few pixels wide, so at 128 its outline
    // is a larger share. 2 frames a clip, 3 azimuths, 1 elevation: 10.1 MiB a look (9 bytes a texel), 2 looks in 21 MiB.
    const size = 256;
    const fov = 2 * Math.atan(Math.tan(0.45) * size / 1080);
    const mannequin = await testCharacter('Mannequin');
    const crowd = new Crowd(device, mannequin, { ...TARGETS, lod: false });
    const looks = new CrowdAppearance(crowd, { variants: [mannequinTexture(1), mannequinTexture(2)] });
    const impostors = new CrowdImpostors(crowd, { frames: 2, azimuths: 3, elevations: 1, cellSize: 256, budgetBytes: 21 * 2 ** 20 });
    expect(impostors.atlas.looks).toBe(2);
    // The one in view wears the checks (variant 1) on its body and the wide head, no hat; two
    // more, behind the camera (counted, not drawn), every part on variant 1: the most used look,
    // so the one in view is not drawn with the stand-in's layer by chance.
    const id = crowd.add({ clipA: 'Idle', timeA: 0, speedA: 0 });
    const behind = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, 0, 100, 1];
    const others = [0, 1].map(() => crowd.add({ clipA: 'Idle', transform: behind }));
    const checked = looks.partMask(['Body', 'HeadWide']);
    looks.set(id, { variant: 1, parts: checked, tint: [1, 0.8, 0.7] });
    for (const other of others) looks.set(other, { variant: 1, parts: looks.allParts });
    const { centre, radius } = boxSphere(impostors.atlas.box);
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: fov });
    const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), size) * 1.02;
    const eye: [number, number, number] = [centre[0], centre[1], centre[2] + d]; // exactly view 0 (azimuth 0: the Mannequin's front)
    const { viewProjection } = lookAt(eye, centre, { fovY: fov, near: d / 4, far: 4 * d });
    const render = async (asImpostor: boolean) => {
      impostors.enabled = asImpostor;
      crowd.setCamera(viewProjection, eye, { viewportHeight: size });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, size);
      if (asImpostor) expect((await crowd.readCullStats()).perLevel.at(-1)).toBe(1);
      return pixels;
    };
    const report = (what: string, a: Uint8Array, b: Uint8Array) => {
      const c = compare(a, b);
      console.log(`${what}: ${c.inside.toFixed(2)}/255 mean inside, ${c.union.toFixed(2)} over the union, ${c.mesh.toFixed(2)} over the mesh's pixels, ${(100 * c.outline).toFixed(1)}% of ${c.pixels} pixels outline`);
      return c;
    };
    const before = crowd.gpuBytes;
    const checks = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 2, inUse: 2, standIns: 0, standIn: { variant: 1, parts: looks.allParts } });
    expect(impostors.stale).toEqual([]);
    expect(crowd.gpuBytes - before).toBe(2 * impostors.atlas.lookBytes);
    const checksMesh = await render(false);
    expect(report('variant 1, body + wide head', checks, checksMesh).pixels).toBeGreaterThan(500);
    expect(sameLook(checks, checksMesh)).toBe(true);

    // Variant 0 now: a look not baked, baked at the next update (in place of the look no longer in use); the impostor matches the mesh again.
    looks.setVariant(id, 0);
    const own = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 2, inUse: 2, standIns: 0 });
    expect(crowd.gpuBytes - before).toBe(2 * impostors.atlas.lookBytes);
    const ownMesh = await render(false);
    report('variant 0, body + wide head', own, ownMesh);
    expect(sameLook(own, ownMesh)).toBe(true);
    // Made-up violation, the variant ignored: the variant-0 image against the variant-1 mesh.
    report('variant ignored', own, checksMesh);
    expect(sameLook(own, checksMesh)).toBe(false);

    // Every part (the narrow head and the hat too) on variant 1: the others' look, baked in the first bake and kept (copied) through the second.
    looks.set(id, { variant: 1, parts: looks.allParts });
    const all = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 2, capacity: 2, inUse: 1, standIns: 0 });
    const allMesh = await render(false);
    report('variant 1, every part', all, allMesh);
    expect(sameLook(all, allMesh)).toBe(true);
    // Made-up violation, the parts mask ignored: the every-part image against the body + wide head mesh.
    report('parts ignored', all, checksMesh);
    expect(sameLook(all, checksMesh)).toBe(false);

    // Three looks in use, two layers: the most used two are baked, one instance is drawn as the stand-in and stale says so.
    const [third, fourth] = [0, 1].map(() => crowd.add({ clipA: 'Idle', transform: behind }));
    looks.set(third, { variant: 2, parts: looks.partMask(['Body']) });
    looks.set(fourth, { variant: 0, parts: checked }); // ties with the third; the smaller (variant, parts), baked already, is kept
    const baked = impostors.bakeMilliseconds;
    crowd.update(0);
    expect(impostors.bakeMilliseconds).toBe(baked); // no bake: the two most used have layers
    expect(impostors.looks).toMatchObject({ baked: 2, inUse: 3, standIns: 1, standIn: { variant: 1, parts: looks.allParts } });
    expect(impostors.stale).toEqual([`appearance: 1 instances in 1 looks past the atlas's 2 layers (ImpostorOptions.looks, budgetBytes) are drawn as the most used look (variant 1, parts 0b1111), tinted`]);
    crowd.remove(third);
    crowd.update(0);
    expect(impostors.stale).toEqual([]);
    crowd.destroy();
  }, 180_000);

  it('bakes the normal-mapped normal: an impostor of a normal-mapped character lights like its mesh at the switch, and one baked without the map does not', async (context) => {
    if (!device) return context.skip();
    // The materials test's two bumpy spheres (normal map with TANGENT, and without: the derivative frame), and the same without their normal maps.
    const url = featureModelUrl([NORMAL_MAPPED.tangents, NORMAL_MAPPED.derivatives]);
    const gltf = JSON.parse(Buffer.from(url.split(',')[1], 'base64').toString());
    const bumpy = await loadDecoded(gltf);
    for (const m of gltf.materials) delete m.normalTexture;
    const smooth = await loadDecoded(gltf);
    const draw = (character: Character, mesh: boolean) => drawFacing(device!, character, mesh);
    const [impostor, mesh] = await draw(bumpy, true);
    const [smoothImpostor] = await draw(smooth, false);
    const here = compare(impostor, mesh);
    const ignored = compare(smoothImpostor, mesh);
    console.log(`normal-mapped spheres at the switch: ${here.inside.toFixed(2)}/255 inside, ${here.union.toFixed(2)}/255 over the union, ${here.mesh.toFixed(2)} over the mesh's pixels (the map ignored: ${ignored.inside.toFixed(2)}, ${ignored.union.toFixed(2)}, ${ignored.mesh.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(100);
    expect(matches(impostor, mesh)).toBe(true);
    // Made-up violation: the normal map ignored in the bake (the geometric normal baked, as before).
    expect(matches(smoothImpostor, mesh)).toBe(false);
  }, 60_000);

  it('bakes alphaMode BLEND as its share of each texel: cards blended over a body (half and fully clear) match their mesh at the switch, and baked opaque they do not', async (context) => {
    if (!device) return context.skip();
    const [impostor, mesh] = await drawFacing(device, await cardsOverBody('BLEND'), true);
    // Made-up violation: the cards baked opaque (BLEND was, before).
    const [opaque] = await drawFacing(device, await cardsOverBody('OPAQUE'), false);
    const here = compare(impostor, mesh);
    const baked = compare(opaque, mesh);
    console.log(`BLEND cards over a body at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside, ${here.union.toFixed(2)} over the union (baked opaque: ${baked.mesh.toFixed(2)}, ${baked.inside.toFixed(2)}, ${baked.union.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    expect(here.mesh).toBeLessThanOrEqual(8);
    expect(baked.mesh).toBeGreaterThan(8);
  }, 60_000);

  it('draws an unlit character (KHR_materials_unlit) unlit: its impostor matches its mesh at the switch, and not the mesh of it lit', async (context) => {
    if (!device) return context.skip();
    const unlit = { ...RED, extensions: { KHR_materials_unlit: {} } };
    const [impostor, mesh] = await drawFacing(device, await quadsCharacter([BODY], [unlit]), true);
    const [litMesh] = await drawFacing(device, await quadsCharacter([BODY], [RED]), 'only');
    const here = compare(impostor, mesh);
    const lit = compare(impostor, litMesh);
    console.log(`unlit quad at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the lit mesh: ${lit.mesh.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    // Made-up violation: the lit mesh (what the impostor drew before) against this impostor.
    expect(lit.mesh).toBeGreaterThan(8);
  }, 60_000);

  it('adds the light an emissive character emits (emissiveFactor x KHR_materials_emissive_strength), at 1 and 4 samples: its impostor matches its mesh at the switch, and not the mesh that emits nothing', async (context) => {
    if (!device) return context.skip();
    // A dim red body whose cards glow (one at strength 2: over 1 in a channel, the texture's scale), over a third of it each.
    const glowing = (emits: boolean) => quadsCharacter([BODY, [-0.4, 0.2, -0.1, 0.8, 0.1, 1], [0.1, 0.2, 0.4, 0.8, 0.1, 2]], [
      { pbrMetallicRoughness: { baseColorFactor: [0.3, 0.05, 0.05, 1], metallicFactor: 0 } },
      { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.1, 0.1, 1], metallicFactor: 0 }, ...(emits ? { emissiveFactor: [0.2, 0.6, 1], extensions: { KHR_materials_emissive_strength: { emissiveStrength: 2 } } } : {}) },
      { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.1, 0.1, 1], metallicFactor: 0 }, ...(emits ? { emissiveFactor: [0.9, 0.5, 0.1] } : {}) },
    ], emits ? ['KHR_materials_emissive_strength'] : []);
    for (const samples of [1, 4]) {
      const [impostor, mesh] = await drawFacing(device, await glowing(true), true, samples);
      const [dark] = await drawFacing(device, await glowing(false), 'only', samples);
      const here = compare(impostor, mesh);
      const none = compare(impostor, dark);
      console.log(`emissive cards at ${samples} sample(s): ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the mesh emitting nothing: ${none.mesh.toFixed(2)}) of ${here.pixels} pixels`);
      expect(here.pixels).toBeGreaterThan(500);
      expect(here.mesh).toBeLessThanOrEqual(8);
      expect(here.inside).toBeLessThanOrEqual(8);
      // Made-up violation: the mesh emitting nothing (what the impostor drew before) against this impostor.
      expect(none.mesh).toBeGreaterThan(8);
    }
  }, 90_000);

  it('takes the occlusion map\'s share of the indirect light, as the mesh does: the materials test\'s occlusion sphere at the switch matches its mesh, and not the mesh without the map', async (context) => {
    if (!device) return context.skip();
    // The materials test's occlusion sphere (a checker occlusion map on TEXCOORD_1, strength 0.8) under the default sun and ambient.
    const gltf = JSON.parse(Buffer.from(featureModelUrl([OCCLUDED]).split(',')[1], 'base64').toString());
    const [impostor, mesh] = await drawFacing(device, await loadDecoded(gltf), true);
    delete gltf.materials[OCCLUDED].occlusionTexture;
    const [bright] = await drawFacing(device, await loadDecoded(gltf), 'only');
    const here = compare(impostor, mesh);
    const none = compare(impostor, bright);
    console.log(`occlusion sphere at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the mesh without the map: ${none.mesh.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    // Made-up violation: the mesh without its occlusion map (what the impostor drew before) against this impostor.
    expect(none.mesh).toBeGreaterThan(8);
  }, 60_000);

  it('at a raised view (elevation row 37.5 degrees, azimuth 135) the impostor differs from the mesh by at most 8/255 over the character at the switch; the horizon row\'s mesh does not match it', async (context) => {
    if (!device) return context.skip();
    // The defaults (OPTIONS: 4 frames a clip, the tested time a baked frame), clip 1 at frame 1 of
    // 4, the camera on view cell (azimuth 135, row 1: 37.5 degrees) just past the switch.
    const crowd = new Crowd(device, fox, TARGETS);
    const impostors = new CrowdImpostors(crowd, OPTIONS);
    crowd.add({ clipA: 1, timeA: fox.clipDurations[1] / 4, speedA: 1 });
    const { centre, radius } = boxSphere(impostors.atlas.box);
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
    const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE) * 1.02;
    const render = async (asImpostor: boolean, elevation: number) => {
      const azimuth = (3 * Math.PI) / 4;
      const eye: [number, number, number] = [centre[0] + Math.sin(azimuth) * Math.cos(elevation) * d, centre[1] + Math.sin(elevation) * d, centre[2] + Math.cos(azimuth) * Math.cos(elevation) * d];
      const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
      impostors.enabled = asImpostor;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, SIZE);
      expect((await crowd.readCullStats()).perLevel.at(-1)).toBe(asImpostor ? 1 : 0);
      return pixels;
    };
    const raised = (37.5 * Math.PI) / 180;
    const [impostor, mesh] = [await render(true, raised), await render(false, raised)];
    const c = compare(impostor, mesh);
    console.log(`row 37.5, azimuth 135: ${c.inside.toFixed(2)}/255 mean inside, ${c.union.toFixed(2)}/255 over the union, ${c.mesh.toFixed(2)}/255 over the mesh's pixels, ${(100 * c.outline).toFixed(1)}% of ${c.pixels} pixels outline`);
    expect(c.pixels).toBeGreaterThan(80);
    // MESH_RAISED here (8.95 with the four texels blended and one ray a quad: the violation it catches).
    expect(c.mesh).toBeLessThanOrEqual(8);
    expect(c.inside).toBeLessThanOrEqual(8);
    // Made-up violation, a wrong elevation row: the mesh seen from the horizon (row 0) against this impostor.
    const horizon = compare(impostor, await render(false, 0));
    console.log(`the horizon row's mesh against it: ${horizon.mesh.toFixed(2)}/255 over the mesh's pixels`);
    expect(horizon.mesh).toBeGreaterThan(8);
    crowd.destroy();
  }, 60_000);

  /**
   * The Fox at the switch distance (x 1.02) seen from each of `azimuths` (radians about +y from
   * +z) at 4 samples, drawn as its impostor and as its mesh (resolved), compared over its pixels
   * (one crowd, one bake).
   */
  async function fourSamplesAt(gpu: GPUDevice, azimuths: readonly number[]): Promise<ReturnType<typeof compare>[]> {
    const crowd = new Crowd(gpu, fox, { ...TARGETS, sampleCount: 4 });
    const impostors = new CrowdImpostors(crowd, OPTIONS);
    crowd.add({ clipA: 1, timeA: fox.clipDurations[1] / 4, speedA: 1 });
    const { centre, radius } = boxSphere(impostors.atlas.box);
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
    const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE) * 1.02;
    const out: ReturnType<typeof compare>[] = [];
    for (const azimuth of azimuths) {
      const eye: [number, number, number] = [centre[0] + Math.sin(azimuth) * d, centre[1], centre[2] + Math.cos(azimuth) * d];
      const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
      const images: Uint8Array[] = [];
      for (const on of [true, false]) {
        impostors.enabled = on;
        crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
        crowd.update(0);
        images.push(await renderCrowd(gpu, crowd, viewProjection, SIZE, 4));
        expect((await crowd.readCullStats()).perLevel.length).toBe(on ? 5 : 4);
      }
      out.push(compare(images[0], images[1]));
    }
    crowd.destroy();
    return out;
  }

  it('at 4 samples (a multisampled target resolved, as the demo draws) the impostor differs from the mesh by at most 8/255 over the character\'s pixels: each sample covered where the atlas covers its own position', async (context) => {
    if (!device) return context.skip();
    // The 4-sample mesh differs from the 1-sample mesh by 22/255 over its pixels (a Fox of about
    // 170 pixels is mostly edge pixels); with alpha to coverage from the coverage read at the pixel's
    // centre the impostor differed from it by 23.8 (docs/impostors.md, Routing and drawing).
    // On view cell 90 degrees (half way between two cells the 4-sample image is not yet within 8: docs/impostors.md, Not done).
    const [here] = await fourSamplesAt(device, [Math.PI / 2]);
    console.log(`at 4 samples on view cell 90: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside, ${here.union.toFixed(2)} over the union, ${(100 * here.outline).toFixed(1)}% of ${here.pixels} pixels outline`);
    expect(here.pixels).toBeGreaterThan(100);
    expect(here.mesh).toBeLessThanOrEqual(8);
  }, 60_000);

  it('at 4 samples half way between two view cells where one hides the body (azimuths 0 and 45: the Fox from the front hides its body behind its head) the impostor still draws the body: a point behind that cell\'s surface counts as inside it; and at 157.5 (the Fox from behind and aside) each sample is covered where its ray meets a cell\'s surface at a point the other cells\' depth images hold (a hull), not by the cells\' coverages weighted', async (context) => {
    if (!device) return context.skip();
    // Not yet within 8 between cells at 4 samples (docs/impostors.md, Not done): this holds the
    // hidden point (impostor.wgsl coverageMask, `occupied`: behind a cell's surface is inside).
    // Counted as not covered, the front cell (azimuth 0) erased the body the cell at 45 shows:
    // 83.3/255 over the mesh's pixels, 50% of the pixels drawn by one only. 9.11 (4.4% outline)
    // since the cells' depth images make a hull (azimuth 157.5 below).
    // 22.5 degrees: half way between views 0 and 1 (0 and 45).
    const [c, behind] = await fourSamplesAt(device, [Math.PI / 8, (7 * Math.PI) / 8]);
    console.log(`at 4 samples half way between azimuths 0 and 45: ${c.mesh.toFixed(2)}/255 over the mesh's pixels, ${c.inside.toFixed(2)} inside, ${(100 * c.outline).toFixed(1)}% of ${c.pixels} pixels outline`);
    expect(c.pixels).toBeGreaterThan(60);
    // 13.14 measured on the packed atlas (7.4% outline; 10.86 and 5.4% on square cells, whose
    // front cell had 4.7 to 5.7 texels a pixel where it has 3.3: docs/impostors-measured.md);
    // without the abstention 15.95 (10.6% outline), without the union's share 22.55, the coverage
    // weighted as before (neither, one step in each tap) 85.14 (52.2%): each fails.
    expect(c.mesh).toBeLessThanOrEqual(14.5);
    expect(c.outline).toBeLessThanOrEqual(0.1);
    console.log(`at 4 samples half way between azimuths 135 and 180: ${behind.mesh.toFixed(2)}/255 over the mesh's pixels, ${behind.inside.toFixed(2)} inside, ${(100 * behind.outline).toFixed(1)}% of ${behind.pixels} pixels outline`);
    expect(behind.pixels).toBeGreaterThan(80);
    // 14.37 (5.4% outline; 15.00 and 2.2% before the atlas framed the character as baked,
    // impostorBox); the cells' coverages weighted as before (with the abstention and a fifth of
    // the union: docs/impostors.md, Routing and drawing) 18.76 (9.1%), which fails both.
    expect(behind.mesh).toBeLessThanOrEqual(16.5);
    expect(behind.outline).toBeLessThanOrEqual(0.065);
  }, 60_000);
});
