/**
 * A character's materials on WebGL 2 (the twin of src/runtime/material-data.ts and
 * material-textures.ts): per primitive the MATERIAL uniform record (the same bytes: std140 lays
 * them out as WGSL's uniform does), its five textures (colour images sRGB, data images linear,
 * mip-mapped at upload as three.js does, a KTX2 image as its transcoded RGBA8 levels; 1x1
 * stand-ins where the material has none) and the
 * file's samplers as WebGL sampler objects. Owns its buffers, textures and samplers.
 */
import type { EncodedImage } from '../bake/gltf-json';
import type { MaterialInfo, TextureSampler } from '../bake/rig';
import { materialRecord } from '../runtime/material-data';
import { FLAT_NORMAL, WHITE, type Fallback } from '../runtime/material-textures';

/** What one primitive's draw binds: its uniform buffer, then per texture (base, metal-rough, occlusion, emissive, normal) the texture and its sampler. */
export interface GLMaterial {
  uniforms: WebGLBuffer;
  textures: [WebGLTexture, WebGLTexture, WebGLTexture, WebGLTexture, WebGLTexture];
  samplers: [WebGLSampler, WebGLSampler, WebGLSampler, WebGLSampler, WebGLSampler];
}

/** skin.frag.glsl's sampler uniforms, in GLMaterial's texture order (texture unit = index). */
export const MATERIAL_SAMPLER_NAMES = ['baseColorTexture', 'metallicRoughnessTexture', 'occlusionTexture', 'emissiveTexture', 'normalTexture'] as const;

const WRAP: Record<TextureSampler['addressModeU'], number> = { 'repeat': 0x2901, 'clamp-to-edge': 0x812f, 'mirror-repeat': 0x8370 };

/** Uploads materials and the images they read, each (image, format) once, each distinct sampler once. */
export class GLMaterials {
  private readonly textures = new Map<string | EncodedImage, Map<number, WebGLTexture>>();
  private readonly samplers = new Map<string, WebGLSampler>();
  private readonly buffers: WebGLBuffer[] = [];

  constructor(private readonly gl: WebGL2RenderingContext, private readonly bitmaps: ReadonlyMap<EncodedImage, ImageBitmap>) {}

  /** The GL resources of material `m` for a primitive (`tangents`: it carries TANGENT; `slotCount`: joint slots per instance). */
  material(m: MaterialInfo, slotCount: number, tangents: boolean): GLMaterial {
    const gl = this.gl;
    const uniforms = gl.createBuffer();
    this.buffers.push(uniforms);
    gl.bindBuffer(gl.UNIFORM_BUFFER, uniforms);
    gl.bufferData(gl.UNIFORM_BUFFER, materialRecord(m, slotCount, tangents), gl.STATIC_DRAW);
    gl.bindBuffer(gl.UNIFORM_BUFFER, null);
    const srgb = gl.SRGB8_ALPHA8;
    const linear = gl.RGBA8;
    return {
      uniforms,
      textures: [
        this.texture(m.baseColorImage, srgb), this.texture(m.metallicRoughnessImage, linear), this.texture(m.occlusionImage, linear),
        this.texture(m.emissiveImage, srgb), this.texture(m.normalImage, linear, FLAT_NORMAL),
      ],
      samplers: [0, 1, 2, 3, 4].map((t) => this.sampler(m.samplers[t])) as GLMaterial['samplers'],
    };
  }

  destroy(): void {
    for (const byFormat of this.textures.values()) for (const texture of byFormat.values()) this.gl.deleteTexture(texture);
    for (const sampler of this.samplers.values()) this.gl.deleteSampler(sampler);
    for (const buffer of this.buffers) this.gl.deleteBuffer(buffer);
    this.textures.clear();
    this.samplers.clear();
    this.buffers.length = 0;
  }

  /** The texture of `image` in `format` (SRGB8_ALPHA8 or RGBA8) with its full mip chain, or the 1x1 `fallback` when there is none (or it was not decoded). */
  private texture(image: EncodedImage | undefined, format: number, fallback: Fallback = WHITE): WebGLTexture {
    const gl = this.gl;
    const bitmap = image && this.bitmaps.get(image);
    const ktx2 = image?.ktx2; // a KTX2 image's RGBA8 levels (transcoded at load; WebGL 2 gets no block formats here)
    const key = bitmap || ktx2 ? image : fallback.join(',');
    let byFormat = this.textures.get(key);
    if (!byFormat) this.textures.set(key, (byFormat = new Map()));
    let texture = byFormat.get(format);
    if (texture) return texture;
    texture = gl.createTexture();
    byFormat.set(format, texture);
    gl.bindTexture(gl.TEXTURE_2D, texture);
    // The bitmap's bytes as they are: no flip (row 0 is the image's top, as WebGPU's copy), no premultiplication, no colour conversion.
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    if (ktx2) ktx2.uploadGL(gl, format);
    else if (bitmap) {
      const levels = Math.floor(Math.log2(Math.max(bitmap.width, bitmap.height, 1))) + 1;
      gl.texStorage2D(gl.TEXTURE_2D, levels, format, bitmap.width, bitmap.height);
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
      gl.generateMipmap(gl.TEXTURE_2D);
    } else {
      gl.texStorage2D(gl.TEXTURE_2D, 1, format, 1, 1);
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(fallback));
    }
    gl.bindTexture(gl.TEXTURE_2D, null);
    return texture;
  }

  /** A sampler object for the glTF sampler `s` (one per distinct descriptor). */
  private sampler(s: TextureSampler): WebGLSampler {
    const key = JSON.stringify(s);
    let sampler = this.samplers.get(key);
    if (sampler) return sampler;
    const gl = this.gl;
    sampler = gl.createSampler();
    this.samplers.set(key, sampler);
    const near = s.mipmapFilter === 'nearest';
    const minFilter = s.minFilter === 'nearest' ? (near ? gl.NEAREST_MIPMAP_NEAREST : gl.NEAREST_MIPMAP_LINEAR) : (near ? gl.LINEAR_MIPMAP_NEAREST : gl.LINEAR_MIPMAP_LINEAR);
    gl.samplerParameteri(sampler, gl.TEXTURE_MIN_FILTER, minFilter);
    gl.samplerParameteri(sampler, gl.TEXTURE_MAG_FILTER, s.magFilter === 'nearest' ? gl.NEAREST : gl.LINEAR);
    gl.samplerParameteri(sampler, gl.TEXTURE_WRAP_S, WRAP[s.addressModeU]);
    gl.samplerParameteri(sampler, gl.TEXTURE_WRAP_T, WRAP[s.addressModeV]);
    // lodMaxClamp 0: the top mip only (glTF's NEAREST / LINEAR minFilter), as the WebGPU sampler's.
    gl.samplerParameterf(sampler, gl.TEXTURE_MAX_LOD, s.lodMaxClamp);
    return sampler;
  }
}
