import type { GltfAsset } from '../../src/bake/gltf-json';
import { toGlb } from './gltf-builder';

/**
 * A model split the way people export one: the body (everything but the animations) and a
 * clips-only file (the nodes and animations: no meshes, skins, materials or images), both .glb
 * with the original's buffer 0 as their BIN chunk (the models split here hold one buffer).
 */
export function splitModel(asset: GltfAsset): { body: Uint8Array; clips: Uint8Array } {
  if (asset.buffers.length !== 1) throw new Error(`splitModel takes models of one buffer, this one has ${asset.buffers.length}`);
  const body = structuredClone(asset.json);
  delete body.animations;
  const clips = structuredClone(asset.json) as Record<string, unknown> & typeof asset.json;
  for (const key of ['meshes', 'skins', 'materials', 'textures', 'images', 'samplers']) delete clips[key];
  for (const node of clips.nodes ?? []) { delete node.mesh; delete node.skin; delete (node as { weights?: unknown }).weights; }
  for (const json of [body, clips]) if (json.buffers?.[0]) delete json.buffers[0].uri;
  return { body: toGlb(body, asset.buffers[0]), clips: toGlb(clips, asset.buffers[0]) };
}
