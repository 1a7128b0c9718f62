/**
 * What a WebGL 2 pass changes of the context's state, saved before it draws and put back after, so
 * that the page's own renderer (three.js caches GL state, a page draws its ground after the crowd)
 * finds the context as it left it.
 */

/** Capabilities a pass that writes whole texels turns off while it draws (save(true)). */
const CAPABILITIES = ['BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'SCISSOR_TEST', 'CULL_FACE', 'RASTERIZER_DISCARD', 'SAMPLE_ALPHA_TO_COVERAGE', 'SAMPLE_COVERAGE', 'POLYGON_OFFSET_FILL'] as const;

/**
 * Saves, and later restores, the state a pass touches: the draw and read framebuffers, the
 * viewport, the program, the vertex array, the array buffer, the colour mask (with save(true)
 * only), the capabilities above (each put back on or off as found) and the active texture unit
 * with the 2D and 2D-array textures and the sampler objects bound on units [0, units) (no sampler
 * object while the pass runs: a filtering one left by another pass, the skin pass's material
 * samplers, makes an integer or float texture incomplete, and texelFetch then reads zeros). Not
 * saved (a pass that changes them says so): the depth mask, the depth and blend functions, face
 * culling's face and winding, polygon offset values, clear values, uniform-buffer bindings.
 * Reading a mask back is a round trip to the GPU process in Chromium (about 110 µs on a loaded
 * SwiftShader machine, where the rest of save and restore took about 10), so the colour mask is
 * read only by a pass that changes it. Allocated once per pass; `save` and `restore` allocate nothing.
 */
export class GLStateGuard {
  private drawFramebuffer: WebGLFramebuffer | null = null;
  private readFramebuffer: WebGLFramebuffer | null = null;
  private readonly viewport = new Int32Array(4);
  private program: WebGLProgram | null = null;
  private vertexArray: WebGLVertexArrayObject | null = null;
  private arrayBuffer: WebGLBuffer | null = null;
  private readonly colorMask: boolean[] = [true, true, true, true];
  private reset = true;
  private readonly enabled: boolean[] = CAPABILITIES.map(() => false);
  private activeTexture = 0;
  private readonly textures: (WebGLTexture | null)[];
  private readonly arrays: (WebGLTexture | null)[];
  private readonly samplers: (WebGLSampler | null)[];

  constructor(private readonly gl: WebGL2RenderingContext, private readonly units: number) {
    this.textures = new Array<WebGLTexture | null>(units).fill(null);
    this.arrays = new Array<WebGLTexture | null>(units).fill(null);
    this.samplers = new Array<WebGLSampler | null>(units).fill(null);
  }

  /**
   * Saves the state and unbinds the sampler objects on the units; with `reset` (a pass that
   * writes whole texels into its own target) also turns the capabilities off and the colour mask on.
   */
  save(reset = true): void {
    const gl = this.gl;
    this.drawFramebuffer = gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    this.readFramebuffer = gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    this.viewport.set(gl.getParameter(gl.VIEWPORT) as Int32Array);
    this.program = gl.getParameter(gl.CURRENT_PROGRAM) as WebGLProgram | null;
    this.vertexArray = gl.getParameter(gl.VERTEX_ARRAY_BINDING) as WebGLVertexArrayObject | null;
    this.arrayBuffer = gl.getParameter(gl.ARRAY_BUFFER_BINDING) as WebGLBuffer | null;
    this.reset = reset;
    if (reset) {
      const mask = gl.getParameter(gl.COLOR_WRITEMASK) as boolean[];
      for (let i = 0; i < 4; i++) this.colorMask[i] = mask[i];
    }
    CAPABILITIES.forEach((name, i) => {
      this.enabled[i] = gl.isEnabled(gl[name]);
      if (reset && this.enabled[i]) gl.disable(gl[name]);
    });
    if (reset) gl.colorMask(true, true, true, true);
    this.activeTexture = gl.getParameter(gl.ACTIVE_TEXTURE) as number;
    for (let u = 0; u < this.units; u++) {
      gl.activeTexture(gl.TEXTURE0 + u);
      this.textures[u] = gl.getParameter(gl.TEXTURE_BINDING_2D) as WebGLTexture | null;
      this.arrays[u] = gl.getParameter(gl.TEXTURE_BINDING_2D_ARRAY) as WebGLTexture | null;
      this.samplers[u] = gl.getParameter(gl.SAMPLER_BINDING) as WebGLSampler | null;
      if (this.samplers[u]) gl.bindSampler(u, null);
    }
  }

  /** Puts back what save() found (every unit's sampler object, none where there was none). */
  restore(): void {
    const gl = this.gl;
    for (let u = 0; u < this.units; u++) {
      gl.activeTexture(gl.TEXTURE0 + u);
      gl.bindTexture(gl.TEXTURE_2D, this.textures[u]);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.arrays[u]);
      gl.bindSampler(u, this.samplers[u]);
    }
    gl.activeTexture(this.activeTexture);
    CAPABILITIES.forEach((name, i) => { if (this.enabled[i]) gl.enable(gl[name]); else gl.disable(gl[name]); });
    if (this.reset) gl.colorMask(this.colorMask[0], this.colorMask[1], this.colorMask[2], this.colorMask[3]);
    gl.bindVertexArray(this.vertexArray);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.arrayBuffer);
    gl.useProgram(this.program);
    gl.viewport(this.viewport[0], this.viewport[1], this.viewport[2], this.viewport[3]);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, this.drawFramebuffer);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, this.readFramebuffer);
    this.textures.fill(null);
    this.arrays.fill(null);
    this.samplers.fill(null);
  }
}
