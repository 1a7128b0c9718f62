import { readAccessor, ComponentType as C } from './accessor';
import { check, describeValue } from './errors';
import type { EncodedImage, GltfAsset, GltfTextureInfo } from './gltf-json';
import { CORE_ATTRIBUTES } from './attribute-types';
import { defaultMaterial, defaultTextureSampler, type MaterialInfo, type SkinnedPrimitive, type TextureSampler } from './rig';

const UV_TYPES = [{ type: C.FLOAT }, { type: C.UNSIGNED_BYTE, normalized: true }, { type: C.UNSIGNED_SHORT, normalized: true }];
const JOINT_TYPES = [{ type: C.UNSIGNED_BYTE, normalized: false }, { type: C.UNSIGNED_SHORT, normalized: false }];
const WEIGHT_TYPES = UV_TYPES;
const INDEX_TYPES = [{ type: C.UNSIGNED_BYTE }, { type: C.UNSIGNED_SHORT }, { type: C.UNSIGNED_INT }];
const TRIANGLES = 4;

export interface PrimitiveSource {
  gltfNode: number;
  gltfMesh: number;
  /** Rig skin index that moves this node's primitives. */
  skin: number;
  /** Joints in that skin (for checking JOINTS_n). */
  skinJointCount: number;
  /** True for a node rigidly attached to its own rig node (no JOINTS_0 needed). */
  rigid: boolean;
  /** Index into Rig.morphs of the node's morph set, when its mesh has morph targets. */
  morphSet?: number;
}

/**
 * Reads every triangle primitive of one mesh node into a SkinnedPrimitive. Rigid nodes get one
 * influence of weight 1 on skin joint 0. Weights are renormalised to sum to 1 over all
 * influence sets; repairs and skipped primitives are reported in `warnings`.
 */
