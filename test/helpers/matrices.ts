/**
 * Compares GPU joint matrices (float32, NaN where never written) with a float64 reference,
 * both column-major 4x4s. Errors are measured against each matrix's own scale: its largest 3x3
 * entry (1 for a rigid joint, 100 for RobotExpressive's scaled nodes) for the 3x3 part, and
 * that times the model's extent for the translation column. The GPU evaluates in float32: each
 * element passes through ~(3 + depth) multiply-adds rounding by 2^-24 relative to the largest
 * term, ~1e-6 of the matrix's scale for depth <= 11.
 */
export function compareMatrices(gpu: Float32Array, reference: Float64Array, extent: number): { worstLinear: number; worstTranslation: number; worst: number; unwritten: number } {
  let worstLinear = 0;
  let worstTranslation = 0;
  let unwritten = 0;
  for (let m = 0; m < reference.length; m += 16) {
    let scale = 1;
    for (let i = 0; i < 12; i++) if (i % 4 !== 3) scale = Math.max(scale, Math.abs(reference[m + i]));
    for (let i = 0; i < 16; i++) {
      if (Number.isNaN(gpu[m + i])) { unwritten++; continue; }
      const error = Math.abs(gpu[m + i] - reference[m + i]) / scale;
      if (i >= 12) worstTranslation = Math.max(worstTranslation, error / extent);
      else worstLinear = Math.max(worstLinear, error);
    }
  }
  return { worstLinear, worstTranslation, worst: Math.max(worstLinear, worstTranslation), unwritten };
}
