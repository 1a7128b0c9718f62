import gridGlsl from './shaders/grid.glsl?raw';
import { linkDemoProgram } from './gl-program';
import { GRID_LINE_COLOR, GROUND_COLOR, SKY_COLOR } from './theme';

/** The uniforms of shaders/grid.glsl, by name. */
const UNIFORMS = ['viewProjection', 'center', 'extent', 'eye', 'majorEvery', 'groundColor', 'lineColor', 'skyColor', 'cellSize', 'fogStart', 'fogEnd',
  'shadowViewProjection', 'shadowTexelStrength', 'shadowMap0', 'shadowMap1', 'shadowMap2'] as const;
type Uniform = typeof UNIFORMS[number];

/** Crowds whose shadows the ground receives (the length of the shadow arrays in shaders/grid.glsl), as GROUND_SHADOWS on WebGPU. */
export const GL_GROUND_SHADOWS = 3;
/** How dark a crowd's shadow makes the ground: 1 - this where fully shadowed (grid-pass.ts's 0.6). */
const SHADOW_STRENGTH = 0.6;

/** A crowd's shadow map as GLCrowd.shadowMap gives it (not owned). */
export interface GLGroundShadow {
  readonly texture: WebGLTexture;
  readonly lightViewProjection: Float32Array;
  readonly mapSize: number;
}

/**
 * The ground on WebGL 2 (the WebGPU demo's GridPass in GLSL): one procedural-grid quad,
 * shaders/grid.glsl, darkened in the shadow maps of up to GL_GROUND_SHADOWS crowds (setShadow).
 * The constructor compiles and links the program, looks up its uniforms and makes the shadow
 * sampler and the 1x1 map of an empty slot (a lost context needs a new GLGridPass); update() sets
 * the frame's uniforms; draw() draws the quad into the bound framebuffer after the crowd, with
 * depth test and write, and leaves the state it set (program, depth, the maps on units 0 to 2)
 * to the next pass, which sets its own; it unbinds its vertex array and sampler objects.
 */
export class GLGridPass {
  /** Minor cell size along x and z, world units (the crowd's spacing: a character per cell). */
  readonly cellSize = new Float32Array([1, 1]);
  private readonly program: WebGLProgram;
  private readonly vertexArray: WebGLVertexArrayObject;
  private readonly at = {} as Record<Uniform, WebGLUniformLocation | null>;
  /** Less-equal comparison, linear (2 x 2 hardware PCF per tap), as the crowd's own shadow sampler. */
  private readonly sampler: WebGLSampler;
  /** A 1x1 depth map bound on an empty slot (never read there: strength 0). */
  private readonly noShadow: WebGLTexture;
  /** Each slot's map this frame (noShadow when empty), and the uniforms' (1 / size, strength) and matrices. */
  private readonly maps: WebGLTexture[];
  private readonly texelStrength = new Float32Array(2 * GL_GROUND_SHADOWS);
  private readonly lightMatrices = new Float32Array(16 * GL_GROUND_SHADOWS);

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
    [this.at.shadowMap0, this.at.shadowMap1, this.at.shadowMap2].forEach((at, unit) => gl.uniform1i(at, unit));
    const sampler = (this.sampler = gl.createSampler());
    for (const [name, value] of [[gl.TEXTURE_MIN_FILTER, gl.LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR], [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE],
      [gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE], [gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL]]) gl.samplerParameteri(sampler, name, value);
    this.noShadow = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.noShadow);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.DEPTH_COMPONENT32F, 1, 1);
    gl.bindTexture(gl.TEXTURE_2D, null);
    this.maps = new Array<WebGLTexture>(GL_GROUND_SHADOWS).fill(this.noShadow);
  }

  /**
   * Receives the shadows of crowd `slot` (0 to GL_GROUND_SHADOWS - 1) this frame: its shadow map
   * (GLCrowd.shadowMap after its encode), or none (undefined). Allocation-free.
   */
  setShadow(slot: number, shadow: GLGroundShadow | undefined): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= GL_GROUND_SHADOWS) throw new RangeError(`GLGridPass.setShadow: slot ${slot} is not an integer in [0, ${GL_GROUND_SHADOWS - 1}]`);
    this.maps[slot] = shadow?.texture ?? this.noShadow;
    this.texelStrength[2 * slot] = shadow ? 1 / shadow.mapSize : 1;
    this.texelStrength[2 * slot + 1] = shadow ? SHADOW_STRENGTH : 0;
    if (shadow) this.lightMatrices.set(shadow.lightViewProjection, 16 * slot);
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
    gl.uniformMatrix4fv(this.at.shadowViewProjection, false, this.lightMatrices);
    gl.uniform2fv(this.at.shadowTexelStrength, this.texelStrength);
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
    for (let unit = 0; unit < GL_GROUND_SHADOWS; unit++) {
      gl.activeTexture(gl.TEXTURE0 + unit);
      gl.bindTexture(gl.TEXTURE_2D, this.maps[unit]);
      gl.bindSampler(unit, this.sampler);
    }
    gl.drawArrays(gl.TRIANGLES, 0, 6);
    for (let unit = 0; unit < GL_GROUND_SHADOWS; unit++) gl.bindSampler(unit, null);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindVertexArray(null);
  }

  /** Frees the program and vertex array (not after a lost context: they are gone). */
  destroy(): void {
    this.gl.deleteProgram(this.program);
    this.gl.deleteVertexArray(this.vertexArray);
    this.gl.deleteSampler(this.sampler);
    this.gl.deleteTexture(this.noShadow);
  }
}
