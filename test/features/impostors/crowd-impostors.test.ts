import { describe, expect, it } from 'vitest';
import { levelAtSwitch } from '../../../src/features/impostors/crowd-impostors';
import { ImpostorRoute } from '../../../src/features/impostors/impostor-route';
import { CullSettings } from '../../../src/runtime/culling/cull-settings';
import type { CrowdKernel } from '../../../src/runtime/feature';
import { lookAt } from '../../helpers/render';

describe('levelAtSwitch: the mesh level the atlas is baked from (the one drawn just before the impostor switch)', () => {
  it('is the level the cull pass draws at the switch distance, for each pixel error; 0 without LOD; the forced level', () => {
    const errors = [0, 1, 2.5, 6];
    const settings = new CullSettings(errors, 80);
    // The feature's route (80 model units at most 32 pixels, no band), around a box of no size: the switch measured from the centre, as levelAtSwitch measures it.
    const kernel = { character: { animationBounds: { box: [0, 0, 0, 0, 0, 0] } }, options: { cullBounds: 'authored' } } as unknown as CrowdKernel;
    settings.route = new ImpostorRoute(kernel, 80, 32, 0);
    const { viewProjection, eye } = lookAt([0, 0, 100], [0, 0, 0]);
    settings.setCamera(viewProjection, eye, 1080);
    const seen: number[] = [];
    for (const pixelError of [0.3, 0.5, 1.2, 3]) {
      settings.setPixelError(pixelError);
      const frame = settings.fill();
      // The cull pass's lodLevel at the switch distance: the levels whose threshold it has reached.
      let level = 0;
      for (let i = 0; i < 3; i++) if (frame.impostorDistance >= frame.lodDistances[i]) level = i + 1;
      expect(levelAtSwitch(errors, settings, 80, 32)).toBe(level);
      seen.push(level);
    }
    expect(seen).toEqual([0, 1, 2, 3]); // every level met (the check tells them apart)
    settings.lod = false;
    expect(levelAtSwitch(errors, settings, 80, 32)).toBe(0);
    settings.setForcedLevel(2);
    expect(levelAtSwitch(errors, settings, 80, 32)).toBe(2);
  });
});
