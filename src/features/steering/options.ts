import { checkF32, type F32Range } from '../../math/float32';
import { show } from '../../math/show';
import { checkFields } from '../../runtime/input';
import { ACCELERATION, CLEARANCE, COORDINATE, HORIZON, LENGTH, SPEED, TURN_RATE, WHY } from './bounds';
import type { FieldSettings } from './field-slots';
import { MAX_NEIGHBOURS, MAX_PROJECTION_ITERATIONS, PROJECTION_ITERATIONS } from './layout';
import type { CrowdSteeringOptions, GroundPoint, SteeringAgentOptions } from './types';

/**
 * The checks of CrowdSteering's inputs (options, agent options, goals, obstacle polygons): each
 * returns the checked value with its defaults, or throws an error naming the field, before
 * anything changes (src/features/steering/crowd-steering.ts calls them first).
 */

/** An agent's settings after checking. */
export interface AgentSettings {
  readonly radius: number;
  readonly maxSpeed: number;
  readonly preferredSpeed: number;
  readonly maxAcceleration: number;
  readonly goal: GroundPoint | null;
}

const AGENT_FIELDS = ['radius', 'maxSpeed', 'preferredSpeed', 'maxAcceleration', 'goal'] as const;
const AGENT_CHANGE_FIELDS = ['radius', 'maxSpeed', 'preferredSpeed', 'maxAcceleration'] as const;
/** Default SteeringAgentOptions.maxAcceleration, per second x maxSpeed: full speed in half a second. */
const ACCELERATION_PER_MAX_SPEED = 2;
const OPTION_FIELDS = ['timeHorizon', 'obstacleTimeHorizon', 'neighbourDistance', 'maxNeighbours', 'turnRate', 'projectionIterations', 'flowField'] as const;
const FIELD_FIELDS = ['min', 'max', 'cellSize', 'clearance', 'maxGoals', 'cellsPerFrame'] as const;
/** Default FlowFieldOptions.cellsPerFrame: under 1 ms a frame on the CPU (0.6 ms measured; docs/steering.md, BENCHMARKS.md). */
const FIELD_CELLS_PER_FRAME = 8192;
const MAX_FIELD_CELLS = 1 << 20;

/** `value` (or `fallback` when it is undefined) within `range` (bounds.ts); a RangeError naming `name` and the range otherwise. */
function bounded(value: unknown, name: string, range: F32Range, fallback?: number): number {
  return checkF32(value ?? fallback, name, range, WHY);
}

/**
 * A ground point within COORDINATE (bounds.ts: +-1e9), or null: a RangeError naming `name` for
 * anything else (a coordinate past the bound names the bound).
 */
export function checkGoal(goal: unknown, name: string): GroundPoint | null {
  if (goal === null || goal === undefined) return null;
  if (!Array.isArray(goal) || goal.length !== 2 || !goal.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new RangeError(`${name} must be [x, z] (two finite numbers) or null, got ${Array.isArray(goal) ? `[${goal.map(show).join(', ')}]` : show(goal)}`);
  }
  return [bounded(goal[0], `${name}[0]`, COORDINATE), bounded(goal[1], `${name}[1]`, COORDINATE)];
}

/** The checked settings of SteeringAgentOptions; a TypeError or RangeError naming the field otherwise. */
export function checkAgentOptions(options: SteeringAgentOptions): AgentSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError(`agent options must be { radius, maxSpeed, preferredSpeed?, maxAcceleration?, goal? }, got ${show(options)}`);
  checkFields(options, AGENT_FIELDS, 'addAgent');
  const radius = bounded(options.radius, 'radius', LENGTH);
  const maxSpeed = bounded(options.maxSpeed, 'maxSpeed', SPEED);
  const preferredSpeed = options.preferredSpeed ?? maxSpeed;
  if (typeof preferredSpeed !== 'number' || !(preferredSpeed >= 0 && preferredSpeed <= maxSpeed)) {
    throw new RangeError(`preferredSpeed must be a number in [0, maxSpeed = ${maxSpeed}], got ${show(options.preferredSpeed)}`);
  }
  // A standing-only agent (maxSpeed 0) needs no bound: any positive number does.
  const maxAcceleration = bounded(options.maxAcceleration, 'maxAcceleration', ACCELERATION, maxSpeed > 0 ? Math.max(ACCELERATION.min, ACCELERATION_PER_MAX_SPEED * maxSpeed) : 1);
  return { radius, maxSpeed, preferredSpeed, maxAcceleration, goal: checkGoal(options.goal, 'goal') };
}

