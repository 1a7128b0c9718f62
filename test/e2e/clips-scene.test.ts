/**
 * End-to-end test of the demo's clips scene (?scene=clips) in headless Chromium with WebGPU on
 * SwiftShader: two bodies (WalkerBody and WalkerStocky), each its own Crowd, bound to one clip
 * library (WalkerClips.glb) and drawn side by side in one pass. Screenshots land in
 * test-results/e2e/scene-clips-*.png for a person to look at.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, demoSession, overlayRects, stat, statNumber, waitForCrowd, waitForFrames, type Rect } from './harness';
import { shareChanged } from './pixels';

const VIEWPORT = { width: 960, height: 600 };
/** Per-test limit: loading, baking two bodies and a few SwiftShader frames. */
const TEST_TIMEOUT = 300_000;
const WAIT = 120_000;

describe.skipIf(!chromiumAvailable())('demo clips scene in headless Chromium (WebGPU on SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, WAIT);

  /** A lil-gui controller's row by its label. */
  const control = (page: Page, label: string) => page.locator('.lil-gui .lil-controller').filter({ has: page.locator('.lil-name', { hasText: label }) });

  /** The per-body data-* list `key` of #stats as numbers (comma-separated, body order). */
  async function list(page: Page, key: string): Promise<number[]> {
    return ((await stat(page, key)) ?? '').split(',').map(Number);
  }

  it('two bodies of one clip library walk side by side: both crowds draw, the overlay reports the library and the tables', async () => {
    // Shadows off first, so that only characters change between frames (a crowd's shadow moves on the ground too).
    const { page, problems } = await demo.open('?scene=clips&instances=24&shadows=0');
    await waitForCrowd(page, 24, 3);
    expect(await stat(page, 'scene')).toBe('clips');
    expect(await stat(page, 'model')).toBe('WalkerBody');
    expect(await stat(page, 'bodies')).toBe('WalkerBody,WalkerStocky');
    expect(await list(page, 'bodyInstances')).toEqual([12, 12]);
    // Each crowd's cull pass reports instances drawn (its own readback, a few frames late).
    await page.waitForFunction(() => {
      const drawn = (document.getElementById('stats')?.dataset.bodyDrawn ?? '').split(',').map(Number);
      return drawn.length === 2 && drawn.every((n) => n > 0);
    }, undefined, { timeout: WAIT, polling: 100 });
    // The library: read once, bound to both bodies; its clips are both bodies' clips.
    expect(await statNumber(page, 'libraryClips')).toBeGreaterThan(0);
    expect(await stat(page, 'libraryBodies')).toBe('2');
    // Tables from the characters: the stocky body's clips are retargeted, so each body holds its own copy.
    const tables = await list(page, 'bodyTables');
    expect(tables.every((b) => b > 0)).toBe(true);
    expect(await statNumber(page, 'tableCopies')).toBe(2);
    expect(await statNumber(page, 'tablesHeld')).toBe(tables[0] + tables[1]);
    expect(await page.locator('#stats').textContent()).toMatch(/clip library WalkerClips\.glb: \d+ clips, read once, bound to 2 bodies/);

    // Characters move in both halves of the view: the left block is WalkerBody's, the right WalkerStocky's.
    const overlays = await overlayRects(page);
    const left: Rect = { x: 0, y: 0, width: VIEWPORT.width / 2, height: VIEWPORT.height };
    const right: Rect = { x: VIEWPORT.width / 2, y: 0, width: VIEWPORT.width / 2, height: VIEWPORT.height };
    const first = await demo.shot(page, 'scene-clips-1');
    await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
    const second = await demo.shot(page, 'scene-clips-2');
    const changedLeft = shareChanged(first, second, [...overlays, right]);
    const changedRight = shareChanged(first, second, [...overlays, left]);
    console.log(`clips scene: ${(changedLeft * 100).toFixed(2)}% of the left half and ${(changedRight * 100).toFixed(2)}% of the right half changed between screenshots`);
    expect(changedLeft, 'left half (WalkerBody) frozen or empty').toBeGreaterThan(0.002);
    expect(changedRight, 'right half (WalkerStocky) frozen or empty').toBeGreaterThan(0.002);

    // Shadows, paused: turning them on darkens the ground (and the characters) in both halves.
    // Measured: about 0.9% of the left half (partly under the overlay) and 3.2% of the right; with
    // the ground taking the first crowd's shadows only, the right half changes 0.26% (the
    // characters' own shading), under the 0.5% asked here.
    await control(page, 'pause').locator('input').check();
    await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
    const unshadowed = await demo.shot(page, 'scene-clips-no-shadows');
    await control(page, 'shadows').locator('input').check();
    await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
    const shadowed = await demo.shot(page, 'scene-clips-shadows');
    const shadowLeft = shareChanged(unshadowed, shadowed, [...overlays, right]);
    const shadowRight = shareChanged(unshadowed, shadowed, [...overlays, left]);
    console.log(`clips scene: shadows change ${(shadowLeft * 100).toFixed(2)}% of the left half, ${(shadowRight * 100).toFixed(2)}% of the right`);
    expect(shadowLeft, 'no shadows on the ground of the left half').toBeGreaterThan(0.005);
    expect(shadowRight, 'no shadows on the ground of the right half').toBeGreaterThan(0.005);
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);
});
