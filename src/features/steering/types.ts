/** A point on the ground: (x, z) in model units. */
export type GroundPoint = readonly [x: number, z: number];

/** One agent's settings (CrowdSteering.addAgent). */
export interface SteeringAgentOptions {
  /** Radius of the agent's disc on the ground, model units, 1e-6 to 1e6 (bounds.ts: what float32 and the step hold). */
  radius: number;
  /** The fastest it may move, units per second, 0 to 1e6; its reported velocity never exceeds it. */
  maxSpeed: number;
  /** The speed it walks at toward its goal when nothing is in the way, in [0, maxSpeed] (default maxSpeed). */
  preferredSpeed?: number;
  /**
   * The most its preferred velocity changes per second, units per second^2, > 0 (default 2 x
   * maxSpeed: from standing to full speed in half a second), at most 1e9. It starts, stops, turns and brakes
   * for its goal within it, so that its clips can follow (foot sliding, docs/steering.md);
   * avoidance itself is not bounded (ORCA's answer keeps its guarantee).
   */
  maxAcceleration?: number;
  /** Where it walks to, each coordinate within ±1e9; absent or null: it stands (and still steps aside for others). */
  goal?: GroundPoint | null;
}

/** Flow fields over a rectangle of the ground (CrowdSteeringOptions.flowField). */
export interface FlowFieldOptions {
  /** Corner of the rectangle with the smallest x and z. */
  min: GroundPoint;
  /** Opposite corner. */
  max: GroundPoint;
  /**
   * Side of a field cell, model units, 1e-6 to 1e6 (default: 1/128 of the longer side). At most
   * 1,048,576 cells, and maxGoals x cells x 8 bytes within the device's storage-buffer limits
   * (refused by the constructor).
   */
  cellSize?: number;
  /** Cells whose centre is this close to an obstacle edge are blocked, model units, 0 to 1e6 (default: half a cell). */
  clearance?: number;
  /** Distinct goals that get a field at once, 1 to 64 (default 8); an agent whose goal finds no free field walks straight to it. */
  maxGoals?: number;
  /**
   * Work spent on solving fields each frame, in cells (Dijkstra's settled cells, then cells of the
   * directions pass): an integer >= 1, or Infinity to solve a new goal's field in the frame it
   * appears (default 8,192: under 1 ms a frame; a 256 x 256 field takes 17 frames). Until its
   * field is ready a new goal's agents head straight for it; after an obstacle change the old
   * fields stay until the new ones are ready.
   */
  cellsPerFrame?: number;
}

/** Options of CrowdSteering, fixed for its life. */
export interface CrowdSteeringOptions {
  /** Seconds ahead ORCA keeps agents apart, 1e-3 to 1e6 (default 2). Longer: earlier, smoother avoidance; shorter: denser crowds move. */
  timeHorizon?: number;
  /** Seconds ahead ORCA keeps agents off obstacles, 1e-3 to 1e6 (default 1). */
  obstacleTimeHorizon?: number;
  /** Agents farther apart than this do not constrain each other, model units, 1e-6 to 1e6 (default 4). Also the grid's cell size. */
  neighbourDistance?: number;
  /** At most this many nearest agents constrain one, 1 to 16 (default 10). */
  maxNeighbours?: number;
  /** Radians per second an agent's facing turns toward its velocity, 1e-6 to 1e6 (default 2 pi). */
  turnRate?: number;
  /**
   * Jacobi iterations of the position projection after each step's move, 0 to 16 (default 4):
   * overlapping agents are pushed apart to the sum of their radii and out of obstacle segments.
   * 0: none (ORCA alone; a dense crowd then overlaps where its program is infeasible).
   */
  projectionIterations?: number;
  /** Flow fields (agents sharing a goal walk around walls to it); absent: every agent walks straight at its goal. */
  flowField?: FlowFieldOptions;
}

/** The agents as the GPU has them now (CrowdSteering.readAgents). */
export interface SteeringAgents {
  /** Live agents' instance ids, in handle order. */
  readonly ids: Float64Array;
  /** (x, z) per agent, model units, in the order of ids. */
  readonly positions: Float32Array;
  /** (x, z) per agent, units per second, in the order of ids. */
  readonly velocities: Float32Array;
}
