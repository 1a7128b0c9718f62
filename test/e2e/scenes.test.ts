/**
 * End-to-end tests of the demo's layers, locomotion, steering and stadium scenes (?scene=layers|locomotion|steering|stadium) in
 * headless Chromium with WebGPU on SwiftShader: small crowds (tens of instances) keep them fast.
 * Its pages draw only while a case waits for frames or reads the canvas (demoSession held,
 * held-frames.ts): every wait on what the demo's loop updates goes through waitForStat,
 * waitDrawing, waitForFrames or drawing. Screenshots land in test-results/e2e/scene-*.png for a
 * person to look at.
 */
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable, demoSession, elementRects, overlayRects, panelControl, REPO_ROOT, stat, statNumber,
  waitDrawing, waitForCrowd, waitForFrames, type Rect,
} from './harness';
import { drawing } from './held-frames';
import { canvasShot, expectAliveCanvas } from './canvas-shot';

const VIEWPORT = { width: 960, height: 600 };
/** Per-test limit: loading, baking and a few dozen SwiftShader frames. */
const TEST_TIMEOUT = 300_000;
/** Waits for something that takes a handful of frames (a frame may take a second or more). */
const WAIT = 120_000;
/** An agent at least this fast (m/s) counts its jump over a device loss in seconds of walking (the restore test). */
const MOVING_SPEED = 0.3;

const available = chromiumAvailable();

