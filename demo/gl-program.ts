/**
 * Compiles and links a demo GLSL ES 3.00 file whose two stages share one text (grid.glsl,
 * marker.glsl): the vertex stage is the text with VERTEX defined after its #version line. Throws
 * naming `label`, the stage and the driver's log when a stage does not compile or the program
 * does not link (not on a lost context, where every call fails quietly).
 */
export function linkDemoProgram(gl: WebGL2RenderingContext, text: string, label: string): WebGLProgram {
  const program = gl.createProgram();
  const shaders = [gl.VERTEX_SHADER, gl.FRAGMENT_SHADER].map((type) => {
    const shader = gl.createShader(type)!;
    gl.shaderSource(shader, type === gl.VERTEX_SHADER ? text.replace('\n', '\n#define VERTEX\n') : text);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
      throw new Error(`${label}: the ${type === gl.VERTEX_SHADER ? 'vertex' : 'fragment'} stage does not compile: ${gl.getShaderInfoLog(shader)}`);
    }
    gl.attachShader(program, shader);
    return shader;
  });
  gl.linkProgram(program);
  for (const shader of shaders) gl.deleteShader(shader);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) throw new Error(`${label}: does not link: ${gl.getProgramInfoLog(program)}`);
  return program;
}
