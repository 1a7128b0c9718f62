/**
 * Compiling and linking GLSL ES 3.00 programs for the WebGL 2 passes, with errors that name the
 * program and carry the driver's log.
 */

/**
 * `source` with `defines` (name -> value) inserted as `#define NAME value` lines right after its
 * `#version` line: GLSL's stand-in for WGSL's pipeline-overridable constants. `extra`: text
 * placed after the defines (a shared GLSL helper such as GLSL_JOINT_FETCH).
 */
export function withDefines(source: string, defines: Readonly<Record<string, number | string>>, extra = ''): string {
  const end = source.indexOf('\n');
  if (!source.startsWith('#version') || end < 0) throw new Error('GLSL source must start with a #version line');
  const lines = Object.entries(defines).map(([name, value]) => `#define ${name} ${value}`).join('\n');
  return `${source.slice(0, end + 1)}${lines}\n${extra}${source.slice(end + 1)}`;
}

/** A linked program of `vertex` and `fragment`; throws naming `label` and the stage that failed, with its log. Deletes what it made on failure. */
export function linkProgram(gl: WebGL2RenderingContext, label: string, vertex: string, fragment: string): WebGLProgram {
  const program = gl.createProgram();
  const shaders: WebGLShader[] = [];
  try {
    for (const [type, source, stage] of [[gl.VERTEX_SHADER, vertex, 'vertex'], [gl.FRAGMENT_SHADER, fragment, 'fragment']] as const) {
      const shader = gl.createShader(type);
      if (!shader) throw new Error(`${label}: could not create the ${stage} shader (context lost?)`);
      shaders.push(shader);
      gl.shaderSource(shader, source);
      gl.compileShader(shader);
      if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
        throw new Error(`${label}: the ${stage} shader does not compile: ${gl.getShaderInfoLog(shader) ?? ''}`);
      }
      gl.attachShader(program, shader);
    }
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) throw new Error(`${label}: the program does not link: ${gl.getProgramInfoLog(program) ?? ''}`);
  } catch (error) {
    gl.deleteProgram(program);
    throw error;
  } finally {
    for (const shader of shaders) gl.deleteShader(shader);
  }
  return program;
}

/** Writes words [0, used) of `data` into `buffer` (bound to ARRAY_BUFFER, left bound), first growing it (doubling) past `capacity` words; returns its capacity. */
export function uploadWords(gl: WebGL2RenderingContext, buffer: WebGLBuffer, capacity: number, data: Uint32Array, used: number): number {
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  if (used > capacity) {
    capacity = Math.max(used, capacity * 2);
    gl.bufferData(gl.ARRAY_BUFFER, capacity * 4, gl.DYNAMIC_DRAW);
  }
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, data, 0, used);
  return capacity;
}

/** A sampler with the (parameter, value) pairs set. */
export function createSampler(gl: WebGL2RenderingContext, parameters: number[][]): WebGLSampler {
  const made = gl.createSampler();
  for (const [name, value] of parameters) gl.samplerParameteri(made, name, value);
  return made;
}
