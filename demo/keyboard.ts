/** Key codes of the movement keys, in the order of Keyboard's `moveX/moveZ` logic. */
const FORWARD = ['KeyW', 'ArrowUp'];
const BACK = ['KeyS', 'ArrowDown'];
const LEFT = ['KeyA', 'ArrowLeft'];
const RIGHT = ['KeyD', 'ArrowRight'];
/** Pending action presses kept at most (older ones are dropped). */
const QUEUE = 8;

/**
 * Keyboard input for driving one character: which movement keys are held (WASD or arrows),
 * Shift for running, and presses of 1-9 (action 0-8) and Space (action 0) queued until the
 * frame takes them. Keys typed into the panel's text fields are ignored; everything is
 * released when the page loses focus. Reading it allocates nothing.
 */
export class Keyboard {
  private readonly held = new Set<string>();
  private readonly queue = new Int32Array(QUEUE);
  private queued = 0;
  shift = false;

  constructor(target: Window = window) {
    target.addEventListener('keydown', this.onDown);
    target.addEventListener('keyup', this.onUp);
    target.addEventListener('blur', this.onBlur);
  }

  /** -1, 0 or 1: right minus left. */
  get strafe(): number {
    return (this.any(RIGHT) ? 1 : 0) - (this.any(LEFT) ? 1 : 0);
  }

  /** -1, 0 or 1: forward minus back. */
  get forward(): number {
    return (this.any(FORWARD) ? 1 : 0) - (this.any(BACK) ? 1 : 0);
  }

  /** The oldest queued action press (an action index), or -1 when none. */
  takeAction(): number {
    if (this.queued === 0) return -1;
    const action = this.queue[0];
    this.queue.copyWithin(0, 1, this.queued);
    this.queued--;
    return action;
  }

  private any(codes: string[]): boolean {
    for (let i = 0; i < codes.length; i++) if (this.held.has(codes[i])) return true;
    return false;
  }

  private readonly onDown = (e: KeyboardEvent): void => {
    if (typing(e)) return;
    this.shift = e.shiftKey;
    const code = e.code;
    let action = -1;
    if (code === 'Space') action = 0;
    else if (/^(Digit|Numpad)[1-9]$/.test(code)) action = Number(code[code.length - 1]) - 1;
    if (action >= 0) {
      e.preventDefault();
      if (!e.repeat) {
        if (this.queued === QUEUE) this.takeAction();
        this.queue[this.queued++] = action;
      }
      return;
    }
    if (FORWARD.includes(code) || BACK.includes(code) || LEFT.includes(code) || RIGHT.includes(code)) {
      e.preventDefault();
      this.held.add(code);
    }
  };

  private readonly onUp = (e: KeyboardEvent): void => {
    this.shift = e.shiftKey;
    this.held.delete(e.code);
  };

  private readonly onBlur = (): void => {
    this.held.clear();
    this.shift = false;
    this.queued = 0;
  };
}

/** Whether a key event is typing into a form field (the panel's URL box, a number field). */
function typing(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}
