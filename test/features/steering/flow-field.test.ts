import { describe, expect, it } from 'vitest';
import { blockedCells, distanceField, FieldSolve, fieldDirections, type FieldGrid } from '../../../src/features/steering/flow-field';
import { AGENT } from '../../../src/features/steering/layout';
import { SteeringModel } from '../../../src/features/steering/model';
import { checkAgentOptions, checkPolygon } from '../../../src/features/steering/options';
import type { GroundPoint } from '../../../src/features/steering/types';
import { placementAt } from '../../../tools/steering-scenes';
import { expectSameNumbers } from '../../helpers/exact';

/** The one-shot field (distanceField + fieldDirections): the reference the slices must equal. */
function oneShot(grid: FieldGrid, blocked: Uint8Array, goal: GroundPoint): Float32Array {
  return fieldDirections(grid, distanceField(grid, blocked, goal[0], goal[1]), new Float32Array(grid.columns * grid.rows * 2));
}

/** Cells of work a whole solve takes (its `work` once complete). */
function workOf(grid: FieldGrid, blocked: Uint8Array, goal: GroundPoint): number {
  const solve = new FieldSolve(grid, blocked, goal[0], goal[1]);
  solve.advance(Infinity);
  return solve.work;
}

/** The directions in field slot `index` of `model` (a view). */
function slot(model: SteeringModel, index: number): Float32Array {
  const f = model.settings.field!;
  const cells = f.columns * f.rows;
  return model.fields.subarray(index * cells * 2, (index + 1) * cells * 2);
}

const isZero = (a: Float32Array): boolean => a.every((v) => v === 0);
const fieldOf = (model: SteeringModel, handle: number): number => new Uint32Array(model.agents)[(handle * AGENT.size + AGENT.field) / 4];

describe('FieldSolve: the flow field in slices (src/features/steering/flow-field.ts)', () => {
  it('equals the one-shot distanceField + fieldDirections exactly, whatever the budget per call (1 cell included)', () => {
    const grid = { minX: -2, minZ: -1, cellSize: 0.5, columns: 40, rows: 30 };
    // A wall with a door, a square pillar and a wall touching the border: ties, ridges and unreachable cells.
    const blocked = blockedCells(grid, [[6, -1, 6, 9], Float64Array.of(10, 2, 12, 2, 12, 4, 10, 4), [0, 11, 3, 11]], 0.3);
    for (const goal of [[14, 3], [-1.2, 12.7], [50, 50]] as GroundPoint[]) {
      const reference = oneShot(grid, blocked, goal);
      for (const budget of [1, 7, 1000, Infinity]) {
        const solve = new FieldSolve(grid, blocked, goal[0], goal[1]);
        let calls = 1;
        while (!solve.advance(budget)) calls++;
        expect(solve.directions, `goal ${goal}, budget ${budget}`).toEqual(reference);
        expect(calls, `goal ${goal}, budget ${budget}`).toBe(Math.max(1, Math.ceil(solve.work / budget)));
      }
    }
  });
});

