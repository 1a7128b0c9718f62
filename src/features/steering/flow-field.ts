/**
 * Flow fields for agents that share a goal, computed once on the CPU per goal (an event: the first
 * agent given that goal, or an obstacle added or removed), in slices across frames (FieldSolve: a
 * fixed budget of cells a frame, so a new goal causes no hitch), sampled by the GPU every step. The
 * ground is a grid of square cells; cells whose centre lies inside an obstacle polygon or within
 * `clearance` of one of its edges are blocked; the distance to the goal is Dijkstra's over the
 * 8-connected free cells (no corner cutting; octile steps 1 and sqrt 2), and each cell's direction
 * is the normalised negative gradient of that distance (central differences, one-sided next to a
 * blocked cell), so a crowd walks around walls and finds the door instead of pressing against the
 * wall between it and its goal.
 *
 * Why the CPU and not a GPU relaxation: the obstacles of a steering crowd are static, a field
 * changes only when a new goal appears, Dijkstra settles a 256 x 256 grid in about 27 ms once
 * (in slices: about 1 ms a frame for some 34 frames), where a GPU Jacobi/Bellman-Ford relaxation
 * needs as many sweeps as the longest path has cells (hundreds of dispatches) for the same answer.
 * The per-frame cost stays on the GPU (a bilinear lookup per agent).
 */

import { distSqToSegment } from './orca';

/** The grid the fields share: cells of `cellSize` from (minX, minZ), columns x rows. */
export interface FieldGrid {
  readonly minX: number;
  readonly minZ: number;
  readonly cellSize: number;
  readonly columns: number;
  readonly rows: number;
}

/** Whether (x, z) is inside the polygon (flat x, z pairs): even-odd rule. */
function insidePolygon(polygon: ArrayLike<number>, x: number, z: number): boolean {
  let inside = false;
  const n = polygon.length / 2;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = polygon[2 * i], zi = polygon[2 * i + 1], xj = polygon[2 * j], zj = polygon[2 * j + 1];
    if ((zi > z) !== (zj > z) && x < ((xj - xi) * (z - zi)) / (zj - zi) + xi) inside = !inside;
  }
  return inside;
}

/** The blocked cells (1) of `grid` for `polygons` (each flat x, z pairs; two vertices: a wall). */
export function blockedCells(grid: FieldGrid, polygons: readonly ArrayLike<number>[], clearance: number): Uint8Array {
  const blocked = new Uint8Array(grid.columns * grid.rows);
  const clearanceSq = clearance * clearance;
  for (const polygon of polygons) {
    const n = polygon.length / 2;
    let minX = Infinity, minZ = Infinity, maxX = -Infinity, maxZ = -Infinity;
    for (let i = 0; i < n; i++) {
      minX = Math.min(minX, polygon[2 * i]); maxX = Math.max(maxX, polygon[2 * i]);
      minZ = Math.min(minZ, polygon[2 * i + 1]); maxZ = Math.max(maxZ, polygon[2 * i + 1]);
    }
    const c0 = Math.max(0, Math.floor((minX - clearance - grid.minX) / grid.cellSize));
    const c1 = Math.min(grid.columns - 1, Math.floor((maxX + clearance - grid.minX) / grid.cellSize));
    const r0 = Math.max(0, Math.floor((minZ - clearance - grid.minZ) / grid.cellSize));
    const r1 = Math.min(grid.rows - 1, Math.floor((maxZ + clearance - grid.minZ) / grid.cellSize));
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const x = grid.minX + (c + 0.5) * grid.cellSize, z = grid.minZ + (r + 0.5) * grid.cellSize;
        let hit = n > 2 && insidePolygon(polygon, x, z);
        for (let i = 0; i < n && !hit; i++) {
          const j = (i + 1) % n;
          hit = distSqToSegment(polygon[2 * i], polygon[2 * i + 1], polygon[2 * j], polygon[2 * j + 1], x, z) <= clearanceSq;
        }
        if (hit) blocked[r * grid.columns + c] = 1;
      }
    }
  }
  return blocked;
}

