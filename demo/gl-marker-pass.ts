import markerGlsl from './shaders/marker.glsl?raw';
import { linkDemoProgram } from './gl-program';

/** The uniforms of shaders/marker.glsl, by name. */
const UNIFORMS = ['viewProjection', 'center', 'radius', 'color'] as const;
type Uniform = typeof UNIFORMS[number];

/**
 * Rings on the ground on WebGL 2 (the WebGPU demo's MarkerPass in GLSL, shaders/marker.glsl):
 * the followed character's, the selected one's and a scene's (the steering scene's pillars). One
 * program for every ring: draw() sets a ring's uniforms and draws its quad into the bound
 * framebuffer after the ground, depth-tested without depth write, alpha-blended, and leaves the
 * state it set to the next pass. A lost context needs a new GLMarkerPass.
 */
export class GLMarkerPass {
  private readonly program: WebGLProgram;
  private readonly vertexArray: WebGLVertexArrayObject;
  private readonly at = {} as Record<Uniform, WebGLUniformLocation | null>;

  /** Throws naming the stage that fails to compile or link, with the driver's log. */
  constructor(private readonly gl: WebGL2RenderingContext) {
    this.program = linkDemoProgram(gl, markerGlsl, 'GLMarkerPass (marker.glsl)');
    this.vertexArray = gl.createVertexArray(); // no attributes: the quad's corners come from gl_VertexID
    for (const name of UNIFORMS) this.at[name] = gl.getUniformLocation(this.program, name);
  }

  /**
   * Draws a ring of outer radius `radius` around (x, z), lifted `lift` above the ground, in
   * `color` (display RGB and opacity), seen through `viewProjection` (world -> clip, z in [0, 1]).
   * Allocation-free.
   */
  draw(viewProjection: Float32Array, x: number, z: number, radius: number, lift: number, color: readonly number[]): void {
    const gl = this.gl;
    gl.useProgram(this.program);
    gl.uniformMatrix4fv(this.at.viewProjection, false, viewProjection);
    gl.uniform3f(this.at.center, x, lift, z);
    gl.uniform1f(this.at.radius, radius);
    gl.uniform4f(this.at.color, color[0], color[1], color[2], color[3]);
    gl.bindVertexArray(this.vertexArray);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LEQUAL);
    gl.depthMask(false);
    gl.disable(gl.CULL_FACE);
    gl.enable(gl.BLEND);
    gl.blendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.drawArrays(gl.TRIANGLES, 0, 6);
    gl.disable(gl.BLEND);
    gl.depthMask(true);
    gl.bindVertexArray(null);
  }

  /** Frees the program and vertex array (not after a lost context: they are gone). */
  destroy(): void {
    this.gl.deleteProgram(this.program);
    this.gl.deleteVertexArray(this.vertexArray);
  }
}
