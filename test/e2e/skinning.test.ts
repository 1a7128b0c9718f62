/**
 * End-to-end test of the demo's skinning menu (linear / dual-quaternion) in headless Chromium
 * with WebGPU on SwiftShader. The twist rig (test/helpers/twist-rig.ts, a cylinder with a joint
 * twisted 150 degrees) is written next to the screenshots and loaded as "another model", so the
 * two methods look plainly different: test-results/e2e/skinning-{linear,dual-quaternion}.png.
 */
import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SKY_RGB8 } from '../../demo/theme';
import { assetToGlb } from '../helpers/gltf-builder';
import { twistRigModel } from '../helpers/twist-rig';
import { chromiumAvailable, demoSession, overlayRects, RESULTS_DIR, stat, statNumber, waitForCrowd, waitForFrames } from './harness';
import { shareChanged, shareUnlike } from './pixels';

const VIEWPORT = { width: 960, height: 600 };
const TEST_TIMEOUT = 300_000;
const WAIT = 120_000;

const available = chromiumAvailable();

describe.skipIf(!available)('demo: the skinning menu', () => {
  const demo = demoSession(VIEWPORT, WAIT);
  const control = (page: Page, label: string) => page.locator('.lil-gui .lil-controller').filter({ has: page.locator('.lil-name', { hasText: label }) });

  it('switches a running crowd between linear and dual-quaternion skinning: the twisted waist fills out, the URL says so', async () => {
    // lod=0: mesh LOD simplifies in the bind pose, where the cylinder is straight, and its coarse
    // levels drop the 50/50 rings that only blend between the joints (both methods then agree).
    writeFileSync(`${RESULTS_DIR}/twist-rig.glb`, assetToGlb(twistRigModel({ held: true }).builder.build()));
    const { page, problems } = await demo.open('?instances=9&mode=uniform&randomPhases=0&grid=0&shadows=0&lod=0&modelUrl=/test-results/e2e/twist-rig.glb');
    await page.waitForFunction(() => document.getElementById('stats')?.dataset.model === 'twist-rig.glb', null, { timeout: WAIT, polling: 100 });
    await waitForCrowd(page, 9, 3, WAIT);
    // The stats overlay changes size as its lines come and go: leave out its area in every shot.
    const skip = await overlayRects(page);
    const linear = await demo.shot(page, 'skinning-linear');
    expect(await control(page, 'skinning').locator('select').inputValue()).toBe('linear');

    await control(page, 'skinning').locator('select').selectOption('dual-quaternion');
    await waitForFrames(page, (await statNumber(page, 'frames')) + 3, WAIT);
    const dq = await demo.shot(page, 'skinning-dual-quaternion');
    skip.push(...await overlayRects(page));
    const changed = shareChanged(linear, dq, skip);
    console.log(`skinning menu: ${(changed * 100).toFixed(2)}% of the picture changed from linear to dual-quaternion; sky-unlike ${(shareUnlike(dq, SKY_RGB8, skip) * 100).toFixed(1)}%`);
    // The 9 cylinders' waists widen from about a quarter of their width to all of it.
    expect(changed).toBeGreaterThan(0.005);
    await page.waitForFunction(() => new URL(location.href).searchParams.get('skinning') === 'dual-quaternion', null, { timeout: 10_000 });

    // And back: the picture returns to the linear one (the instances hold their clip).
    await control(page, 'skinning').locator('select').selectOption('linear');
    await waitForFrames(page, (await statNumber(page, 'frames')) + 3, WAIT);
    const back = await demo.shot(page, 'skinning-linear-again');
    skip.push(...await overlayRects(page));
    expect(shareChanged(linear, back, skip)).toBeLessThan(changed / 10);
    expect(await stat(page, 'instances')).toBe('9');
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);

  it('opens with ?skinning=dual-quaternion: the menu shows it and the Fox crowd draws', async () => {
    const { page, problems } = await demo.open('?instances=50&skinning=dual-quaternion');
    await waitForCrowd(page, 50, 3, WAIT);
    expect(await control(page, 'skinning').locator('select').inputValue()).toBe('dual-quaternion');
    const picture = await demo.shot(page, 'skinning-fox-dual-quaternion');
    expect(shareUnlike(picture, SKY_RGB8, await overlayRects(page))).toBeGreaterThan(0.25);
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);
});
