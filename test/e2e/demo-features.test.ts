/**
 * End-to-end tests of the demo's features (index.html + demo/) in headless Chromium with WebGPU
 * on SwiftShader, one dev server and one browser for all (a file each cost a worker, a server, a
 * browser and Vite's transforms of the demo again): the clips scene, the skinning menu, props on
 * joints and the appearance control, each in its describe block below. Pages draw only while a
 * test waits for frames (demoSession's held pages). Screenshots land in test-results/e2e/ for a
 * person to look at.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SKY_RGB8 } from '../../demo/theme';
import { assetToGlb } from '../helpers/gltf-builder';
import { twistRigModel } from '../helpers/twist-rig';
import {
  chromiumAvailable, demoSession, overlayRects, panelControl, REPO_ROOT, RESULTS_DIR, stat, statNumber, waitDrawing, waitForCrowd,
  waitForFrames, type Rect,
} from './harness';
import { changedColumnRanges, shareChanged, shareUnlike, type Image } from './pixels';

const VIEWPORT = { width: 960, height: 600 };
/** Per-test limit: loading, baking and a few SwiftShader frames. */
const TEST_TIMEOUT = 300_000;
const WAIT = 120_000;
/** Columns without a changed pixel that separate two blocks of characters (see the clips test). */
const BLOCK_GAP = 24;
/** Share of a block's columns that turning shadows on must change (see the measurements in the clips test). */
const MIN_SHADOW_CHANGE = 0.003;
/** The appearance test's crowd: Mannequins, paused, without shadows and ground. */
const APPEARANCE_QUERY = '?model=Mannequin&instances=100&paused=1&shadows=0&grid=0';

/** Pixels (outside `skip`) of the sword's gold guard and pommel: yellow, unlike the Walker's orange accents and the grey bodies. */
function goldPixels(image: Image, skip: Rect[]): number {
  let n = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (skip.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)) continue;
      const o = (y * image.width + x) * 4;
      const r = image.data[o], g = image.data[o + 1], b = image.data[o + 2];
      if (r > 90 && g > 0.75 * r && g < 0.95 * r && b < 0.6 * r) n++;
    }
  }
  return n;
}

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

