/**
 * Held frames: a browser test's page draws only the frames the test looks at, the one way every
 * browser test paces a page's animation loop (docs/testing.md, "Held frames"). On SwiftShader a
 * frame costs CPU in proportion to the pixels (a frame of examples/minimal about 0.1 s, the demo's
 * 50 Foxes at 480 x 300 0.5 to 0.7 s of CPU a second drawing on), and a page whose loop runs free
 * draws as many frames as the cores allow while the test waits on something else (a screenshot,
 * Node decoding one, the other test file), on the cores the rest of the run needs.
 *
 * `heldFrames(page)` (before `page.goto`) installs the gate; the page's loop is then held from its
 * first frame on, and draws only while the test asks: `drawFrames(page, n)` for the next n frames
 * (a page that counts no frames of its own), `drawing(page, wait)` for as long as `wait` runs (a
 * wait on something the loop updates, an example's own input and checks that wait on its frames
 * by the clock). The page's code is unchanged: its loop, the timestamps each frame gets,
 * cancelAnimationFrame. Code the test runs in the page may ask `window.frameGate.frames(n)` itself
 * (canvas-shot.ts reads the canvas in the one frame it draws).
 */
import type { Page } from 'playwright-core';

/** What the gate keeps on the page's window (`window.frameGate`). */
interface FrameGate {
  /** Waits that need frames now (drawing, frames); the loop runs while there is one. */
  drawers: number;
  /** Runs the queued loop when a drawer waits; holds the loop's next frame when none does. */
  update(): void;
  /** Draws the next `count` frames (resolved in the last one's callback after the page's own), then holds the loop again. */
  frames(count: number): Promise<void>;
}

/**
 * The gate, run in a page before its scripts (heldFrames). An animation loop, a
 * requestAnimationFrame callback that asks for itself again while it runs (the demo's tick,
 * three's setAnimationLoop, React Three Fiber's loop, a plain example's `frame`), waits in a queue
 * instead of drawing while no drawer waits, and the canvas keeps its last frame; a callback asked
 * for from outside a frame (a loop's first frame, lil-gui's panel animation) runs as ever.
 * Measured on SwiftShader (the demo, 50 Foxes at 480 x 300): drawing on while nobody looked took
 * 0.5 to 0.7 s of CPU a second, held 0.05 to 0.1; a screenshot of a drawing page 1.1 to 2.6 s of
 * CPU (it waits for a new frame), of a held one 0.1 to 0.2.
 */
function frameGate(): void {
  const native = window.requestAnimationFrame.bind(window), cancelNative = window.cancelAnimationFrame.bind(window);
  type Pending = { native: number; callback: FrameRequestCallback; loop: boolean };
  const pending = new Map<number, Pending>(), queued = new Map<number, FrameRequestCallback>();
  let next = 1, running: FrameRequestCallback | undefined;
  const gate: FrameGate = {
    drawers: 0,
    update(): void {
      if (gate.drawers > 0) {
        for (const [id, callback] of queued) schedule(id, callback, true);
        queued.clear();
      } else {
        for (const [id, p] of pending) {
          if (!p.loop) continue;
          cancelNative(p.native);
          pending.delete(id);
          queued.set(id, p.callback);
        }
      }
    },
    frames(count: number): Promise<void> {
      if (count <= 0) return Promise.resolve();
      gate.drawers++;
      gate.update(); // the queued loop asks the browser first: its callbacks run before `tick` in each frame
      return new Promise((done) => {
        let left = count;
        const tick = () => {
          if (--left > 0) return void native(tick);
          gate.drawers--;
          gate.update();
          done();
        };
        native(tick);
      });
    },
  };
  const schedule = (id: number, callback: FrameRequestCallback, loop: boolean) => {
    pending.set(id, { callback, loop, native: native((time) => {
      pending.delete(id);
      const outer = running;
      running = callback;
      try { callback(time); } finally { running = outer; }
    }) });
  };
  window.requestAnimationFrame = (callback) => {
    const id = next++;
    const loop = callback === running;
    if (loop && gate.drawers === 0) queued.set(id, callback);
    else schedule(id, callback, loop);
    return id;
  };
  window.cancelAnimationFrame = (id) => {
    const p = pending.get(id);
    if (p) cancelNative(p.native);
    pending.delete(id);
    queued.delete(id);
  };
  (window as unknown as { frameGate: FrameGate }).frameGate = gate;
}

/**
 * Holds `page`'s animation loop from its first frame on (call before page.goto; it holds on every
 * navigation of the page): it draws only for drawFrames and while a `drawing` wait runs.
 */
export async function heldFrames(page: Page): Promise<void> {
  await page.addInitScript(frameGate);
}

/**
 * Draws `page`'s next `count` frames at the browser's rate, then holds its loop again: resolves
 * once the last of them has run (the page's own callbacks first). For a page that counts no frames
 * of its own (an example's); a demo page's waits go by its #stats (harness.ts waitForFrames).
 */
export async function drawFrames(page: Page, count: number): Promise<void> {
  const gated = await page.evaluate((n) => {
    const gate = (window as unknown as { frameGate?: FrameGate }).frameGate;
    return gate ? gate.frames(n).then(() => true) : false;
  }, count);
  if (!gated) throw new Error('drawFrames: the page holds no frames (call heldFrames(page) before page.goto)');
}

/** Runs `wait` with `page`'s animation loop drawing, held again after; a page without the gate draws on. */
export async function drawing<T>(page: Page, wait: () => Promise<T>): Promise<T> {
  const count = (delta: number) => page.evaluate((d) => {
    const gate = (window as unknown as { frameGate?: FrameGate }).frameGate;
    if (gate) { gate.drawers += d; gate.update(); }
  }, delta);
  await count(1);
  try {
    return await wait();
  } finally {
    if (!page.isClosed()) await count(-1);
  }
}