describe.skipIf(!available)('demo scenes in headless Chromium (WebGPU on SwiftShader)', () => {
  const demo = demoSession(VIEWPORT, WAIT, { held: true, oneContext: true });
  const open = demo.open;
  /** The canvas's picture (canvas-shot.ts: a page screenshot waits for several frames), saved as test-results/e2e/<name>.png. */
  const shot = canvasShot;

  /** The DOM overlays, the weight plot included, are left out of pixel checks. */
  async function skipRects(page: Page): Promise<Rect[]> {
    return [...(await overlayRects(page)), ...(await elementRects(page, '#plot:not([hidden])'))];
  }

  /** Two pictures of the canvas a frame or more apart, neither blank nor frozen (canvas-shot.ts expectAliveCanvas), the overlays left out. */
  const expectAlive = async (page: Page, name: string, frames = 1) => expectAliveCanvas(page, name, await skipRects(page), frames, WAIT);

  /** Waits, the page drawing, until #stats' `key` matches `pattern`. */
  function waitForStat(page: Page, key: string, pattern: RegExp, timeout = WAIT): Promise<unknown> {
    return waitDrawing(page, ([k, source]) => new RegExp(source).test(document.getElementById('stats')?.dataset[k] ?? ''),
      [key, pattern.source] as const, timeout);
  }

  /** The running scene's steering agents (window.crowdDemo.readAgents), with the closest approaches: between wanderers, and of a wanderer to the keyboard's character. */
  async function agents(page: Page) {
    const read = await page.evaluate(() => window.crowdDemo!.readAgents());
    expect(read, 'the scene steers no agents').not.toBeNull();
    const { ids, positions, velocities, keyboard } = read!;
    let closest = Infinity, closestToKeyboard = Infinity, moving = 0;
    for (let i = 0; i < ids.length; i++) {
      if (Math.hypot(velocities[2 * i], velocities[2 * i + 1]) > 0.05) moving++;
      for (let j = i + 1; j < ids.length; j++) {
        const d = Math.hypot(positions[2 * i] - positions[2 * j], positions[2 * i + 1] - positions[2 * j + 1]);
        if (ids[i] === keyboard || ids[j] === keyboard) closestToKeyboard = Math.min(closestToKeyboard, d);
        else closest = Math.min(closest, d);
      }
    }
    const k = ids.indexOf(keyboard);
    const keyboardAt = k >= 0 ? [positions[2 * k], positions[2 * k + 1]] : undefined;
    return { count: ids.length, closest, closestToKeyboard, moving, keyboardAt };
  }

  /**
   * One page for the WebGPU scenes the panel reaches, since each page start loads and bakes a
   * model and has SwiftShader compile every pipeline (most of what a case cost on its own page):
   * the crowd scene, then locomotion, steering and layers from the panel's scene menu, and
   * RobotExpressive from its model menu, each case going on from where the last left the page
   * (the GPU device lost and restored on the way). The cases run in this order.
   */
  let flow: { page: Page; problems: string[] } | undefined;
  const flowPage = (): Page => {
    if (!flow) throw new Error('the scenes page is not open: the first case failed');
    return flow.page;
  };
  afterAll(async () => { await flow?.page.close(); });

  it('switches scenes from the panel, each with its model, and keeps the URL in step: the crowd, then locomotion', async () => {
    flow = await open('?instances=20');
    const page = flow.page;
    await waitForCrowd(page, 20, 1);
    expect(await stat(page, 'scene')).toBe('crowd');
    expect(await page.locator('#plot').isHidden()).toBe(true);

    await panelControl(page, 'scene').locator('select').selectOption('locomotion');
    await waitForStat(page, 'model', /^Walker$/);
    await waitForStat(page, 'scene', /^locomotion$/);
    await drawing(page, () => page.locator('#plot').waitFor({ state: 'visible', timeout: WAIT }));
    await waitDrawing(page, () => /scene=locomotion/.test(location.search) && /model=Walker/.test(location.search), null, 10_000);
    // Bring the count down for SwiftShader (the scene opens with 80) before looking.
    await panelControl(page, 'instances').locator('input').fill('30');
    await panelControl(page, 'instances').locator('input').press('Enter');
    await waitForCrowd(page, 30, 3);
    expect(await stat(page, 'state')).toBe('locomotion');
    expect(await stat(page, 'agents')).toBe('30');
    expect(flow.problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('locomotion scene: Walkers wander as steering agents around each other and the keyboard one, which walks, strafes and backpedals facing the view; the plot shows the blend', async () => {
    const page = flowPage();
    expect(await stat(page, 'scene')).toBe('locomotion');
    expect(await stat(page, 'model')).toBe('Walker');
    expect(await stat(page, 'selected')).toBe('0');
    expect(await stat(page, 'state')).toBe('locomotion');
    const text = await page.locator('#stats').textContent();
    expect(text).toContain('WASD move facing the view');
    expect(text).toMatch(/1 Wave\s+2 Jump/);
    // Three frames between the pictures: the held page draws only those (a free-running one drew
    // more between the test's steps: 1.5% changed at 2 frames free, 0.8% held, against 0.2%).
    await expectAlive(page, 'scene-locomotion', 3);
    // Every character is an agent; the wanderers (radius 0.18 x 1.8 m) keep apart, and their bodies
    // away from the keyboard's one: some start closer (a random disc) and are pushed apart. Ten
    // frames (a second of the scene) before the read: held, 6 left 12 to 14 of 30 moving, where the
    // free-running page (more frames between steps) had 19 to 24.
    expect(await stat(page, 'agents')).toBe('30');
    await waitForFrames(page, (await statNumber(page, 'frames')) + 10, WAIT);
    const before = await agents(page);
    console.log(`locomotion agents: ${before.count}, ${before.moving} moving, closest ${before.closest.toFixed(3)} m, to the keyboard's ${before.closestToKeyboard.toFixed(3)} m`);
    expect(before.count).toBe(30);
    expect(before.keyboardAt, 'the keyboard character is no agent').toBeDefined();
    expect(before.moving).toBeGreaterThan(5);
    expect(before.closest).toBeGreaterThan(0.9 * 2 * 0.18 * 1.8);
    expect(before.closestToKeyboard).toBeGreaterThan(0.9 * 2 * 0.18 * 1.8);

    // W walks along the view (walkSpeed 1.2), Shift+W runs (2.4).
    await page.keyboard.down('KeyW');
    await waitForStat(page, 'speed', /^1\.(1[5-9]|2)/);
    await waitForStat(page, 'topClip', /^WalkForward$/);
    await page.keyboard.down('Shift');
    await waitForStat(page, 'speed', /^2\.(3[5-9]|4)/);
    await waitForStat(page, 'topClip', /^RunForward$/);
    // Three frames at a run (0.3 s at 2.4 m/s) before the keys go up: held, the page drew only the
    // waits' frames and the character walked 1.6 m (against the 1 m asked below), free 1.7 to 2.2.
    await waitForFrames(page, (await statNumber(page, 'frames')) + 3, WAIT);
    await page.keyboard.up('Shift');
    await page.keyboard.up('KeyW');
    // Its agent went with it: its controller places it every frame, steering restarts it there.
    const after = await agents(page);
    const walked = Math.hypot(after.keyboardAt![0] - before.keyboardAt![0], after.keyboardAt![1] - before.keyboardAt![1]);
    console.log(`locomotion keyboard character: walked ${walked.toFixed(2)} m`);
    expect(walked).toBeGreaterThan(1);
    // D strafes right and S backpedals: the heading stays on the view, the 2D blend space turns the clips.
    const heading = await stat(page, 'heading');
    await page.keyboard.down('KeyD');
    await waitForStat(page, 'direction', /^right$/);
    await waitForStat(page, 'topClip', /^WalkRight$/);
    expect(await stat(page, 'heading')).toBe(heading);
    await shot(page, 'scene-locomotion-strafe');
    await page.keyboard.up('KeyD');
    await page.keyboard.down('KeyS');
    await waitForStat(page, 'direction', /^back$/);
    await waitForStat(page, 'topClip', /^WalkBack$/);
    expect(await stat(page, 'heading')).toBe(heading);
    await shot(page, 'scene-locomotion-backpedal');
    await page.keyboard.up('KeyS');
    await waitForStat(page, 'speed', /^0\.0/);

    // 2 requests the second action (Jump): the state goes through the action and back.
    await page.keyboard.press('Digit2');
    await waitForStat(page, 'state', /action:Jump$/);
    expect(await stat(page, 'lastAction')).toBe('2 Jump (started)');
    expect(await page.locator('#stats').textContent()).toMatch(/selected #0: (to-)?action:Jump/);
    await shot(page, 'scene-locomotion-jump');
    await waitForStat(page, 'state', /^locomotion$/);

    // The plot shows lines (coloured pixels) over its dark background.
    const coloured = await page.evaluate(() => {
      const canvas = document.getElementById('plot') as HTMLCanvasElement;
      if (canvas.hidden) return -1;
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        const max = Math.max(data[i], data[i + 1], data[i + 2]);
        const min = Math.min(data[i], data[i + 1], data[i + 2]);
        if (max > 120 && max - min > 60) count++; // saturated and bright: a line or legend, not the grey grid
      }
      return count;
    });
    console.log(`locomotion plot: ${coloured} coloured pixels`);
    expect(coloured).toBeGreaterThan(200);
    await shot(page, 'scene-locomotion-plot', '#plot');
    expect(flow!.problems).toEqual([]);
  }, TEST_TIMEOUT);

  // From demo.test.ts, where it had a locomotion page of its own: here the wanderers have walked for
  // many seconds when the device is lost, so a restore from where they started would jump metres.
  it('restores the wanderers on a new device when the GPU device is lost, and carries on drawing', async () => {
    const page = flowPage();
    // The wanderers are steering agents: they go on from where they were, not from where they started.
    // The page draws from the first read to the last, as a free-running one did (held from the read
    // through the loss, more frames passed between the reads).
    const { before, after } = await drawing(page, async () => {
      const before = (await page.evaluate(() => window.crowdDemo!.readAgents()))!;
      await page.evaluate(() => window.crowdDemo!.loseDevice());
      await page.waitForFunction(() => document.getElementById('stats')?.dataset.restores === '1', null, { timeout: WAIT, polling: 100 });
      await waitForFrames(page, (await statNumber(page, 'frames')) + 3, WAIT);
      return { before, after: (await page.evaluate(() => window.crowdDemo!.readAgents()))! };
    });
    expect(after.ids.length).toBe(30);
    // How far each went over the loss, in seconds of its own walking: the jump over its speed (the
    // faster of its two readings). Every agent shares the same elapsed simulated time, a few frames
    // of at most 0.1 s each from readbacks a frame or two old; a restore from where they started
    // would jump the many seconds they have walked. In metres the jump follows the machine's frame
    // rate (0.04 to 0.35 m on average over the runs here), in seconds it does not.
    const jumps: number[] = [], seconds: number[] = [];
    before.ids.forEach((id, i) => {
      const j = after.ids.indexOf(id);
      const jump = Math.hypot(after.positions[2 * j] - before.positions[2 * i], after.positions[2 * j + 1] - before.positions[2 * i + 1]);
      const speed = Math.max(Math.hypot(before.velocities[2 * i], before.velocities[2 * i + 1]), Math.hypot(after.velocities[2 * j], after.velocities[2 * j + 1]));
      jumps.push(jump);
      if (speed >= MOVING_SPEED) seconds.push(jump / speed);
    });
    seconds.sort((a, b) => a - b);
    const median = seconds[Math.floor(seconds.length / 2)];
    console.log(`restored wanderers: jumps ${(jumps.reduce((a, b) => a + b, 0) / jumps.length).toFixed(2)} m on average, ${Math.max(...jumps).toFixed(2)} m at most; ${seconds.length} moving, the median jump ${median.toFixed(2)} s of walking`);
    expect(seconds.length).toBeGreaterThan(5);
    expect(median).toBeLessThan(1);
    expect(Math.max(...jumps)).toBeLessThan(1.5);
    expect(await page.locator('#stats').textContent()).toContain('restored after 1 lost device');
    await expectAlive(page, 'restored-locomotion');
    expect(await page.locator('#fatal').isHidden()).toBe(true);
    expect(flow!.problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('steering scene (from the panel, on the restored device): two groups of Walkers cross a plaza around pillars; a box selects agents, a click on the ground sends them', async () => {
    const page = flowPage();
    // The steering scene on the same crowd (Walker) and its one CrowdSteering: the wanderers' agents left with them.
    await panelControl(page, 'scene').locator('select').selectOption('steering');
    await waitForStat(page, 'scene', /^steering$/);
    await panelControl(page, 'instances').locator('input').fill('24');
    await panelControl(page, 'instances').locator('input').press('Enter');
    await waitForCrowd(page, 24, 3);
    expect(await stat(page, 'scene')).toBe('steering');
    expect(await stat(page, 'model')).toBe('Walker');
    expect(await stat(page, 'agents')).toBe('24');
    expect((await page.evaluate(() => window.crowdDemo!.readAgents()))!.ids.length).toBe(24);
    // The Walker has a controller config with locomotion: every agent is animated by its controller.
    expect(await stat(page, 'controlledAgents')).toBe('24');
    expect(await stat(page, 'selectedAgents')).toBe('0');
    await expectAlive(page, 'scene-steering', 2);
    // Shift + drag over the view selects the agents inside (tinted); a click on the ground sends them there.
    await page.keyboard.down('Shift');
    await page.mouse.move(20, 20);
    await page.mouse.down();
    await page.mouse.move(VIEWPORT.width - 20, VIEWPORT.height - 20, { steps: 3 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await waitForStat(page, 'selectedAgents', /^[1-9]/);
    await shot(page, 'scene-steering-selected');
    await page.mouse.click(VIEWPORT.width / 2, VIEWPORT.height * 0.75); // the ground in front of the plaza
    await waitForStat(page, 'sentAgents', /^[1-9]/);
    expect(await stat(page, 'sentAgents')).toBe(await stat(page, 'selectedAgents'));
    await waitForFrames(page, (await statNumber(page, 'frames')) + 6, WAIT);
    await shot(page, 'scene-steering-sent');
    expect(flow!.problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('layers scene (from the panel): Fox walkers look around (override) and bob their heads (additive); panel edits the stack', async () => {
    const page = flowPage();
    await panelControl(page, 'scene').locator('select').selectOption('layers');
    await waitForStat(page, 'scene', /^layers$/);
    await waitForStat(page, 'model', /^Fox$/);
    await drawing(page, () => expect.poll(() => page.locator('#plot').isHidden()).toBe(true));
    expect(await stat(page, 'state')).toBeUndefined();
    await panelControl(page, 'instances').locator('input').fill('24');
    await panelControl(page, 'instances').locator('input').press('Enter');
    await waitForCrowd(page, 24, 3);
    expect(await stat(page, 'scene')).toBe('layers');
    expect(await stat(page, 'model')).toBe('Fox');
    expect(await stat(page, 'layerClip')).toBe('Survey');
    expect(await stat(page, 'layerJoint')).toBe('b_Neck_04');
    expect(await stat(page, 'layerWeight')).toBe('0.800');
    expect(await stat(page, 'additiveClip')).toBe('Run');
    expect(await stat(page, 'additiveJoint')).toBe('b_Neck_04');
    expect(await page.locator('#stats').textContent()).toMatch(/override\s+Survey · mask b_Neck_04 · w 0\.80/);
    await expectAlive(page, 'scene-layers-fox');

    // The panel: a weight typed into the slider's box, a joint from the picker.
    const weight = panelControl(page, 'override weight').locator('input');
    await weight.fill('0.3');
    await weight.press('Enter');
    await waitForStat(page, 'layerWeight', /^0\.300$/);
    await panelControl(page, 'mask root joint').locator('select').selectOption('b_Spine01_02');
    await waitForStat(page, 'layerJoint', /^b_Spine01_02$/);
    await panelControl(page, 'additive weight').locator('input').fill('1');
    await panelControl(page, 'additive weight').locator('input').press('Enter');
    await waitForStat(page, 'additiveWeight', /^1\.000$/);
    await waitDrawing(page, () => /layerJoint=b_Spine01_02/.test(location.search) && /layerWeight=0\.3\b/.test(location.search), null, 10_000);
    expect(new URL(page.url()).searchParams.get('scene')).toBe('layers');
    await expectAlive(page, 'scene-layers-fox-spine');
    expect(flow!.problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('layers scene on RobotExpressive (from the model menu): a wave over the walk, a nod added on the neck', async () => {
    const page = flowPage();
    await panelControl(page, 'model').locator('select').selectOption('RobotExpressive');
    await waitForStat(page, 'model', /^RobotExpressive$/);
    const weight = panelControl(page, 'override weight').locator('input');
    await weight.fill('1');
    await weight.press('Enter');
    await waitForStat(page, 'layerWeight', /^1\.000$/);
    await waitForCrowd(page, 24, 3);
    expect(await stat(page, 'layerClip')).toBe('Wave');
    expect(await stat(page, 'layerJoint')).toBe('Torso');
    expect(await stat(page, 'additiveJoint')).toBe('Neck');
    await expectAlive(page, 'scene-layers-robot');
    expect(await stat(page, 'layerWeight')).toBe('1.000');
    expect(flow!.problems).toEqual([]);
    // Closed now: an open page goes on drawing beside the next cases'.
    await page.close();
    flow = undefined;
  }, TEST_TIMEOUT);

  it('stadium scene: a bowl of Foxes, a wave running round the stands, the far ones drawn as impostors and counted as their own level', async () => {
    // 500 seats seen from the front row (?view=front) on a quarter-pixel canvas (240 x 150), as the
    // 10,000-Fox page: the near rows meshes, the rows behind them past the impostor switch (129
    // visible, 51 impostors); no shadows (every caster would be posed). On SwiftShader a frame of
    // the whole bowl at 480 x 300 (467 impostors, each pixel's march) took 6 to 12 s of CPU, this
    // one 0.5 to 1 s: the case took 76 s of CPU, most of it frames. At a quarter of the pixels the
    // whole bowl is all impostors (500 of 500), which the first check below refuses.
    const { page, problems } = await open('?scene=stadium&instances=500&shadows=0&view=front', 0.25);
    // The near rows meshes, the far ones impostors (CrowdImpostors, the cull stats' last level).
    await waitForStat(page, 'impostors', /^[1-9]/, 2 * WAIT); // load, the atlas bake and a few frames
    expect(await stat(page, 'scene')).toBe('stadium');
    expect(await stat(page, 'seats')).toBe('500');
    const [visible, impostors, vertices] = [await statNumber(page, 'visible'), await statNumber(page, 'impostors'), await statNumber(page, 'vertices')];
    console.log(`stadium: ${visible} visible, ${impostors} impostors, ${vertices} vertices a frame`);
    expect(impostors, 'every spectator an impostor, the near ones too').toBeLessThan(visible);
    // The wave hands seats to the crowd only where it passes (StadiumWave): some, never all, a frame.
    await waitForStat(page, 'wavePeakChanged', /^[1-9]/);
    expect(await statNumber(page, 'wavePeakChanged')).toBeLessThan(500);
    await expectAlive(page, 'scene-stadium', 1);
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);

  it('on WebGL 2 (?backend=webgl2): the steering, locomotion, layers, stadium and clips scenes run on GL crowds and say what they leave out', async () => {
    const { page, problems } = await open('?backend=webgl2&scene=steering&instances=16');
    await page.setViewportSize({ width: 480, height: 300 }); // a quarter of the pixels: SwiftShader's GL fill is the cost here
    await waitForCrowd(page, 16, 2);
    expect([await stat(page, 'backend'), await stat(page, 'scene'), await stat(page, 'agents')]).toEqual(['webgl2', 'steering', '16']);
    expect(await page.locator('#stats').textContent()).toMatch(/steering's twin on the CPU, at most 150 agents/);
    // CPU picking: a box selects agents (tinted by the GL draw's appearance), a click on the ground sends them.
    await page.keyboard.down('Shift');
    await page.mouse.move(5, 5);
    await page.mouse.down();
    await page.mouse.move(475, 295, { steps: 2 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await waitForStat(page, 'selectedAgents', /^[1-9]/);
    await page.mouse.click(100, 285); // the ground at the bottom left, clear of the panel
    await waitForStat(page, 'sentAgents', /^[1-9]/);
    const sent = await agents(page);
    console.log(`GL steering: ${sent.moving} of ${sent.count} agents moving after the send`);
    expect(sent.moving).toBeGreaterThan(4);

    // Locomotion: CPU-driven controllers, no steering; the keyboard's character walks.
    await page.goto(`${demo.baseUrl}/?backend=webgl2&scene=locomotion&instances=8`);
    await waitForCrowd(page, 8, 2);
    expect([await stat(page, 'driver'), await stat(page, 'agents')]).toEqual(['cpu', '0']);
    expect(await page.locator('#stats').textContent()).toMatch(/no steering: the wanderers walk through each other/);
    await page.keyboard.down('KeyW');
    await waitForStat(page, 'topClip', /^WalkForward$/);
    await page.keyboard.up('KeyW');


    // Layers on the Fox: masks and layer stacks posed by the GL pose pass; drawn and moving.
    await page.goto(`${demo.baseUrl}/?backend=webgl2&scene=layers&instances=8`);
    await waitForCrowd(page, 8, 2);
    expect([await stat(page, 'layerClip'), await stat(page, 'layerJoint')]).toEqual(['Survey', 'b_Neck_04']);
    await expectAlive(page, 'scene-gl-layers');

    // Stadium: every spectator a mesh (CrowdImpostors needs WebGPU: the panel's switch greyed out), the
    // wave running round the stands; the flags (CrowdProps) refused by name.
    await page.goto(`${demo.baseUrl}/?backend=webgl2&scene=stadium&instances=300&flags=1&shadows=0`);
    await waitForCrowd(page, 300, 2);
    expect([await stat(page, 'scene'), await stat(page, 'seats'), await stat(page, 'glRefused'), await stat(page, 'flags')]).toEqual(['stadium', '300', 'flags', '0']);
    expect(await page.locator('#message-text').textContent()).toBe('WebGL 2: the stadium\'s flags are CrowdProps, which needs WebGPU.');
    expect(await page.locator('#stats').textContent()).toMatch(/every spectator a mesh: the far crowd as impostors \(CrowdImpostors\) needs WebGPU/);
    expect(await panelControl(page, 'far crowd as impostors (needs WebGPU)').getAttribute('class')).toMatch(/lil-disabled/);
    await waitForStat(page, 'wavePeakChanged', /^[1-9]/);
    await expectAlive(page, 'scene-gl-stadium');

    // Clips: three bodies bound to one clip set, each a GL crowd on the one context (drawn one after another), the WebGPU scene's overlay and report.
    await page.goto(`${demo.baseUrl}/?backend=webgl2&scene=clips&instances=6`);
    await waitForCrowd(page, 6, 2);
    expect([await stat(page, 'scene'), await stat(page, 'bodies'), await stat(page, 'bodyInstances'), await stat(page, 'libraryBodies')])
      .toEqual(['clips', 'WalkerBody,WalkerBody #2,WalkerStocky', '2,2,2', '3']);
    await waitForStat(page, 'bodyDrawn', /^[1-9]\d*,[1-9]\d*,[1-9]\d*$/);
    // Each crowd culled and drew its own (GLCrowd.encode, draw): a crowd counts draw calls only from its last encode.
    expect(await statNumber(page, 'drawCalls')).toBeGreaterThanOrEqual(3);
    expect(await page.locator('.clips-report').textContent()).toMatch(/WalkerStocky: humanoid .* bones mapped/);
    // A body dropped on the page goes where the WebGPU demo's goes (GLApp.loadDropped, demo/drop.ts): to the
    // clips scene's bodies. The Fox's skeleton takes none of the Walker's clips, so it is refused as on
    // WebGPU, before any crowd is made (a body that binds costs three GL crowds again), and the scene stays.
    const dropStart = Date.now();
    await page.evaluate((base64) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'fox-body.glb'));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, readFileSync(`${REPO_ROOT}public/models/Fox/Fox.glb`).toString('base64'));
    await waitDrawing(page, () => document.querySelector('.clips-report')?.textContent?.startsWith('refused'), null, WAIT);
    expect(await page.locator('#message-text').textContent()).toMatch(/^Could not load WalkerBody: the clip set WalkerClips\.glb cannot bind to fox-body\.glb: .*Still showing WalkerBody\.$/);
    expect(await panelControl(page, 'body').locator('select').inputValue()).toBe('WalkerStocky');
    expect(await stat(page, 'bodies')).toBe('WalkerBody,WalkerBody #2,WalkerStocky');
    console.log(`GL clips scene: the dropped body refused in ${((Date.now() - dropStart) / 1000).toFixed(1)} s`);
    expect(problems).toEqual([]);
    await page.close();
  }, TEST_TIMEOUT);
});