describe.skipIf(!chromiumAvailable())('demo features in headless Chromium (WebGPU on SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, WAIT, { held: true, oneContext: true });

  /**
   * The clips scene (?scene=clips): three bodies (WalkerBody, a second WalkerBody and
   * WalkerStocky), each its own Crowd, bound to one clip library (WalkerClips.glb) and drawn side
   * by side in one pass; the two of one skeleton share the library's tables. Then, on the same
   * page, a dropped VRM body bound with no options (its humanoid map reported) and a clip set
   * picked that cannot bind, refused by name with the scene and the pickers left as they were.
   * Screenshots: scene-clips-*.png.
   */
  describe('the clips scene', () => {
    /** The per-body data-* list `key` of #stats as numbers (comma-separated, body order). */
    async function list(page: Page, key: string): Promise<number[]> {
      return ((await stat(page, key)) ?? '').split(',').map(Number);
    }

    /** Drops `files` on the page's body as a person dragging them from a file manager would (as test/e2e/demo.test.ts does). */
    async function dropFiles(page: Page, files: { name: string; base64: string }[]): Promise<void> {
      await page.evaluate((list) => {
        const transfer = new DataTransfer();
        for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }, files);
    }

    it('three bodies of one clip library walk side by side: every crowd draws, two of one skeleton share their tables, the overlay reports them', async () => {
      // Shadows off first, so that only characters change between frames (a crowd's shadow moves on the ground too).
      const { page, problems } = await demo.open('?scene=clips&instances=24&shadows=0');
      await waitForCrowd(page, 24, 3);
      expect(await stat(page, 'scene')).toBe('clips');
      expect(await stat(page, 'model')).toBe('WalkerBody');
      expect(await stat(page, 'bodies')).toBe('WalkerBody,WalkerBody #2,WalkerStocky');
      expect(await list(page, 'bodyInstances')).toEqual([8, 8, 8]);
      // Each crowd's cull pass reports instances drawn (its own readback, a few frames late).
      await waitDrawing(page, () => {
        const drawn = (document.getElementById('stats')?.dataset.bodyDrawn ?? '').split(',').map(Number);
        return drawn.length === 3 && drawn.every((n) => n > 0);
      }, undefined, WAIT);
      // The library: read once, bound to every body; its clips are every body's clips.
      expect(await statNumber(page, 'libraryClips')).toBeGreaterThan(0);
      expect(await stat(page, 'libraryBodies')).toBe('3');
      // Tables from the characters: the two WalkerBody bodies (one skeleton, the same root motion
      // taken out) hold one copy; the stocky body's clips are retargeted, so it holds its own.
      const tables = await list(page, 'bodyTables');
      expect(tables.every((b) => b > 0)).toBe(true);
      expect(tables[1]).toBe(tables[0]);
      expect(await statNumber(page, 'tableCopies')).toBe(2);
      expect(await statNumber(page, 'tablesHeld')).toBe(tables[0] + tables[2]);
      expect(await statNumber(page, 'tablesEachOwn')).toBe(tables[0] + tables[1] + tables[2]);
      const text = await page.locator('#stats').textContent();
      expect(text).toMatch(/clip library WalkerClips\.glb: \d+ clips, read once, bound to 3 bodies/);
      expect(text).toContain('one copy shared by WalkerBody + WalkerBody #2');

      // Characters move in three blocks, left to right WalkerBody's, the second WalkerBody's and
      // WalkerStocky's: the columns of pixels that changed between two screenshots, split where
      // BLOCK_GAP columns in a row did not change (the blocks stand two cells apart, about 70
      // pixels here; a block's own characters overlap). The panel is folded and the overlay hidden
      // (its numbers are read above) so that they hide none of it; the panel opens only to click.
      const panel = page.locator('.lil-gui.lil-root > .lil-title');
      await panel.click();
      await page.evaluate(() => { document.getElementById('stats')!.style.display = 'none'; });
      // lil-gui folds the panel with a transition: measure the overlays once it is folded.
      await page.waitForFunction(() => document.querySelector('.lil-gui.lil-root')!.getBoundingClientRect().height < 60, null, { timeout: 10_000, polling: 50 });
      const overlays = await overlayRects(page);
      const first = await demo.shot(page, 'scene-clips-1');
      await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
      const second = await demo.shot(page, 'scene-clips-2');
      const blocks = changedColumnRanges(first, second, overlays, BLOCK_GAP);
      console.log(`clips scene: moving blocks at columns ${blocks.map((b) => `${b.from}-${b.to}`).join(', ')}`);
      expect(blocks, 'not three moving blocks (a crowd frozen or empty)').toHaveLength(3);
      // Each block's columns, widened by half the gap (its shadows fall beside it).
      const only = (i: number): Rect[] => {
        const from = Math.max(0, blocks[i].from - BLOCK_GAP / 2);
        const to = Math.min(VIEWPORT.width, blocks[i].to + BLOCK_GAP / 2);
        return [...overlays, { x: 0, y: 0, width: from, height: VIEWPORT.height }, { x: to, y: 0, width: VIEWPORT.width - to, height: VIEWPORT.height }];
      };
      const names = ['WalkerBody', 'WalkerBody #2', 'WalkerStocky'];
      const moved = names.map((_, i) => shareChanged(first, second, only(i)));
      console.log(`clips scene: ${moved.map((c) => `${(c * 100).toFixed(2)}%`).join(', ')} of each block's columns changed between screenshots`);
      moved.forEach((c, i) => expect(c, `${names[i]}'s block frozen or empty`).toBeGreaterThan(0.002));

      // Shadows, paused: turning them on darkens the ground (and the characters) by every block:
      // the ground takes the shadows of all three crowds (demo/grid-pass.ts GROUND_SHADOWS).
      // Measured (SwiftShader, three runs): 0.66 to 0.81%, 1.03 to 1.06% and 2.19 to 2.89% of each
      // block's columns; with the ground taking the first two crowds' shadows only (as before the
      // third body), WalkerStocky's changes 0.08% (its characters' own shading), under the 0.3% asked.
      const check = async (label: string) => {
        await panel.click();
        await panelControl(page, label).locator('input').check();
        await panel.click();
      };
      await check('pause');
      await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
      const unshadowed = await demo.shot(page, 'scene-clips-no-shadows');
      await check('shadows');
      await waitForFrames(page, (await statNumber(page, 'frames')) + 2, WAIT);
      const shadowed = await demo.shot(page, 'scene-clips-shadows');
      const shadows = names.map((_, i) => shareChanged(unshadowed, shadowed, only(i)));
      console.log(`clips scene: shadows change ${shadows.map((c) => `${(c * 100).toFixed(2)}%`).join(', ')} of each block's columns`);
      shadows.forEach((c, i) => expect(c, `no shadows on the ground by ${names[i]}'s block`).toBeGreaterThan(MIN_SHADOW_CHANGE));

      // A drop in this scene (App.loadDropped) and the panel's "Clips" pickers, shadows off to keep
      // SwiftShader's frames short; each loads the scene again (the pickers' logic, the leg solve's
      // report included, is checked in Node: test/demo/clips-picks.test.ts).
      const picksStart = Date.now();
      await panel.click();
      await panelControl(page, 'shadows').locator('input').uncheck();
      const loaded = (bodies: string, clipSet: string) => waitDrawing(page, ([b, c]) => {
        const data = document.getElementById('stats')?.dataset;
        return data?.bodies === b && data.clipSet === c && data.instances === '24';
      }, [bodies, clipSet], WAIT);
      const binding = async () => ({ maps: await stat(page, 'bodyMaps'), mapped: await stat(page, 'bodyMapped'), unmapped: await stat(page, 'bodyUnmapped'), legs: await stat(page, 'bodyLegs') });
      const report = () => page.locator('.clips-report').textContent();
      // A dropped .vrm (the Walker renamed to VRoid's joints, with a VRMC_vrm map) becomes the
      // scene's body: the Walker's clips bind to it bone to bone through its VRM map.
      const walker = (file: string) => readFileSync(join(REPO_ROOT, 'public/models/Walker', file)).toString('base64');
      await dropFiles(page, [{ name: 'avatar.vrm', base64: walker('WalkerVRoid.glb') }]);
      await loaded('WalkerBody,WalkerBody #2,avatar.vrm', 'WalkerClips.glb');
      expect(await binding()).toEqual({ maps: 'copied,copied,VRMC_vrm<crowd-skin', mapped: '0,0,17', unmapped: '0,0,0', legs: '0,0,0' });
      expect(await report()).toContain('avatar.vrm: humanoid VRMC_vrm <- crowd-skin: 17 bones mapped, 0 unmapped, hips x1.00, leg solve off (legs in proportion)');
      await demo.shot(page, 'scene-clips-dropped-vrm');
      console.log(`clips scene: the dropped body after ${((Date.now() - picksStart) / 1000).toFixed(1)} s`);
      // (A dropped file of clips only becomes the clip set the same way: ClipsPicks.drop and
      // isClipsOnly are checked in Node, test/demo/clips-picks.test.ts and drop.test.ts; one more
      // load of three bodies here would cost as much as this one.)

      // A clip set that cannot bind (the Fox's clips match no joint of the Walker's bodies), picked
      // in the panel, is refused naming both skeletons' joints; the scene and the pickers stay.
      const frames = await statNumber(page, 'frames');
      await panelControl(page, 'clip set').locator('select').selectOption('Fox.glb');
      await waitDrawing(page, () => document.querySelector('.clips-report')?.textContent?.startsWith('refused'), null, WAIT);
      expect(await report()).toMatch(/^refused: the clip set Fox\.glb cannot bind to WalkerBody: clips file 'Fox\.glb': none of the 20 nodes its clips animate \(b_Hip_01, .*\) is a node of the body \(Hips, Spine, /);
      expect(await page.locator('#message-text').textContent()).toMatch(/^Could not load WalkerBody: the clip set Fox\.glb cannot bind to WalkerBody: .*Still showing WalkerBody\.$/);
      expect([await panelControl(page, 'body').locator('select').inputValue(), await panelControl(page, 'clip set').locator('select').inputValue()]).toEqual(['avatar.vrm', 'WalkerClips.glb']);
      await waitForFrames(page, frames + 2, WAIT);
      expect([await stat(page, 'bodies'), await stat(page, 'clipSet')]).toEqual(['WalkerBody,WalkerBody #2,avatar.vrm', 'WalkerClips.glb']);
      console.log(`clips scene: pickers, drops and the refusal took ${((Date.now() - picksStart) / 1000).toFixed(1)} s`);
      // The refusal is logged as an error by the demo (App.load); nothing else may be.
      expect(problems.filter((p) => !p.includes('the clip set Fox.glb cannot bind'))).toEqual([]);
      await page.close();
    }, TEST_TIMEOUT);
  });

  /**
   * The skinning menu (linear / dual-quaternion). The twist rig (test/helpers/twist-rig.ts, a
   * cylinder with a joint twisted 150 degrees) is written next to the screenshots and loaded as
   * "another model", so the two methods look plainly different: skinning-{linear,dual-quaternion}.png.
   */
  describe('the skinning menu', () => {
    it('switches a running crowd between linear and dual-quaternion skinning: the twisted waist fills out, the URL says so', async () => {
      // lod=0: mesh LOD simplifies in the bind pose, where the cylinder is straight, and its coarse
      // levels drop the 50/50 rings that only blend between the joints (both methods then agree).
      writeFileSync(`${RESULTS_DIR}/twist-rig.glb`, assetToGlb(twistRigModel({ held: true }).builder.build()));
      const { page, problems } = await demo.open('?instances=9&mode=uniform&randomPhases=0&grid=0&shadows=0&lod=0&modelUrl=/test-results/e2e/twist-rig.glb');
      await waitDrawing(page, () => document.getElementById('stats')?.dataset.model === 'twist-rig.glb', null, WAIT);
      await waitForCrowd(page, 9, 3, WAIT);
      // The stats overlay changes size as its lines come and go: leave out its area in every shot.
      const skip = await overlayRects(page);
      const linear = await demo.shot(page, 'skinning-linear');
      expect(await panelControl(page, 'skinning').locator('select').inputValue()).toBe('linear');

      await panelControl(page, 'skinning').locator('select').selectOption('dual-quaternion');
      await waitForFrames(page, (await statNumber(page, 'frames')) + 3, WAIT);
      const dq = await demo.shot(page, 'skinning-dual-quaternion');
      skip.push(...await overlayRects(page));
      const changed = shareChanged(linear, dq, skip);
      console.log(`skinning menu: ${(changed * 100).toFixed(2)}% of the picture changed from linear to dual-quaternion; sky-unlike ${(shareUnlike(dq, SKY_RGB8, skip) * 100).toFixed(1)}%`);
      // The 9 cylinders' waists widen from about a quarter of their width to all of it.
      expect(changed).toBeGreaterThan(0.005);
      await waitDrawing(page, () => new URL(location.href).searchParams.get('skinning') === 'dual-quaternion', null, 10_000);

      // And back: the picture returns to the linear one (the instances hold their clip).
      await panelControl(page, 'skinning').locator('select').selectOption('linear');
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
      expect(await panelControl(page, 'skinning').locator('select').inputValue()).toBe('dual-quaternion');
      const picture = await demo.shot(page, 'skinning-fox-dual-quaternion');
      expect(shareUnlike(picture, SKY_RGB8, await overlayRects(page))).toBeGreaterThan(0.25);
      expect(problems).toEqual([]);
      await page.close();
    }, TEST_TIMEOUT);
  });

  /**
   * Props on joints (CrowdProps.attach): in the locomotion scene the Walkers and the
   * RobotExpressive robots hold the bundled Sword (public/models/Props/Sword.glb) in their right
   * hand. Screenshots: props-*.png.
   */
  describe('props on joints', () => {
    // One page: the Walkers first, then the panel's model menu loads RobotExpressive into the same
    // scene (the device and the pipelines the scene shares are kept; a page each took twice as long).
    // Draw calls: the body's primitives x 4 LOD levels, plus the Sword's 3 primitives (one draw each).
    it('Walkers, then RobotExpressives (chosen in the panel), in the locomotion scene hold a sword in Hand.R and Palm2.R', async () => {
      const { page, problems } = await demo.open('?scene=locomotion&instances=8');
      for (const [model, hand, drawCalls] of [['Walker', 'Hand.R', 2 * 4 + 3], ['RobotExpressive', 'Palm2.R', 19 * 4 + 3]] as const) {
        if (model !== 'Walker') await panelControl(page, 'model').locator('select').selectOption(model);
        await waitDrawing(page, (want) => document.getElementById('stats')?.dataset.model === want, model, WAIT);
        await waitForCrowd(page, 8, 3);
        await waitDrawing(page, (want) => document.getElementById('stats')?.dataset.prop === want, `Sword@${hand}`, WAIT);
        await waitForCrowd(page, 8, 2); // a couple of frames with the prop
        const image = await demo.shot(page, `props-${model}`);
        expect(await stat(page, 'drawCalls'), model).toBe(String(drawCalls));
        const gold = goldPixels(image, await overlayRects(page));
        console.log(`${model}: ${gold} gold (sword hilt) pixels`);
        // The Walker has no yellow of its own (the robots are yellow all over). demoSession's canvas has a
        // quarter of the layout's pixels (DEMO_PIXEL_SCALE): 33 gold pixels measured there, a quarter of 20 and more would do.
        if (model === 'Walker') expect(gold).toBeGreaterThan(8);
      }
      expect(await stat(page, 'scene')).toBe('locomotion');
      expect(problems).toEqual([]);
      await page.close();
    }, TEST_TIMEOUT);
  });

  /**
   * The appearance control (docs/appearance.md, ?appearance=1): the Mannequin crowd with the
   * control on (opened with ?appearance=1) and then off (the panel's switch), counted in distinct
   * hue clusters. Screenshots: appearance-*.png.
   */
  describe('the appearance control', () => {
    it('the Mannequin crowd with appearance on shows more distinct hues than with it off, and no errors', async () => {
      // One page: opened with ?appearance=1, then the panel's switch turned off (the crowd paused, so
      // only the appearance changes; a page each took twice as long).
      const results: Record<string, { clusters: number; saturated: number }> = {};
      const { page, problems } = await demo.open(`${APPEARANCE_QUERY}&appearance=1`);
      await waitForCrowd(page, 100, 4, 300_000);
      for (const on of [true, false]) {
        if (!on) {
          await panelControl(page, 'appearance').locator('input').uncheck();
          await waitDrawing(page, () => new URL(location.href).searchParams.get('appearance') !== '1', null, WAIT);
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
    }, 400_000);
  });
});
