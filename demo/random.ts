/**
 * A small seeded generator (mulberry32), so a given URL shows the same crowd every time and
 * screenshots are comparable between runs. Returns numbers in [0, 1).
 */
export class Random {
  private state: number;

  constructor(seed = 0x5eed) {
    this.state = seed >>> 0;
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [0, count). */
  index(count: number): number {
    return Math.min(count - 1, Math.floor(this.next() * count));
  }
}
