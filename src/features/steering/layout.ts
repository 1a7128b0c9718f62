/**
 * Byte layouts of the steering buffers, shared by the GPU pass (shaders/steering/steering.wgsl)
 * and the TypeScript twin (step.ts), which reads and writes the very same bytes. Every field is a
 * 4-byte scalar, so a struct's offsets are 4 x the field's index; test/features/steering/layout.test.ts
 * checks the WGSL structs against these tables.
 */

/** One agent's settings, by instance handle (WGSL `Agent`): written by the CPU on events only. */
export const AGENT = {
  size: 64,
  goalX: 0, //        f32: goal on the ground (model units), read when flags has AGENT_HAS_GOAL
  goalZ: 4, //        f32
  radius: 8, //       f32: > 0, model units
  maxSpeed: 12, //    f32: >= 0, units per second; ORCA never picks a faster velocity
  prefSpeed: 16, //   f32: in [0, maxSpeed]: the speed it walks at toward its goal when free
  flags: 20, //       u32: AGENT_ACTIVE | AGENT_HAS_GOAL; 0 for a handle that is no agent
  epoch: 24, //       u32: bumped when the CPU places the agent; the state restarts from start* when it differs
  startX: 28, //      f32: where the agent (re)starts, model units
  startZ: 32, //      f32
  startHeading: 36, // f32: radians about +y (0 faces +z)
  y: 40, //           f32: height of its placement (steering moves it on the x-z plane only)
  scale: 44, //       f32: uniform scale of its placement
  field: 48, //       u32: flow field index, or FIELD_NONE (straight to the goal)
  maxAcceleration: 52, // f32: > 0, units per second^2: the most the preferred velocity changes per second
} as const;

/** One agent's motion (WGSL `AgentState`), by handle: written by the GPU every step. */
export const AGENT_STATE = {
  size: 32,
  x: 0, //         f32: position on the ground, model units
  z: 4, //         f32
  velocityX: 8, // f32: units per second
  velocityZ: 12, // f32
  heading: 16, //  f32: facing, radians about +y (0 faces +z)
  epoch: 20, //    u32: the AGENT epoch this state started from
} as const;

/**
 * One entry of the grid's agents sorted by cell (WGSL `SortedAgent`), written by scatterCells every
 * step: the handle and its position as the step began (its AGENT_STATE x and z), so that steer's
 * neighbour search reads 16 consecutive bytes a candidate, not the candidate's 32-byte state
 * from anywhere in the states.
 */
export const SORTED_AGENT = {
  size: 16,
  handle: 0, // u32: agent handle
  x: 4, //      f32: position on the ground at the step's start, model units
  z: 8, //      f32
} as const;

/**
 * One vertex of a static obstacle polygon (WGSL `ObstacleVertex`), counter-clockwise seen from +y
 * with x right and z up (RVO2's order); the vertex starts the segment to `next`.
 */
export const OBSTACLE_VERTEX = {
  size: 32,
  x: 0, //          f32
  z: 4, //          f32
  directionX: 8, // f32: unit direction to the next vertex
  directionZ: 12, // f32
  next: 16, //      u32: index of the next vertex of its polygon
  previous: 20, //  u32: index of the previous vertex
  convex: 24, //    u32: 1 when the polygon is convex at this vertex (always 1 for a two-vertex wall)
} as const;

/** The steering pass's uniform block (WGSL `SteeringParams`). */
export const STEERING_PARAMS = {
  size: 64,
  handleCount: 0, //        u32: agent handles to visit (highest agent handle + 1)
  tableSize: 4, //          u32: cells of the hashed grid, a power of two
  cellSize: 8, //           f32: side of a grid cell, >= neighbourDistance
  dt: 12, //                f32: seconds of this step (below MIN_STEP_DT, bounds.ts: nobody moves)
  timeHorizon: 16, //       f32: seconds ahead ORCA keeps agents apart
  obstacleTimeHorizon: 20, // f32: seconds ahead ORCA keeps agents off obstacles
  neighbourDistance: 24, // f32: agents farther than this are not neighbours
  maxNeighbours: 28, //     u32: at most this many (nearest) agents constrain one, <= MAX_NEIGHBOURS
  vertexCount: 32, //       u32: obstacle vertices (= segments)
  step: 36, //              u32: step counter (seeds the symmetry-breaking nudge)
  turnRate: 40, //          f32: radians per second the facing turns toward the velocity
  fieldColumns: 44, //      u32: flow field grid (0 columns: no fields)
  fieldRows: 48, //         u32
  fieldMinX: 52, //         f32: corner of the field grid, model units
  fieldMinZ: 56, //         f32
  fieldCellSize: 60, //     f32
} as const;

