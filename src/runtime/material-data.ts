import type { MaterialInfo, TextureSampler } from '../bake/rig';
import { MATERIAL, MATERIAL_FLAGS } from './layout';

// What the skin pass makes of a primitive's glTF material (docs/materials.md): its uniform record
// and its cull mode.

/** glTF doubleSided false: back faces (clockwise in glTF's counter-clockwise convention) are culled. */
export function cullMode(material: MaterialInfo): GPUCullMode {
  return material.doubleSided ? 'none' : 'back';
}

/** Textures a material samples: base colour, metallic-roughness, occlusion, emissive, normal. */
export const MATERIAL_TEXTURES = 5;

/**
 * A primitive's MATERIAL uniform record. `tangents`: the primitive carries TANGENT (vertex buffer
 * 6), so its normal map uses them; without, the fragment stage derives the frame from screen-space derivatives.
 */
export function materialRecord(m: MaterialInfo, slotCount: number, tangents = false): ArrayBuffer {
  const data = new ArrayBuffer(MATERIAL.size);
  const f = new Float32Array(data);
  const u = new Uint32Array(data);
  f.set(m.baseColorFactor, MATERIAL.baseColorFactor / 4);
  u[MATERIAL.slotCount / 4] = slotCount;
  f[MATERIAL.metallic / 4] = m.metallicFactor;
  f[MATERIAL.roughness / 4] = m.roughnessFactor;
  f[MATERIAL.alphaCutoff / 4] = m.alphaCutoff;
  f.set(m.emissiveFactor, MATERIAL.emissive / 4);
  f[MATERIAL.occlusionStrength / 4] = m.occlusionStrength;
  // 0 without a normal map: the shader then keeps the geometric normal exactly (skin.wgsl perturbedNormal).
  f[MATERIAL.normalScale / 4] = m.normalImage ? m.normalScale : 0;
  for (let t = 0; t < MATERIAL_TEXTURES; t++) {
    f.set(m.uvTransforms.subarray(t * 6, t * 6 + 3), MATERIAL.uvTransform / 4 + t * 8);
    f[MATERIAL.uvTransform / 4 + t * 8 + 3] = m.texCoords[t]; // the first row's w: the UV set (skin.wgsl uvOf)
    f.set(m.uvTransforms.subarray(t * 6 + 3, t * 6 + 6), MATERIAL.uvTransform / 4 + t * 8 + 4);
  }
  u[MATERIAL.flags / 4] = (m.unlit ? MATERIAL_FLAGS.unlit : 0) | (m.alphaMode === 'MASK' ? MATERIAL_FLAGS.mask : 0)
    | (tangents ? MATERIAL_FLAGS.tangents : 0);
  return data;
}

/**
 * The skin pass's fragment constants for a material (skin.wgsl BASE_COLOR_MAP, METAL_ROUGH_MAP,
 * OCCLUSION_MAP, EMISSIVE_MAP, ALPHA_MASK): 0 where the material has no such texture (bound as the
 * white stand-in, whose sample is exactly 1) or is not alphaMode MASK, so its pipeline neither
 * samples it nor holds a discard. The picture is the same to the bit; the fragment stage does less.
 */
export function materialConstants(m: MaterialInfo): Record<string, number> {
  return {
    BASE_COLOR_MAP: Number(m.baseColorImage !== undefined), METAL_ROUGH_MAP: Number(m.metallicRoughnessImage !== undefined),
    OCCLUSION_MAP: Number(m.occlusionImage !== undefined), EMISSIVE_MAP: Number(m.emissiveImage !== undefined), ALPHA_MASK: Number(m.alphaMode === 'MASK'),
  };
}

/** A key that differs wherever materialConstants differ: pipelines are shared by materials with equal keys. */
export function materialConstantsKey(m: MaterialInfo): string {
  return Object.values(materialConstants(m)).join('');
}

/**
 * The file's samplers as GPUSamplers: one per distinct descriptor, shared by every texture that
 * uses it. The samplers belong to the device (GPUSampler has no destroy).
 */
export function samplerCache(device: GPUDevice, label: string): (sampler: TextureSampler) => GPUSampler {
  const samplers = new Map<string, GPUSampler>();
  return (desc) => {
    const key = JSON.stringify(desc);
    let sampler = samplers.get(key);
    if (!sampler) samplers.set(key, (sampler = device.createSampler({ label: `${label}${samplers.size}`, ...desc })));
    return sampler;
  };
}
