/**
 * Frames only when a test looks (install.test.ts's pages). On SwiftShader a frame of an example
 * costs about 0.1 s of CPU, and a page whose loop runs free draws as many as the cores allow
 * while the test waits on something else (its start, a screenshot, the other test file), on the
 * cores the rest of the run needs. `paceFrames` is an init script: the page's
 * requestAnimationFrame callbacks run once per `idleMs` (so every wait on the page still
 * progresses: a model loading, a React mount), `nextFrames(page, n)` runs the next n frames at
 * the browser's own rate, and `freeFrames(page, true)` lets the loop run at that rate until
 * `freeFrames(page, false)` (for an example's own checks, which wait on its frames by the clock).
 * The page's code is unchanged: its loop, the timestamps each frame is given, cancelAnimationFrame.
 */
import type { Page } from 'playwright-core';

/** Milliseconds between the frames a page draws while the test looks elsewhere. */
export const IDLE_FRAME_MS = 1000;

/**
 * The init script, as the page runs it (a string: no helper a compiler adds to the test's code).
 * A frame is one turn of the browser's own requestAnimationFrame running every callback held.
 * `window.crowdSkinPace.frames(n)` resolves after n frames; `.free(on)` switches the rate.
 */
const PACE_SCRIPT = `(idle) => {
  const raf = window.requestAnimationFrame.bind(window);
  let held = new Map();
  let nextId = 1;
  let scheduled = 'no'; // 'no', 'timer' (an idle frame after a wait) or 'frame' (the next frame)
  let timer = 0;
  let fast = 0; // frames owed to waiting.frames calls
  let free = false;
  let waiting = [];
  const run = (time) => {
    scheduled = 'no';
    const callbacks = held;
    held = new Map();
    for (const callback of callbacks.values()) callback(time);
    if (fast > 0) fast--;
    const still = [];
    for (const w of waiting) (--w.left <= 0 ? w.done() : still.push(w));
    waiting = still;
    schedule();
  };
  const schedule = () => {
    const now = free || fast > 0;
    if (scheduled === 'timer' && now) { clearTimeout(timer); scheduled = 'no'; }
    if (scheduled !== 'no' || (held.size === 0 && !now)) return;
    if (now) { scheduled = 'frame'; raf(run); }
    else { scheduled = 'timer'; timer = setTimeout(() => { scheduled = 'frame'; raf(run); }, idle); }
  };
  window.requestAnimationFrame = (callback) => { const id = nextId++; held.set(id, callback); schedule(); return id; };
  window.cancelAnimationFrame = (id) => { held.delete(id); };
  window.crowdSkinPace = {
    frames: (count) => new Promise((done) => {
      if (count <= 0) return done();
      fast = Math.max(fast, count);
      waiting.push({ left: count, done });
      schedule();
    }),
    free: (on) => { free = on; schedule(); },
  };
}`;

/** The state the init script keeps on window. */
interface Pace { frames(count: number): Promise<void>; free(on: boolean): void }

/** Installs the pacing in `page` before its scripts run (every navigation of the page). */
export async function paceFrames(page: Page, idleMs = IDLE_FRAME_MS): Promise<void> {
  await page.addInitScript(`(${PACE_SCRIPT})(${idleMs})`);
}

/** Resolves once the page has drawn `count` more frames (its callbacks run at the browser's rate meanwhile). */
export function nextFrames(page: Page, count: number): Promise<void> {
  return page.evaluate((n) => (window as unknown as { crowdSkinPace: Pace }).crowdSkinPace.frames(n), count);
}

/** Lets the page's loop run at the browser's rate (`on`), or back to one frame per idle period. */
export function freeFrames(page: Page, on: boolean): Promise<void> {
  return page.evaluate((free) => (window as unknown as { crowdSkinPace: Pace }).crowdSkinPace.free(free), on);
}
