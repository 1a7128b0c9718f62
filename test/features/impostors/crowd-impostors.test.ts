import { describe, expect, it } from 'vitest';
import { AtlasGrid } from '../../../src/features/impostors/impostor-atlas';
import { ImpostorRoute, levelAtSwitch } from '../../../src/features/impostors/impostor-route';
import { distanceForPixels, frameLodLevel, NEVER, projectionScale } from '../../../src/runtime/culling/cull-math';
import { CullSettings } from '../../../src/runtime/culling/cull-settings';
import { IMPOSTOR_CLIPS } from '../../../src/runtime/layout';
import type { CrowdKernel } from '../../../src/runtime/feature';
import { lookAt } from '../../helpers/render';

/** The feature's route for `settings` (`size` model units at most `pixels` pixels, `band`) around a box of no size: the switch measured from the centre, as levelAtSwitch measures it. */
function route(settings: CullSettings, errors: number[], size: number, pixels: number, band: number, clips: readonly number[] = [0], dotPixels = 0): void {
  const kernel = { character: { animationBounds: { box: [0, 0, 0, 0, 0, 0] }, lods: { errors } }, options: { cullBounds: 'authored' }, lodSettings: settings } as unknown as CrowdKernel;
  settings.route = new ImpostorRoute(kernel, size, pixels, band, clips, dotPixels);
  const { viewProjection, eye } = lookAt([0, 0, 100], [0, 0, 0]);
  settings.setCamera(viewProjection, eye, 1080);
}

describe('levelAtSwitch: the mesh level the atlas is baked from and the band\'s meshes draw', () => {
  it('is the level the cull pass draws at the switch distance, for each pixel error; 0 without LOD; the forced level; the route hands it to the band', () => {
    const errors = [0, 1, 2.5, 6];
    const settings = new CullSettings(errors, 80);
    route(settings, errors, 80, 32, 0);
    const seen: number[] = [];
    for (const pixelError of [0.3, 0.5, 1.2, 3]) {
      settings.setPixelError(pixelError);
      const frame = settings.fill();
      // cull.wgsl's lodLevel at the switch distance: the levels whose threshold it has reached.
      let level = 0;
      for (let i = 0; i < 3; i++) if (frame.impostorDistance >= frame.lodDistances[i]) level = i + 1;
      expect(levelAtSwitch(errors, settings, 80, 32)).toBe(level);
      expect(frame.bandLevel).toBe(level);
      seen.push(level);
    }
    expect(seen).toEqual([0, 1, 2, 3]); // every level met (the check tells them apart)
    settings.lod = false;
    expect(levelAtSwitch(errors, settings, 80, 32)).toBe(0);
    expect(settings.fill().bandLevel).toBe(0);
    settings.setForcedLevel(2);
    expect(levelAtSwitch(errors, settings, 80, 32)).toBe(2);
    expect(settings.fill().bandLevel).toBe(2);
  });

  it('the band spans its fraction of the switch distance whatever the LOD levels: a Fox-like character whose coarsest level begins past the switch', () => {
    // The Fox's levels (errors in model units, its framing sphere 221.6 across) at the default
    // 32-pixel switch and band 0.25: level 3 begins past the switch. With a pixel error of 0.65
    // the band's start (3/4 of the switch distance) still draws level 1, the switch level 2.
    const errors = [0, 1.3, 3.68, 7.05];
    const settings = new CullSettings(errors, 221.6);
    route(settings, errors, 221.6, 32, 0.25);
    settings.setPixelError(0.65);
    const frame = settings.fill();
    expect(frame.lodDistances[2]).toBeGreaterThan(frame.impostorDistance); // the coarsest level begins past the switch
    expect(frame.impostorBand / frame.impostorDistance).toBeCloseTo(0.75, 6); // the band is there, at its full width
    expect(frameLodLevel(frame.impostorBand, frame, 4)).toBe(1);
    expect(frame.bandLevel).toBe(2); // its meshes at the switch's level, the atlas's
    expect(levelAtSwitch(errors, settings, 221.6, 32)).toBe(2);
  });

  it('hands the cull pass the clips the atlas holds: bit c of word c / 32 (clips past IMPOSTOR_CLIPS have none); a crowd without a route routes every clip', () => {
    const settings = new CullSettings([0], 10);
    expect([...settings.frame.impostorClips].every((w) => w === 0xffffffff)).toBe(true);
    route(settings, [0], 10, 32, 0, [0, 2, 33, 1023, 5000]);
    const words = settings.fill().impostorClips;
    expect(words).toHaveLength(IMPOSTOR_CLIPS / 32);
    expect([words[0], words[1], words[31]]).toEqual([0b101, 0b10, 0x80000000]);
    expect(words.slice(2, 31).every((w) => w === 0)).toBe(true);
  });
});

describe('dots: the impostors past dotPixels', () => {
  it('the route sends impostors to the dots where the size spans dotPixels (from the centre), none with 0 or without a camera', () => {
    const settings = new CullSettings([0], 80);
    route(settings, [0], 80, 32, 0, [0], 2);
    const frame = settings.fill();
    const { viewProjection } = lookAt([0, 0, 100], [0, 0, 0]);
    expect(frame.impostorDot).toBeCloseTo(distanceForPixels(80, 2, projectionScale(viewProjection), 1080), 6);
    expect(frame.impostorDot).toBeCloseTo(16 * frame.impostorDistance, 6); // 32 pixels at the switch, 2 at the dots
    route(settings, [0], 80, 32, 0, [0], 0);
    expect(settings.fill().impostorDot).toBe(NEVER);
    settings.clearCamera();
    expect(settings.fill().impostorDot).toBe(NEVER);
  });

  it('dotPixels is checked by name: a number in [0, 4] under switchPixels; by default 2, or half a smaller switch', () => {
    const grid = (options: object) => new AtlasGrid(1, [-1, -1, -1, 1, 1, 1], 8192, options);
    expect(grid({}).dotPixels).toBe(2);
    expect(grid({ switchPixels: 3 }).dotPixels).toBe(1.5);
    expect(grid({ dotPixels: 0 }).dotPixels).toBe(0);
    expect(() => grid({ dotPixels: 5 })).toThrow(/impostors\.dotPixels must be a number of pixels in \[0, 4\], got 5/);
    expect(() => grid({ dotPixels: -1 })).toThrow(/dotPixels/);
    expect(() => grid({ dotPixels: Number.NaN })).toThrow(/dotPixels/);
    expect(() => grid({ dotPixels: '2' })).toThrow(/dotPixels/);
    expect(() => grid({ switchPixels: 3, dotPixels: 3 })).toThrow(/impostors\.dotPixels \(3\) must be under switchPixels \(3\)/);
  });
});
