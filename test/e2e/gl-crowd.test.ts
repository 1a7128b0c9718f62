/**
 * The crowd on WebGL 2 end to end (issue 37), in headless Chromium on SwiftShader: the demo forced
 * onto WebGL 2 (?backend=webgl2) and falling back by itself where navigator.gpu is missing draws
 * its Foxes (pixels unlike the sky, changing between frames), says "WebGL 2" in its stats, keeps a
 * clean console, and restores the crowd after the context is lost; and the instance API answers
 * the same ids and the same named errors on both backends (createCrowd with each); and the
 * features with a TypeScript twin (CPU-driven controllers, steering's twin, CPU picking) and
 * appearance answer on WebGL 2 as on WebGPU (the same scene on both, compared; steering against
 * its twin in the page, whose GPU pass costs SwiftShader seconds to build). On WebGL 2 the demo
 * has its panel and ground grid, and a scene it cannot run there is refused with its reason. One browser;
 * small crowds, so each case takes seconds; the demo's pages draw only while a case waits for
 * frames (demoSession held), and the cases that build crowds of their own share one page
 * (glSkinPage). Screenshots: test-results/e2e/gl-crowd-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GROUND_COLOR, SKY_RGB8 } from '../../demo/theme';
import { chromiumAvailable, demoSession, overlayRects, panelControl, REPO_ROOT, stat, statNumber, waitDrawing, waitForCrowd, waitForFrames } from './harness';
import { decode, shareChanged, shareUnlike } from './pixels';

const VIEWPORT = { width: 640, height: 400 };
const TEST_TIMEOUT = 120_000;

const available = chromiumAvailable();

describe.skipIf(!available)('the crowd on WebGL 2 (headless Chromium, SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, 60_000, { held: true, oneContext: true });

  /**
   * One page of test/e2e/gl-skin/index.html for the cases that build their crowds in it, each on
   * canvases of its own (a page each loaded and compiled the same modules again); laid out and
   * read in CSS pixels. The last of them closes it.
   */
  let glSkin: Promise<Page> | undefined;
  function glSkinPage(): Promise<Page> {
    glSkin ??= demo.newPage(1).then(async (page) => {
      await page.goto(`${demo.baseUrl}/test/e2e/gl-skin/index.html`);
      return page;
    });
    return glSkin;
  }

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

  /**
   * The GL demo takes dropped files as the WebGPU one does: a model becomes the crowd with its
   * clips in the panel; the same messages for what it cannot show (the clips scene's dropped body:
   * scenes.test.ts). On the page of the first case, after its restore (a page less to open).
   */
  async function expectDrops(page: Page): Promise<void> {
    const drop = (page: Page, name: string, bytes: Buffer) => page.evaluate(([n, base64]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], n));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, [name, bytes.toString('base64')]);
    const message = (page: Page) => page.locator('#message-text').textContent();
    const opened = Date.now();
    await drop(page, 'notes.txt', Buffer.from('not a model'));
    expect(await message(page)).toBe('Cannot show notes.txt: drop a .glb file, or a .gltf file together with its .bin and textures');
    await drop(page, 'dropped-walker.glb', readFileSync(`${REPO_ROOT}public/models/Walker/Walker.glb`));
    await waitDrawing(page, () => document.getElementById('stats')?.dataset.model === 'dropped-walker.glb', null, 60_000);
    const clipMenu = panelControl(page, 'clip A').locator('option');
    expect((await clipMenu.allTextContents()).filter((name) => name !== '')).toContain('WalkForward');
    await drop(page, 'broken.glb', Buffer.from('glTF but not really'));
    await waitDrawing(page, () => document.getElementById('message-text')?.textContent?.startsWith('Could not load broken.glb'), null, 30_000);
    expect(await message(page)).toMatch(/^Could not load broken\.glb: .+\. Still showing dropped-walker\.glb\.$/);
    expect(await stat(page, 'model')).toBe('dropped-walker.glb');
    console.log(`GL demo drops: the drops took ${((Date.now() - opened) / 1000).toFixed(1)} s`);
  }

  it('?backend=webgl2: the demo draws its Foxes on WebGL 2 with its panel, says so and why a setting is refused, keeps a clean console, restores the crowd after a lost context, and takes dropped files', async () => {
    // Dual-quaternion skinning asked for: the crowd skins linearly, and the page says why (and lists it in data-gl-refused).
    const { page, problems } = await demo.open('?backend=webgl2&instances=40&model=Fox&skinning=dual-quaternion');
    await waitForCrowd(page, 40, 2, 90_000);
    expect(await stat(page, 'backend')).toBe('webgl2');
    expect(await page.locator('#stats').textContent()).toMatch(/^WebGL 2 \(forced by \?backend=webgl2\)/);
    expect(await stat(page, 'glRefused')).toBe('skinning');
    expect(await page.locator('#message').textContent()).toMatch(/dual-quaternion skinning needs WebGPU; this crowd skins linearly/);
    // The panel: its scene menu on the crowd scene, the instance presets up to the 10k stress test.
    expect(await page.locator('.lil-gui.lil-root > .lil-title').textContent()).toBe('crowd-skin');
    expect(await page.locator('.lil-gui select').first().inputValue()).toBe('crowd');
    expect(await page.locator('.lil-gui .presets .lil-controller button').allTextContents()).toEqual(['1k', '10k', '100k', '1M']);
    expect(await statNumber(page, 'visible')).toBeGreaterThan(0);
    expect(await statNumber(page, 'drawCalls')).toBeGreaterThan(0);
    await expectAliveCrowd(page, 'forced');
    expect(await stat(page, 'grid')).toBe('true');
    await page.evaluate(() => window.crowdDemo!.loseDevice());
    await waitDrawing(page, () => document.getElementById('stats')?.dataset.restores === '1', null, 30_000);
    await expectAliveCrowd(page, 'restored');
    expect(await page.locator('#fatal').isHidden()).toBe(true);
    await expectDrops(page);
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
    const page = await glSkinPage();
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
      // What only WebGL 2 refuses, by name: a feature, dual-quaternion skinning.
      const refusals: string[] = [];
      const gl = document.createElement('canvas').getContext('webgl2')!;
      const refuse = (f: () => unknown) => { try { f(); refusals.push('accepted'); } catch (error) { refusals.push((error as Error).message); } };
      const crowd = new gl2.GLCrowd(gl, character, { capacity: 1 });
      refuse(() => new api.CrowdProps(crowd as unknown as InstanceType<typeof api.Crowd>));
      refuse(() => new gl2.GLCrowd(gl, character, { skinning: 'dual-quaternion' }));
      crowd.destroy();
      return [await run('webgpu'), await run('webgl2'), refusals];
    });
    const [gpu, gl, refusals] = answers;
    expect(refusals[0]).toMatch(/"props" feature is not on WebGL 2 yet: it needs WebGPU/);
    expect(refusals[1]).toMatch(/dual-quaternion.*needs WebGPU/);
    expect(gpu[0]).toBe('webgpu');
    expect(gl[0]).toBe('webgl2');
    expect(gl.slice(1)).toEqual(gpu.slice(1));
    // The case is not vacuous: every bad call was refused by name.
    expect(gpu.filter((line) => /Error: /.test(line))).toHaveLength(7);
    expect(gpu.filter((line) => line.startsWith('event ')).length).toBeGreaterThan(1);
  }, TEST_TIMEOUT);
  it('features on WebGL 2 through their twins: CPU controllers, steering, picking and appearance give what they give on WebGPU; what needs WebGPU is refused by name', async () => {
    const started = Date.now(), phases: string[] = [];
    const phase = (name: string) => phases.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const page = await glSkinPage();
    const SIZE = 96, TOP = 260;
    // 1. The same scene on both backends, side by side: a CPU-driven controller, three steered agents, a plain instance; 12 frames.
    await page.evaluate(async ({ SIZE, TOP }) => {
      const api = await (new Function('u', 'return import(u)'))('/src/index.ts') as typeof import('../../src/index');
      const scenes = await (new Function('u', 'return import(u)'))('/tools/steering-scenes.ts') as typeof import('../../tools/steering-scenes');
      const fox = await api.loadCharacter('/models/Fox/Fox.glb');
      const config = api.parseControllerConfig(await (await fetch('/models/Fox/Fox.controller.json')).json(), fox.clipNames);
      const { min, max } = fox.bounds;
      const u = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]), cy = (min[1] + max[1]) / 2;
      const eye = [0, cy + 3 * u, 7 * u];
      const viewProjection = api.mat4.multiply(api.mat4.perspective(0.9, 1, 0.1 * u, 40 * u), api.mat4.lookAt(eye, [0, cy, 0], [0, 1, 0]));
      const scene = async (backend: 'webgpu' | 'webgl2', left: number) => {
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = SIZE;
        canvas.style.cssText = `position:absolute;left:${left}px;top:${TOP}px;width:${SIZE}px;height:${SIZE}px`;
        document.body.appendChild(canvas);
        const crowd = await api.createCrowd(canvas, fox, { backend, capacity: 8 });
        const controllers = new api.CrowdControllers(crowd, config, { driver: 'cpu' });
        // Steering on WebGL 2 only: its GPU pass is held to the twin in Node (test/features/steering/), and its pipelines cost SwiftShader seconds here.
        const steering = backend === 'webgl2' ? new api.CrowdSteering(crowd) : undefined;
        const picking = new api.CrowdPicking(crowd), looks = new api.CrowdAppearance(crowd);
        // The twin stepping the same agents the same frames (tools/steering-scenes.ts TwinScene: stepSteering on a SteeringModel of its own).
        const twin = backend === 'webgl2' ? new scenes.TwinScene() : undefined;
        const agents = [[-2.5, 0.2, 2.5, 0], [2.5, -0.2, -2.5, 0], [0.3, -2.5, 0, 2.5]].map(([x, z, gx, gz]) => {
          const id = crowd.add({ clipA: 'Walk' });
          crowd.setPlacement(id, x * u, 0, z * u, 0);
          steering?.addAgent(id, { radius: 0.3 * u, maxSpeed: 1.5 * u, preferredSpeed: 1.2 * u, goal: [gx * u, gz * u] });
          twin?.add(x * u, z * u, { radius: 0.3 * u, maxSpeed: 1.5 * u, preferredSpeed: 1.2 * u, goal: [gx * u, gz * u] });
          return id;
        });
        // After the agents, so that they hold handles 0 to 2 as in the twin (its step nudges by handle).
        const walker = crowd.add();
        controllers.add(walker, -u, 0, 0.5).setSpeed(1.5);
        const plain = crowd.add({ clipA: 'Survey', timeA: 0.4 });
        crowd.setPlacement(plain, 1.2 * u, 0, 1.5 * u, 1);
        const frame = () => {
          twin?.step(1 / 30);
          controllers.update(1 / 30);
          crowd.update(1 / 30);
          crowd.setCamera(viewProjection, eye);
          crowd.render(viewProjection);
        };
        for (let f = 0; f < 12; f++) frame();
        return { api, u, cy, viewProjection, crowd, controllers, steering, twin, picking, looks, walker, agents, plain, frame };
      };
      (window as unknown as { features: unknown }).features = [await scene('webgpu', 0), await scene('webgl2', SIZE + 4)];
    }, { SIZE, TOP });
    /** Mean R, G, B (0-255) of each backend's canvas in a screenshot (WebGPU left, WebGL 2 right). */
    const means = async () => {
      const image = decode(await page.screenshot());
      return [0, SIZE + 4].map((left) => {
        const sum = [0, 0, 0];
        for (let y = TOP; y < TOP + SIZE; y++) for (let x = left; x < left + SIZE; x++) for (let k = 0; k < 3; k++) sum[k] += image.data[(y * image.width + x) * 4 + k];
        return sum.map((v) => v / (SIZE * SIZE));
      });
    };
    phase('scenes');
    const before = await means();
    phase('screenshot');
    // 2. Every instance tinted red; one frame.
    await page.evaluate(() => {
      for (const f of (window as unknown as { features: { crowd: { add(): number }; looks: { setTint(id: number, r: number, g: number, b: number): void }; walker: number; plain: number; agents: number[]; frame(): void }[] }).features) {
        for (const id of [f.walker, f.plain, ...f.agents]) f.looks.setTint(id, 1, 0.15, 0.15);
        f.frame();
      }
    });
    const tinted = await means();
    phase('tint');
    // 3. Picks and agents; then, on a GL crowd, what needs WebGPU.
    const [gpu, gl, refusals] = await page.evaluate(async () => {
      type Scene = { api: typeof import('../../src/index'); u: number; cy: number; viewProjection: Float32Array; crowd: InstanceType<typeof import('../../src/index').GLCrowd>; controllers: InstanceType<typeof import('../../src/index').CrowdControllers>; steering?: InstanceType<typeof import('../../src/index').CrowdSteering>; twin?: InstanceType<typeof import('../../tools/steering-scenes').TwinScene>; picking: InstanceType<typeof import('../../src/index').CrowdPicking>; walker: number; agents: number[]; plain: number; frame(): void };
      const scenes = (window as unknown as { features: Scene[] }).features;
      const answers = [];
      for (const { u, cy, viewProjection, crowd, steering, twin, picking, walker, agents, plain, frame } of scenes) {
        const down = { origin: [1.2 * u, cy + 4 * u, 1.5 * u] as [number, number, number], direction: [0, -1, 0] as [number, number, number] };
        const raycast = picking.raycast(down).map((h) => ({ id: h.id, distance: h.distance / u }));
        const picked = picking.pick(down);
        const selected = picking.selectRect({ x0: 0, y0: 0, x1: 96, y1: 96 }, { viewProjection, width: 96, height: 96 });
        for (let f = 0; f < 3; f++) frame();
        const hit = await picked;
        const read = steering ? await steering.readAgents() : undefined;
        const world = crowd.worldTransform(walker);
        answers.push({
          backend: crowd.backend, walker: [world[12] / u, world[14] / u, Math.atan2(world[8], world[10])], animation: JSON.stringify(crowd.getAnimation(plain)),
          agentIds: read ? Array.from(read.ids) : [], agents: read ? Array.from(read.positions, (v) => v / u) : [],
          twin: twin ? [0, 1, 2].flatMap((h) => twin.position(h).map((v) => v / u)) : [],
          agentWorld: agents.map((id) => Array.from(crowd.worldTransform(id)).filter((_, i) => i === 12 || i === 14).map((v) => v / u)),
          raycast, pick: hit && { id: hit.id, distance: hit.distance / u }, selected: (await selected).sort((a, b) => a - b),
        });
      }
      // What needs WebGPU on the GL crowd, refused by name.
      const { api, crowd, controllers } = scenes[1];
      const refusals: string[] = [];
      const refuse = (f: () => unknown) => { try { f(); refusals.push('accepted'); } catch (error) { refusals.push((error as Error).message); } };
      refuse(() => new api.CrowdControllers(crowd, api.defaultControllerConfig(crowd.character.clipNames), { driver: 'gpu' }));
      refusals.push(new api.CrowdControllers(crowd, api.defaultControllerConfig(crowd.character.clipNames)).driver);
      refuse(() => controllers.add(crowd.add(), 0, 0, 0, { driver: 'gpu' }));
      refuse(() => crowd.install({ featureName: 'morph' }));
      const many = crowd.addMany({ count: 150 });
      refuse(() => { for (const id of many) scenes[1].steering!.addAgent(id, { radius: 0.3, maxSpeed: 1 }); });
      refusals.push(String(scenes[1].steering!.agentCount));
      for (const scene of scenes) scene.crowd.destroy();
      return [answers[0], answers[1], refusals];
    });
    phase('picks, agents, refusals');
    console.log(`gl-crowd features (${phases.join(', ')}): webgpu ${JSON.stringify(gpu)}\nwebgl2 ${JSON.stringify(gl)}\nrefusals ${JSON.stringify(refusals)}\nmeans before ${JSON.stringify(before)} tinted ${JSON.stringify(tinted)}`);
    expect(refusals[0]).toMatch(/driver 'gpu' \(the control pass\) needs WebGPU, and this crowd runs on WebGL 2/);
    expect(refusals[1]).toBe('cpu');
    expect(refusals[2]).toMatch(/driver 'gpu' .*needs WebGPU/);
    expect(refusals[3]).toMatch(/the "morph" feature is not on WebGL 2 yet: it needs WebGPU, and this crowd runs on WebGL 2/);
    expect(refusals[4]).toMatch(/steering on WebGL 2 steps at most 150 agents .*more agents need WebGPU/);
    expect(refusals[5]).toBe('150');
    expect([gpu.backend, gl.backend]).toEqual(['webgpu', 'webgl2']);
    // Controllers (CPU driver, one copy): the same placement and records.
    for (let i = 0; i < 3; i++) expect(Math.abs(gl.walker[i] - gpu.walker[i])).toBeLessThan(1e-5);
    expect(Math.hypot(gl.walker[0] + 1, gl.walker[1])).toBeGreaterThan(0.05); // it walked
    expect(gl.animation).toBe(gpu.animation);
    // Steering: the GL crowd's agents against the twin stepping the same agents on its own (the twin is held to the GPU pass in Node,
    // test/features/steering/crowd-steering.test.ts), and the GL records follow them (the unit is the Fox's bounds diagonal).
    expect(gl.agentIds).toHaveLength(3);
    expect(gl.twin).toHaveLength(6);
    expect(gl.agents).toEqual(gl.twin); // the same code on the same bytes: equal
    gl.agentWorld.forEach(([x, z], i) => expect(Math.hypot(x - gl.agents[2 * i], z - gl.agents[2 * i + 1])).toBeLessThan(1e-6));
    expect(Math.hypot(gl.agents[0] + 2.5, gl.agents[1] - 0.2)).toBeGreaterThan(0.3); // they moved
    // Picking: the CPU raycaster's answer on both; pick() on GL is the raycaster's nearest, on WebGPU the GPU's (depth-quantised).
    expect(gl.raycast).toEqual(gpu.raycast);
    expect(gl.raycast.length).toBeGreaterThan(0);
    expect(gl.pick?.id).toBe(gpu.pick?.id);
    expect(Math.abs(gl.pick!.distance - gpu.pick!.distance)).toBeLessThan(2e-3);
    expect(gl.selected).toEqual(gpu.selected);
    expect(gl.selected.length).toBeGreaterThan(2);
    // Appearance: the tint shows on both (the mean green, Foxes on black, falls by 40% or more), and the two pictures agree within 1/255 in the mean.
    for (const side of [0, 1]) {
      expect(before[side][1], `something drawn, side ${side}`).toBeGreaterThan(0.5);
      expect(tinted[side][1], `green tinted, side ${side}`).toBeLessThan(0.6 * before[side][1]);
    }
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(before[1][k] - before[0][k]), `channel ${k} untinted`).toBeLessThan(1);
      expect(Math.abs(tinted[1][k] - tinted[0][k]), `channel ${k} tinted`).toBeLessThan(1);
    }
  }, TEST_TIMEOUT);
  it('a finite paletteSize on WebGL 2: within budget the picture equals the crowd without a palette while instances enter and leave; over budget every drawn instance shows (shared poses), never a hole', async () => {
    const page = await glSkinPage();
    const result = await page.evaluate(async () => {
      const api = await (new Function('u', 'return import(u)'))('/src/index.ts') as typeof import('../../src/index');
      const gl2 = await (new Function('u', 'return import(u)'))('/src/webgl2/index.ts') as typeof import('../../src/webgl2/index');
      const character = await api.loadCharacter('/models/Fox/Fox.glb');
      const size = 96, canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true })!;
      type Palette = { held: number; sharedCount: number };
      // palette-pass.test.ts's scene: 100 Foxes on a grid, each its own clips, times, blend and yaw; every 6th layered.
      const make = (paletteSize?: number) => {
        const crowd = new gl2.GLCrowd(gl, character, { capacity: 128, paletteSize, animationLod: false });
        for (let i = 0; i < 100; i++) {
          const id = crowd.add({ clipA: i % 3, clipB: (i + 1) % 3, blend: ((i * 37) % 100) / 100, timeA: (i * 0.29) % 3, timeB: (i * 0.53) % 3, speedA: 1, speedB: 0.5 });
          crowd.setPlacement(id, ((i % 10) - 4.5) * 220, 0, (Math.floor(i / 10) - 4.5) * 220, (i * 2.3) % 6.3);
          if (i % 6 === 0) crowd.setLayers(id, { layers: [{ clip: 'Survey', weight: 0.6 }], additive: [{ clip: 'Run', weight: 0.5, reference: 'rest' }] });
        }
        return crowd;
      };
      const view = (eye: [number, number, number], target: [number, number, number]) =>
        ({ vp: api.mat4.multiply(api.mat4.perspective(0.7, 1, 1, 20000), api.mat4.lookAt(eye, target, [0, 1, 0])), eye });
      const picture = (crowd: InstanceType<typeof gl2.GLCrowd>, v: ReturnType<typeof view>, dt: number) => {
        crowd.setCamera(v.vp, v.eye);
        crowd.update(dt);
        gl.bindFramebuffer(gl.FRAMEBUFFER, null);
        gl.viewport(0, 0, size, size);
        gl.clearColor(0, 0, 0, 1);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        crowd.encode();
        crowd.draw(v.vp);
        const pixels = new Uint8Array(size * size * 4);
        gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
        return pixels;
      };
      const drawn = (p: Uint8Array) => { let n = 0; for (let i = 0; i < p.length; i += 4) if (p[i] + p[i + 1] + p[i + 2] > 0) n++; return n; };
      const differing = (a: Uint8Array, b: Uint8Array) => { let n = 0; for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++; return n; };
      // Within budget: near views sweeping across the grid (instances enter and leave), then the whole grid.
      const reference = make(), palette = make(64);
      const views = [view([-700, 300, -1300], [-500, 0, 0]), view([0, 300, -1300], [0, 0, 0]), view([800, 300, -1300], [500, 0, 0]), view([0, 300, 1300], [0, 0, 0])];
      const within = views.map((v) => {
        const want = picture(reference, v, 0.2), got = picture(palette, v, 0.2);
        const p = (palette as unknown as { palette: Palette }).palette;
        return { differing: differing(got, want), drawn: drawn(want), visible: palette.cullStats!.visible, held: p.held, shared: p.sharedCount };
      });
      // Over budget: the whole grid from above, 64 sets for 100 drawn.
      const above = view([0, 4000, -1], [0, 0, 0]);
      const want = picture(reference, above, 0.2), got = picture(palette, above, 0.2);
      const p = (palette as unknown as { palette: Palette }).palette;
      const over = { drawn: drawn(got), reference: drawn(want), visible: palette.cullStats!.visible, held: p.held, shared: p.sharedCount };
      for (const crowd of [reference, palette]) crowd.destroy();
      return { within, over, error: gl.getError() };
    });
    console.log(`GL palette: ${JSON.stringify(result)}`);
    expect(result.error).toBe(0);
    for (const [i, frame] of result.within.entries()) {
      expect(frame.drawn, `view ${i} shows Foxes`).toBeGreaterThan(200);
      expect(frame.visible, `view ${i} draws within the budget`).toBeLessThanOrEqual(64);
      expect(frame.held, `view ${i}: a set per drawn instance`).toBe(frame.visible);
      expect(frame.shared).toBe(0);
      expect(frame.differing, `view ${i}: the palette's picture equals the one without`).toBe(0);
    }
    expect(result.over.visible).toBe(100);
    expect(result.over.held).toBe(64);
    expect(result.over.shared).toBe(36);
    expect(result.over.drawn / result.over.reference, 'shared poses: every instance shows').toBeGreaterThan(0.8);
    expect(result.over.drawn / result.over.reference).toBeLessThan(1.25);
  }, TEST_TIMEOUT);
  it('issue 38: a KTX2 (KHR_texture_basisu) texture draws on WebGL 2 as its PNG original does', async () => {
    // CesiumMan with its texture scaled to 64 x 64, as PNG and as UASTC KTX2 (test/bake/decode-ktx2.test.ts's files).
    const { ktx2Compressed, smallTextures } = await import('../helpers/compress');
    const { modelPath } = await import('../helpers/models');
    const png = await smallTextures(modelPath('CesiumMan'), 64);
    const url = (file: ArrayBuffer) => `data:model/gltf-binary;base64,${Buffer.from(file).toString('base64')}`;
    const files = [url(png), url(await ktx2Compressed(png))];
    const page = await glSkinPage();
    const result = await page.evaluate(async ([pngUrl, ktx2Url]) => {
      const api = await (new Function('u', 'return import(u)'))('/src/index.ts') as typeof import('../../src/index');
      const gl2 = await (new Function('u', 'return import(u)'))('/src/webgl2/index.ts') as typeof import('../../src/webgl2/index');
      // three's Basis Universal transcoder, as docs/loading.md hands it in (a classic script defining BASIS).
      const base = '/node_modules/three/examples/jsm/libs/basis/basis_transcoder';
      const BASIS = new Function(`${await (await fetch(`${base}.js`)).text()}\nreturn BASIS;`)() as (o: { wasmBinary: ArrayBuffer }) => Promise<object>;
      const ktx2 = api.ktx2Decoder(await BASIS({ wasmBinary: await (await fetch(`${base}.wasm`)).arrayBuffer() }));
      const size = 96, canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true })!;
      const vp = api.mat4.multiply(api.mat4.perspective(0.5, 1, 0.1, 100), api.mat4.lookAt([0, 0.8, 2.4], [0, 0.7, 0], [0, 1, 0]));
      const picture = async (url: string) => {
        const character = await api.loadCharacter(url, { decoders: { ktx2 } });
        const crowd = new gl2.GLCrowd(gl, character, { capacity: 1 });
        crowd.add({ clipA: 0, timeA: 0.4, speedA: 0 });
        crowd.update(0);
        gl.bindFramebuffer(gl.FRAMEBUFFER, null);
        gl.viewport(0, 0, size, size);
        gl.clearColor(0, 0, 0, 1);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        crowd.encode();
        crowd.draw(vp);
        const pixels = new Uint8Array(size * size * 4);
        gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
        crowd.destroy();
        return { pixels, mime: character.rig.primitives[0].material.baseColorImage!.mimeType };
      };
      const [a, b] = [await picture(pngUrl), await picture(ktx2Url)];
      let covered = 0, sum = 0;
      for (let i = 0; i < a.pixels.length; i += 4) {
        if (a.pixels[i] + a.pixels[i + 1] + a.pixels[i + 2] === 0 && b.pixels[i] + b.pixels[i + 1] + b.pixels[i + 2] === 0) continue;
        covered++;
        for (let c = 0; c < 3; c++) sum += Math.abs(a.pixels[i + c] - b.pixels[i + c]);
      }
      return { mimes: [a.mime, b.mime], covered, mean: sum / (3 * covered), error: gl.getError() };
    }, files);
    console.log(`KTX2 on WebGL 2: ${JSON.stringify(result)}`);
    expect(result.mimes).toEqual(['image/png', 'image/ktx2']);
    expect(result.error).toBe(0);
    expect(result.covered, 'CesiumMan is drawn').toBeGreaterThan(500);
    // UASTC's own error on these texels is under 4/255 (decode-ktx2.test.ts); lit and filtered, the picture's mean stays under it.
    expect(result.mean, 'the KTX2 picture is not the PNG one').toBeLessThan(3); // 1.8 measured; the texture left out: 34
  }, TEST_TIMEOUT);

  it('a GL crowd puts back the state it found (framebuffers, viewport, program, units, capabilities) after encode and draw, and the demo\'s GL ground receives its sun shadows', async () => {
    const started = Date.now();
    const page = await glSkinPage();
    const result = await page.evaluate(async () => {
      const load = (u: string) => (new Function('u', 'return import(u)'))(u);
      const api = await load('/src/index.ts') as typeof import('../../src/index');
      const gl2 = await load('/src/webgl2/index.ts') as typeof import('../../src/webgl2/index');
      const { GLGridPass } = await load('/demo/gl-grid-pass.ts') as typeof import('../../demo/gl-grid-pass');
      const character = await api.loadCharacter('/models/Fox/Fox.glb');
      const size = 96, canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const gl = canvas.getContext('webgl2', { antialias: false })!;
      const crowd = new gl2.GLCrowd(gl, character, { capacity: 8, shadows: { mapSize: 512 } });
      for (let i = 0; i < 4; i++) crowd.setPlacement(crowd.add({ clipA: 'Survey' }), (i - 1.5) * 120, 0, 0, 0);
      const grid = new GLGridPass(gl);
      const eye = [0, 500, -450], target = [0, 0, 0];
      const vp = api.mat4.multiply(api.mat4.perspective(0.9, 1, 1, 5000), api.mat4.lookAt(eye, target, [0, 1, 0])) as Float32Array;
      // The page's own state: its framebuffer, an odd viewport, a program, a texture with a sampler, capabilities.
      const fbo = gl.createFramebuffer(), color = gl.createRenderbuffer(), depth = gl.createRenderbuffer();
      gl.bindRenderbuffer(gl.RENDERBUFFER, color);
      gl.renderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, size, size);
      gl.bindRenderbuffer(gl.RENDERBUFFER, depth);
      gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, size, size);
      gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
      gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, color);
      gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, depth);
      const program = gl.createProgram(), texture = gl.createTexture(), sampler = gl.createSampler(), vao = gl.createVertexArray();
      const shader = (type: number, text: string) => { const s = gl.createShader(type)!; gl.shaderSource(s, text); gl.compileShader(s); gl.attachShader(program, s); };
      shader(gl.VERTEX_SHADER, '#version 300 es\nvoid main() { gl_Position = vec4(0.0); }');
      shader(gl.FRAGMENT_SHADER, '#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }');
      gl.linkProgram(program);
      const setPageState = () => {
        gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
        gl.viewport(2, 3, size - 5, size - 7);
        gl.useProgram(program);
        gl.bindVertexArray(vao);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, texture);
        gl.bindSampler(0, sampler);
        gl.activeTexture(gl.TEXTURE3);
        gl.enable(gl.BLEND);
        gl.disable(gl.CULL_FACE);
        gl.disable(gl.DEPTH_TEST);
      };
      const readState = () => {
        gl.activeTexture(gl.TEXTURE0);
        const unit0 = [gl.getParameter(gl.TEXTURE_BINDING_2D) === texture, gl.getParameter(gl.SAMPLER_BINDING) === sampler];
        gl.activeTexture(gl.TEXTURE3);
        return {
          framebuffers: [gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING) === fbo, gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) === fbo],
          viewport: [...gl.getParameter(gl.VIEWPORT) as Int32Array], program: gl.getParameter(gl.CURRENT_PROGRAM) === program,
          vertexArray: gl.getParameter(gl.VERTEX_ARRAY_BINDING) === vao, unit0,
          enabled: [gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.POLYGON_OFFSET_FILL].map((c) => gl.isEnabled(c)),
        };
      };
      // A frame: the crowd's encode (pose, shadow map) into the page's state, then the ground alone
      // (crowd.draw after it: the ground's pixels are read before the characters cover them).
      const frame = (shadows: boolean) => {
        crowd.shadows = shadows;
        crowd.update(0.1);
        crowd.setCamera(vp, eye);
        setPageState();
        gl.clearColor(0, 0, 0, 1);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        crowd.encode();
        const afterEncode = readState();
        grid.setShadow(0, crowd.shadowMap);
        grid.update(vp, new Float32Array(eye), new Float32Array(target), 1e5, 2e5);
        grid.draw();
        const ground = new Uint8Array(size * size * 4);
        gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, ground);
        setPageState();
        crowd.draw(vp);
        return { ground, afterEncode, afterDraw: readState(), mapped: crowd.shadowMap !== undefined };
      };
      const lit = frame(false), shadowed = frame(true);
      let darker = 0, darkening = 0;
      for (let i = 0; i < lit.ground.length; i += 4) {
        const d = lit.ground[i] + lit.ground[i + 1] + lit.ground[i + 2] - shadowed.ground[i] - shadowed.ground[i + 1] - shadowed.ground[i + 2];
        if (d > 3 * 8) { darker++; darkening += d / 3; }
      }
      const brighter = lit.ground.some((v, i) => shadowed.ground[i] > v + 1);
      crowd.destroy();
      grid.destroy();
      return { lit: { ...lit, ground: undefined }, shadowed: { ...shadowed, ground: undefined }, darker, meanDarkening: darkening / Math.max(1, darker), brighter, error: gl.getError() };
    });
    console.log(`GL state and ground shadows: ${JSON.stringify(result)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(result.error).toBe(0);
    const found = { framebuffers: [true, true], viewport: [2, 3, 91, 89], program: true, vertexArray: true, unit0: [true, true], enabled: [true, false, false, false] };
    for (const frame of [result.lit, result.shadowed]) {
      expect(frame.afterEncode, 'encode() put back what the page had set').toEqual(found);
      expect(frame.afterDraw, 'draw() put back what the page had set').toEqual(found);
    }
    expect([result.lit.mapped, result.shadowed.mapped]).toEqual([false, true]);
    // The Foxes' shadows on the ground: a patch of pixels clearly darker with the sun's map than without, none brighter.
    expect(result.darker, 'no crowd shadow on the GL ground').toBeGreaterThan(40);
    expect(result.meanDarkening).toBeGreaterThan(20);
    expect(result.brighter).toBe(false);
    await page.close(); // the last case on glSkinPage
  }, TEST_TIMEOUT);

});
