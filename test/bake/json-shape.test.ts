import { describe, expect, it } from 'vitest';
import { checkGltfJson } from '../../src/bake/json-shape';
import { expectModelError, skinnedModel } from '../helpers/gltf-builder';

/** The minimal valid model's JSON after `mutate` changed it (typed loosely: these are broken files). */
function jsonWith(mutate: (json: Record<string, any>) => void): unknown {
  const json = structuredClone(skinnedModel().builder.build().json) as Record<string, any>;
  mutate(json);
  return json;
}

describe('checkGltfJson validity', () => {
  const cases: { breaks: string; mutate: (json: Record<string, any>) => void; message: RegExp }[] = [
    { breaks: 'asset missing', mutate: (j) => { delete j.asset; }, message: /^not a glTF 2\.0 file: it has no asset object \(glTF requires asset\.version\); asset is missing$/ },
    { breaks: 'asset.version missing', mutate: (j) => { j.asset = {}; }, message: /^asset\.version is missing \(glTF requires it\)$/ },
    { breaks: 'asset.version a number', mutate: (j) => { j.asset.version = 2; }, message: /^asset\.version must be a string, but it is 2$/ },
    { breaks: 'glTF 1.0', mutate: (j) => { j.asset.version = '1.0'; }, message: /^glTF version 1\.0 is not supported \(only 2\.x\)$/ },
    { breaks: 'glTF 3.0', mutate: (j) => { j.asset.version = '3.0'; }, message: /^glTF version 3\.0 is not supported \(only 2\.x\)$/ },
    { breaks: 'a version that is not a version', mutate: (j) => { j.asset.version = '2'; }, message: /^asset\.version is "2", not a version of the form "2\.0"$/ },
    { breaks: 'minVersion 2.1', mutate: (j) => { j.asset.minVersion = '2.1'; }, message: /needs glTF 2\.1 or later \(asset\.minVersion\)/ },
    { breaks: 'minVersion 3.0', mutate: (j) => { j.asset.minVersion = '3.0'; }, message: /needs glTF 3\.0 or later/ },
    { breaks: 'unknown required extension', mutate: (j) => { j.extensionsRequired = ['EXT_from_the_future']; }, message: /^the file requires extension EXT_from_the_future, which this loader does not support$/ },
    {
      breaks: 'four required extensions, each named with what would bring it',
      mutate: (j) => { j.extensionsRequired = ['EXT_meshopt_compression', 'KHR_texture_basisu', 'EXT_from_the_future', 'KHR_draco_mesh_compression']; },
      message: new RegExp('^the file requires 4 extensions this call cannot read: ' +
        "EXT_meshopt_compression, which needs decoders: \\{ meshopt: MeshoptDecoder \\}, MeshoptDecoder from 'crowd-skin'; " +
        "KHR_texture_basisu, which needs decoders: \\{ ktx2: ktx2Decoder\\(await BASIS\\(\\)\\) \\}, ktx2Decoder from 'crowd-skin', BASIS from npm three's examples/jsm/libs/basis; " +
        'EXT_from_the_future, which this loader does not support; ' +
        "KHR_draco_mesh_compression, which needs decoders: \\{ draco: dracoDecoder\\(await createDecoderModule\\(\\)\\) \\}, dracoDecoder from 'crowd-skin', createDecoderModule from npm draco3d \\(draco3dgltf in Node\\)$"),
    },
    { breaks: 'extensionsRequired not a list', mutate: (j) => { j.extensionsRequired = 'KHR_x'; }, message: /^extensionsRequired must be an array, but it is "KHR_x"$/ },
    { breaks: 'accessors an object', mutate: (j) => { j.accessors = {}; }, message: /^accessors must be an array, but it is an object$/ },
    { breaks: 'an accessor that is a number', mutate: (j) => { j.accessors[2] = 5; }, message: /^accessor 2 must be an object, but it is 5$/ },
    { breaks: 'accessor count missing', mutate: (j) => { delete j.accessors[3].count; }, message: /^accessor 3: count is missing \(glTF requires it\)$/ },
    { breaks: 'accessor count a string', mutate: (j) => { j.accessors[3].count = 'abc'; }, message: /^accessor 3: count must be a non-negative integer, but it is "abc"$/ },
    { breaks: 'accessor count negative', mutate: (j) => { j.accessors[3].count = -1; }, message: /^accessor 3: count must be a non-negative integer, but it is -1$/ },
    { breaks: 'accessor count 2^53', mutate: (j) => { j.accessors[3].count = 2 ** 53; }, message: /^accessor 3: count must be a non-negative integer, but it is 9007199254740992$/ },
    { breaks: 'accessor count JSON null', mutate: (j) => { j.accessors[3].count = null; }, message: /^accessor 3: count must be a non-negative integer, but it is JSON null$/ },
    { breaks: 'sparse indices without bufferView', mutate: (j) => { j.accessors[0].sparse = { count: 1, indices: { componentType: 5121 }, values: { bufferView: 0 } }; }, message: /^accessor 0: sparse\.indices\.bufferView is missing \(glTF requires it\)$/ },
    { breaks: 'buffer without byteLength', mutate: (j) => { delete j.buffers[0].byteLength; }, message: /^buffer 0: byteLength is missing \(glTF requires it\)$/ },
    { breaks: 'bufferView buffer a string', mutate: (j) => { j.bufferViews[1].buffer = '0'; }, message: /^bufferView 1: buffer must be a non-negative integer, but it is "0"$/ },
    { breaks: 'node children with -1', mutate: (j) => { j.nodes[0].children = [1, -1]; }, message: /^node 0: children\[1\] must be a non-negative integer, but it is -1$/ },
    { breaks: 'node translation of strings', mutate: (j) => { j.nodes[1].translation = ['0', 1, 0]; }, message: /^node 1: translation\[0\] must be a number, but it is "0"$/ },
    { breaks: 'node name a number', mutate: (j) => { j.nodes[1].name = 7; }, message: /^node 1: name must be a string, but it is 7$/ },
    { breaks: 'mesh without primitives', mutate: (j) => { delete j.meshes[0].primitives; }, message: /^mesh 0: primitives is missing \(glTF requires it\)$/ },
    { breaks: 'primitive attributes a list', mutate: (j) => { j.meshes[0].primitives[0].attributes = [0]; }, message: /^mesh 0 primitive 0: attributes must be an object, but it is an array of 1$/ },
    { breaks: 'attribute accessor a float', mutate: (j) => { j.meshes[0].primitives[0].attributes.POSITION = 0.5; }, message: /^mesh 0 primitive 0: attributes\.POSITION must be a non-negative integer, but it is 0\.5$/ },
    { breaks: 'skin joints missing', mutate: (j) => { delete j.skins[0].joints; }, message: /^skin 0: joints is missing \(glTF requires it\)$/ },
    { breaks: 'channel target missing', mutate: (j) => { delete j.animations[0].channels[0].target; }, message: /^animation 0 channel 0: target is missing \(glTF requires it\)$/ },
    { breaks: 'channel target path missing', mutate: (j) => { j.animations[0].channels[0].target = { node: 1 }; }, message: /^animation 0 channel 0: target\.path is missing \(glTF requires it\)$/ },
    { breaks: 'sampler input a boolean', mutate: (j) => { j.animations[0].samplers[0].input = true; }, message: /^animation 0 sampler 0: input must be a non-negative integer, but it is true$/ },
    { breaks: 'scene nodes an object', mutate: (j) => { j.scenes[0].nodes = { 0: 0 }; }, message: /^scene 0: nodes must be an array, but it is an object$/ },
    { breaks: 'texture info without index', mutate: (j) => { j.materials = [{ pbrMetallicRoughness: { baseColorTexture: {} } }]; }, message: /^material 0: pbrMetallicRoughness\.baseColorTexture\.index is missing \(glTF requires it\)$/ },
  ];

  it.each(cases)('rejects $breaks', ({ mutate, message }) => {
    expectModelError(() => checkGltfJson(jsonWith(mutate)), message);
  });

  it.each([['an array', [1, 2], 'an array of 2'], ['JSON null', null, 'JSON null'], ['a number', 7, '7'], ['a string', 'glTF', '"glTF"']])(
    'rejects a document that is %s, saying what it is', (_, json, shown) => {
      expectModelError(() => checkGltfJson(json), new RegExp(`^not a glTF file: its JSON is ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, not an object$`));
    });

  it('never says undefined or shows a bare null', () => {
    for (const { mutate } of cases) {
      try { checkGltfJson(jsonWith(mutate)); } catch (e) {
        expect((e as Error).message).not.toMatch(/\bundefined\b|(?<!JSON )\bnull\b/);
      }
    }
  });
});

