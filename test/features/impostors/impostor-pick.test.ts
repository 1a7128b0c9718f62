import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { CrowdPicking } from '../../../src/features/picking/crowd-picking';
import { Crowd } from '../../../src/runtime/crowd';
import { gpuSuite } from '../../helpers/gpu-suite';
import { cameraAtSwitch, IMPOSTOR_TARGETS, SMALL_ATLAS, SWITCH_VIEW } from '../../helpers/impostor-camera';
import { settlePick } from '../../helpers/picking';
import { renderCrowd } from '../../helpers/render';

const SIZE = SWITCH_VIEW.size;

/** Whether pixel (x, y) of a rendered image (rows top-down, RGBA) shows anything (the clear colour is black). */
const drawn = (pixels: Uint8Array, x: number, y: number) => {
  const o = (y * SIZE + x) * 4;
  return pixels[o] + pixels[o + 1] + pixels[o + 2] > 0;
};

/**
 * A pixel deep inside the drawn character (the most drawn pixels within 2 px) and one inside its
 * outline's bounding rectangle, under the quad an impostor is drawn on, that shows nothing and has
 * nothing drawn within 2 px.
 */
function hitAndMiss(pixels: Uint8Array): { hit: [number, number]; miss: [number, number] } {
  const around = (x: number, y: number) => {
    let n = 0;
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (drawn(pixels, x + dx, y + dy)) n++;
    return n;
  };
  let hit: [number, number] = [0, 0], best = -1;
  let x0 = SIZE, y0 = SIZE, x1 = 0, y1 = 0;
  for (let y = 2; y < SIZE - 2; y++) {
    for (let x = 2; x < SIZE - 2; x++) {
      if (!drawn(pixels, x, y)) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      const n = around(x, y);
      if (n > best) [best, hit] = [n, [x, y]];
    }
  }
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if (around(x, y) === 0) return { hit, miss: [x, y] };
  throw new Error('no empty pixel inside the character\'s outline rectangle');
}

describe('impostor picking (GPU): what is hit is what was drawn, past the mesh lists too', () => {
  let device: GPUDevice | undefined;
  let fox: Character;
  gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });

  it('a pick hits a far character where its impostor covers and misses it beside, hits one in the band as its mesh, at the distance its mesh is hit', async (context) => {
    if (!device) return context.skip();
    const crowd = new Crowd(device, fox, IMPOSTOR_TARGETS);
    const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'Walk', timeA: fox.clipDurations[1] / 4, speedA: 0 });
    /** From `factor` x the switch distance (azimuth 90: a view cell): the frame drawn, its levels, and a pick through pixel (x, y). */
    const at = async (factor: number) => {
      const { viewProjection, eye } = cameraAtSwitch(impostors, Math.PI / 2, 0, SIZE, SWITCH_VIEW.fovY, factor);
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, SIZE);
      const perLevel = (await crowd.readCullStats()).perLevel;
      const pick = (x: number, y: number) => settlePick(device!, crowd, picking.pickPointer(x + 0.5, y + 0.5, { viewProjection, width: SIZE, height: SIZE }));
      return { pixels, perLevel, pick };
    };
    // Past the switch: an impostor, hit where it covers, not on its quad's empty texels.
    const far = await at(1.02);
    expect(far.perLevel.at(-1), 'drawn as an impostor').toBe(1);
    const { hit, miss } = hitAndMiss(far.pixels);
    const farHit = await far.pick(...hit);
    expect(farHit?.id, 'a pick through the impostor found nothing (not drawn into the pick pass)').toBe(id);
    expect(await far.pick(...miss), 'a pick beside the character hit its impostor\'s quad').toBeNull();
    // The same pixel with the impostors off (the mesh drawn there): the hit's distance within the box's radius.
    impostors.enabled = false;
    const meshHit = await (await at(1.02)).pick(...hit);
    impostors.enabled = true;
    expect(meshHit?.id).toBe(id);
    const radius = Math.hypot(...[0, 1, 2].map((i) => impostors.atlas.box[i + 3] - impostors.atlas.box[i])) / 2;
    console.log(`picked through the impostor at ${farHit!.distance.toFixed(2)}, through the mesh at ${meshHit!.distance.toFixed(2)} (box radius ${radius.toFixed(2)})`);
    expect(Math.abs(farHit!.distance - meshHit!.distance)).toBeLessThan(radius);
    // In the band (half way into it): listed in the band list, drawn both ways; hit as its mesh.
    const band = await at(1 - impostors.band / 2);
    expect(band.perLevel.at(-1), 'in the band (counted in the impostor level too)').toBe(1);
    const bandHit = hitAndMiss(band.pixels);
    expect((await band.pick(...bandHit.hit))?.id, 'a pick through a band instance found nothing').toBe(id);
    expect(await band.pick(...bandHit.miss)).toBeNull();
    crowd.destroy();
  }, 60_000);
});
