import { describe, expect, it } from 'vitest';
import { blockedCells, distanceField, fieldDirections } from '../../../src/features/steering/flow-field';
import { addAgentLine, linearProgram2, linearProgram3, OrcaScratch } from '../../../src/features/steering/orca';

/** The pieces of the twin, by hand: RVO2's linear programs, one agent line, a flow field around a wall. */
describe('ORCA linear programs (src/features/steering/orca.ts)', () => {
  it('without lines: the preferred velocity, or its direction at the speed limit', () => {
    const s = new OrcaScratch();
    expect(linearProgram2(s.lines, 0, 2, 1, 0.5, false, s.result)).toBe(0);
    expect(Array.from(s.result)).toEqual([1, 0.5]);
    linearProgram2(s.lines, 0, 1, 3, 4, false, s.result);
    expect(Array.from(s.result).map((v) => +v.toFixed(12))).toEqual([0.6, 0.8]);
  });

  it('one line: the nearest permitted point (left of its direction)', () => {
    const s = new OrcaScratch();
    s.push(1, 0, 0, 1); // permitted: x <= 1
    expect(linearProgram2(s.lines, 1, 5, 2, 0.5, false, s.result)).toBe(1);
    expect(Array.from(s.result)).toEqual([1, 0.5]);
  });

  it('contradicting lines: the 2D program fails at the second, the 3D fallback splits the violation', () => {
    const s = new OrcaScratch();
    s.push(1, 0, 0, 1); //  x <= 1
    s.push(2, 0, 0, -1); // x >= 2
    const fail = linearProgram2(s.lines, 2, 5, 0, 0, false, s.result);
    expect(fail).toBe(1);
    linearProgram3(s, fail, 5, s.result);
    expect(s.result[0]).toBeCloseTo(1.5, 9);
  });

  it('two agents head-on: each takes half of the turn, mirror images of each other', () => {
    const a = { x: -2, z: 0, vx: 1, vz: 0, radius: 0.5 };
    const b = { x: 2, z: 0, vx: -1, vz: 0, radius: 0.5 };
    const sa = new OrcaScratch(), sb = new OrcaScratch();
    addAgentLine(sa, a, b.x, b.z, b.vx, b.vz, b.radius, 4, 0.1, true);
    addAgentLine(sb, b, a.x, a.z, a.vx, a.vz, a.radius, 4, 0.1, false);
    linearProgram2(sa.lines, 1, 2, 1, 0, false, sa.result);
    linearProgram2(sb.lines, 1, 2, -1, 0, false, sb.result);
    expect(Math.abs(sa.result[1])).toBeGreaterThan(0.05); // it steps aside
    expect(sb.result[0]).toBeCloseTo(-sa.result[0], 9);
    expect(sb.result[1]).toBeCloseTo(-sa.result[1], 9);
  });

  it('two agents on one spot with one velocity (RVO2 divides by zero): they part along x, opposite ways, at once', () => {
    const a = { x: 1, z: 2, vx: 0.5, vz: 0, radius: 0.3 };
    const b = { ...a };
    const sa = new OrcaScratch(), sb = new OrcaScratch();
    addAgentLine(sa, a, b.x, b.z, b.vx, b.vz, b.radius, 2, 0.05, true);
    addAgentLine(sb, b, a.x, a.z, a.vx, a.vz, a.radius, 2, 0.05, false);
    expect(Array.from(sa.lines.subarray(0, 4)).every(Number.isFinite)).toBe(true);
    linearProgram2(sa.lines, 1, 20, a.vx, a.vz, false, sa.result);
    linearProgram2(sb.lines, 1, 20, b.vx, b.vz, false, sb.result);
    // Each takes half of the 0.6 m it needs this 0.05 s step: 6 m/s apart along x.
    expect(sa.result[0] - a.vx).toBeCloseTo(6, 9);
    expect(sb.result[0] - b.vx).toBeCloseTo(-6, 9);
    expect(sa.result[1]).toBeCloseTo(0, 9);
  });
});

describe('flow fields (src/features/steering/flow-field.ts)', () => {
  const grid = { minX: 0, minZ: 0, cellSize: 1, columns: 10, rows: 10 };

  it('on open ground: octile distance to the goal cell, directions pointing at it', () => {
    const distance = distanceField(grid, new Uint8Array(100), 0.5, 0.5);
    expect(distance[0]).toBe(0);
    expect(distance[9]).toBe(9);
    expect(distance[3 * 10 + 5]).toBeCloseTo(3 * Math.SQRT2 + 2, 12);
    const centred = distanceField(grid, new Uint8Array(100), 5.5, 5.5);
    const directions = fieldDirections(grid, centred, new Float32Array(200));
    expect(directions[2 * (5 * 10 + 9)]).toBeCloseTo(-1, 6); // from (9, 5) straight back along -x
    expect(directions[2 * (9 * 10 + 5) + 1]).toBeCloseTo(-1, 6); // from (5, 9) along -z
  });

  it('a wall with a door: the distance goes through the door, and a cell behind the wall points along it toward the door', () => {
    // A wall along x = 5 from z = 0 to z = 7 (door above z = 7); goal on the far side.
    const blocked = blockedCells(grid, [[5, 0, 5, 7]], 0.5);
    expect(blocked[2 * 10 + 5]).toBe(1);
    expect(blocked[8 * 10 + 5]).toBe(0);
    const distance = distanceField(grid, blocked, 7.5, 2.5);
    const directions = fieldDirections(grid, distance, new Float32Array(200));
    const behind = 2 * 10 + 3; // (3.5, 2.5): straight at the goal is blocked
    expect(distance[behind]).toBeGreaterThan(8);
    expect(directions[2 * behind + 1]).toBeGreaterThan(0.7); // mostly +z, toward the door
  });
});
