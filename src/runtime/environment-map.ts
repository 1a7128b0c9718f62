import environmentWgsl from '../../shaders/environment.wgsl?raw';
import { MipmapGenerator, mipLevelCount } from './mipmaps';
import type { GeneratedShader } from './wgsl-constants';

/** Linear RGBA radiance, `width` x `height` texels, rows top (up, +y) to bottom. */
export interface EnvironmentData {
  /** Texels across (longitude, 360 degrees), an integer >= 1. */
  width: number;
  /** Texels down (latitude, 180 degrees, top row first), an integer >= 1. */
  height: number;
  /** Linear RGBA, 4 floats a texel, rows top to bottom: width x height x 4 values in [0, 65504). */
  data: Float32Array;
}

/** CrowdOptions.lights.environment: an equirectangular image lighting every surface (three.js's scene.environment). */
export interface EnvironmentOptions {
  /** Equirectangular, three.js's orientation (docs/materials.md). ImageBitmap / ImageData: sRGB; EnvironmentData: linear. */
  image: ImageBitmap | ImageData | EnvironmentData;
  /** Radiance scale (three.js's environmentIntensity; default 1, finite, >= 0). */
  intensity?: number;
}

/** A checked environment: what EnvironmentMap prefilters. */
export interface ResolvedEnvironment {
  image: ImageBitmap | ImageData | EnvironmentData;
  intensity: number;
}

/** Layers of the prefiltered map: layer k is roughness k / (ENVIRONMENT_LAYERS - 1). skin.wgsl mirrors it. */
export const ENVIRONMENT_LAYERS = 6;
/** Size of each layer in texels (equirectangular, 2:1). */
export const ENVIRONMENT_SIZE: readonly [number, number] = [128, 64];

/** GGX samples per texel of a rough layer (filtered importance sampling keeps 128 free of visible noise). */
export const ENVIRONMENT_SAMPLES = 128;

/** shaders/environment.wgsl's generated block (tools/wgsl-shaders.ts). */
export const ENVIRONMENT_SHADER: GeneratedShader = { file: 'shaders/environment.wgsl', constants: [['PI', Math.PI, 'f32'], ['SAMPLES', ENVIRONMENT_SAMPLES, 'u32']], structs: '' };

/**
 * Checks `value` (lights.environment; undefined or false: none) and resolves it; throws naming
 * the wrong field (`lights.environment.intensity must be ...`).
 */
export function resolveEnvironment(value: unknown): ResolvedEnvironment | undefined {
  if (value === undefined || value === false) return undefined;
  const where = 'lights.environment';
  if (typeof value !== 'object' || value === null) throw new TypeError(`${where} must be an object { image, intensity? } or false`);
  for (const key of Object.keys(value)) if (key !== 'image' && key !== 'intensity') throw new TypeError(`${where}.${key} is not a field (expected image, intensity)`);
  const { image, intensity = 1 } = value as { image?: unknown; intensity?: unknown };
  if (typeof intensity !== 'number' || !Number.isFinite(intensity) || intensity < 0) throw new RangeError(`${where}.intensity must be a finite number >= 0, got ${String(intensity)}`);
  // The prefiltered map's texels (half floats, up to 65504) are multiplied by it, colour and tint (to 1e6) in float32: under 1e37.
  if (intensity > 1e25) throw new RangeError(`${where}.intensity must be at most 1e25 (float32 on the GPU: skin.wgsl multiplies it by the map, up to 65504, colour and tint), got ${String(intensity)}`);
  if (isBrowserImage(image)) {
    if (image.width < 1 || image.height < 1) throw new RangeError(`${where}.image must not be empty, got ${image.width} x ${image.height}`);
    return { image, intensity };
  }
  if (typeof image !== 'object' || image === null) throw new TypeError(`${where}.image must be an ImageBitmap, ImageData or { width, height, data: Float32Array }`);
  const { width, height, data } = image as Partial<EnvironmentData>;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width! < 1 || height! < 1) throw new RangeError(`${where}.image.width and height must be positive integers, got ${String(width)} x ${String(height)}`);
  if (!(data instanceof Float32Array)) throw new TypeError(`${where}.image.data must be a Float32Array of linear RGBA`);
  if (data.length !== width! * height! * 4) throw new RangeError(`${where}.image.data must hold width x height x 4 = ${width! * height! * 4} floats, got ${data.length}`);
  for (let i = 0; i < data.length; i++) {
    if (!(data[i] >= 0 && data[i] < 65504)) throw new RangeError(`${where}.image.data[${i}] must be in [0, 65504) (linear, half-float range), got ${data[i]}`);
  }
  return { image: image as EnvironmentData, intensity };
}