/**
 * The settings of agent options given in part over `current` (setAgentOptions: any of radius,
 * maxSpeed, preferredSpeed, maxAcceleration; the goal has setGoal): the same rules as addAgent's,
 * a field left out keeping its value. A TypeError or RangeError naming the field otherwise.
 */
export function checkAgentChanges(options: Partial<SteeringAgentOptions>, current: AgentSettings): AgentSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError(`agent options must be { radius?, maxSpeed?, preferredSpeed?, maxAcceleration? }, got ${show(options)}`);
  checkFields(options, AGENT_CHANGE_FIELDS, 'setAgentOptions');
  const maxSpeed = options.maxSpeed ?? current.maxSpeed;
  const preferredSpeed = options.preferredSpeed ?? current.preferredSpeed;
  if (options.preferredSpeed === undefined && typeof maxSpeed === 'number' && preferredSpeed > maxSpeed) {
    throw new RangeError(`maxSpeed ${show(maxSpeed)} is below the agent's preferredSpeed ${current.preferredSpeed}: give a preferredSpeed in [0, maxSpeed] too`);
  }
  return checkAgentOptions({
    radius: options.radius ?? current.radius, maxSpeed, preferredSpeed,
    maxAcceleration: options.maxAcceleration ?? current.maxAcceleration, goal: current.goal,
  });
}

/** CrowdSteeringOptions with defaults, checked. */
export interface SteeringSettings {
  readonly timeHorizon: number;
  readonly obstacleTimeHorizon: number;
  readonly neighbourDistance: number;
  readonly maxNeighbours: number;
  readonly turnRate: number;
  readonly projectionIterations: number;
  readonly field: FieldSettings | undefined;
}

/** The checked settings of CrowdSteeringOptions. */
export function checkSteeringOptions(options: CrowdSteeringOptions): SteeringSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError(`options must be an object (CrowdSteeringOptions), got ${show(options)}`);
  checkFields(options, OPTION_FIELDS, 'CrowdSteering');
  const maxNeighbours = options.maxNeighbours ?? 10;
  if (!Number.isInteger(maxNeighbours) || maxNeighbours < 1 || maxNeighbours > MAX_NEIGHBOURS) throw new RangeError(`maxNeighbours must be an integer in [1, ${MAX_NEIGHBOURS}], got ${show(options.maxNeighbours)}`);
  const projectionIterations = options.projectionIterations ?? PROJECTION_ITERATIONS;
  if (!Number.isInteger(projectionIterations) || projectionIterations < 0 || projectionIterations > MAX_PROJECTION_ITERATIONS) throw new RangeError(`projectionIterations must be an integer in [0, ${MAX_PROJECTION_ITERATIONS}], got ${show(options.projectionIterations)}`);
  let field: SteeringSettings['field'];
  const f = options.flowField;
  if (f !== undefined) {
    if (typeof f !== 'object' || f === null) throw new TypeError(`flowField must be { min, max, cellSize?, clearance?, maxGoals?, cellsPerFrame? }, got ${show(f)}`);
    checkFields(f, FIELD_FIELDS, 'flowField');
    const min = checkGoal(f.min, 'flowField.min'), max = checkGoal(f.max, 'flowField.max');
    if (!min || !max || !(max[0] > min[0] && max[1] > min[1])) throw new RangeError('flowField.max must be greater than flowField.min in x and z');
    const cellSize = bounded(f.cellSize, 'flowField.cellSize', LENGTH, Math.max(LENGTH.min, Math.max(max[0] - min[0], max[1] - min[1]) / 128));
    const columns = Math.ceil((max[0] - min[0]) / cellSize), rows = Math.ceil((max[1] - min[1]) / cellSize);
    if (columns * rows > MAX_FIELD_CELLS) throw new RangeError(`flowField has ${columns} x ${rows} cells, more than ${MAX_FIELD_CELLS}: use a larger cellSize`);
    const clearance = bounded(f.clearance, 'flowField.clearance', CLEARANCE, cellSize / 2);
    const maxGoals = f.maxGoals ?? 8;
    if (!Number.isInteger(maxGoals) || maxGoals < 1 || maxGoals > 64) throw new RangeError(`flowField.maxGoals must be an integer in [1, 64], got ${show(f.maxGoals)}`);
    const cellsPerFrame = f.cellsPerFrame ?? FIELD_CELLS_PER_FRAME;
    if (!(Number.isInteger(cellsPerFrame) && cellsPerFrame >= 1) && cellsPerFrame !== Infinity) throw new RangeError(`flowField.cellsPerFrame must be an integer >= 1 or Infinity, got ${show(f.cellsPerFrame)}`);
    field = { minX: min[0], minZ: min[1], cellSize, columns, rows, clearance, maxGoals, cellsPerFrame };
  }
  return {
    timeHorizon: bounded(options.timeHorizon, 'timeHorizon', HORIZON, 2),
    obstacleTimeHorizon: bounded(options.obstacleTimeHorizon, 'obstacleTimeHorizon', HORIZON, 1),
    neighbourDistance: bounded(options.neighbourDistance, 'neighbourDistance', LENGTH, 4),
    maxNeighbours,
    turnRate: bounded(options.turnRate, 'turnRate', TURN_RATE, 2 * Math.PI),
    projectionIterations,
    field,
  };
}