describe('SteeringModel.advanceFields: a new goal\'s field over several frames (src/features/steering/model.ts, field-slots.ts)', () => {
  const agent = (model: SteeringModel, handle: number, goal: GroundPoint): void => {
    model.add(handle, checkAgentOptions({ radius: 0.3, maxSpeed: 1, goal }), placementAt(1, 1));
  };

  it('a 256 x 256 field at 16,384 cells a frame: the slot stays zero until the expected frame, then equals the one-shot', () => {
    const model = new SteeringModel({ flowField: { min: [0, 0], max: [256, 256], cellSize: 1, clearance: 0.5, maxGoals: 2, cellsPerFrame: 16384 } });
    model.addObstacle(checkPolygon([[128, 0], [128, 200]]));
    const goal: GroundPoint = [200.5, 20.5];
    agent(model, 0, goal);
    const grid = model.settings.field!;
    const blocked = blockedCells(grid, [Float64Array.of(128, 0, 128, 200)], 0.5);
    const frames = Math.ceil(workOf(grid, blocked, goal) / 16384);
    expect(frames).toBeGreaterThan(5);
    const index = fieldOf(model, 0);
    for (let f = 1; f < frames; f++) {
      expect(model.advanceFields()).toBe(16384);
      expect(model.pendingFieldCount).toBe(1);
      expect(isZero(slot(model, index)), `frame ${f}`).toBe(true);
    }
    model.fieldsDirtyLo = Infinity;
    model.fieldsDirtyHi = 0;
    model.advanceFields();
    expect(model.pendingFieldCount).toBe(0);
    // toEqual on the 131,072 floats took 0.75 s of CPU (test/helpers/exact.ts).
    expectSameNumbers(slot(model, index), oneShot(grid, blocked, goal));
    // Only that slot is uploaded again.
    expect([model.fieldsDirtyLo, model.fieldsDirtyHi]).toEqual([index * 256 * 256 * 8, (index + 1) * 256 * 256 * 8]);
  });

  it('a goal released while its solve is pending cancels it: the slot\'s next goal never receives the old result', () => {
    const model = new SteeringModel({ flowField: { min: [0, 0], max: [16, 16], cellSize: 0.5, maxGoals: 1, cellsPerFrame: 100 } });
    const grid = model.settings.field!;
    const blocked = new Uint8Array(grid.columns * grid.rows);
    agent(model, 0, [8, 8]);
    while (model.pendingFieldCount > 0) model.advanceFields();
    model.remove(0); // the slot is free, its directions left in it
    agent(model, 1, [2, 2]);
    expect(isZero(slot(model, 0))).toBe(true); // zeroed for the new goal: straight at it until solved
    model.advanceFields();
    model.remove(1);
    expect(model.pendingFieldCount).toBe(0);
    agent(model, 2, [14, 9]);
    expect(fieldOf(model, 2)).toBe(0); // the same slot
    const frames = Math.ceil(workOf(grid, blocked, [14, 9]) / 100);
    for (let f = 1; f < frames; f++) {
      model.advanceFields();
      expect(isZero(slot(model, 0)), `frame ${f}`).toBe(true);
    }
    model.advanceFields();
    expect(model.pendingFieldCount).toBe(0);
    expect(slot(model, 0)).toEqual(oneShot(grid, blocked, [14, 9]));
  });

  it('an obstacle change restarts every live field\'s solve; a complete field keeps its old directions until the new ones are ready', () => {
    const model = new SteeringModel({ flowField: { min: [0, 0], max: [16, 16], cellSize: 0.5, maxGoals: 2, cellsPerFrame: 100 } });
    const grid = model.settings.field!;
    const open = new Uint8Array(grid.columns * grid.rows);
    agent(model, 0, [14, 9]);
    while (model.pendingFieldCount > 0) model.advanceFields();
    const ready = fieldOf(model, 0);
    expect(slot(model, ready)).toEqual(oneShot(grid, open, [14, 9]));
    agent(model, 1, [2, 2]);
    const pending = fieldOf(model, 1);
    for (let f = 0; f < 5; f++) model.advanceFields();
    const wall = Float64Array.of(8, 0, 8, 12);
    model.addObstacle(checkPolygon([[8, 0], [8, 12]]));
    const walled = blockedCells(grid, [wall], grid.clearance);
    expect(model.pendingFieldCount).toBe(2);
    // The pending solve starts over with the wall, ahead of the complete field's, which waits its turn.
    const frames = Math.ceil(workOf(grid, walled, [2, 2]) / 100);
    for (let f = 1; f < frames; f++) {
      model.advanceFields();
      expect(isZero(slot(model, pending)), `frame ${f}`).toBe(true);
      expect(slot(model, ready)).toEqual(oneShot(grid, open, [14, 9]));
    }
    while (model.pendingFieldCount > 0) model.advanceFields();
    expect(slot(model, pending)).toEqual(oneShot(grid, walled, [2, 2]));
    expect(slot(model, ready)).toEqual(oneShot(grid, walled, [14, 9]));
    expect(slot(model, ready)).not.toEqual(oneShot(grid, open, [14, 9]));
  });

  it('flowField.cellsPerFrame: an integer >= 1 or Infinity, refused by name otherwise', () => {
    const field = { min: [0, 0], max: [4, 4] } as const;
    for (const bad of [0, -1, 1.5, NaN, '8']) {
      expect(() => new SteeringModel({ flowField: { ...field, cellsPerFrame: bad as number } })).toThrow(/flowField\.cellsPerFrame must be an integer >= 1 or Infinity/);
    }
    const oneShot = new SteeringModel({ flowField: { ...field, cellsPerFrame: Infinity } });
    expect(oneShot.settings.field!.cellsPerFrame).toBe(Infinity);
    agent(oneShot, 0, [1, 1]);
    expect(oneShot.advanceFields()).toBeGreaterThan(0); // the whole field in one frame
    expect(oneShot.pendingFieldCount).toBe(0);
    expect(new SteeringModel({ flowField: field }).settings.field!.cellsPerFrame).toBe(8192);
  });
});
