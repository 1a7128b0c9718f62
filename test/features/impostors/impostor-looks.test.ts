import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdAppearance } from '../../../src/features/appearance/crowd-appearance';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../../src/runtime/culling/cull-math';
import { Crowd } from '../../../src/runtime/crowd';
import { mannequinTexture } from '../../../tools/mannequin/build';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { lookAt, renderCrowd } from '../../helpers/render';

/**
 * CrowdImpostors with CrowdAppearance (docs/impostors.md, "Looks"): each (variant, parts) in use
 * is baked as an atlas layer, so an instance's impostor shows its variant and parts as its mesh
 * does; a look coming into use is baked at the next update; past the layers the budget holds,
 * `stale` and `looks` say which instances are drawn as a stand-in.
 */
const TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
// As impostor-draw.test.ts, a 256-pixel image with the perspective of a 1080-pixel view at 0.9 rad
// (twice the size: the Mannequin's limbs are a few pixels wide, so its outline is a larger share).
const SIZE = 256;
const FOV = 2 * Math.atan(Math.tan(0.45) * SIZE / 1080);
// 4 frames a clip, 4 azimuths, 1 elevation, 256 x 256 cells (the switch at 128 pixels): the Mannequin's 3 clips take 24 MiB a look, 2 looks in 50 MiB.
const OPTIONS = { frames: 4, azimuths: 4, elevations: 1, cellSize: 256, budgetBytes: 50 * 2 ** 20 };

/** Two images of one character against the black clear: mean difference over the pixels both cover (0..255), and the fraction of the covered pixels only one covers. */
function compare(a: Uint8Array, b: Uint8Array): { inside: number; outline: number; pixels: number } {
  let sum = 0, both = 0, one = 0;
  for (let i = 0; i < a.length; i += 4) {
    const ca = a[i] + a[i + 1] + a[i + 2] > 0, cb = b[i] + b[i + 1] + b[i + 2] > 0;
    if (ca && cb) {
      both++;
      sum += (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2])) / 3;
    } else if (ca || cb) one++;
  }
  return { inside: sum / Math.max(both, 1), outline: one / Math.max(both + one, 1), pixels: both + one };
}

/** The image check of impostor-draw.test.ts: at most 8/255 mean inside, at most 10% outline. */
function matches(a: Uint8Array, b: Uint8Array): boolean {
  const c = compare(a, b);
  return c.inside <= 8 && c.outline <= 0.1;
}

describe('impostor looks: appearance variants and parts masks (GPU)', () => {
  let device: GPUDevice | undefined;
  let mannequin: Character;
  beforeAll(async () => {
    device = await openTestDevice();
    mannequin = await testCharacter('Mannequin');
  });
  afterAll(() => device?.destroy());

  it('an instance\'s variant and parts show on its impostor as on its mesh; a new look is baked at the next update; past the layers, stale says so', async (context) => {
    if (!device) return context.skip();
    const crowd = new Crowd(device, mannequin, { ...TARGETS, lod: false });
    const looks = new CrowdAppearance(crowd, { variants: [mannequinTexture(1), mannequinTexture(2)] });
    const impostors = new CrowdImpostors(crowd, OPTIONS);
    expect(impostors.atlas.looks).toBe(2);
    const id = crowd.add({ clipA: 'Idle', timeA: 0, speedA: 0 });
    const checked = looks.partMask(['Body', 'HeadWide']);
    looks.set(id, { variant: 1, parts: checked, tint: [1, 0.8, 0.7] });
    const { centre, radius } = boxSphere(mannequin.animationBounds.box);
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
    const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE) * 1.02;
    const eye: [number, number, number] = [centre[0], centre[1], centre[2] + d]; // exactly view 0 (azimuth 0: the Mannequin's front)
    const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
    const render = async (asImpostor: boolean) => {
      impostors.enabled = asImpostor;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, SIZE);
      if (asImpostor) expect((await crowd.readCullStats()).perLevel.at(-1)).toBe(1);
      return pixels;
    };
    const report = (what: string, a: Uint8Array, b: Uint8Array) => {
      const c = compare(a, b);
      console.log(`${what}: ${c.inside.toFixed(2)}/255 mean inside, ${(100 * c.outline).toFixed(1)}% of ${c.pixels} pixels outline`);
      return c;
    };
    const before = crowd.gpuBytes;
    // Variant 1 (red and white checks) on the body, the wide head, no hat: the impostor matches the mesh.
    const checks = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 1, inUse: 1, standIns: 0 });
    expect(impostors.stale).toEqual([]);
    expect(crowd.gpuBytes - before).toBe(impostors.atlas.lookBytes);
    const checksMesh = await render(false);
    expect(report('variant 1, body + wide head', checks, checksMesh).pixels).toBeGreaterThan(500);
    expect(matches(checks, checksMesh)).toBe(true);

    // Variant 0 now: a look not baked, baked at the next update (a second layer); the impostor matches the mesh again.
    looks.setVariant(id, 0);
    const own = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 2, inUse: 1, standIns: 0 });
    expect(crowd.gpuBytes - before).toBe(2 * impostors.atlas.lookBytes);
    const ownMesh = await render(false);
    report('variant 0, body + wide head', own, ownMesh);
    expect(matches(own, ownMesh)).toBe(true);
    // Made-up violation, the variant ignored: the variant-0 image against the variant-1 mesh.
    report('variant ignored', own, checksMesh);
    expect(matches(own, checksMesh)).toBe(false);

    // Every part (the narrow head and the hat too) on variant 1: a third look; the budget holds two layers, the one in use is baked.
    looks.set(id, { variant: 1, parts: looks.allParts });
    const all = await render(true);
    expect(impostors.looks).toMatchObject({ baked: 2, capacity: 2, inUse: 1, standIns: 0 });
    expect(crowd.gpuBytes - before).toBe(2 * impostors.atlas.lookBytes);
    const allMesh = await render(false);
    report('variant 1, every part', all, allMesh);
    expect(matches(all, allMesh)).toBe(true);
    // Made-up violation, the parts mask ignored: the every-part image against the body + wide head mesh.
    report('parts ignored', all, checksMesh);
    expect(matches(all, checksMesh)).toBe(false);

    // Three looks in use, two layers: the most used two are baked, the third instance is drawn as the stand-in and stale says so.
    const behind = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, 0, 100, 1]; // behind the camera: counted, not drawn
    const [second, third, fourth] = [0, 1, 2].map(() => crowd.add({ clipA: 'Idle', transform: behind }));
    looks.set(second, { variant: 1, parts: looks.allParts });
    looks.set(third, { variant: 2, parts: looks.partMask(['Body']) });
    looks.set(fourth, { variant: 0, parts: looks.partMask(['Body', 'HeadBox']) }); // ties with the third; the smaller (variant, parts) is baked
    crowd.update(0);
    expect(impostors.looks).toMatchObject({ baked: 2, inUse: 3, standIns: 1 });
    expect(impostors.looks.standIn).toEqual({ variant: 1, parts: looks.allParts });
    expect(impostors.stale).toEqual([`appearance: 1 instances in 1 looks past the atlas's 2 layers (ImpostorOptions.looks, budgetBytes) are drawn as the most used look (variant 1, parts 0b1111), tinted`]);
    crowd.remove(third);
    crowd.update(0);
    expect(impostors.stale).toEqual([]);
    crowd.destroy();
  }, 180_000);
});
