/**
 * The directional shadow map on WebGL 2: the twin of src/runtime/culling/shadow-pass.ts. A
 * DEPTH_COMPONENT32F map, the caster lists (GLDrawLists: the instances inside the light's
 * frustum, per LOD level, from the CPU culling) drawn depth-only by the skin pass's programs
 * (GLSkinPass.drawDepth) with the light's camera and the same slope-scaled bias; the skin pass
 * then samples it (GLSkinPass.setShadowMap). fitLight (shared with WebGPU) gives the light's
 * view-projection. create: the constructor makes the map, framebuffer and camera buffer;
 * update(): the light's view-projection; draw(): the depth pass. Owns its map.
 */
import { CAMERA } from '../runtime/layout';
import type { GLJointTarget } from './gl-joints';
import { SKIN_UNITS, type GLDrawLists, type GLSkinPass } from './gl-skin-pass';
import { GLStateGuard } from './gl-state';
import type { GLRecordTexture } from './record-texture';

/** GLShadowPass's options (CrowdOptions.shadows.mapSize). */
export interface GLShadowPassOptions {
  /** Shadow map size in texels (square, default 2048, at most MAX_TEXTURE_SIZE). */
  mapSize?: number;
}

/** A crowd's sun shadow map as a page reads it (GLCrowd.shadowMap, for shading its own ground): owned by the crowd, read only. */
export interface GLShadowMap {
  /** The DEPTH_COMPONENT32F map: sample it with a less-equal comparison at v = y * 0.5 + 0.5 (GL's rows). */
  readonly texture: WebGLTexture;
  /** World to the map's clip space (depth in [0, 1]), column-major 4x4. */
  readonly lightViewProjection: Float32Array;
  /** Width and height of the map in texels. */
  readonly mapSize: number;
}

/** The sun's shadow map on WebGL 2 (see the file's header). Owns its map, framebuffer and camera buffer. */
export class GLShadowPass implements GLShadowMap {
  /** Texels a side of the square map. */
  readonly mapSize: number;
  /** The depth map, for GLSkinPass.setShadowMap. Owned by the pass. */
  readonly texture: WebGLTexture;
  /** World -> the map's clip space (depth in [0, 1]), as written by the last update(). */
  readonly lightViewProjection = new Float32Array(16);
  private readonly framebuffer: WebGLFramebuffer;
  private readonly camera: WebGLBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  /** What draw() changes of the context, put back after it. */
  private readonly state: GLStateGuard;

  constructor(private readonly gl: WebGL2RenderingContext, private readonly skin: GLSkinPass, options: GLShadowPassOptions = {}) {
    const limit = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    this.mapSize = options.mapSize ?? 2048;
    if (!Number.isInteger(this.mapSize) || this.mapSize < 1 || this.mapSize > limit) {
      throw new RangeError(`shadows.mapSize must be an integer in [1, ${limit}] (this context's MAX_TEXTURE_SIZE), got ${options.mapSize}`);
    }
    this.texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.DEPTH_COMPONENT32F, this.mapSize, this.mapSize);
    gl.bindTexture(gl.TEXTURE_2D, null);
    this.framebuffer = gl.createFramebuffer();
    const previous = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, this.texture, 0);
    gl.drawBuffers([gl.NONE]);
    gl.readBuffer(gl.NONE);
    const status = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
    gl.bindFramebuffer(gl.FRAMEBUFFER, previous);
    if (status !== gl.FRAMEBUFFER_COMPLETE) {
      this.destroy();
      throw new Error(`GLShadowPass: a DEPTH_COMPONENT32F map of ${this.mapSize} texels is not renderable here (framebuffer status 0x${status.toString(16)})`);
    }
    this.state = new GLStateGuard(gl, SKIN_UNITS);
    this.camera = gl.createBuffer();
    gl.bindBuffer(gl.UNIFORM_BUFFER, this.camera);
    gl.bufferData(gl.UNIFORM_BUFFER, CAMERA.size, gl.DYNAMIC_DRAW);
    gl.bindBuffer(gl.UNIFORM_BUFFER, null);
  }

  /** Writes the light's view-projection (world -> the map's clip space, column-major, depth in [0, 1]). */
  update(lightViewProjection: ArrayLike<number>): void {
    if (lightViewProjection.length !== 16) throw new RangeError(`GLShadowPass.update: lightViewProjection must have 16 numbers, got ${lightViewProjection.length}`);
    this.lightViewProjection.set(lightViewProjection);
    this.cameraData.set(lightViewProjection, CAMERA.viewProjection / 4);
    const gl = this.gl;
    gl.bindBuffer(gl.UNIFORM_BUFFER, this.camera);
    gl.bufferSubData(gl.UNIFORM_BUFFER, 0, this.cameraData);
  }

  /**
   * Draws the casters into the map (cleared first), then puts back the state it changed
   * (GLStateGuard: the framebuffers and viewport it found among it) but for the depth mask (on),
   * the clear depth (1), the polygon offset values (2, 2) and those the skin pass's draw leaves
   * (docs/webgl2.md). Scissor, stencil and rasterizer discard are off while it draws.
   */
  draw(joints: GLJointTarget, instances: GLRecordTexture, casters: GLDrawLists): void {
    const gl = this.gl;
    this.state.save(false); // depth only: the colour mask stays as it is (reading it back costs a round trip)
    for (const capability of [gl.SCISSOR_TEST, gl.STENCIL_TEST, gl.RASTERIZER_DISCARD]) gl.disable(capability); // back on after, if they were
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.framebuffer);
    gl.viewport(0, 0, this.mapSize, this.mapSize);
    gl.depthMask(true);
    gl.clearDepth(1);
    gl.clear(gl.DEPTH_BUFFER_BIT);
    // Slope-scaled bias against self-shadowing acne (ShadowPass: depthBias 2, depthBiasSlopeScale 2).
    gl.enable(gl.POLYGON_OFFSET_FILL);
    gl.polygonOffset(2, 2);
    try {
      this.skin.drawDepth(this.camera, joints, instances, casters);
    } finally {
      this.state.restore();
    }
  }

  destroy(): void {
    this.gl.deleteTexture(this.texture);
    this.gl.deleteFramebuffer(this.framebuffer);
    this.gl.deleteBuffer(this.camera);
  }
}
