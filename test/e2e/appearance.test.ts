/**
 * The demo's appearance control end to end (docs/appearance.md, ?appearance=1) in headless
 * Chromium with WebGPU on SwiftShader: the Mannequin crowd with the control on (opened with
 * ?appearance=1) and then off (the panel's switch), counted in distinct hue clusters. Screenshots land in test-results/e2e/appearance-*.png for a person to
 * look at.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SKY_RGB8 } from '../../demo/theme';
import { chromiumAvailable, demoSession, overlayRects, waitForCrowd, type Rect } from './harness';
import type { Image } from './pixels';

const VIEWPORT = { width: 960, height: 600 };
const TEST_TIMEOUT = 400_000;
const WAIT = 120_000;
const QUERY = '?model=Mannequin&instances=100&paused=1&shadows=0&grid=0';

/** Hue bins of 30 degrees that hold at least `share` of the saturated, lit pixels outside `skip` (and unlike the sky). */
function hueClusters(image: Image, skip: Rect[], share = 0.01): { clusters: number; saturated: number } {
  const bins = new Array(12).fill(0);
  let saturated = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (skip.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)) continue;
      const i = (y * image.width + x) * 4;
      const [r, g, b] = [image.data[i], image.data[i + 1], image.data[i + 2]];
      if (Math.abs(r - SKY_RGB8[0]) + Math.abs(g - SKY_RGB8[1]) + Math.abs(b - SKY_RGB8[2]) < 30) continue;
      const max = Math.max(r, g, b), min = Math.min(r, g, b);
      if (max < 50 || (max - min) / max < 0.4) continue;
      const d = max - min;
      const hue = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
      bins[Math.floor(hue * 2) % 12]++;
      saturated++;
    }
  }
  return { clusters: bins.filter((n) => n >= share * saturated && n > 0).length, saturated };
}

describe.skipIf(!chromiumAvailable())('demo appearance control in headless Chromium (WebGPU on SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, WAIT);
  const control = (page: Page, label: string) => page.locator('.lil-gui .lil-controller').filter({ has: page.locator('.lil-name', { hasText: label }) });

  it('the Mannequin crowd with appearance on shows more distinct hues than with it off, and no errors', async () => {
    // One page: opened with ?appearance=1, then the panel's switch turned off (the crowd paused, so
    // only the appearance changes; a page each took twice as long).
    const results: Record<string, { clusters: number; saturated: number }> = {};
    const { page, problems } = await demo.open(`${QUERY}&appearance=1`);
    await waitForCrowd(page, 100, 4, 300_000);
    for (const on of [true, false]) {
      if (!on) {
        await control(page, 'appearance').locator('input').uncheck();
        await page.waitForFunction(() => new URL(location.href).searchParams.get('appearance') !== '1', null, { timeout: WAIT, polling: 100 });
        await waitForCrowd(page, 100, 4, 300_000);
      }
      const skip = await overlayRects(page);
      const image = await demo.shot(page, `appearance-${on ? 'on' : 'off'}`);
      results[on ? 'on' : 'off'] = hueClusters(image, skip);
    }
    expect(problems).toEqual([]);
    await page.close();
    console.log(`appearance: hue clusters off ${JSON.stringify(results.off)}, on ${JSON.stringify(results.on)}`);
    expect(results.off.clusters).toBeLessThanOrEqual(3);
    expect(results.on.clusters).toBeGreaterThanOrEqual(results.off.clusters + 3);
  }, TEST_TIMEOUT);
});
