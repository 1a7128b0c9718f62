import type { BlockFormat, Ktx2Texture, Ktx2Upload } from '../bake/decode-ktx2';

/**
 * The GPU side of KHR_texture_basisu images (ktx2Decoder attaches these to every Ktx2Texture,
 * as its upload and uploadGL, so only pages that hand in the KTX2 decoder ship them): on WebGPU, BC7, ETC2 or
 * ASTC 4x4 blocks, the first whose feature the device was created with, with the file's mip
 * chain; otherwise (and on WebGL 2) the RGBA8 levels transcoded at load.
 */

/** KTX2 targets in order of preference, with the device feature each needs and its linear WebGPU format (sRGB: + '-srgb'). */
const BLOCK_FORMATS: [BlockFormat, GPUFeatureName, string][] = [
  ['bc7', 'texture-compression-bc', 'bc7-rgba-unorm'], ['etc2', 'texture-compression-etc2', 'etc2-rgba8unorm'], ['astc', 'texture-compression-astc', 'astc-4x4-unorm'],
];

/** `image` as a texture of `device` (`format`: rgba8unorm or rgba8unorm-srgb, the sRGB-ness kept for block formats). */
export function uploadKtx2(device: GPUDevice, image: Ktx2Texture, format: GPUTextureFormat, label: string): Ktx2Upload {
  const srgb = format.endsWith('-srgb') ? '-srgb' : '';
  for (const [target, feature, blockFormat] of BLOCK_FORMATS) {
    const levels = device.features.has(feature) ? image.blocks(target) : undefined;
    if (levels) return write(device, image, `${blockFormat}${srgb}` as GPUTextureFormat, `${label}.${target}`, levels, 4, 16);
  }
  return write(device, image, format, label, image.rgba, 1, 4);
}

/** A texture of `levels` (rows of `block`-texel blocks of `blockBytes` bytes); a single RGBA8 level gets a full chain for the caller's mipmap generator. */
function write(device: GPUDevice, image: Ktx2Texture, format: GPUTextureFormat, label: string, levels: readonly Uint8Array[], block: number, blockBytes: number): Ktx2Upload {
  const renderable = block === 1;
  const needsMipmaps = renderable && levels.length === 1;
  const count = needsMipmaps ? mipLevelCount(image.width, image.height) : levels.length;
  const texture = device.createTexture({
    label, size: [image.width, image.height], format, mipLevelCount: count,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | (renderable ? GPUTextureUsage.RENDER_ATTACHMENT : 0),
  });
  let bytes = 0;
  for (let level = 0; level < count; level++) {
    const columns = Math.ceil(Math.max(1, image.width >> level) / block);
    const rows = Math.ceil(Math.max(1, image.height >> level) / block);
    bytes += columns * rows * blockBytes;
    if (level < levels.length) {
      device.queue.writeTexture({ texture, mipLevel: level }, levels[level] as Uint8Array<ArrayBuffer>, { bytesPerRow: columns * blockBytes, rowsPerImage: rows }, [columns * block, rows * block]);
    }
  }
  return { texture, bytes, needsMipmaps };
}

/** Mip levels of a full chain (mipmaps.ts has the same, but imports the generator's shader, which the Node tools cannot). */
const mipLevelCount = (width: number, height: number) => Math.floor(Math.log2(Math.max(width, height))) + 1;

/** Writes `image`'s RGBA8 levels into the bound TEXTURE_2D (storage of `format` for the full chain; generated past a single level). */
export function uploadKtx2GL(gl: WebGL2RenderingContext, image: Ktx2Texture, format: number): void {
  gl.texStorage2D(gl.TEXTURE_2D, mipLevelCount(image.width, image.height), format, image.width, image.height);
  image.rgba.forEach((data, l) => gl.texSubImage2D(gl.TEXTURE_2D, l, 0, 0, Math.max(1, image.width >> l), Math.max(1, image.height >> l), gl.RGBA, gl.UNSIGNED_BYTE, data));
  if (image.rgba.length === 1) gl.generateMipmap(gl.TEXTURE_2D);
}
