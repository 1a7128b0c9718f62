/**
 * The twist rig (test/helpers/twist-rig.ts) with 8 influences a vertex: each ring's two weights
 * split between JOINTS_0 / WEIGHTS_0 and JOINTS_1 / WEIGHTS_1 (the first set 0.6 of each, the
 * second 0.4), so the skin.*8 entry points draw it and a shader that dropped the second set would
 * move every vertex. Returned as a data: URL (GLB) both crowd backends load.
 */
import { assetToGlb } from '../../helpers/gltf-builder';
import { TWIST_RINGS, TWIST_SEGMENTS, twistRigModel } from '../../helpers/twist-rig';

export function eightInfluenceUrl(): string {
  const { builder, json } = twistRigModel({ held: true });
  const joints: number[] = [];
  const first: number[] = [];
  const second: number[] = [];
  for (let k = 0; k < TWIST_RINGS; k++) {
    const w = Math.min(1, Math.max(0, k * 0.25 - 0.5));
    for (let i = 0; i < TWIST_SEGMENTS; i++) {
      joints.push(0, 1, 0, 0);
      first.push(0.6 * (1 - w), 0.6 * w, 0, 0);
      second.push(0.4 * (1 - w), 0.4 * w, 0, 0);
    }
  }
  const attributes = json.meshes![0].primitives[0].attributes as Record<string, number>;
  attributes.WEIGHTS_0 = builder.addAccessor('VEC4', Float32Array.from(first));
  attributes.JOINTS_1 = builder.addAccessor('VEC4', Uint8Array.from(joints));
  attributes.WEIGHTS_1 = builder.addAccessor('VEC4', Float32Array.from(second));
  return `data:model/gltf-binary;base64,${Buffer.from(assetToGlb(builder.build())).toString('base64')}`;
}
