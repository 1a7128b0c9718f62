import { blockedCells, FieldSolve, type FieldGrid } from './flow-field';
import { FIELD_NONE } from './layout';
import type { GroundPoint } from './types';

/** CrowdSteeringOptions.flowField checked, with its grid (SteeringSettings.field). */
export interface FieldSettings extends FieldGrid {
  readonly clearance: number;
  readonly maxGoals: number;
  readonly cellsPerFrame: number;
}

/** A goal with a field: its slot in `fields` and the agents using it. */
interface GoalField {
  readonly index: number;
  users: number;
  readonly goal: GroundPoint;
  /** Its key in FieldSlots.goals. */
  readonly key: string;
}

/** A field waiting for its solve (advance); `solve` starts at the head of the queue. */
interface PendingField {
  readonly entry: GoalField;
  solve: FieldSolve | undefined;
}

/**
 * The flow fields of a SteeringModel: `maxGoals` slots of directions (x, z per cell) that the GPU
 * reads by AGENT.field, one per goal in use, solved in slices by `advance` (at most
 * `cellsPerFrame` cells of work a call; flow-field.ts FieldSolve). A new goal's slot holds zero
 * directions (straight at the goal) until its solve completes; after an obstacle change every
 * live goal is solved again and keeps its old directions until the new ones are complete; a goal
 * released while pending cancels its solve. Owns `fields` and the byte range of it not uploaded yet.
 */
export class FieldSlots {
  /** maxGoals slots of columns x rows cells, x and z per cell (2 floats without a grid). */
  readonly fields: Float32Array<ArrayBuffer>;
  /** Byte range of `fields` changed since the last upload ([lo, hi), empty when lo >= hi). */
  dirtyLo = 0;
  dirtyHi: number;
  /** Slot of each goal ("x,z" in float32) with a field, and the agents using it. */
  private readonly goals = new Map<string, GoalField>();
  /** The goal of each slot in use, by slot index (release finds it without a search). */
  private readonly bySlot: (GoalField | undefined)[] = [];
  private readonly free: number[] = [];
  /** Solves to do, oldest first, each goal at most once: advance works on the first. */
  private readonly pending: PendingField[] = [];
  /** The last solve started, whose arrays the next one takes over (one solve runs at a time). */
  private lastSolve: FieldSolve | undefined;
  private blocked: Uint8Array | undefined;

  constructor(private readonly grid: FieldSettings | undefined) {
    this.fields = new Float32Array(grid ? grid.maxGoals * grid.columns * grid.rows * 2 : 2);
    if (grid) for (let i = grid.maxGoals - 1; i >= 0; i--) this.free.push(i);
    this.dirtyHi = this.fields.byteLength;
  }

  /** Solves not finished yet (a new goal's, or every live goal's after an obstacle change). */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** The slot of `goal` for one more agent (a new slot, zeroed, its solve queued), or FIELD_NONE: no grid, or every slot in use. */
  acquire(goal: GroundPoint): number {
    const grid = this.grid;
    if (!grid) return FIELD_NONE;
    const key = `${Math.fround(goal[0])},${Math.fround(goal[1])}`;
    let entry = this.goals.get(key);
    if (!entry) {
      const index = this.free.pop();
      if (index === undefined) return FIELD_NONE; // every field is in use: straight to the goal
      entry = { index, users: 0, goal, key };
      this.goals.set(key, entry);
      this.bySlot[index] = entry;
      // Zero directions until the solve finishes: the step sends its agents straight at the goal meanwhile.
      const floats = grid.columns * grid.rows * 2;
      this.fields.fill(0, index * floats, (index + 1) * floats);
      this.changed(index * floats, (index + 1) * floats);
      this.pending.push({ entry, solve: undefined });
    }
    entry.users++;
    return entry.index;
  }

  /** One agent fewer uses slot `index` (from acquire); the last one frees it and cancels its pending solve. */
  release(index: number): void {
    const entry = index === FIELD_NONE ? undefined : this.bySlot[index];
    if (!entry || --entry.users > 0) return;
    this.goals.delete(entry.key);
    this.bySlot[index] = undefined;
    this.free.push(index);
    // Its pending solve, if any, is dropped: the slot's next goal queues its own.
    const pending = this.pending.findIndex((p) => p.entry === entry);
    if (pending >= 0) this.pending.splice(pending, 1);
  }

  /**
   * The obstacles changed: every live goal is solved again; its old directions stay until the new
   * ones are complete (no agent is left without a field meanwhile); a solve under way starts over.
   */
  obstaclesChanged(): void {
    this.blocked = undefined;
    for (const pending of this.pending) pending.solve = undefined;
    for (const entry of this.goals.values()) {
      if (!this.pending.some((p) => p.entry === entry)) this.pending.push({ entry, solve: undefined });
    }
  }

  /**
   * Spends one frame's budget (cellsPerFrame cells of work) on the pending solves, oldest first,
   * over the obstacle `polygons` (flat x, z pairs; read when a solve starts after a change); a
   * finished solve writes its slot (marked for upload). Returns the cells of work done.
   */
  advance(polygons: () => ArrayLike<number>[]): number {
    const grid = this.grid;
    if (!grid) return 0;
    let spent = 0;
    const floats = grid.columns * grid.rows * 2;
    while (spent < grid.cellsPerFrame && this.pending.length > 0) {
      const pending = this.pending[0];
      this.blocked ??= blockedCells(grid, polygons(), grid.clearance);
      pending.solve ??= this.lastSolve = new FieldSolve(grid, this.blocked, pending.entry.goal[0], pending.entry.goal[1], this.lastSolve);
      const before = pending.solve.work;
      const done = pending.solve.advance(grid.cellsPerFrame - spent);
      spent += pending.solve.work - before;
      if (!done) break;
      const offset = pending.entry.index * floats;
      this.fields.set(pending.solve.directions, offset);
      this.changed(offset, offset + floats);
      this.pending.shift();
    }
    return spent;
  }

  /** Every slot is uploaded again (a new device). */
  markAllDirty(): void {
    this.dirtyLo = 0;
    this.dirtyHi = this.fields.byteLength;
  }

  /** Floats [lo, hi) of `fields` changed. */
  private changed(lo: number, hi: number): void {
    this.dirtyLo = Math.min(this.dirtyLo, lo * 4);
    this.dirtyHi = Math.max(this.dirtyHi, hi * 4);
  }
}