export function loadPrimitives(asset: GltfAsset, src: PrimitiveSource, warnings: string[]): SkinnedPrimitive[] {
  const meshes = asset.json.meshes ?? [];
  check(Number.isInteger(src.gltfMesh) && src.gltfMesh >= 0 && src.gltfMesh < meshes.length,
    `node ${src.gltfNode}: mesh ${src.gltfMesh} does not exist (the file has ${meshes.length})`);
  const mesh = meshes[src.gltfMesh];
  check(Array.isArray(mesh.primitives), `mesh ${src.gltfMesh}: has no primitives array`);
  const out: SkinnedPrimitive[] = [];
  mesh.primitives.forEach((prim, p) => {
    const where = `mesh ${src.gltfMesh} primitive ${p}`;
    if ((prim.mode ?? TRIANGLES) !== TRIANGLES) {
      warnings.push(`${where}: mode ${prim.mode} is not triangles; not drawn`);
      return;
    }
    const attr = prim.attributes ?? {};
    if (attr.POSITION === undefined) {
      warnings.push(`${where}: has no POSITION attribute; not drawn`); // allowed by the spec (an extension may supply it)
      return;
    }
    const quantization = asset.quantization;
    const expect = quantization?.attributeExpectations(asset) ?? CORE_ATTRIBUTES;
    const positions = readAccessor(asset, attr.POSITION, `${where} POSITION`, expect.position);
    const vertexCount = positions.count;
    const sized = { count: vertexCount };
    const normals = attr.NORMAL === undefined ? undefined
      : readAccessor(asset, attr.NORMAL, `${where} NORMAL`, { ...expect.normal, ...sized }).values as Float32Array;
    if (normals && quantization) quantization.renormalizeDirections(normals, 3);
    // COLOR_0 (VEC3 or VEC4; float or normalised) as linear RGBA, alpha 1 for VEC3: multiplies base colour.
    let colors: Float32Array | undefined;
    if (attr.COLOR_0 !== undefined) {
      const c = readAccessor(asset, attr.COLOR_0, `${where} COLOR_0`, { types: ['VEC3', 'VEC4'], components: UV_TYPES, ...sized }).values;
      const width = c.length / vertexCount;
      colors = new Float32Array(vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        for (let k = 0; k < 4; k++) colors[v * 4 + k] = k < width ? c[v * width + k] : 1;
      }
    }
    const uvs = attr.TEXCOORD_0 === undefined ? undefined
      : readAccessor(asset, attr.TEXCOORD_0, `${where} TEXCOORD_0`, { ...expect.uv, ...sized }).values as Float32Array;
    const material = loadMaterial(asset, prim.material, where, warnings);
    // TEXCOORD_1 only where a texture reads it: a primitive that merely carries it pays nothing.
    let uvs1: Float32Array | undefined;
    if (material.texCoords.includes(1)) {
      if (attr.TEXCOORD_1 === undefined) {
        warnings.push(`${where}: its material reads TEXCOORD_1, which the primitive does not have; TEXCOORD_0 is used`);
        material.texCoords = [0, 0, 0, 0, 0];
      } else {
        uvs1 = readAccessor(asset, attr.TEXCOORD_1, `${where} TEXCOORD_1`, { ...expect.uv, ...sized }).values as Float32Array;
      }
    }

    // TANGENT only where a normal map reads it (morph targets' TANGENT displacements are ignored).
    const tangents = attr.TANGENT === undefined || material.normalImage === undefined ? undefined
      : readAccessor(asset, attr.TANGENT, `${where} TANGENT`, { ...expect.tangent, ...sized }).values as Float32Array;
    if (tangents && quantization) quantization.renormalizeDirections(tangents, 4);

    let influences: 4 | 8 = 4;
    let joints: Uint16Array;
    let weights: Float32Array;
    if (src.rigid) {
      joints = new Uint16Array(vertexCount * 4);
      weights = new Float32Array(vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) weights[v * 4] = 1;
    } else {
      check(attr.JOINTS_0 !== undefined && attr.WEIGHTS_0 !== undefined,
        `${where}: is drawn with skin ${src.skin} by node ${src.gltfNode} but has no JOINTS_0/WEIGHTS_0`);
      check((attr.JOINTS_1 === undefined) === (attr.WEIGHTS_1 === undefined), `${where}: JOINTS_1 and WEIGHTS_1 must come together`);
      influences = attr.JOINTS_1 === undefined ? 4 : 8;
      joints = new Uint16Array(vertexCount * influences);
      weights = new Float32Array(vertexCount * influences);
      for (let set = 0; set < influences / 4; set++) {
        const j = readAccessor(asset, attr[`JOINTS_${set}`], `${where} JOINTS_${set}`, { types: ['VEC4'], components: JOINT_TYPES, ...sized }).values;
        const w = readAccessor(asset, attr[`WEIGHTS_${set}`], `${where} WEIGHTS_${set}`, { types: ['VEC4'], components: WEIGHT_TYPES, ...sized }).values;
        for (let v = 0; v < vertexCount; v++) {
          for (let k = 0; k < 4; k++) {
            const weight = w[v * 4 + k];
            const joint = j[v * 4 + k];
            check(weight >= 0, `${where} WEIGHTS_${set}: vertex ${v} has negative weight ${weight}`);
            // A zero weight may carry any joint index; it never contributes, so it is pointed at 0.
            check(weight === 0 || joint < src.skinJointCount,
              `${where} JOINTS_${set}: vertex ${v} uses joint ${joint}, but skin ${src.skin} has ${src.skinJointCount} joints`);
            joints[v * influences + set * 4 + k] = weight === 0 ? 0 : joint;
            weights[v * influences + set * 4 + k] = weight;
          }
        }
      }
      renormalise(weights, influences, where, warnings);
    }

    let indices: Uint32Array | undefined;
    if (prim.indices !== undefined) {
      const data = readAccessor(asset, prim.indices, `${where} indices`, { types: ['SCALAR'], components: INDEX_TYPES });
      indices = data.values instanceof Uint32Array ? data.values : Uint32Array.from(data.values);
      check(indices.length % 3 === 0, `${where} indices: count ${indices.length} is not a multiple of 3`);
      const bad = indices.findIndex((i) => i >= vertexCount);
      check(bad < 0, () => `${where} indices: index ${bad} is ${indices![bad]}, but there are ${vertexCount} vertices`);
    } else {
      check(vertexCount % 3 === 0, `${where}: non-indexed vertex count ${vertexCount} is not a multiple of 3`);
    }

    out.push({
      gltfNode: src.gltfNode, gltfMesh: src.gltfMesh, primitiveIndex: p, skin: src.skin, vertexCount,
      positions: positions.values as Float32Array, normals, uvs, ...(uvs1 ? { uvs1 } : {}), ...(tangents ? { tangents } : {}), ...(colors ? { colors } : {}), influences, joints, weights, indices,
      material,
      ...(src.morphSet === undefined ? {} : { morph: asset.morph!.loadMorphTargets(asset, prim, src.morphSet, vertexCount, normals !== undefined, where) }),
    });
  });
  return out;
}

function renormalise(weights: Float32Array, influences: number, where: string, warnings: string[]): void {
  let repaired = 0;
  let empty = 0;
  for (let base = 0; base < weights.length; base += influences) {
    let sum = 0;
    for (let k = 0; k < influences; k++) sum += weights[base + k];
    if (sum === 0) {
      weights[base] = 1; // as three.js does: an unweighted vertex follows its first joint
      empty++;
      continue;
    }
    if (Math.abs(sum - 1) > 2e-3) repaired++;
    for (let k = 0; k < influences; k++) weights[base + k] /= sum;
  }
  if (repaired > 0) warnings.push(`${where}: ${repaired} vertices had weights not summing to 1; renormalised`);
  if (empty > 0) warnings.push(`${where}: ${empty} vertices had all weights 0; bound to their first joint`);
}

