/**
 * The crowd on WebGL 2 end to end (issue 37), in headless Chromium on SwiftShader: the demo forced
 * onto WebGL 2 (?backend=webgl2) and falling back by itself where navigator.gpu is missing draws
 * its Foxes (pixels unlike the sky, changing between frames), says "WebGL 2" in its stats, keeps a
 * clean console, and restores the crowd after the context is lost; and the instance API answers
 * the same ids and the same named errors on both backends (createCrowd with each). On WebGL 2 the demo has its panel and
 * ground grid, and a scene it cannot run there is refused with its reason. One browser;
 * small crowds, so each case takes seconds. Screenshots: test-results/e2e/gl-crowd-*.png.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GROUND_COLOR, SKY_RGB8 } from '../../demo/theme';
import { chromiumAvailable, demoSession, overlayRects, stat, statNumber, waitForCrowd, waitForFrames } from './harness';
import { shareChanged, shareUnlike } from './pixels';

const VIEWPORT = { width: 640, height: 400 };
const TEST_TIMEOUT = 120_000;

const available = chromiumAvailable();

describe.skipIf(!available)('the crowd on WebGL 2 (headless Chromium, SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, 60_000);

  /** Two screenshots a few frames apart: Foxes drawn (pixels unlike the sky) and animated (pixels changed). */
  async function expectAliveCrowd(page: Page, name: string): Promise<void> {
    const skip = await overlayRects(page);
    const first = await demo.shot(page, `gl-crowd-${name}-1`);
    await waitForFrames(page, (await statNumber(page, 'frames')) + 2, 60_000);
    const second = await demo.shot(page, `gl-crowd-${name}-2`);
    const unlikeSky = shareUnlike(first, SKY_RGB8, skip), changed = shareChanged(first, second, skip);
    // The ground grid (demo/gl-grid-pass.ts): the plain ground between its lines, near the camera.
    const ground = 1 - shareUnlike(first, GROUND_COLOR.slice(0, 3).map((c) => Math.round(c * 255)), skip);
    console.log(`gl-crowd ${name}: ${(unlikeSky * 100).toFixed(1)}% of pixels unlike the sky, ${(ground * 100).toFixed(1)}% ground, ${(changed * 100).toFixed(2)}% changed`);
    expect(ground, 'no ground grid drawn').toBeGreaterThan(0.03);
    expect(unlikeSky, 'picture is (nearly) all sky: no Foxes drawn').toBeGreaterThan(0.05);
    expect(changed, 'picture did not change between frames: crowd missing or frozen').toBeGreaterThan(0.002);
  }

  it('?backend=webgl2: the demo draws its Foxes on WebGL 2 with its panel, says so and why a scene is not there, keeps a clean console, and restores the crowd after a lost context', async () => {
    // The layers scene asked for: the crowd scene runs, and the page says why (demo/gl-app.ts GL_SCENES_MISSING).
    const { page, problems } = await demo.open('?backend=webgl2&instances=40&scene=layers&model=Fox');
    await waitForCrowd(page, 40, 2, 90_000);
    expect(await stat(page, 'backend')).toBe('webgl2');
    expect(await page.locator('#stats').textContent()).toMatch(/^WebGL 2 \(forced by \?backend=webgl2\)/);
    expect(await stat(page, 'glRefused')).toBe('layers');
    expect(await page.locator('#message').textContent()).toMatch(/the layers scene does not run on WebGL 2 in this demo yet: .*Showing the crowd scene/);
    // The panel: its scene menu back on the crowd scene, the instance presets up to the 10k stress test.
    expect(await page.locator('.lil-gui.lil-root > .lil-title').textContent()).toBe('crowd-skin');
    expect(await page.locator('.lil-gui select').first().inputValue()).toBe('crowd');
    expect(await page.locator('.lil-gui .presets .lil-controller button').allTextContents()).toEqual(['1k', '10k', '100k', '1M']);
    expect(await statNumber(page, 'visible')).toBeGreaterThan(0);
    expect(await statNumber(page, 'drawCalls')).toBeGreaterThan(0);
    await expectAliveCrowd(page, 'forced');
    expect(await stat(page, 'grid')).toBe('true');
    await page.evaluate(() => window.crowdDemo!.loseDevice());
    await page.waitForFunction(() => document.getElementById('stats')?.dataset.restores === '1', null, { timeout: 30_000, polling: 100 });
    await expectAliveCrowd(page, 'restored');
    expect(await page.locator('#fatal').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);

  it('without navigator.gpu the demo falls back to WebGL 2 by itself', async () => {
    const page = await demo.newPage();
    await page.addInitScript(() => { delete (Navigator.prototype as { gpu?: unknown }).gpu; });
    const problems: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${demo.baseUrl}/?instances=30`);
    await waitForCrowd(page, 30, 2, 90_000);
    expect(await page.locator('#stats').textContent()).toMatch(/^WebGL 2 \(WebGPU is not available here\)/);
    await expectAliveCrowd(page, 'fallback');
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);

  it('one page, both backends: createCrowd gives the same ids, named errors and clip events on WebGPU and on WebGL 2; what needs WebGPU is refused by name on GL', async () => {
    const page = await demo.newPage();
    await page.goto(`${demo.baseUrl}/test/e2e/gl-skin/index.html`);
    const answers = await page.evaluate(async () => {
      // Through Function: vitest would rewrite an import() written here, and this runs in the page (Vite serves /src/index.ts).
      const api = await (new Function('u', 'return import(u)'))('/src/index.ts') as typeof import('../../src/index');
      // GLCrowd itself is crowd-skin/webgl2's (createCrowd imports it on demand).
      const gl2 = await (new Function('u', 'return import(u)'))('/src/webgl2/index.ts') as typeof import('../../src/webgl2/index');
      const character = await api.loadCharacter('/models/Fox/Fox.glb');
      const run = async (backend: 'webgpu' | 'webgl2') => {
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = 64;
        const crowd = await api.createCrowd(canvas, character, { backend, capacity: 2 });
        const out: string[] = [crowd.backend];
        // Clip events, a CPU feature: the same events from both backends (one copy of it).
        const events = new api.CrowdEvents(crowd);
        events.setClipEvents('Run', [{ time: 0.05, name: 'step' }, { time: 0.3, name: 'half' }]);
        events.on((id, name, clip, time) => out.push(`event ${id} ${name} ${clip} ${time.toFixed(3)}`));
        const attempt = (f: () => unknown) => { try { out.push(String(f())); } catch (error) { out.push(`${(error as Error).name}: ${(error as Error).message}`); } };
        const a = crowd.add({ clipA: 'Walk' }), b = crowd.add({ clipA: 'Run', blend: 0.5 });
        crowd.remove(a);
        const c = crowd.add();
        out.push(String([a, b, c]));
        attempt(() => crowd.add({ clipA: 'Jog' }));
        attempt(() => crowd.setBlend(b, 1.5));
        attempt(() => crowd.setAnimation(a, { blend: 0 }));
        attempt(() => crowd.setPlacement(b, Number.NaN, 0, 0, 0));
        attempt(() => crowd.setLayers(b, { layers: [{ clip: 'Nope', weight: 1 }] }));
        attempt(() => crowd.addMany({ count: 2, clipsA: new Uint32Array([0, 9]) }));
        attempt(() => crowd.update(Number.POSITIVE_INFINITY));
        attempt(() => JSON.stringify(crowd.getAnimation(c)));
        crowd.update(0.1);
        crowd.update(0.5);
        crowd.setCamera(api.mat4.perspective(1, 1, 0.1, 100), [0, 0, 0]);
        crowd.render(api.mat4.identity());
        crowd.destroy();
        return out;
      };
      // What only WebGL 2 refuses, by name: a feature, a palette budget, dual-quaternion skinning.
      const refusals: string[] = [];
      const gl = document.createElement('canvas').getContext('webgl2')!;
      const refuse = (f: () => unknown) => { try { f(); refusals.push('accepted'); } catch (error) { refusals.push((error as Error).message); } };
      const crowd = new gl2.GLCrowd(gl, character, { capacity: 1 });
      refuse(() => new api.CrowdProps(crowd as unknown as InstanceType<typeof api.Crowd>));
      refuse(() => new gl2.GLCrowd(gl, character, { paletteSize: 1000 }));
      refuse(() => new gl2.GLCrowd(gl, character, { skinning: 'dual-quaternion' }));
      crowd.destroy();
      return [await run('webgpu'), await run('webgl2'), refusals];
    });
    const [gpu, gl, refusals] = answers;
    expect(refusals[0]).toMatch(/"props" feature is not on WebGL 2 yet: it needs WebGPU/);
    expect(refusals[1]).toMatch(/^paletteSize: .*it needs WebGPU/);
    expect(refusals[2]).toMatch(/dual-quaternion.*needs WebGPU/);
    expect(gpu[0]).toBe('webgpu');
    expect(gl[0]).toBe('webgl2');
    expect(gl.slice(1)).toEqual(gpu.slice(1));
    // The case is not vacuous: every bad call was refused by name.
    expect(gpu.filter((line) => /Error: /.test(line))).toHaveLength(7);
    expect(gpu.filter((line) => line.startsWith('event ')).length).toBeGreaterThan(1);
    await page.close();
  }, TEST_TIMEOUT);
});
