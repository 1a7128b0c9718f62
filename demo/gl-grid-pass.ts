import gridGlsl from './shaders/grid.glsl?raw';
import { linkDemoProgram } from './gl-program';
import { GRID_LINE_COLOR, GROUND_COLOR, SKY_COLOR } from './theme';

/** The uniforms of shaders/grid.glsl, by name. */
const UNIFORMS = ['viewProjection', 'center', 'extent', 'eye', 'majorEvery', 'groundColor', 'lineColor', 'skyColor', 'cellSize', 'fogStart', 'fogEnd'] as const;
type Uniform = typeof UNIFORMS[number];

/**
 * The ground on WebGL 2 (the WebGPU demo's GridPass in GLSL): one procedural-grid quad,
 * shaders/grid.glsl. The constructor compiles and links the program and looks up its uniforms
 * (a lost context needs a new GLGridPass); update() sets the frame's uniforms; draw() draws the
 * quad into the bound framebuffer after the crowd, with depth test and write, and leaves the
 * state it set (program, vertex array, depth) to the next pass, which sets its own.
 */
export class GLGridPass {
  /** Minor cell size along x and z, world units (the crowd's spacing: a character per cell). */
  readonly cellSize = new Float32Array([1, 1]);
  private readonly program: WebGLProgram;
  private readonly vertexArray: WebGLVertexArrayObject;
  private readonly at = {} as Record<Uniform, WebGLUniformLocation | null>;

  /** Throws naming the stage that fails to compile or link, with the driver's log. */
  constructor(private readonly gl: WebGL2RenderingContext) {
    const program = linkDemoProgram(gl, gridGlsl, 'GLGridPass (grid.glsl)');
    this.program = program;
    this.vertexArray = gl.createVertexArray(); // no attributes: the quad's corners come from gl_VertexID
    for (const name of UNIFORMS) this.at[name] = gl.getUniformLocation(program, name);
    gl.useProgram(program);
    gl.uniform4fv(this.at.groundColor, GROUND_COLOR);
    gl.uniform4fv(this.at.lineColor, GRID_LINE_COLOR);
    gl.uniform4f(this.at.skyColor, SKY_COLOR.r, SKY_COLOR.g, SKY_COLOR.b, 1);
    gl.uniform1f(this.at.majorEvery, 10);
  }

  /**
   * Sets the frame's uniforms: the quad is centred on `target` (xz) and reaches `fogEnd` beyond
   * it, where the ground has faded into the sky anyway. `viewProjection` world -> clip, z in [0, 1]
   * as the crowd takes it. Allocation-free.
   */
  update(viewProjection: Float32Array, eye: Float32Array, target: Float32Array, fogStart: number, fogEnd: number): void {
    const gl = this.gl;
    gl.useProgram(this.program);
    gl.uniformMatrix4fv(this.at.viewProjection, false, viewProjection);
    gl.uniform3f(this.at.center, target[0], 0, target[2]);
    gl.uniform1f(this.at.extent, fogEnd * 1.1);
    gl.uniform3fv(this.at.eye, eye);
    gl.uniform2fv(this.at.cellSize, this.cellSize);
    gl.uniform1f(this.at.fogStart, fogStart);
    gl.uniform1f(this.at.fogEnd, fogEnd);
  }

  /** Draws the ground into the bound framebuffer (the crowd's, after crowd.render). */
  draw(): void {
    const gl = this.gl;
    gl.useProgram(this.program);
    gl.bindVertexArray(this.vertexArray);
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LESS);
    gl.depthMask(true);
    gl.disable(gl.CULL_FACE);
    gl.disable(gl.BLEND);
    gl.drawArrays(gl.TRIANGLES, 0, 6);
    gl.bindVertexArray(null);
  }

  /** Frees the program and vertex array (not after a lost context: they are gone). */
  destroy(): void {
    this.gl.deleteProgram(this.program);
    this.gl.deleteVertexArray(this.vertexArray);
  }
}