function loadMaterial(asset: GltfAsset, index: number | undefined, where: string, warnings: string[]): MaterialInfo {
  const material = defaultMaterial();
  if (index === undefined) return material;
  const materials = asset.json.materials ?? [];
  check(Number.isInteger(index) && index >= 0 && index < materials.length, `${where}: material ${index} does not exist (the file has ${materials.length})`);
  const m = materials[index];
  const pbr = m.pbrMetallicRoughness ?? {};
  const unit = (value: number | undefined, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    check(typeof value === 'number' && value >= 0 && value <= 1, `material ${index}: ${name} must be a number in [0, 1], got ${describeValue(value)}`);
    return value;
  };
  const numbers = (value: number[] | undefined, n: number, name: string): number[] | undefined => {
    if (value === undefined) return undefined;
    check(Array.isArray(value) && value.length === n && value.every(Number.isFinite), `material ${index}: ${name} must be ${n} numbers`);
    return value;
  };
  const f = numbers(pbr.baseColorFactor, 4, 'baseColorFactor');
  if (f) material.baseColorFactor = [f[0], f[1], f[2], f[3]];
  material.metallicFactor = unit(pbr.metallicFactor, 'metallicFactor', 1);
  material.roughnessFactor = unit(pbr.roughnessFactor, 'roughnessFactor', 1);
  const strength = m.extensions?.KHR_materials_emissive_strength?.emissiveStrength ?? 1;
  check(typeof strength === 'number' && strength >= 0 && Number.isFinite(strength), `material ${index}: KHR_materials_emissive_strength.emissiveStrength must be a finite number >= 0`);
  const e = numbers(m.emissiveFactor, 3, 'emissiveFactor');
  if (e) material.emissiveFactor = [e[0] * strength, e[1] * strength, e[2] * strength];
  material.occlusionStrength = unit(m.occlusionTexture?.strength, 'occlusionTexture.strength', 1);
  const mode = m.alphaMode ?? 'OPAQUE';
  check(mode === 'OPAQUE' || mode === 'MASK' || mode === 'BLEND', `material ${index}: alphaMode must be OPAQUE, MASK or BLEND, got ${describeValue(mode)}`);
  material.alphaMode = mode;
  const cutoff = m.alphaCutoff ?? 0.5;
  check(typeof cutoff === 'number' && cutoff >= 0, `material ${index}: alphaCutoff must be a number >= 0`);
  material.alphaCutoff = cutoff;
  material.doubleSided = m.doubleSided === true;
  material.unlit = m.extensions?.KHR_materials_unlit !== undefined;
  // VRM's MToon drawn as its nearest look (docs/loading.md#vrm-files): lit, diffuse only; VRM 0.x's
  // unlit shaders unlit. The reader comes with the asset, for a VRM file only (parse.ts).
  const look = asset.vrm?.vrmMaterialLook(asset.json, index);
  if (look === 'mtoon') Object.assign(material, { unlit: false, metallicFactor: 0, roughnessFactor: 1 });
  if (look === 'unlit') material.unlit = true;
  const normalScale = m.normalTexture?.scale ?? 1;
  check(typeof normalScale === 'number' && Number.isFinite(normalScale), `material ${index}: normalTexture.scale must be a finite number, got ${describeValue(normalScale)}`);
  material.normalScale = normalScale;
  material.baseColorImage = textureImage(asset, index, 'base colour', pbr.baseColorTexture, warnings);
  material.metallicRoughnessImage = textureImage(asset, index, 'metallic-roughness', pbr.metallicRoughnessTexture, warnings);
  material.emissiveImage = textureImage(asset, index, 'emissive', m.emissiveTexture, warnings);
  material.occlusionImage = textureImage(asset, index, 'occlusion', m.occlusionTexture, warnings);
  material.normalImage = textureImage(asset, index, 'normal', m.normalTexture, warnings);
  [pbr.baseColorTexture, pbr.metallicRoughnessTexture, m.occlusionTexture, m.emissiveTexture, m.normalTexture].forEach((info, t) => {
    const transform = (info as { extensions?: { KHR_texture_transform?: TextureTransform } } | undefined)?.extensions?.KHR_texture_transform;
    if (transform) material.uvTransforms.set(uvTransform(transform, `material ${index}`), t * 6);
    if (info) material.samplers[t] = textureSampler(asset, index, info);
    if (info) material.texCoords[t] = texCoordOf(index, info, transform);
  });
  return material;
}

