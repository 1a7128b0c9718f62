/**
 * Joint matrices on WebGL 2: the same values as the WebGPU joint buffer (model(node) x
 * inverseBind in MODEL space, the top three rows of the affine 4x4; the draw applies the
 * instance's world transform), in three RGBA32F textures, one per row, that the pose pass
 * (GLPosePass) renders into and the draw reads with texelFetch (GLSL_JOINT_FETCH).
 *
 * Joint set s holds instance slot s's matrices while every instance has a set of its own; past
 * the palette budget (src/runtime/joint-palette.ts) the sets are handed out by GLPalette and the
 * readers take each instance's set from its entry (GLPoseInputs / GLDrawLists.jointSets).
 */

/** Joint matrices in three RGBA32F textures. Instance slot s, joint slot j is texel ((s % P) x J + j, floor(s / P)). */
export interface GLJointTarget {
  /** Three RGBA32F textures: row 0, 1, 2 of each joint matrix. */
  readonly rows: readonly [WebGLTexture, WebGLTexture, WebGLTexture];
  /** Texels per row of each texture. */
  readonly width: number;
  /** Rows of each texture. */
  readonly height: number;
  /** J: joint slots per instance (character.gpu.slotCount). */
  readonly jointCount: number;
  /** P = floor(width / J): instance slots per texture row. Instance slot s, joint slot j -> texel ((s % P) * J + j, floor(s / P)). */
  readonly slotsPerRow: number;
}

/**
 * GLSL ES 3.00 text that declares `uniform highp sampler2D crowdJointRow0, crowdJointRow1,
 * crowdJointRow2; uniform highp int crowdJointCount, crowdSlotsPerRow;` and
 * `mat4 crowdJointMatrix(int slot, int joint)` (column-major, bottom row 0 0 0 1). Set the
 * uniforms with bindJointTarget. A shader takes it into its generated block (tools/wgsl-shaders.ts).
 */
export const GLSL_JOINT_FETCH = `uniform highp sampler2D crowdJointRow0;
uniform highp sampler2D crowdJointRow1;
uniform highp sampler2D crowdJointRow2;
uniform highp int crowdJointCount;
uniform highp int crowdSlotsPerRow;

// Joint matrix \`joint\` of instance slot \`slot\` (model space), from the pose pass's three row textures.
mat4 crowdJointMatrix(int slot, int joint) {
  ivec2 at = ivec2((slot % crowdSlotsPerRow) * crowdJointCount + joint, slot / crowdSlotsPerRow);
  vec4 r0 = texelFetch(crowdJointRow0, at, 0);
  vec4 r1 = texelFetch(crowdJointRow1, at, 0);
  vec4 r2 = texelFetch(crowdJointRow2, at, 0);
  return mat4(r0.x, r1.x, r2.x, 0.0, r0.y, r1.y, r2.y, 0.0, r0.z, r1.z, r2.z, 0.0, r0.w, r1.w, r2.w, 1.0);
}`;

/** The uniform names GLSL_JOINT_FETCH declares, in bindJointTarget's order. */
const JOINT_UNIFORMS = ['crowdJointRow0', 'crowdJointRow1', 'crowdJointRow2', 'crowdJointCount', 'crowdSlotsPerRow'] as const;

/** Uniform locations per program, looked up once (a program's locations never change). */
const locations = new WeakMap<WebGLProgram, (WebGLUniformLocation | null)[]>();

/**
 * Binds `target`'s row textures to texture units [firstUnit, firstUnit + 3) and sets
 * GLSL_JOINT_FETCH's uniforms on `program`, which must be in use (gl.useProgram). Leaves the
 * active texture unit at firstUnit + 2. Throws a RangeError when the units are not all there.
 */
export function bindJointTarget(gl: WebGL2RenderingContext, program: WebGLProgram, target: GLJointTarget, firstUnit: number): void {
  const units = gl.getParameter(gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS) as number;
  if (!Number.isInteger(firstUnit) || firstUnit < 0 || firstUnit + 3 > units) {
    throw new RangeError(`bindJointTarget: firstUnit must be an integer in [0, ${units - 3}] (MAX_COMBINED_TEXTURE_IMAGE_UNITS is ${units}), got ${String(firstUnit)}`);
  }
  let at = locations.get(program);
  if (!at) {
    at = JOINT_UNIFORMS.map((name) => gl.getUniformLocation(program, name));
    locations.set(program, at);
  }
  for (let i = 0; i < 3; i++) {
    gl.activeTexture(gl.TEXTURE0 + firstUnit + i);
    gl.bindTexture(gl.TEXTURE_2D, target.rows[i]);
    gl.uniform1i(at[i], firstUnit + i);
  }
  gl.uniform1i(at[3], target.jointCount);
  gl.uniform1i(at[4], target.slotsPerRow);
}

