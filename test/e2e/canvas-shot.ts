/**
 * The demo's picture read from its canvas instead of a page screenshot. On SwiftShader a
 * `page.screenshot` waits for the compositor's next frames: 6 to 8 of the demo's frames went by
 * during one (measured, 1,000 Foxes at 480 x 300, about 6 s of CPU), where reading the canvas
 * waits for one. Paused, the two pictures are the same pixel for pixel (measured: no pixel
 * differs); what the canvas lacks are the DOM overlays, which the pixel checks leave out anyway
 * (overlayRects). For a page whose DOM is the point (a message, the fatal screen), keep
 * demoSession's `shot`.
 */
import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { SKY_RGB8 } from '../../demo/theme';
import { RESULTS_DIR, statNumber, waitForFrames, type Rect } from './harness';
import { decode, shareChanged, shareUnlike, type Image } from './pixels';

/**
 * The picture of the canvas `selector` (default the demo's #canvas, the size of the viewport in
 * device pixels, so screenshot rectangles such as overlayRects' apply), saved as
 * test-results/e2e/<name>.png, and decoded. Read in an animation frame callback registered after
 * the page's own (its loop asks for the next frame while it draws this one): a WebGL 2 canvas's
 * picture is only readable until the frame is composited (no preserveDrawingBuffer); a WebGPU
 * canvas gives the frame just drawn, once SwiftShader has finished it. A held page
 * (held-frames.ts) draws that one frame for it: the read runs in it after the page's own callbacks.
 */
export async function canvasShot(page: Page, name: string, selector = '#canvas'): Promise<Image> {
  const url = await page.evaluate((s) => new Promise<string>((resolve, reject) => {
    const canvas = document.querySelector(s);
    if (!(canvas instanceof HTMLCanvasElement)) return reject(new Error(`no canvas ${s}`));
    const gate = (window as unknown as { frameGate?: { frames(count: number): Promise<void> } }).frameGate;
    if (gate) gate.frames(1).then(() => resolve(canvas.toDataURL('image/png')), reject);
    else requestAnimationFrame(() => resolve(canvas.toDataURL('image/png')));
  }), selector);
  const png = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  writeFileSync(`${RESULTS_DIR}/${name}.png`, png);
  return decode(png);
}

/**
 * Two pictures of the demo's canvas (canvasShot, saved as <name>-1.png and <name>-2.png) at least
 * `frames` + 1 frames apart (the second is read in the frame after those waited for, at most
 * `timeout` ms): neither blank (at least a quarter of the pixels outside `skip` unlike the sky) nor
 * frozen (more than 0.2% changed). Only the animated crowd can change between them (the camera
 * stands still and the ground is static), so the second check also proves that characters are drawn.
 */
export async function expectAliveCanvas(page: Page, name: string, skip: Rect[], frames = 1, timeout = 120_000): Promise<void> {
  const first = await canvasShot(page, `${name}-1`);
  await waitForFrames(page, (await statNumber(page, 'frames')) + frames, timeout);
  const second = await canvasShot(page, `${name}-2`);
  const unlikeSky = shareUnlike(first, SKY_RGB8, skip);
  const changed = shareChanged(first, second, skip);
  console.log(`${name}: ${(unlikeSky * 100).toFixed(1)}% of pixels unlike the sky, ${(changed * 100).toFixed(2)}% changed between the two pictures`);
  expect(unlikeSky, 'picture is (nearly) all background').toBeGreaterThan(0.25);
  expect(changed, 'picture did not change between frames: crowd missing or frozen').toBeGreaterThan(0.002);
}
