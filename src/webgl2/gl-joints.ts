/**
 * Joint matrices on WebGL 2 (issue 37's contract, docs/webgl2.md): the same values as the WebGPU
 * joint buffer (model(node) x inverseBind in model space, the top three rows of the affine 4x4;
 * the draw applies the instance's world transform), kept in three RGBA32F textures, one per row.
 *
 * Minimal version written by the gl-draw branch to the contract's signatures (the pose pass that
 * fills the target is gl-pose's); the lead keeps one of the two.
 */

/** Where the pose pass left the joint matrices, as the skin pass reads them. Does not own the textures. */
export interface GLJointTarget {
  /** Three RGBA32F textures: row 0, 1, 2 of each joint matrix. */
  readonly rows: readonly [WebGLTexture, WebGLTexture, WebGLTexture];
  /** Texels across and down, each texture. */
  readonly width: number;
  readonly height: number;
  /** J: joint slots per instance (character.gpu.slotCount). */
  readonly jointCount: number;
  /** P = floor(width / J): instance slots per texture row. Instance slot s, joint slot j -> texel ((s % P) * J + j, floor(s / P)). */
  readonly slotsPerRow: number;
}

/**
 * GLSL ES 3.00 text that declares `uniform highp sampler2D crowdJointRow0, crowdJointRow1,
 * crowdJointRow2; uniform int crowdJointCount, crowdSlotsPerRow;` and `mat4
 * crowdJointMatrix(int slot, int joint)` (column-major as GLSL's mat4, bottom row 0 0 0 1).
 */
export const GLSL_JOINT_FETCH = `uniform highp sampler2D crowdJointRow0;
uniform highp sampler2D crowdJointRow1;
uniform highp sampler2D crowdJointRow2;
uniform int crowdJointCount;
uniform int crowdSlotsPerRow;

mat4 crowdJointMatrix(int slot, int joint) {
  ivec2 texel = ivec2((slot % crowdSlotsPerRow) * crowdJointCount + joint, slot / crowdSlotsPerRow);
  vec4 r0 = texelFetch(crowdJointRow0, texel, 0);
  vec4 r1 = texelFetch(crowdJointRow1, texel, 0);
  vec4 r2 = texelFetch(crowdJointRow2, texel, 0);
  return mat4(r0.x, r1.x, r2.x, 0.0, r0.y, r1.y, r2.y, 0.0, r0.z, r1.z, r2.z, 0.0, r0.w, r1.w, r2.w, 1.0);
}
`;

/** Binds `target`'s textures to units [firstUnit, firstUnit + 3) and sets GLSL_JOINT_FETCH's uniforms on `program` (in use). */
export function bindJointTarget(gl: WebGL2RenderingContext, program: WebGLProgram, target: GLJointTarget, firstUnit: number): void {
  for (let r = 0; r < 3; r++) {
    gl.activeTexture(gl.TEXTURE0 + firstUnit + r);
    gl.bindTexture(gl.TEXTURE_2D, target.rows[r]);
    gl.uniform1i(gl.getUniformLocation(program, `crowdJointRow${r}`), firstUnit + r);
  }
  gl.uniform1i(gl.getUniformLocation(program, 'crowdJointCount'), target.jointCount);
  gl.uniform1i(gl.getUniformLocation(program, 'crowdSlotsPerRow'), target.slotsPerRow);
}
