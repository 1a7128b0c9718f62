/**
 * The DOM around the canvas: the loading bar, the message box for recoverable errors, and the
 * full-page screen for errors the demo cannot recover from. Elements live in index.html.
 */

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html has no #${id}`);
  return found as T;
}

/** The bar shown while a model downloads and bakes. */
export class ProgressBar {
  private readonly root = element<HTMLDivElement>('progress');
  private readonly label = element<HTMLSpanElement>('progress-label');
  private readonly fill = element<HTMLDivElement>('progress-fill');

  /** `fraction` in [0, 1], or undefined when the total is unknown (bar pulses). */
  show(text: string, fraction?: number): void {
    this.root.hidden = false;
    this.label.textContent = text;
    this.root.classList.toggle('indeterminate', fraction === undefined);
    this.fill.style.width = fraction === undefined ? '100%' : `${Math.round(fraction * 100)}%`;
  }

  hide(): void {
    this.root.hidden = true;
  }
}

/** A dismissable box for problems the demo survives (bad model, bad URL value, GPU error). */
export class MessageBox {
  private readonly root = element<HTMLDivElement>('message');
  private readonly text = element<HTMLDivElement>('message-text');

  constructor() {
    element<HTMLButtonElement>('message-close').addEventListener('click', () => this.hide());
  }

  show(kind: 'error' | 'info', message: string): void {
    this.root.hidden = false;
    this.root.dataset.kind = kind;
    this.text.textContent = message;
  }

  hide(): void {
    this.root.hidden = true;
    this.text.textContent = '';
  }
}

/** Replaces the page with an explanation: WebGPU missing, or the device lost. */
export function showFatal(title: string, message: string, hints: string[] = []): void {
  const root = element<HTMLDivElement>('fatal');
  root.hidden = false;
  element('fatal-title').textContent = title;
  element('fatal-message').textContent = message;
  const list = element<HTMLUListElement>('fatal-hints');
  list.replaceChildren(...hints.map((hint) => Object.assign(document.createElement('li'), { textContent: hint })));
  element('fatal-reload').hidden = hints.length > 0;
}
