/**
 * The prefiltered environment on WebGL 2 (shaders/webgl2/environment.*.glsl): the twin of
 * src/runtime/environment-map.ts. An RGBA16F 2D array texture of ENVIRONMENT_LAYERS layers,
 * ENVIRONMENT_SIZE each (radiance x intensity; layer k = roughness k / (layers - 1);
 * equirectangular, row 0 up), made once at construction (an event: a change of environment makes
 * a new one) by rendering each layer from the mip-mapped source. Needs EXT_color_buffer_float
 * (float render targets), refused by name without it. Owns its texture.
 */
import environmentFragment from '../../shaders/webgl2/environment.frag.glsl?raw';
import environmentVertex from '../../shaders/webgl2/environment.vert.glsl?raw';
import { ENVIRONMENT_LAYERS, ENVIRONMENT_SAMPLES, ENVIRONMENT_SIZE, type EnvironmentData, type ResolvedEnvironment } from '../runtime/environment-map';
import { linkProgram, withDefines } from './gl-program';

/** The prefiltered lights.environment on WebGL 2 (see the file's header). Owns its texture. */
export class GLEnvironmentMap {
  /** The prefiltered layers (TEXTURE_2D_ARRAY, RGBA16F, one mip level). */
  readonly texture: WebGLTexture;

  /** Prefilters `environment`; restores the framebuffer binding and viewport it found. */
  constructor(private readonly gl: WebGL2RenderingContext, environment: ResolvedEnvironment) {
    if (!gl.getExtension('EXT_color_buffer_float')) throw new Error('GLEnvironmentMap: lights.environment on WebGL 2 needs EXT_color_buffer_float (float render targets), which this context lacks');
    const { image } = environment;
    const [width, height] = ENVIRONMENT_SIZE;
    const source = gl.createTexture();
    const framebuffer = gl.createFramebuffer();
    const program = linkProgram(gl, 'GLEnvironmentMap.program', environmentVertex, withDefines(environmentFragment, { PI: Math.PI, SAMPLES: `${ENVIRONMENT_SAMPLES}u` }));
    const previousFramebuffer = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    const previousViewport = gl.getParameter(gl.VIEWPORT) as Int32Array;
    this.texture = gl.createTexture();
    try {
      const levels = Math.floor(Math.log2(Math.max(image.width, image.height, 1))) + 1;
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, source);
      gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
      gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
      gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
      gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
      if ('data' in image && image.data instanceof Float32Array) {
        // Linear radiance (EnvironmentData), rows top to bottom: row 0 is up, as the layers'.
        gl.texStorage2D(gl.TEXTURE_2D, levels, gl.RGBA16F, image.width, image.height);
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, image.width, image.height, gl.RGBA, gl.FLOAT, (image as EnvironmentData).data);
      } else {
        gl.texStorage2D(gl.TEXTURE_2D, levels, gl.SRGB8_ALPHA8, image.width, image.height);
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, gl.RGBA, gl.UNSIGNED_BYTE, image as ImageBitmap | ImageData);
      }
      gl.generateMipmap(gl.TEXTURE_2D);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.bindSampler(0, null);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.texture);
      gl.texStorage3D(gl.TEXTURE_2D_ARRAY, 1, gl.RGBA16F, width, height, ENVIRONMENT_LAYERS);
      gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.useProgram(program);
      gl.uniform1i(gl.getUniformLocation(program, 'source'), 0);
      gl.uniform1f(gl.getUniformLocation(program, 'intensity'), environment.intensity);
      gl.uniform1f(gl.getUniformLocation(program, 'sourceLevels'), levels);
      gl.uniform1f(gl.getUniformLocation(program, 'targetWidth'), width);
      gl.uniform2f(gl.getUniformLocation(program, 'sourceSize'), image.width, image.height);
      gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
      gl.viewport(0, 0, width, height);
      gl.disable(gl.DEPTH_TEST);
      gl.disable(gl.BLEND);
      gl.disable(gl.CULL_FACE);
      gl.bindVertexArray(null);
      for (let k = 0; k < ENVIRONMENT_LAYERS; k++) {
        gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, this.texture, 0, k);
        const status = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
        if (status !== gl.FRAMEBUFFER_COMPLETE) throw new Error(`GLEnvironmentMap: layer ${k} is not renderable (framebuffer status 0x${status.toString(16)})`);
        gl.uniform1f(gl.getUniformLocation(program, 'roughness'), k / (ENVIRONMENT_LAYERS - 1));
        gl.drawArrays(gl.TRIANGLES, 0, 3);
      }
    } catch (error) {
      gl.deleteTexture(this.texture);
      throw error;
    } finally {
      gl.bindFramebuffer(gl.FRAMEBUFFER, previousFramebuffer);
      gl.viewport(previousViewport[0], previousViewport[1], previousViewport[2], previousViewport[3]);
      gl.deleteFramebuffer(framebuffer);
      gl.deleteTexture(source);
      gl.deleteProgram(program);
    }
  }

  destroy(): void {
    this.gl.deleteTexture(this.texture);
  }
}
