import type { F32Range } from '../../math/float32';

/**
 * The bounds of steering's numeric inputs, so that the GPU step (float32,
 * shaders/steering/steering.wgsl) never overflows and agrees with its float64 twin (step.ts,
 * orca.ts, projection.ts). options.ts refuses a number outside its bound, naming the bound; the
 * step's dt is held to [MIN_STEP_DT, MAX_STEP_DT] by CrowdSteering.prepare (steering-wgsl.ts hands
 * MIN_STEP_DT to the shader, which steps nobody below it, as the twin does).
 *
 * The step's largest intermediate values with every input at its bound (float32 holds 3.4e38):
 *
 *   obstacle cut-off arithmetic       (coordinate difference / obstacleTimeHorizon)^2 <= (2e9 / 1e-3)^2 = 4e24
 *   agent lines, (w . r)^2            w <= 2 maxSpeed + neighbourDistance / timeHorizon ~ 1e9, r <= 1e6: ~1e30
 *   overlapping pair, |w|^2           (radii sum / dt)^2 <= (2e6 / 1e-4)^2 = 4e20
 *   obstacle reach^2                  (obstacleTimeHorizon x maxSpeed + radius)^2 <= (1e12)^2 = 1e24
 *   braking, 2 maxAcceleration d      2 x 1e9 x 2e9 = 4e18
 *   squared distances                 2 x (2e9)^2 = 8e18
 *
 * The worst, about 1e30, leaves a factor of 3e8: room for the sums of such terms and for agents
 * that walk some way past the coordinate bound. Precision is another matter: float32 positions
 * near 1e6 units are 0.06 units apart, so a step of a few centimetres is lost there (docs/steering.md).
 */

/** Goals, obstacle vertices, the flow field's rectangle and an agent's placement (x and z), model units. */
export const COORDINATE: F32Range = { min: -1e9, max: 1e9 };
/** Radius, neighbourDistance, flowField.cellSize, model units. */
export const LENGTH: F32Range = { min: 1e-6, max: 1e6 };
/** flowField.clearance, model units (0 allowed). */
export const CLEARANCE: F32Range = { min: 0, max: 1e6 };
/** maxSpeed and preferredSpeed, units per second (0: an agent that only stands). */
export const SPEED: F32Range = { min: 0, max: 1e6 };
/** maxAcceleration, units per second^2. */
export const ACCELERATION: F32Range = { min: 1e-6, max: 1e9 };
/** timeHorizon and obstacleTimeHorizon, seconds (the step divides by them). */
export const HORIZON: F32Range = { min: 1e-3, max: 1e6 };
/** turnRate, radians per second. */
export const TURN_RATE: F32Range = { min: 1e-6, max: 1e6 };
/**
 * A crowd.update shorter than this (seconds) steps nobody: its time is carried into the next
 * step (the overlap case of ORCA and the projection's velocity divide by dt; a 1e-30 s step made
 * velocities of 5e29 units per second).
 */
export const MIN_STEP_DT = 1e-4;
/** A crowd.update longer than this (seconds) steps this long: speed x dt and maxAcceleration x dt stay finite. */
export const MAX_STEP_DT = 1e3;

/** What each bound protects, as the refusal says it. */
export const WHY = 'float32 on the GPU: steering.wgsl squares and multiplies it';
