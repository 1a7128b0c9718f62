import { describe, expect, it } from 'vitest';
import type { Character } from '../../src/index';
import { FLAG_EVERY, flagJoint, holdsFlag } from '../../demo/scenes/stadium-flags';

describe('the stadium\'s flags (demo/scenes/stadium-flags.ts)', () => {
  it('one seat in five holds a flag, scattered: each residue of the seat by 5, and each run of a row\'s length, holds its share', () => {
    const seats = 100_000;
    const byResidue = new Array<number>(FLAG_EVERY).fill(0);
    let held = 0;
    for (let seat = 0; seat < seats; seat++) {
      if (!holdsFlag(seat)) continue;
      held++;
      byResidue[seat % FLAG_EVERY]++;
    }
    expect(held / seats).toBeCloseTo(1 / FLAG_EVERY, 2);
    // Every fifth seat would put all of them on one residue (lines up the rows).
    for (const n of byResidue) expect(n / held).toBeCloseTo(1 / FLAG_EVERY, 1);
  });

  it('a model with a hand holds it in the hand, one without by the head; neither: none', () => {
    const rig = (jointNames: string[]) => ({ jointNames }) as unknown as Character;
    expect(flagJoint(rig(['Hips', 'Head', 'Hand.R']), 'Walker')?.joint).toBe('Hand.R');
    expect(flagJoint(rig(['b_Root_00', 'b_Head_05']), 'Fox')?.joint).toBe('b_Head_05');
    expect(flagJoint(rig(['Hips', 'Head']), 'Walker')?.joint, 'the hand missing: the head').toBe('Head');
    expect(flagJoint(rig(['Root']), 'Fox')).toBeUndefined();
  });
});
