import { describe, expect, it } from 'vitest';
import { CullSettings } from '../../../src/runtime/culling/cull-settings';
import { lookAt } from '../../helpers/render';

describe('CullSettings.levelAtSwitch: the mesh level drawn just before the impostor switch', () => {
  it('is the level the frame draws at the switch distance, for each pixel error; 0 without LOD or impostors; the forced level', () => {
    const settings = new CullSettings([0, 1, 2.5, 6], 80);
    expect(settings.levelAtSwitch()).toBe(0); // no impostors routed
    settings.impostorSize = 80;
    settings.impostorPixels = 32;
    const { viewProjection, eye } = lookAt([0, 0, 100], [0, 0, 0]);
    settings.setCamera(viewProjection, eye, 1080);
    const seen: number[] = [];
    for (const pixelError of [0.3, 0.5, 1.2, 3]) {
      settings.setPixelError(pixelError);
      const frame = settings.fill();
      // The cull pass's lodLevel at the switch distance: the levels whose threshold it has reached.
      let level = 0;
      for (let i = 0; i < 3; i++) if (frame.impostorDistance >= frame.lodDistances[i]) level = i + 1;
      expect(settings.levelAtSwitch()).toBe(level);
      seen.push(level);
    }
    expect(seen).toEqual([0, 1, 2, 3]); // every level met once at least (the check can tell them apart)
    settings.lod = false;
    expect(settings.levelAtSwitch()).toBe(0);
    settings.setForcedLevel(2);
    expect(settings.levelAtSwitch()).toBe(2);
  });
});
