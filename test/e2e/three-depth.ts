/**
 * Depth shared between three.js and crowd-skin, checked on a page of examples/three (main.js):
 * the page's window.threeExample is driven to arrange one Fox and three's box, and screenshots
 * are compared pixel by pixel. Used by three.test.ts (the example on Vite's dev server) and by
 * the install tests (the example built from the packed package, example-apps.ts).
 */
import type { Page } from 'playwright-core';
import type { Mesh, PerspectiveCamera } from 'three/webgpu';
import { expect } from 'vitest';
import type { Crowd } from '../../src/index';
import { differenceMask, erode, maskCount, shareChangedIn, type Image, type Mask } from './pixels';

/** Longest wait for the example's frames, ms (SwiftShader on a busy 2-core machine). */
const WAIT = 120_000;

/** What examples/three/main.js puts on window.threeExample. */
export interface ThreeExample {
  camera: PerspectiveCamera;
  box: Mesh;
  crowd: Crowd;
  ids: Int32Array;
  scale: number;
  lift: number;
  frames: number;
  paused: boolean;
}

/** Where the Fox under test is, and the box: hidden, between it and the camera, or behind it. */
export interface Arrangement { fox: 'here' | 'away'; box: 'hidden' | 'front' | 'behind' }

/** Takes a screenshot of the page, saved under `name` for a person to look at. */
export type Shot = (name: string) => Promise<Image>;

/** Waits for `frames` more frames of the example's animation loop (it counts them in body's data-frames). */
export async function waitFrames(page: Page, frames: number): Promise<void> {
  const start = await page.evaluate(() => Number(document.body.dataset.frames ?? 0));
  await page.waitForFunction((n) => Number(document.body.dataset.frames ?? 0) >= n, start + frames, { timeout: WAIT, polling: 50 });
}

/**
 * Pauses the crowd and looks from (0, 0.5, 10.5) m, just outside the rings and facing away from
 * them (so only ground and sky lie behind), at a Fox standing side-on at (0, 0, 14), or with that
 * Fox moved out of view. The box (2 m, scaled) is hidden, 1.3 to 2.3 m in front of the Fox, or
 * filling the view 1.5 to 4.5 m behind it. Returns the screenshot two frames later.
 */
export async function arrange(page: Page, shot: Shot, name: string, arrangement: Arrangement): Promise<Image> {
  await page.evaluate(({ fox, box }) => {
    const example = (window as unknown as { threeExample: ThreeExample }).threeExample;
    example.paused = true;
    example.camera.position.set(0, 0.5, 10.5);
    example.camera.lookAt(0, 0.4, 14);
    if (fox === 'here') example.crowd.setPlacement(example.ids[0], 0, example.lift, 14, Math.PI / 2, example.scale);
    else example.crowd.setPlacement(example.ids[0], 0, example.lift, -100, 0, example.scale);
    example.box.visible = box !== 'hidden';
    if (box === 'front') {
      example.box.position.set(0, 0.45, 12.2);
      example.box.scale.setScalar(0.5);
    } else if (box === 'behind') {
      example.box.position.set(0, 1, 17);
      example.box.scale.setScalar(1.5);
    }
  }, arrangement);
  await waitFrames(page, 2);
  return shot(name);
}

/**
 * A three.js box between the camera and a Fox hides it (the Fox posed at its clips' time 0): with
 * the box in front, the Fox's pixels (a Fox alone against the scene without it, less one pixel of
 * anti-aliased edge) must look as the box alone does, and unlike the Fox alone. Leaves the
 * example paused in the last arrangement; returns the Fox's mask and its screenshot alone for
 * further checks.
 */
export async function expectBoxInFrontHidesFox(page: Page, shot: Shot): Promise<{ fox: Mask; foxAlone: Image }> {
  // One pose every run (its walk and run at time 0, as the page's clock will not move them once
  // paused): paused wherever the clock stood, the Fox's legs framed ground that a box behind then
  // covers, 0 to 0.6% of the Fox's mask by pose, against three.test.ts's bound of 0.5%.
  await page.evaluate(() => {
    const example = (window as unknown as { threeExample: ThreeExample }).threeExample;
    example.paused = true;
    example.crowd.setAnimation(example.ids[0], { timeA: 0, timeB: 0 });
  });
  const foxAlone = await arrange(page, shot, 'fox', { fox: 'here', box: 'hidden' });
  const empty = await arrange(page, shot, 'empty', { fox: 'away', box: 'hidden' });
  const boxFront = await arrange(page, shot, 'box-front', { fox: 'here', box: 'front' });
  const boxFrontAlone = await arrange(page, shot, 'box-front-empty', { fox: 'away', box: 'front' });

  const fox = erode(differenceMask(foxAlone, empty));
  const foxShare = maskCount(fox) / (fox.width * fox.height);
  const covered = shareChangedIn(foxAlone, boxFront, fox);
  const hidden = shareChangedIn(boxFront, boxFrontAlone, fox);
  console.log(`three depth: Fox covers ${(foxShare * 100).toFixed(1)}% of the view; box in front changes ${(covered * 100).toFixed(1)}% of it, ` +
    `leaves ${(hidden * 100).toFixed(2)}% unlike the box alone`);
  expect(foxShare, 'the Fox under test is not drawn').toBeGreaterThan(0.02);
  expect(covered, 'a box in front of the Fox did not cover it').toBeGreaterThan(0.9);
  expect(hidden, 'the Fox shows through a box in front of it').toBeLessThan(0.005);
  return { fox, foxAlone };
}