interface TextureTransform { offset?: number[]; rotation?: number; scale?: number[]; texCoord?: number }

/**
 * KHR_texture_transform's matrix T R S (the extension's definition, which three.js's GLTFLoader
 * also writes): rows (sx cos r, sy sin r, tx), (-sx sin r, sy cos r, ty).
 */
function uvTransform(t: TextureTransform, where: string): number[] {
  const offset = t.offset ?? [0, 0];
  const scale = t.scale ?? [1, 1];
  const r = t.rotation ?? 0;
  check(Array.isArray(offset) && offset.length === 2 && offset.every(Number.isFinite), `${where}: KHR_texture_transform.offset must be 2 numbers`);
  check(Array.isArray(scale) && scale.length === 2 && scale.every(Number.isFinite), `${where}: KHR_texture_transform.scale must be 2 numbers`);
  check(typeof r === 'number' && Number.isFinite(r), `${where}: KHR_texture_transform.rotation must be a number (radians)`);
  const c = Math.cos(r);
  const s = Math.sin(r);
  return [scale[0] * c, scale[1] * s, offset[0], -scale[0] * s, scale[1] * c, offset[1]];
}

const WRAP: Record<number, TextureSampler['addressModeU']> = { 10497: 'repeat', 33071: 'clamp-to-edge', 33648: 'mirror-repeat' };
const MAG: Record<number, TextureSampler['magFilter']> = { 9728: 'nearest', 9729: 'linear' };
/** glTF minFilter -> [minFilter, mipmapFilter, mipmapped]. */
const MIN: Record<number, [TextureSampler['minFilter'], TextureSampler['mipmapFilter'], boolean]> = {
  9728: ['nearest', 'nearest', false], 9729: ['linear', 'nearest', false],
  9984: ['nearest', 'nearest', true], 9985: ['linear', 'nearest', true],
  9986: ['nearest', 'linear', true], 9987: ['linear', 'linear', true],
};

/**
 * The sampler of a texture reference (glTF `textures[i].sampler`), mapped to WebGPU's terms; a
 * field the file leaves out keeps the default (repeat, linear, trilinear mipmaps).
 */
function textureSampler(asset: GltfAsset, index: number, info: GltfTextureInfo): TextureSampler {
  const out = defaultTextureSampler();
  const which = asset.json.textures?.[info.index]?.sampler;
  if (which === undefined) return out;
  const samplers = asset.json.samplers ?? [];
  check(Number.isInteger(which) && which >= 0 && which < samplers.length, `material ${index}: texture ${info.index}'s sampler ${String(which)} does not exist (the file has ${samplers.length})`);
  const s = samplers[which];
  const where = `sampler ${which}`;
  const pick = <T>(table: Record<number, T>, value: number | undefined, name: string): T | undefined => {
    if (value === undefined) return undefined;
    check(table[value] !== undefined, `${where}: ${name} must be one of ${Object.keys(table).join(', ')}, got ${describeValue(value)}`);
    return table[value];
  };
  out.addressModeU = pick(WRAP, s.wrapS, 'wrapS') ?? out.addressModeU;
  out.addressModeV = pick(WRAP, s.wrapT, 'wrapT') ?? out.addressModeV;
  out.magFilter = pick(MAG, s.magFilter, 'magFilter') ?? out.magFilter;
  const min = pick(MIN, s.minFilter, 'minFilter');
  if (min) {
    [out.minFilter, out.mipmapFilter] = min;
    if (!min[2]) out.lodMaxClamp = 0;
  }
  return out;
}

/** The UV set a texture reads: KHR_texture_transform's `texCoord` when given (it overrides), else the info's. */
function texCoordOf(index: number, info: GltfTextureInfo, transform: TextureTransform | undefined): number {
  const t = transform?.texCoord ?? info.texCoord ?? 0;
  check(t === 0 || t === 1, `material ${index}: texCoord must be 0 or 1 (TEXCOORD_0 or TEXCOORD_1), got ${describeValue(t)}`);
  return t;
}

/** The image a material's texture reference points at, or undefined (with a warning when it cannot be drawn). */
function textureImage(asset: GltfAsset, index: number, what: string, info: GltfTextureInfo | undefined, warnings: string[]): EncodedImage | undefined {
  if (info === undefined) return undefined;
  const texture = asset.json.textures?.[info.index];
  check(texture !== undefined, `material ${index}: texture ${info.index} does not exist (the file has ${asset.json.textures?.length ?? 0})`);
  const image = texture.source === undefined ? undefined : asset.images[texture.source];
  if (image === undefined) {
    warnings.push(`material ${index}: texture ${info.index} has no image that could be read; ${what} texture ignored`);
    return undefined;
  }
  return image;
}
