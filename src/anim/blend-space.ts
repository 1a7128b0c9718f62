/**
 * Blend spaces: clips placed in a parameter space (speed on a line; velocity in a plane), and
 * for any parameter value a short weighted list of clips to blend.
 *
 *   const space = new BlendSpace2D([
 *     { clip: idle, x: 0, y: 0, duration: 2.0 },
 *     { clip: walkForward, x: 0, y: 1, duration: 1.1 }, ...
 *   ]);
 *   const blend = createBlendWeights();           // once, at init
 *   let phase = 0;                                // normalised, [0, 1)
 *   // each frame:
 *   space.evaluate(vx, vy, blend);                // writes blend, allocates nothing
 *   phase = advancePhase(phase, dt, blend);
 *   // clip blend.clips[i] at weight blend.weights[i], time phase * blend.durations[i]
 *   // (clipTimesAtPhase), advancing at blend.rates[i] until the next evaluate.
 *
 * The weighted list becomes a layer stack through weightedAverageStack (layers.ts); see
 * blendSpaceStack. Phase sync (why the rates are d_i / D) is explained on BlendWeights.
 *
 * Layout: blend-weights.ts (the output and the phase helpers), blend-space-1d.ts,
 * blend-space-2d.ts, delaunay.ts (the triangulation BlendSpace2D builds once).
 */
export {
  advancePhase,
  blendSpaceStack,
  clipTimeAtPhase,
  clipTimesAtPhase,
  createBlendWeights,
  type BlendWeights,
} from './blend-weights';
export { BlendSpace1D, type BlendSpace1DEntry } from './blend-space-1d';
export { BlendSpace2D, type BlendSpace2DEntry } from './blend-space-2d';