/** AGENT.flags: the handle is an agent. */
export const AGENT_ACTIVE = 1;
/** AGENT.flags: the agent has a goal (else it stands, yielding to others). */
export const AGENT_HAS_GOAL = 2;
/** AGENT.field of an agent that goes straight to its goal. */
export const FIELD_NONE = 0xffffffff;
/** The most agents one agent's linear program takes (nearest first). */
export const MAX_NEIGHBOURS = 16;
/** The most obstacle segments one agent's linear program takes (nearest first). */
export const MAX_OBSTACLE_LINES = 16;
/**
 * Threads of a prefix-sum workgroup (steering.wgsl `scanCells`): its scan of their sums takes
 * log2(SCAN_THREADS) barriers, and SwiftShader (a CPU) runs each barrier as a switch between its
 * fibres, one per 4 threads (docs/steering.md, Numbers: a version of 256 threads and about 28
 * barriers a block cost it about 10 times this one).
 */
export const SCAN_THREADS = 32;
/** Consecutive grid cells each prefix-sum thread sums: a workgroup scans a block of SCAN_BLOCK cells. */
export const SCAN_ITEMS = 32;
/**
 * Grid cells of one prefix-sum block (SCAN_THREADS x SCAN_ITEMS): the scan runs one workgroup
 * per block (tableSize / SCAN_BLOCK of them, at least 1), so no thread walks the table serially.
 */
export const SCAN_BLOCK = SCAN_THREADS * SCAN_ITEMS;
/** Speed of the symmetry-breaking nudge, as a fraction of the preferred speed (steering.wgsl `nudge`). */
export const NUDGE = 0.01;
/** Sideways share of the preferred velocity, to the walker's right: a shared convention that turns a head-on or symmetric meeting into passing (steering.wgsl `preferredVelocity`). */
export const KEEP_RIGHT = 0.2;
/** Default Jacobi iterations of the position projection after the move (CrowdSteeringOptions.projectionIterations). */
export const PROJECTION_ITERATIONS = 4;
/** The most projection iterations an option may ask for. */
export const MAX_PROJECTION_ITERATIONS = 16;
/**
 * The projection pushes overlapping agents apart to this multiple of their radii sum (a 2% margin):
 * a crowd pressed together by ORCA's infeasible program then ends each step just clear of touching,
 * and the next step's half-pushes start from room rather than contact (steering.wgsl `projectAgents`).
 */
export const SEPARATION_MARGIN = 1.02;
/** The most agents one agent's projection takes (steer keeps the nearest within CONTACT_RANGE). */
export const MAX_CONTACTS = 8;
/** u32 words of one agent's contact record: a near-obstacle flag, then MAX_CONTACTS agent handles. */
export const CONTACT_WORDS = MAX_CONTACTS + 1;
/**
 * steer keeps the agents closer than this multiple of the radii sum, plus both agents' travel in a
 * step (maxSpeed x dt each), as an agent's contacts for the step's projection iterations.
 */
export const CONTACT_RANGE = 1.5;
/** An unused entry of an agent's contact list. */
export const NO_CONTACT = 0xffffffff;
/** steer marks an agent near obstacles when a segment it is outside of lies within this multiple of its radius plus its travel in a step; only those are pushed out of obstacles in the projection. */
export const OBSTACLE_CONTACT_RANGE = 2;