/** A binary min-heap of cells keyed by distance (Dijkstra's frontier). */
class CellHeap {
  private cells = new Int32Array(64);
  private keys = new Float64Array(64);
  size = 0;
  push(cell: number, key: number): void {
    if (this.size === this.cells.length) {
      const cells = new Int32Array(this.size * 2); cells.set(this.cells); this.cells = cells;
      const keys = new Float64Array(this.size * 2); keys.set(this.keys); this.keys = keys;
    }
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent] <= key) break;
      this.cells[i] = this.cells[parent]; this.keys[i] = this.keys[parent]; i = parent;
    }
    this.cells[i] = cell; this.keys[i] = key;
  }
  /** Removes the nearest cell; returns it (its key in `lastKey`). */
  lastKey = 0;
  pop(): number {
    const top = this.cells[0];
    this.lastKey = this.keys[0];
    const cell = this.cells[--this.size], key = this.keys[this.size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.keys[child + 1] < this.keys[child]) child++;
      if (this.keys[child] >= key) break;
      this.cells[i] = this.cells[child]; this.keys[i] = this.keys[child]; i = child;
    }
    this.cells[i] = cell; this.keys[i] = key;
    return top;
  }
}

/**
 * Dijkstra's step from `cell` at distance `d` (cells): each of its 8 neighbours that is free (a
 * diagonal only where both orthogonal cells are free too) gets d + 1 or d + sqrt 2 if shorter,
 * and goes on the heap.
 */
function relaxNeighbours(grid: FieldGrid, blocked: Uint8Array, distance: Float64Array, heap: CellHeap, cell: number, d: number): void {
  const { columns, rows } = grid;
  const c = cell % columns, r = (cell - c) / columns;
  for (let dr = -1; dr <= 1; dr++) {
    for (let dc = -1; dc <= 1; dc++) {
      if (dr === 0 && dc === 0) continue;
      const nc = c + dc, nr = r + dr;
      if (nc < 0 || nr < 0 || nc >= columns || nr >= rows) continue;
      const n = nr * columns + nc;
      if (blocked[n]) continue;
      if (dr !== 0 && dc !== 0 && (blocked[r * columns + nc] || blocked[nr * columns + c])) continue;
      const nd = d + (dr !== 0 && dc !== 0 ? Math.SQRT2 : 1);
      if (nd < distance[n]) {
        distance[n] = nd;
        heap.push(n, nd);
      }
    }
  }
}

/**
 * The distance (in cells) from every free cell to the goal's cell, Infinity where it cannot be
 * reached: Dijkstra over 8 neighbours, a diagonal step only where both its orthogonal cells are free.
 */
export function distanceField(grid: FieldGrid, blocked: Uint8Array, goalX: number, goalZ: number): Float64Array {
  const { columns, rows } = grid;
  const distance = new Float64Array(columns * rows).fill(Infinity);
  const gc = Math.floor((goalX - grid.minX) / grid.cellSize), gr = Math.floor((goalZ - grid.minZ) / grid.cellSize);
  if (gc < 0 || gr < 0 || gc >= columns || gr >= rows) return distance;
  const heap = new CellHeap();
  distance[gr * columns + gc] = 0;
  heap.push(gr * columns + gc, 0);
  while (heap.size > 0) {
    const cell = heap.pop();
    const d = heap.lastKey;
    if (d > distance[cell]) continue;
    relaxNeighbours(grid, blocked, distance, heap, cell, d);
  }
  return distance;
}

/**
 * Each cell's direction toward the goal into `out` (x, z per cell): the
 * normalised negative gradient of `distance`; (0, 0) for blocked and unreachable cells and the
 * goal's own cell (where agents go straight).
 */
export function fieldDirections(grid: FieldGrid, distance: Float64Array, out: Float32Array): Float32Array {
  directionsOfCells(grid, distance, out, 0, grid.columns * grid.rows);
  return out;
}

/** The distance at cell (c, r), Infinity off the grid. */
function distanceAt(distance: Float64Array, columns: number, rows: number, c: number, r: number): number {
  return c < 0 || r < 0 || c >= columns || r >= rows ? Infinity : distance[r * columns + c];
}

/** The slope of the distance through a cell at `d` from its neighbours `lo` and `hi`: central, or one-sided beside an unreachable one. */
function slope(d: number, lo: number, hi: number): number {
  if (Number.isFinite(lo) && Number.isFinite(hi)) return (hi - lo) / 2;
  if (Number.isFinite(hi)) return hi - d;
  if (Number.isFinite(lo)) return d - lo;
  return 0;
}

