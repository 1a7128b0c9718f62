import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdAppearance } from '../../../src/features/appearance/crowd-appearance';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../../src/runtime/culling/cull-math';
import { Crowd } from '../../../src/runtime/crowd';
import { featureModelUrl, NORMAL_MAPPED } from '../../e2e/materials/feature-model';
import { testCharacter } from '../../helpers/character';
import { gpuSuite } from '../../helpers/gpu-suite';
import { compare, drawFacing, FOV, loadDecoded, matches, SIZE, TARGETS, UNION_LIMIT } from '../../helpers/impostor-images';
import { lookAt, renderCrowd } from '../../helpers/render';
import { mannequinTexture } from '../../../tools/mannequin/build';

// The defaults (8 azimuths 45 degrees apart, 3 elevation rows, 80-texel cells each framing the
// box's projection, the switch at 40 pixels: half the cell) but 4 frames a clip (the frame shown
// is the baked frame nearest the clip's time: the tested times are baked frames at 4 as at 16).
const OPTIONS = { frames: 4 };

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