/** Widest joint texture made unless MAX_TEXTURE_SIZE is smaller: 4096 x 4096 x 3 x 16 bytes = 768 MiB at most. */
export const JOINT_TEXTURE_WIDTH = 4096;

/**
 * The joint target GLPosePass renders into: three RGBA32F textures (one per matrix row) and the
 * framebuffer that has them as colour attachments 0, 1, 2. Holds `capacity` instance slots;
 * the pose pass makes a new one to grow. Owns its textures and framebuffer (destroy()).
 */
export class GLJointTexture implements GLJointTarget {
  /** Rows 0, 1, 2 of each matrix (RGBA32F). */
  readonly rows: readonly [WebGLTexture, WebGLTexture, WebGLTexture];
  /** Texels per row: MAX_TEXTURE_SIZE or JOINT_TEXTURE_WIDTH, the smaller. */
  readonly width: number;
  /** Rows: enough for `capacity` slots. */
  readonly height: number;
  /** floor(width / jointCount). */
  readonly slotsPerRow: number;
  /** Draw framebuffer with rows[i] at COLOR_ATTACHMENTi. */
  readonly framebuffer: WebGLFramebuffer;

  /**
   * Room for `capacity` instance slots of `jointCount` joints. Throws a RangeError naming
   * MAX_TEXTURE_SIZE when one instance's joints do not fit a row or the rows do not fit, an Error
   * naming EXT_color_buffer_float when float textures cannot be rendered to; nothing is left
   * allocated then.
   * @param label names the target in errors.
   * @param jointCount matrices per instance slot (J; a row per rig node for the pose pass's node stage).
   * @param capacity instance slots held.
   */
  constructor(gl: WebGL2RenderingContext, readonly label: string, readonly jointCount: number, readonly capacity: number) {
    const maxSize = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    const joints = Math.max(1, jointCount);
    if (joints > maxSize) throw new RangeError(`${label}: ${jointCount} joints per instance do not fit a row of a joint texture (this context's MAX_TEXTURE_SIZE is ${maxSize})`);
    this.width = Math.min(maxSize, JOINT_TEXTURE_WIDTH);
    this.slotsPerRow = Math.floor(this.width / joints);
    this.height = Math.max(1, Math.ceil(Math.max(1, capacity) / this.slotsPerRow));
    if (this.height > maxSize) {
      throw new RangeError(`${label}: ${capacity} instances x ${jointCount} joints need a ${this.width} x ${this.height} joint texture; this context's MAX_TEXTURE_SIZE is ${maxSize}`);
    }
    if (!gl.getExtension('EXT_color_buffer_float')) throw new Error(`${label}: this WebGL 2 context lacks EXT_color_buffer_float, which the GPU pose pass needs to render joint matrices into float textures`);
    const made: WebGLTexture[] = [];
    const framebuffer = gl.createFramebuffer();
    const bound = gl.getParameter(gl.TEXTURE_BINDING_2D) as WebGLTexture | null;
    const boundFramebuffer = gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    try {
      if (!framebuffer) throw new Error(`${label}: the WebGL 2 context could not create a framebuffer (context lost?)`);
      gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, framebuffer);
      for (let i = 0; i < 3; i++) {
        const texture = gl.createTexture();
        if (!texture) throw new Error(`${label}: the WebGL 2 context could not create a texture (context lost?)`);
        made.push(texture);
        gl.bindTexture(gl.TEXTURE_2D, texture);
        gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, this.width, this.height);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        gl.framebufferTexture2D(gl.DRAW_FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + i, gl.TEXTURE_2D, texture, 0);
      }
      const status = gl.checkFramebufferStatus(gl.DRAW_FRAMEBUFFER);
      if (status !== gl.FRAMEBUFFER_COMPLETE) {
        throw new Error(`${label}: three RGBA32F colour attachments of ${this.width} x ${this.height} make an incomplete framebuffer (status 0x${status.toString(16)}); the GPU pose pass needs them (EXT_color_buffer_float, MAX_DRAW_BUFFERS >= 3)`);
      }
    } catch (error) {
      for (const texture of made) gl.deleteTexture(texture);
      gl.deleteFramebuffer(framebuffer);
      throw error;
    } finally {
      gl.bindTexture(gl.TEXTURE_2D, bound);
      gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, boundFramebuffer);
    }
    this.framebuffer = framebuffer;
    this.rows = [made[0], made[1], made[2]];
  }

  /** Deletes the textures and the framebuffer. */
  destroy(gl: WebGL2RenderingContext): void {
    for (const texture of this.rows) gl.deleteTexture(texture);
    gl.deleteFramebuffer(this.framebuffer);
  }
}
