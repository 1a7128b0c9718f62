import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGltf } from '../../src/bake/parse';
import { loadCharacter } from '../../src/character/character';
import { arrayBufferOf, toGlb } from '../helpers/gltf-builder';
import { BUNDLED_MODELS } from '../helpers/models';

/** loadMaterial (src/bake/load-mesh.ts): glTF materials read as authored, or refused by name (docs/materials.md). */

const body = arrayBufferOf(readFileSync(join(BUNDLED_MODELS, 'Walker', 'WalkerBody.glb')));

async function withMaterial(material: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const asset = await parseGltf(body);
  const json = structuredClone(asset.json) as Record<string, any>;
  json.materials[0] = material;
  Object.assign(json, extra);
  delete json.buffers[0].uri;
  return loadCharacter(arrayBufferOf(toGlb(json, asset.buffers[0])));
}

describe('loadMaterial', () => {
  it('reads metal, roughness, emissive x strength, MASK, doubleSided and unlit', async () => {
    const character = await withMaterial({
      pbrMetallicRoughness: { baseColorFactor: [0.5, 0.4, 0.3, 1], metallicFactor: 0.25, roughnessFactor: 0.75 },
      emissiveFactor: [1, 0.5, 0], alphaMode: 'MASK', alphaCutoff: 0.3, doubleSided: true,
      extensions: { KHR_materials_emissive_strength: { emissiveStrength: 4 }, KHR_materials_unlit: {} },
    });
    const m = character.rig.primitives[0].material;
    expect(m).toMatchObject({ metallicFactor: 0.25, roughnessFactor: 0.75, emissiveFactor: [4, 2, 0], alphaMode: 'MASK', alphaCutoff: 0.3, doubleSided: true, unlit: true });
  });

  it("uses glTF's defaults: metal 1, rough 1, opaque, single-sided, cutoff 0.5", async () => {
    const m = (await withMaterial({})).rig.primitives[0].material;
    expect(m).toMatchObject({ metallicFactor: 1, roughnessFactor: 1, emissiveFactor: [0, 0, 0], alphaMode: 'OPAQUE', alphaCutoff: 0.5, doubleSided: false, unlit: false });
  });

  it('names a value out of range', async () => {
    await expect(withMaterial({ pbrMetallicRoughness: { metallicFactor: 1.5 } })).rejects.toThrow('material 0: metallicFactor must be a number in [0, 1], got 1.5');
    await expect(withMaterial({ alphaMode: 'CUTOUT' })).rejects.toThrow('material 0: alphaMode must be OPAQUE, MASK or BLEND, got "CUTOUT"');
    await expect(withMaterial({ emissiveFactor: [1, 1] })).rejects.toThrow('material 0: emissiveFactor must be 3 numbers');
  });

  it("maps each texture's glTF sampler to WebGPU's terms; a texture without one repeats, trilinear", async () => {
    const m = (await withMaterial({
      pbrMetallicRoughness: { baseColorTexture: { index: 0 }, metallicRoughnessTexture: { index: 1 } },
      occlusionTexture: { index: 2 }, emissiveTexture: { index: 3 },
    }, {
      textures: [{ sampler: 0 }, { sampler: 1 }, {}, { sampler: 2 }],
      samplers: [
        { wrapS: 33071, wrapT: 33648, magFilter: 9728, minFilter: 9728 },
        { minFilter: 9986 },
        { wrapS: 10497, wrapT: 33071, magFilter: 9729, minFilter: 9985 },
      ],
    })).rig.primitives[0].material;
    expect(m.samplers[0]).toEqual({ addressModeU: 'clamp-to-edge', addressModeV: 'mirror-repeat', magFilter: 'nearest', minFilter: 'nearest', mipmapFilter: 'nearest', lodMaxClamp: 0 });
    expect(m.samplers[1]).toEqual({ addressModeU: 'repeat', addressModeV: 'repeat', magFilter: 'linear', minFilter: 'nearest', mipmapFilter: 'linear', lodMaxClamp: 32 });
    expect(m.samplers[2]).toEqual({ addressModeU: 'repeat', addressModeV: 'repeat', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', lodMaxClamp: 32 });
    expect(m.samplers[3]).toEqual({ addressModeU: 'repeat', addressModeV: 'clamp-to-edge', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'nearest', lodMaxClamp: 32 });
  });

  it('names a sampler that does not exist or a value glTF does not define', async () => {
    const material = { pbrMetallicRoughness: { baseColorTexture: { index: 0 } } };
    await expect(withMaterial(material, { textures: [{ sampler: 3 }], samplers: [] })).rejects.toThrow("material 0: texture 0's sampler 3 does not exist (the file has 0)");
    await expect(withMaterial(material, { textures: [{ sampler: 0 }], samplers: [{ wrapS: 1234 }] })).rejects.toThrow('sampler 0: wrapS must be one of 10497, 33071, 33648, got 1234');
    await expect(withMaterial(material, { textures: [{ sampler: 0 }], samplers: [{ minFilter: 9729.5 }] })).rejects.toThrow('sampler 0: minFilter must be one of');
  });

  /** Walker with a TEXCOORD_1 on its first primitive: positions' bytes read as VEC2 (any numbers do). */
  function withUv1(json: Record<string, any>): void {
    const { min: _min, max: _max, ...positions } = json.accessors[1];
    json.accessors.push({ ...positions, type: 'VEC2' });
    json.meshes[0].primitives[0].attributes.TEXCOORD_1 = json.accessors.length - 1;
  }

  it("reads each texture's UV set: texCoord, overridden by KHR_texture_transform's; TEXCOORD_1 loaded only where read", async () => {
    const material = {
      pbrMetallicRoughness: { baseColorTexture: { index: 0, texCoord: 1 }, metallicRoughnessTexture: { index: 0, texCoord: 1, extensions: { KHR_texture_transform: { texCoord: 0 } } } },
      occlusionTexture: { index: 0 }, emissiveTexture: { index: 0, extensions: { KHR_texture_transform: { texCoord: 1 } } },
    };
    const asset = await parseGltf(body);
    const json = structuredClone(asset.json) as Record<string, any>;
    json.materials[0] = material;
    json.textures = [{}];
    withUv1(json);
    delete json.buffers[0].uri;
    const character = await loadCharacter(arrayBufferOf(toGlb(json, asset.buffers[0])));
    const [first, second] = character.rig.primitives;
    expect(first.material.texCoords).toEqual([1, 0, 0, 1, 0]);
    expect(first.uvs1).toBeInstanceOf(Float32Array);
    expect(first.uvs1!.length).toBe(first.vertexCount * 2);
    expect(second.uvs1).toBeUndefined(); // material 1 reads no TEXCOORD_1
  });

  it('falls back to TEXCOORD_0 with a warning where the primitive lacks TEXCOORD_1; refuses texCoord 2', async () => {
    const character = await withMaterial({ occlusionTexture: { index: 0, texCoord: 1 } }, { textures: [{}] });
    expect(character.rig.primitives[0].material.texCoords).toEqual([0, 0, 0, 0, 0]);
    expect(character.rig.primitives[0].uvs1).toBeUndefined();
    expect(character.rig.warnings.join('\n')).toContain('its material reads TEXCOORD_1, which the primitive does not have; TEXCOORD_0 is used');
    await expect(withMaterial({ occlusionTexture: { index: 0, texCoord: 2 } }, { textures: [{}] })).rejects.toThrow('material 0: texCoord must be 0 or 1 (TEXCOORD_0 or TEXCOORD_1), got 2');
  });

  /**
   * Walker with a normal-mapped material 0 whose texture has an image (any bytes: Node decodes
   * none), and TANGENT on its first primitive: the accessor `tangent` picks (an index into accessors).
   */
  async function withNormalMap(normalTexture: Record<string, unknown>, tangent?: (json: Record<string, any>) => number) {
    const asset = await parseGltf(body);
    const json = structuredClone(asset.json) as Record<string, any>;
    json.materials[0] = { normalTexture };
    json.textures = [{ source: 0 }];
    json.images = [{ bufferView: 0, mimeType: 'image/png' }];
    if (tangent) json.meshes[0].primitives[0].attributes.TANGENT = tangent(json);
    delete json.buffers[0].uri;
    return loadCharacter(arrayBufferOf(toGlb(json, asset.buffers[0])));
  }
  /** A float VEC4 accessor of the first primitive's vertex count: its WEIGHTS_0 (any numbers do). */
  const weights = (json: Record<string, any>) => json.meshes[0].primitives[0].attributes.WEIGHTS_0;

  it('reads normalTexture: image, scale, texCoord, transform; TANGENT (vec4 float) loaded where a normal map reads it', async () => {
    const character = await withNormalMap({ index: 0, scale: 0.25, texCoord: 1, extensions: { KHR_texture_transform: { offset: [0.5, 0] } } }, weights);
    const [first, second] = character.rig.primitives;
    expect(first.material.normalImage).toBeDefined();
    expect(first.material.normalScale).toBe(0.25);
    // texCoord 1 was read: the primitive has no TEXCOORD_1, so it falls back to 0 with a warning.
    expect(character.rig.warnings.join('\n')).toContain('mesh 0 primitive 0: its material reads TEXCOORD_1');
    expect(first.material.texCoords[4]).toBe(0);
    expect(Array.from(first.material.uvTransforms.subarray(24, 30), (x) => x + 0)).toEqual([1, 0, 0.5, 0, 1, 0]);
    expect(first.tangents).toBeInstanceOf(Float32Array);
    expect(first.tangents!.length).toBe(first.vertexCount * 4);
    expect(second.tangents).toBeUndefined(); // no TANGENT; and material 1 has no normal map
    expect(character.rig.warnings.join('\n')).not.toContain('normal texture not drawn');
    const plain = await withNormalMap({ index: 0 });
    expect(plain.rig.primitives[0].material.normalScale).toBe(1);
    expect(plain.rig.primitives[0].material.texCoords[4]).toBe(0);
    expect(plain.rig.primitives[0].tangents).toBeUndefined();
  });

  it('refuses a TANGENT that is not a float VEC4, and a normalTexture.scale that is not a finite number, naming them', async () => {
    const positions = (json: Record<string, any>) => json.meshes[0].primitives[0].attributes.POSITION;
    await expect(withNormalMap({ index: 0 }, positions)).rejects.toThrow('mesh 0 primitive 0 TANGENT');
    const joints = (json: Record<string, any>) => json.meshes[0].primitives[0].attributes.JOINTS_0;
    await expect(withNormalMap({ index: 0 }, joints)).rejects.toThrow('mesh 0 primitive 0 TANGENT');
    await expect(withNormalMap({ index: 0, scale: 'big' })).rejects.toThrow('material 0: normalTexture.scale must be a finite number, got "big"');
  });
});
