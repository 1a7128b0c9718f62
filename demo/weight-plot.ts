/** Seconds of history the plot shows. */
const WINDOW_SECONDS = 5;
/** Samples kept (a little over the window at 60 Hz). */
const SAMPLES = 320;
/** The plot is redrawn at most this often, seconds. */
const REDRAW_SECONDS = 1 / 30;
const BACKGROUND = 'rgb(20 24 30 / 0.88)';
const GRID = 'rgb(255 255 255 / 0.14)';
const TEXT = '#e8edf2';
const FONT = '10px ui-monospace, Menlo, Consolas, monospace';
/** Colours of the series, in order (distinct on the dark background). */
const PALETTE = [
  '#6cb4ff', '#ffb454', '#7ee081', '#ff7a8a', '#c792ea', '#ffe66d', '#5ce1e6',
  '#f78c6c', '#a3be8c', '#ff9cf0', '#b0c4de', '#e6c07b', '#89ddff', '#d4d4d4',
  '#00c2a8', '#e05d9e', '#9ccc65', '#7986cb', '#ff8f00', '#80cbc4',
];

/**
 * A live line plot of weights in [0, 1] over the last few seconds, one line per series (here:
 * per clip), with a legend of the series seen in the window. Draws on a 2D canvas overlay
 * (#plot in index.html). sample() records one value per series into a ring of fixed size;
 * nothing allocates per frame (colours and labels are strings made once).
 */
export class WeightPlot {
  private readonly context: CanvasRenderingContext2D;
  private readonly times = new Float64Array(SAMPLES);
  private values: Float32Array;
  private names: readonly string[] = [];
  private head = 0;
  private size = 0;
  private lastDraw = -Infinity;
  /** Pixel width of each legend label (measured once per reset). */
  private labelWidths = new Float32Array(0);
  /** Per series, scratch of draw(): 1 when it has a line in the window. */
  private shown = new Uint8Array(0);

  constructor(readonly canvas: HTMLCanvasElement, seriesNames: readonly string[] = []) {
    const context = canvas.getContext('2d');
    if (!context) throw new Error('canvas.getContext("2d") returned null');
    this.context = context;
    this.values = new Float32Array(0);
    this.reset(seriesNames);
  }

  /** Starts over with these series (e.g. the clips of a newly loaded model). */
  reset(seriesNames: readonly string[]): void {
    this.names = seriesNames;
    this.values = new Float32Array(SAMPLES * Math.max(1, seriesNames.length));
    this.head = this.size = 0;
    this.lastDraw = -Infinity;
    this.context.font = FONT;
    this.labelWidths = Float32Array.from(seriesNames, (name) => this.context.measureText(name).width);
    this.shown = new Uint8Array(seriesNames.length);
  }

  show(visible: boolean): void {
    this.canvas.hidden = !visible;
  }

  /** Records `values` (one per series) at time `seconds`, and redraws when it is time. */
  sample(seconds: number, values: ArrayLike<number>): void {
    const n = this.names.length;
    const row = this.head * n;
    for (let s = 0; s < n; s++) this.values[row + s] = values[s];
    this.times[this.head] = seconds;
    this.head = (this.head + 1) % SAMPLES;
    this.size = Math.min(SAMPLES, this.size + 1);
    if (seconds - this.lastDraw >= REDRAW_SECONDS || seconds < this.lastDraw) {
      this.lastDraw = seconds;
      this.draw(seconds);
    }
  }

  private draw(now: number): void {
    const c = this.context;
    const { width, height } = this.canvas;
    const n = this.names.length;
    const left = 16;
    const top = 6;
    const plotW = width - left - 6;
    const plotH = height - 26;
    c.clearRect(0, 0, width, height);
    c.fillStyle = BACKGROUND;
    c.fillRect(0, 0, width, height);
    c.strokeStyle = GRID;
    c.lineWidth = 1;
    c.beginPath();
    for (let k = 0; k <= 4; k++) {
      const y = top + Math.round((plotH * k) / 4) + 0.5;
      c.moveTo(left, y);
      c.lineTo(left + plotW, y);
    }
    c.stroke();
    // Only series that are above 0 somewhere in the window get a line and a legend entry.
    c.lineWidth = 1.5;
    c.font = FONT;
    c.textBaseline = 'bottom';
    const latest = ((this.head - 1 + SAMPLES) % SAMPLES) * n;
    for (let s = 0; s < n; s++) {
      let any = false;
      for (let k = 0; k < this.size && !any; k++) any = this.values[k * n + s] > 0.005 && now - this.times[k] <= WINDOW_SECONDS;
      this.shown[s] = any ? 1 : 0;
      if (!any) continue;
      const color = PALETTE[s % PALETTE.length];
      c.strokeStyle = color;
      c.beginPath();
      let started = false;
      for (let k = 0; k < this.size; k++) {
        const index = (this.head - this.size + k + SAMPLES) % SAMPLES;
        const age = now - this.times[index];
        if (age > WINDOW_SECONDS) continue;
        const x = left + plotW * (1 - age / WINDOW_SECONDS);
        const y = top + plotH * (1 - this.values[index * n + s]);
        if (started) c.lineTo(x, y);
        else c.moveTo(x, y);
        started = true;
      }
      c.stroke();
    }
    // The legend has room for a few names: first the clips in the pose now, then others of the window.
    let legendX = 4;
    for (let pass = 0; pass < 2; pass++) {
      for (let s = 0; s < n; s++) {
        if (!this.shown[s] || (this.values[latest + s] > 0.005) !== (pass === 0) || legendX + this.labelWidths[s] > width - 4) continue;
        c.fillStyle = PALETTE[s % PALETTE.length];
        c.fillText(this.names[s], legendX, height - 3);
        legendX += this.labelWidths[s] + 8;
      }
    }
    c.fillStyle = TEXT;
    c.textBaseline = 'middle';
    c.fillText('1', 4, top);
    c.fillText('0', 4, top + plotH);
  }
}
