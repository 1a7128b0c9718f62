/**
 * Places of a circular walking track with concentric lanes: lane k has radius
 * `innerRadius + k * laneGap` and room for floor(2 pi r / spacing) walkers. Place i is the
 * i-th free place, lane by lane from the inside, so adding walkers only fills the outer lanes;
 * the walkers of a lane are spread evenly around it, however many it holds.
 */
export class RingTrack {
  constructor(readonly innerRadius: number, readonly laneGap: number, readonly spacing: number) {
    if (!(innerRadius > 0 && laneGap > 0 && spacing > 0)) throw new RangeError(`ring track sizes must be > 0, got ${innerRadius}, ${laneGap}, ${spacing}`);
  }

  radius(lane: number): number {
    return this.innerRadius + lane * this.laneGap;
  }

  /** Walkers that fit lane `lane` (at least 1). */
  capacity(lane: number): number {
    return Math.max(1, Math.floor((2 * Math.PI * this.radius(lane)) / this.spacing));
  }

  /**
   * Lays out `count` walkers: lane[i] and slot[i] of each, laneCount[k] of each lane (arrays
   * must hold `count` entries, laneCount enough lanes). Returns the number of lanes used.
   */
  layout(count: number, lane: Int32Array, slot: Int32Array, laneCount: Int32Array): number {
    let k = 0;
    let placed = 0;
    laneCount.fill(0);
    while (placed < count) {
      const take = Math.min(this.capacity(k), count - placed);
      for (let j = 0; j < take; j++) {
        lane[placed + j] = k;
        slot[placed + j] = j;
      }
      laneCount[k] = take;
      placed += take;
      k++;
    }
    return k;
  }

  /** Lanes that `count` walkers fill. */
  lanesFor(count: number): number {
    let k = 0;
    for (let placed = 0; placed < count; k++) placed += this.capacity(k);
    return k;
  }
}