/**
 * A polygon as the caller gave it, checked, as flat (x, z) pairs counter-clockwise (RVO2's order).
 * Refused: fewer than 2 vertices, a vertex that is not two numbers within COORDINATE, two equal
 * neighbours, and (3 vertices or more) an outline that is not simple: two edges that cross or
 * touch, or neighbouring edges that fold back on each other (checkSimple).
 */
export function checkPolygon(vertices: readonly GroundPoint[]): Float64Array {
  if (!Array.isArray(vertices) || vertices.length < 2) throw new RangeError(`an obstacle needs at least 2 vertices [[x0, z0], [x1, z1], ...], got ${Array.isArray(vertices) ? `${vertices.length}` : show(vertices)}`);
  const flat = new Float64Array(vertices.length * 2);
  vertices.forEach((v, i) => {
    const p = checkGoal(v, `vertices[${i}]`);
    if (!p) throw new RangeError(`vertices[${i}] must be [x, z], got null`);
    flat[2 * i] = p[0]; flat[2 * i + 1] = p[1];
  });
  const n = vertices.length;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    if (flat[2 * i] === flat[2 * j] && flat[2 * i + 1] === flat[2 * j + 1]) throw new RangeError(`vertices[${i}] and vertices[${j}] are the same point`);
  }
  if (n >= 3) checkSimple(flat);
  let area = 0;
  for (let i = 0; i < n; i++) { const j = (i + 1) % n; area += flat[2 * i] * flat[2 * j + 1] - flat[2 * j] * flat[2 * i + 1]; }
  if (area < 0) {
    const reversed = new Float64Array(flat.length);
    for (let i = 0; i < n; i++) { reversed[2 * i] = flat[2 * (n - 1 - i)]; reversed[2 * i + 1] = flat[2 * (n - 1 - i) + 1]; }
    return reversed;
  }
  return flat;
}

/** Twice the signed area of triangle (a, b, c) of `p`'s points: > 0 counter-clockwise, 0 collinear. */
function orient(p: Float64Array, a: number, b: number, c: number): number {
  return (p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1]) - (p[2 * b + 1] - p[2 * a + 1]) * (p[2 * c] - p[2 * a]);
}

/** Whether point c, collinear with segment (a, b), lies on it (ends included). */
function within(p: Float64Array, a: number, b: number, c: number): boolean {
  return Math.min(p[2 * a], p[2 * b]) <= p[2 * c] && p[2 * c] <= Math.max(p[2 * a], p[2 * b]) &&
    Math.min(p[2 * a + 1], p[2 * b + 1]) <= p[2 * c + 1] && p[2 * c + 1] <= Math.max(p[2 * a + 1], p[2 * b + 1]);
}