/** fieldDirections for cells [from, to) only (row-major cell indices): the directions pass in slices. */
function directionsOfCells(grid: FieldGrid, distance: Float64Array, out: Float32Array, from: number, to: number): void {
  const { columns, rows } = grid;
  for (let cell = from; cell < to; cell++) {
    const c = cell % columns, r = (cell - c) / columns;
    const i = cell * 2;
    const d = distance[cell];
    out[i] = 0; out[i + 1] = 0;
    if (!Number.isFinite(d) || d === 0) continue;
    let gx = slope(d, distanceAt(distance, columns, rows, c - 1, r), distanceAt(distance, columns, rows, c + 1, r));
    let gz = slope(d, distanceAt(distance, columns, rows, c, r - 1), distanceAt(distance, columns, rows, c, r + 1));
    if (gx === 0 && gz === 0) {
      // A ridge: toward the nearest neighbour.
      let best = d;
      for (let k = 0; k < 9; k++) {
        const nd = distanceAt(distance, columns, rows, c + (k % 3) - 1, r + Math.floor(k / 3) - 1);
        if (nd < best) { best = nd; gx = -((k % 3) - 1); gz = -(Math.floor(k / 3) - 1); }
      }
    }
    const length = Math.hypot(gx, gz);
    if (length > 0) { out[i] = -gx / length; out[i + 1] = -gz / length; }
  }
}

/**
 * One goal's field solved in slices, so that a new goal costs a frame at most `cellBudget` cells of
 * work (CrowdSteeringOptions.flowField.cellsPerFrame) instead of the whole grid at once: the same
 * Dijkstra as distanceField, stopped after a number of settled cells (heap pops) and resumed where
 * it stopped, then the directions pass of fieldDirections over cells in row-major order. The
 * results are those of distanceField + fieldDirections exactly (the same heap operations in the
 * same order). Owns its distance, heap and `directions` (x, z per cell), written whole before
 * `advance` returns true; the caller copies them into its field slot then.
 */
export class FieldSolve {
  /** The directions (x, z per cell), complete once `advance` returned true. */
  readonly directions: Float32Array;
  /** Units of work done so far: Dijkstra's heap pops, then cells of the directions pass. */
  work = 0;
  private readonly distance: Float64Array;
  private readonly heap: CellHeap;
  /** The next cell of the directions pass; -1 while Dijkstra runs. */
  private nextCell = -1;

  /**
   * @param reuse A finished or dropped solve of the same grid whose arrays this one takes over (no
   *   allocation per new goal, so no garbage collection in a frame); that solve is unusable after.
   */
  constructor(private readonly grid: FieldGrid, private readonly blocked: Uint8Array, goalX: number, goalZ: number, reuse?: FieldSolve) {
    const { columns, rows } = grid;
    const same = reuse && reuse.distance.length === columns * rows;
    this.distance = same ? reuse.distance.fill(Infinity) : new Float64Array(columns * rows).fill(Infinity);
    this.directions = same ? reuse.directions : new Float32Array(columns * rows * 2);
    this.heap = same ? reuse.heap : new CellHeap();
    this.heap.size = 0;
    const gc = Math.floor((goalX - grid.minX) / grid.cellSize), gr = Math.floor((goalZ - grid.minZ) / grid.cellSize);
    if (gc < 0 || gr < 0 || gc >= columns || gr >= rows) return;
    this.distance[gr * columns + gc] = 0;
    this.heap.push(gr * columns + gc, 0);
  }

  /** Whether the directions are complete. */
  get done(): boolean {
    return this.nextCell >= this.distance.length;
  }

  /** Does at most `cellBudget` units of work (>= 1, or Infinity); returns whether the field is complete. */
  advance(cellBudget: number): boolean {
    const { distance, heap, blocked } = this;
    let budget = cellBudget;
    while (this.nextCell < 0 && budget > 0) {
      if (heap.size === 0) { this.nextCell = 0; break; }
      const cell = heap.pop();
      const d = heap.lastKey;
      budget--;
      this.work++;
      if (d > distance[cell]) continue;
      relaxNeighbours(this.grid, blocked, distance, heap, cell, d);
    }
    if (this.nextCell >= 0 && budget > 0 && !this.done) {
      const to = Math.min(distance.length, this.nextCell + budget);
      directionsOfCells(this.grid, distance, this.directions, this.nextCell, to);
      this.work += to - this.nextCell;
      this.nextCell = to;
    }
    return this.done;
  }
}
