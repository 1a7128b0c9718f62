import { show } from '../../math/show';
import { checkFields } from '../../runtime/input';
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

function positive(value: unknown, name: string, fallback?: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a finite number > 0, got ${show(value)}`);
  return v;
}

/** A ground point, or null: a RangeError naming `name` for anything else. */
export function checkGoal(goal: unknown, name: string): GroundPoint | null {
  if (goal === null || goal === undefined) return null;
  if (!Array.isArray(goal) || goal.length !== 2 || !goal.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new RangeError(`${name} must be [x, z] (two finite numbers) or null, got ${Array.isArray(goal) ? `[${goal.map(show).join(', ')}]` : show(goal)}`);
  }
  return [goal[0], goal[1]];
}

/** The checked settings of SteeringAgentOptions; a TypeError or RangeError naming the field otherwise. */
export function checkAgentOptions(options: SteeringAgentOptions): AgentSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError(`agent options must be { radius, maxSpeed, preferredSpeed?, maxAcceleration?, goal? }, got ${show(options)}`);
  checkFields(options, AGENT_FIELDS, 'addAgent');
  const radius = positive(options.radius, 'radius');
  const maxSpeed = options.maxSpeed;
  if (typeof maxSpeed !== 'number' || !Number.isFinite(maxSpeed) || maxSpeed < 0) throw new RangeError(`maxSpeed must be a finite number >= 0, got ${show(maxSpeed)}`);
  const preferredSpeed = options.preferredSpeed ?? maxSpeed;
  if (typeof preferredSpeed !== 'number' || !(preferredSpeed >= 0 && preferredSpeed <= maxSpeed)) {
    throw new RangeError(`preferredSpeed must be a number in [0, maxSpeed = ${maxSpeed}], got ${show(options.preferredSpeed)}`);
  }
  // A standing-only agent (maxSpeed 0) needs no bound: any positive number does.
  const maxAcceleration = positive(options.maxAcceleration, 'maxAcceleration', maxSpeed > 0 ? ACCELERATION_PER_MAX_SPEED * maxSpeed : 1);
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
    const cellSize = positive(f.cellSize, 'flowField.cellSize', Math.max(max[0] - min[0], max[1] - min[1]) / 128);
    const columns = Math.ceil((max[0] - min[0]) / cellSize), rows = Math.ceil((max[1] - min[1]) / cellSize);
    if (columns * rows > MAX_FIELD_CELLS) throw new RangeError(`flowField has ${columns} x ${rows} cells, more than ${MAX_FIELD_CELLS}: use a larger cellSize`);
    const clearance = f.clearance ?? cellSize / 2;
    if (typeof clearance !== 'number' || !(clearance >= 0) || !Number.isFinite(clearance)) throw new RangeError(`flowField.clearance must be a finite number >= 0, got ${show(f.clearance)}`);
    const maxGoals = f.maxGoals ?? 8;
    if (!Number.isInteger(maxGoals) || maxGoals < 1 || maxGoals > 64) throw new RangeError(`flowField.maxGoals must be an integer in [1, 64], got ${show(f.maxGoals)}`);
    const cellsPerFrame = f.cellsPerFrame ?? FIELD_CELLS_PER_FRAME;
    if (!(Number.isInteger(cellsPerFrame) && cellsPerFrame >= 1) && cellsPerFrame !== Infinity) throw new RangeError(`flowField.cellsPerFrame must be an integer >= 1 or Infinity, got ${show(f.cellsPerFrame)}`);
    field = { minX: min[0], minZ: min[1], cellSize, columns, rows, clearance, maxGoals, cellsPerFrame };
  }
  return {
    timeHorizon: positive(options.timeHorizon, 'timeHorizon', 2),
    obstacleTimeHorizon: positive(options.obstacleTimeHorizon, 'obstacleTimeHorizon', 1),
    neighbourDistance: positive(options.neighbourDistance, 'neighbourDistance', 4),
    maxNeighbours,
    turnRate: positive(options.turnRate, 'turnRate', 2 * Math.PI),
    projectionIterations,
    field,
  };
}

/** A polygon as the caller gave it, checked, as flat (x, z) pairs counter-clockwise (RVO2's order). */
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
  let area = 0;
  for (let i = 0; i < n; i++) { const j = (i + 1) % n; area += flat[2 * i] * flat[2 * j + 1] - flat[2 * j] * flat[2 * i + 1]; }
  if (area < 0) {
    const reversed = new Float64Array(flat.length);
    for (let i = 0; i < n; i++) { reversed[2 * i] = flat[2 * (n - 1 - i)]; reversed[2 * i + 1] = flat[2 * (n - 1 - i) + 1]; }
    return reversed;
  }
  return flat;
}