function isBrowserImage(image: unknown): image is ImageBitmap | ImageData {
  return (typeof ImageBitmap !== 'undefined' && image instanceof ImageBitmap) || (typeof ImageData !== 'undefined' && image instanceof ImageData);
}

/**
 * The prefiltered environment (shaders/environment.wgsl): an rgba16float texture_2d_array of
 * ENVIRONMENT_LAYERS layers, ENVIRONMENT_SIZE each, radiance x intensity, made once at
 * construction (an event: a change of environment makes a new one). Owns its texture.
 */
export class EnvironmentMap {
  readonly texture: GPUTexture;
  readonly view: GPUTextureView;

  constructor(device: GPUDevice, environment: ResolvedEnvironment) {
    const { image } = environment;
    const browser = isBrowserImage(image);
    const format: GPUTextureFormat = browser ? 'rgba8unorm-srgb' : 'rgba16float';
    const levels = mipLevelCount(image.width, image.height);
    const usage = GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT;
    const source = device.createTexture({ label: 'EnvironmentMap.source', size: [image.width, image.height], format, mipLevelCount: levels, usage });
    const made: GPUBuffer[] = [];
    try {
      if (!browser) {
        device.queue.writeTexture({ texture: source }, toHalf((image as EnvironmentData).data), { bytesPerRow: image.width * 8 }, [image.width, image.height]);
      } else if (image instanceof ImageData) {
        device.queue.writeTexture({ texture: source }, image.data, { bytesPerRow: image.width * 4 }, [image.width, image.height]);
      } else {
        device.queue.copyExternalImageToTexture({ source: image }, { texture: source }, [image.width, image.height]);
      }
      new MipmapGenerator(device).generate(source);
      const [width, height] = ENVIRONMENT_SIZE;
      this.texture = device.createTexture({ label: 'EnvironmentMap', size: [width, height, ENVIRONMENT_LAYERS], format: 'rgba16float', usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
      this.view = this.texture.createView({ dimension: '2d-array' });
      const module = device.createShaderModule({ label: 'EnvironmentMap.shader', code: environmentWgsl });
      const pipeline = device.createRenderPipeline({
        label: 'EnvironmentMap.pipeline', layout: 'auto',
        vertex: { module, entryPoint: 'vertex' },
        fragment: { module, entryPoint: 'fragment', targets: [{ format: 'rgba16float' }] },
        primitive: { topology: 'triangle-list' },
      });
      const sampler = device.createSampler({ label: 'EnvironmentMap.sourceSampler', addressModeU: 'repeat', minFilter: 'linear', magFilter: 'linear', mipmapFilter: 'linear' });
      const encoder = device.createCommandEncoder({ label: 'EnvironmentMap' });
      for (let k = 0; k < ENVIRONMENT_LAYERS; k++) {
        const uniform = device.createBuffer({ label: `EnvironmentMap.layer${k}`, size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
        made.push(uniform);
        device.queue.writeBuffer(uniform, 0, new Float32Array([k / (ENVIRONMENT_LAYERS - 1), environment.intensity, levels, width, image.width, image.height, 0, 0]));
        const pass = encoder.beginRenderPass({
          colorAttachments: [{ view: this.texture.createView({ dimension: '2d', baseArrayLayer: k, arrayLayerCount: 1 }), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] }],
        });
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [{ binding: 0, resource: source.createView() }, { binding: 1, resource: sampler }, { binding: 2, resource: { buffer: uniform } }],
        }));
        pass.draw(3);
        pass.end();
      }
      device.queue.submit([encoder.finish()]);
    } finally {
      // Destroying after submit is safe: the queue keeps what its submitted work reads.
      source.destroy();
      for (const buffer of made) buffer.destroy();
    }
  }

  destroy(): void {
    this.texture.destroy();
  }
}

/** IEEE half-float bits of each value (round to nearest; values checked to be in [0, 65504)). */
function toHalf(data: Float32Array): Uint16Array<ArrayBuffer> {
  const out = new Uint16Array(data.length);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let i = 0; i < data.length; i++) {
    f[0] = data[i];
    const x = u[0];
    const sign = (x >>> 16) & 0x8000;
    const exponent = ((x >>> 23) & 0xff) - 127 + 15;
    const mantissa = x & 0x7fffff;
    if (exponent <= 0) {
      // Subnormal half (or zero).
      out[i] = exponent < -10 ? sign : sign | ((mantissa | 0x800000) >> (14 - exponent)) + (((mantissa | 0x800000) >> (13 - exponent)) & 1);
    } else {
      const h = sign | (exponent << 10) | (mantissa >> 13);
      out[i] = h + ((mantissa >> 12) & 1);
    }
  }
  return out;
}
