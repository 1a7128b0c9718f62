import { describe, expect, it } from 'vitest';
import { AppearanceSpread, type Spectators } from '../../demo/appearance';
import { CrowdImpostors } from '../../src/features/impostors/crowd-impostors';
import { Crowd } from '../../src/runtime/crowd';
import { mannequinTexture } from '../../tools/mannequin/build';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';

/**
 * The demo's appearance spread (demo/appearance.ts) against the impostors it sizes: the stadium
 * and the crowd scene give CrowdImpostors `looksSpread` looks (demo/app.ts), so far Mannequins keep
 * their variants and heads, where a single layer drew 11 of the 12 looks as the most used one.
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

async function spreadCrowd(count: number) {
  const crowd = new Crowd(device!, await testCharacter('Mannequin'), { ...FORMATS, capacity: count });
  const ids = Array.from({ length: count }, (_, i) => {
    const id = crowd.add({ clipA: 'Idle', timeA: 0 });
    crowd.setPlacement(id, i, 0, 0, 0);
    return id;
  });
  const spectators: Spectators = { count, idAt: (i) => ids[i], version: 0 };
  const spread = new AppearanceSpread(crowd, crowd.character, [mannequinTexture(1), mannequinTexture(2)]);
  return { crowd, spread, spectators };
}

describe.skipIf(!device)('the demo\'s appearance spread and the impostors\' looks', () => {
  it('the Mannequin spreads 12 looks (3 variants x 4 part sets), all in use; impostors sized for them bake every one, one layer leaves 11 past it', async () => {
    const { crowd, spread, spectators } = await spreadCrowd(200);
    expect(spread.looksSpread, 'off: the plain look').toBe(1);
    spread.sync(true, spectators);
    expect(spread.looksSpread).toBe(12);
    // A budget of one look and a half at the largest cells: sized for one look (as the demo was),
    // the atlas holds one layer; sized for the spread's, its cells shrink until all fit.
    const options = { clips: [0], frames: 2 };
    const probe = new Crowd(device!, crowd.character, FORMATS);
    const budgetBytes = Math.floor(1.5 * new CrowdImpostors(probe, options).atlas.lookBytes);
    probe.destroy();
    const impostors = new CrowdImpostors(crowd, { ...options, budgetBytes });
    crowd.update(0);
    expect(impostors.looks).toMatchObject({ inUse: 12, baked: 1 });
    expect(impostors.stale.join('\n')).toMatch(/in 11 looks past the atlas's 1 layers/);
    impostors.sizedForLooks = spread.looksSpread;
    crowd.update(0);
    expect(impostors.looks).toMatchObject({ inUse: 12, baked: 12, standIns: 0 });
    expect(impostors.stale).toEqual([]);
    spread.sync(false, spectators);
    expect(spread.looksSpread, 'off again').toBe(1);
    crowd.destroy();
  });
});
