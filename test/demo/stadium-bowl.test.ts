import { describe, expect, it } from 'vitest';
import { layBowl, StadiumWave, WAVE_BUCKETS, WAVE_LAP_SECONDS, WAVE_LEVELS, WAVE_WIDTH } from '../../demo/scenes/stadium-bowl';

const SPACING = { seatWidth: 1, rowDepth: 1.5, rowRise: 0.8, lift: 0.25 };

describe('layBowl', () => {
  it('seats everyone in rising rows round the field, facing its centre, in the bucket of its angle, in bucket order', () => {
    const count = 20_000;
    const bowl = layBowl(count, SPACING);
    // Plain checks in the loops (an expect per seat would take seconds): each names the seat.
    const check = (ok: boolean, what: string, i: number) => { if (!ok) throw new Error(`seat ${i}: ${what}`); };
    expect(bowl.count).toBe(count);
    expect(bowl.rows).toBeGreaterThan(10);
    const perRow = new Map<number, number>();
    let top = 0;
    for (let i = 0; i < count; i++) {
      const x = bowl.positions[3 * i], y = bowl.positions[3 * i + 1], z = bowl.positions[3 * i + 2];
      const radius = Math.hypot(x, z);
      // Each row further out and higher than the one before, by the spacing.
      const row = Math.round((y - SPACING.lift) / SPACING.rowRise);
      check(row >= 0 && row < bowl.rows && Math.abs(radius - (bowl.innerRadius + row * SPACING.rowDepth)) < 1e-2, `radius ${radius} at height ${y} is not row ${row}'s`, i);
      perRow.set(row, (perRow.get(row) ?? 0) + 1);
      top = Math.max(top, radius);
      // Yaw 0 faces +z: the facing (sin yaw, cos yaw) points at the centre.
      const yaw = bowl.yaws[i];
      check(Math.abs(Math.sin(yaw) * x + Math.cos(yaw) * z + radius) < 1e-2, `yaw ${yaw} does not face the centre`, i);
      let angle = Math.atan2(x, z);
      if (angle < 0) angle += 2 * Math.PI;
      check(Math.abs(bowl.buckets[i] - (angle / (2 * Math.PI)) * WAVE_BUCKETS) < 1.001, `bucket ${bowl.buckets[i]} is not its angle's`, i);
      // A slice's seats lie together (the crowd then uploads one short range of records a wave step).
      check(i === 0 || bowl.buckets[i] >= bowl.buckets[i - 1], 'out of bucket order', i);
    }
    // No row holds more seats than fit round it a seat's width apart.
    for (const [row, seats] of perRow) expect(seats).toBeLessThanOrEqual(Math.floor((2 * Math.PI * (bowl.innerRadius + row * SPACING.rowDepth)) / SPACING.seatWidth));
    expect(perRow.size).toBe(bowl.rows);
    expect(bowl.outerRadius).toBeCloseTo(top, 2);
    expect(bowl.topHeight).toBeCloseTo((bowl.rows - 1) * SPACING.rowRise, 2);
  });

  it('refuses a count or a spacing it cannot lay, by name', () => {
    expect(() => layBowl(-1, SPACING)).toThrow(/stadium seats must be a non-negative integer, got -1/);
    expect(() => layBowl(10, { ...SPACING, rowDepth: 0 })).toThrow(/stadium rowDepth must be a positive number, got 0/);
  });
});

describe('StadiumWave', () => {
  it('runs round the stands: each seat up and down once a lap, only the seats near the head up, a bounded number touched a frame', () => {
    const count = 50_000;
    const bowl = layBowl(count, SPACING);
    const level = new Uint8Array(count);
    const changes = new Uint32Array(count);
    const wave = new StadiumWave(bowl.buckets, (seat, l) => {
      if (l === level[seat]) throw new Error(`seat ${seat} handed over at the level it had (${l})`);
      level[seat] = l;
      changes[seat]++;
    });
    expect(wave.step(0)).toBe(0);
    const fps = 60;
    const frames = WAVE_LAP_SECONDS * fps;
    // A frame's share of a lap, times the 2 x WAVE_LEVELS changes a seat makes a lap, with room for a bucket's rounding.
    const bound = count * ((2 * WAVE_LEVELS) / frames) * 2 + (2 * WAVE_LEVELS * count) / WAVE_BUCKETS;
    let most = 0;
    for (let f = 1; f <= frames; f++) {
      const changed = wave.step(1 / fps);
      most = Math.max(most, changed);
      if (f % 150 === 0) {
        // Up seats are at most WAVE_WIDTH behind the head (the head at f / frames of the lap).
        const head = (f / frames) * 2 * Math.PI;
        for (let i = 0; i < count; i += 7) {
          if (level[i] === 0) continue;
          let angle = Math.atan2(bowl.positions[3 * i], bowl.positions[3 * i + 2]);
          if (angle < 0) angle += 2 * Math.PI;
          let behind = (head - angle) % (2 * Math.PI);
          if (behind < 0) behind += 2 * Math.PI;
          if (behind >= WAVE_WIDTH + (2 * Math.PI) / WAVE_BUCKETS) throw new Error(`seat ${i} up ${behind.toFixed(3)} rad behind the head`);
        }
      }
    }
    console.log(`wave: ${count} seats, at most ${most} touched a frame (bound ${Math.round(bound)})`);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(bound);
    // One lap: every seat the whole hump passed in it (the head from 0 to 2 pi passes angles up to
    // 2 pi - WAVE_WIDTH entirely) went up through every level and back down to sitting.
    let checked = 0;
    for (let i = 0; i < count; i++) {
      let angle = Math.atan2(bowl.positions[3 * i], bowl.positions[3 * i + 2]);
      if (angle < 0) angle += 2 * Math.PI;
      if (angle < 0.05 || angle > 2 * Math.PI - WAVE_WIDTH - 0.05) continue;
      checked++;
      if (changes[i] !== 2 * WAVE_LEVELS || level[i] !== 0) throw new Error(`seat ${i} at ${angle.toFixed(3)} rad: ${changes[i]} changes, level ${level[i]} after a lap`);
    }
    expect(checked).toBeGreaterThan(count * 0.8);
  });
});