describe('checkGltfJson', () => {
  it('accepts the extensions the loader reads itself when required: KHR_mesh_quantization, EXT_texture_webp, EXT_texture_avif', () => {
    expect(() => checkGltfJson(jsonWith((j) => { j.extensionsRequired = ['KHR_mesh_quantization', 'EXT_texture_webp', 'EXT_texture_avif']; }))).not.toThrow();
  });

  it('does not name an extension whose decoder was handed in, and accepts a file whose every required extension has one', () => {
    const decoder = { decodeAsset: async () => {} };
    const both = jsonWith((j) => { j.extensionsRequired = ['EXT_meshopt_compression', 'KHR_draco_mesh_compression']; });
    expectModelError(() => checkGltfJson(both, { meshopt: decoder }), /^the file requires extension KHR_draco_mesh_compression, which needs decoders: \{ draco: /);
    expect(() => checkGltfJson(both, { meshopt: decoder, draco: decoder })).not.toThrow();
  });

  it('accepts the valid model, glTF 2.x, minVersion 2.0 and unknown optional extensions', () => {
    expect(() => checkGltfJson(jsonWith(() => {}))).not.toThrow();
    expect(() => checkGltfJson(jsonWith((j) => { j.asset = { version: '2.1', minVersion: '2.0' }; }))).not.toThrow();
    expect(() => checkGltfJson(jsonWith((j) => { j.extensionsUsed = ['EXT_whatever']; j.extras = { x: null }; }))).not.toThrow();
  });
});