/** Whether segments (a, b) and (c, d) share a point: crossing, touching, or overlapping collinear. */
function meet(p: Float64Array, a: number, b: number, c: number, d: number): boolean {
  const o1 = orient(p, a, b, c), o2 = orient(p, a, b, d), o3 = orient(p, c, d, a), o4 = orient(p, c, d, b);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return true;
  return (o1 === 0 && within(p, a, b, c)) || (o2 === 0 && within(p, a, b, d)) || (o3 === 0 && within(p, c, d, a)) || (o4 === 0 && within(p, c, d, b));
}

/**
 * Refuses an outline (flat pairs, 3 vertices or more) that is not a simple polygon, naming the
 * two edges: a bow-tie's lobes would each be half inside, and an agent walks into one (RVO2, whose
 * obstacle code this is, needs simple polygons too). Edge i runs from vertices[i] to vertices[i + 1].
 * Only edges that share a cell of a grid of about n cells over the outline's box are tested
 * against each other (each pair once): O(n) for outlines whose edges are short against it, O(n^2)
 * at worst (10,000 vertices on a circle: all pairs took 0.95 s).
 */
function checkSimple(p: Float64Array): void {
  const n = p.length / 2;
  let minX = Infinity, minZ = Infinity, maxX = -Infinity, maxZ = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, p[2 * i]); maxX = Math.max(maxX, p[2 * i]);
    minZ = Math.min(minZ, p[2 * i + 1]); maxZ = Math.max(maxZ, p[2 * i + 1]);
  }
  const side = Math.ceil(Math.sqrt(n));
  const size = Math.max(maxX - minX, maxZ - minZ) / side || 1;
  const cellOf = (v: number, min: number): number => Math.min(side - 1, Math.floor((v - min) / size));
  const cells: number[][] = Array.from({ length: side * side }, () => []);
  const span = new Int32Array(4 * n); // each edge's cell rectangle: x0, z0, x1, z1
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    const x0 = cellOf(Math.min(p[2 * i], p[2 * j]), minX), x1 = cellOf(Math.max(p[2 * i], p[2 * j]), minX);
    const z0 = cellOf(Math.min(p[2 * i + 1], p[2 * j + 1]), minZ), z1 = cellOf(Math.max(p[2 * i + 1], p[2 * j + 1]), minZ);
    span.set([x0, z0, x1, z1], 4 * i);
    for (let z = z0; z <= z1; z++) for (let x = x0; x <= x1; x++) cells[z * side + x].push(i);
  }
  const tested = new Int32Array(n).fill(-1); // the last edge i that edge j was tested against
  for (let i = 0; i < n; i++) {
    for (let z = span[4 * i + 1]; z <= span[4 * i + 3]; z++) {
      for (let x = span[4 * i]; x <= span[4 * i + 2]; x++) {
        for (const j of cells[z * side + x]) {
          if (j <= i || tested[j] === i) continue;
          tested[j] = i;
          checkPair(p, i, j);
        }
      }
    }
  }
}

/** Refuses edges i < j of outline `p` that cross or touch (or, neighbours, fold back), naming them. */
function checkPair(p: Float64Array, i: number, j: number): void {
  const n = p.length / 2;
  const a = i, b = (i + 1) % n, c = j, d = (j + 1) % n;
  let bad: string | undefined;
  if (d === a || c === b) {
    // Neighbours share one vertex: they fold back when the other ends lie on each other's edge.
    const shared = c === b ? b : a, x = shared === b ? a : b, y = shared === b ? d : c;
    if (orient(p, x, shared, y) === 0 && (within(p, x, shared, y) || within(p, shared, y, x))) bad = 'fold back over each other';
  } else if (meet(p, a, b, c, d)) {
    bad = 'cross or touch';
  }
  if (!bad) return;
  const edge = (k: number): string => `edge ${k} ([${p[2 * k]}, ${p[2 * k + 1]}] -> [${p[2 * ((k + 1) % n)]}, ${p[2 * ((k + 1) % n) + 1]}])`;
  throw new RangeError(`vertices: ${edge(i)} and ${edge(j)} ${bad}: an obstacle must be a simple polygon (split it into simple ones)`);
}
