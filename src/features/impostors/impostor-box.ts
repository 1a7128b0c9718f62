import { mat4d } from 'wgpu-matrix';
import { CpuPoser } from '../../anim/evaluate';
import { dualQuaternionJoints, skinVertexDualQuaternion } from '../../anim/dual-quaternion';
import { sampleLut, sampleMorphLut } from '../../anim/lut';
import { morphPrimitive } from '../../anim/morph';
import { skinPositions } from '../../anim/skinning';
import { resolveClip } from '../../bake/clip-names';
import { restPose } from '../../bake/sampler';
import type { Character } from '../../character/character';
import { show } from '../../math/show';
import type { HeldProp, HeldProps } from '../../runtime/held-props';
import { AtlasGrid, type PoseBoxes } from './impostor-atlas';
import { allUnlit, emissiveScale, hasOcclusion, uniformSurface } from './impostor-materials';
import type { ImpostorOptions } from './types';

/**
 * ImpostorOptions.clips resolved against `character`: its clip indices in the order given (every
 * clip, in order, when undefined). A TypeError or RangeError naming `impostors.clips` for anything
 * but a non-empty array of the character's clip names or indices, each once.
 */
export function bakedClips(character: Character, clips: unknown): number[] {
  if (clips === undefined) return Array.from(character.clipDurations, (_, c) => c);
  if (!Array.isArray(clips)) throw new TypeError(`impostors.clips must be an array of clip names or indices, got ${show(clips)}`);
  if (clips.length === 0) throw new RangeError('impostors.clips must name at least one clip, got []');
  const indices = clips.map((clip) => resolveClip(character.clipNames, clip, { where: 'impostors.clips', model: character.name }));
  indices.forEach((c, i) => {
    if (indices.indexOf(c) !== i) throw new RangeError(`impostors.clips names clip ${c} ("${character.clipNames[c]}") twice`);
  });
  return indices;
}

/**
 * Share of the box's diagonal added on every side: room for the GPU's float32 pose and skinning
 * against this float64 twin (within 1e-5 of the diagonal) and for the bake's outline filter (a
 * texel: at the defaults under 0.5% of a cell's side), so that no cell cuts its character.
 */
export const IMPOSTOR_BOX_MARGIN = 0.01;

/**
 * The model-space box the impostor atlas frames (6 numbers: min x, y, z, max x, y, z): every
 * vertex of the character as the bake draws it, posed at each baked frame of each of `clips` (frame f
 * of `frames` at f / frames of the clip's duration, from the lookup tables as the pose pass reads
 * them), skinned linearly and with dual quaternions (the crowd may switch between them; the bake
 * draws the crowd's current one), widened by IMPOSTOR_BOX_MARGIN of its diagonal on every side.
 * With the props every instance holds (`props`: CrowdProps.heldByAll, which the bake draws), every
 * vertex of each prop in its rest pose, placed at its joint's matrix x its local placement.
 * Morphed by the clip's morph weights at the frame, as the bake draws a crowd with CrowdMorph
 * (without it the bake draws the unmorphed mesh, inside this box's margin of the morphs a clip
 * animates). Level 0's vertices hold every LOD level's (the levels index the same vertices).
 *
 * Why not CharacterBounds.box: that box holds each joint's sphere of influence, made to hold any
 * pose and any morph weight, and so is larger than the drawn character: 1.09x the Fox's diagonal,
 * 2.51x RobotExpressive's (its head's sphere 7x wider for the morph reach). The cells frame their box's projection and the
 * switch measures its sphere, so a larger box spends the atlas's texels on empty space and
 * switches to the impostor only when the character is that much smaller on screen.
 *
 * Costs one CPU pose and two skins of every vertex per baked frame, twice that for morphed
 * primitives (the Fox's 3 clips at 16 frames: 48 poses of 1,728 vertices).
 */
export function impostorBox(character: Character, frames: number, clips: readonly number[] = bakedClips(character, undefined), props: readonly HeldProp[] = []): Float64Array {
  return impostorBoxes(character, frames, clips, props).box;
}

/** impostorBox's box and each pose's own (6 numbers a pose at pose x 6, pose clip x frames + frame, each widened by the same margin): what the character covers at that frame alone. */
export function impostorBoxes(character: Character, frames: number, clips: readonly number[] = bakedClips(character, undefined), props: readonly HeldProp[] = []): { box: Float64Array; poses: Float64Array } {
  const { rig, baked, clipDurations } = character;
  const poseBoxes = new Float64Array(6 * clips.length * frames);
  let box = poseBoxes.subarray(0, 6);
  // The CPU twin of the pose pass over the lookup tables (what the bake's pose pass reads).
  const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
  const joints = rig.skins.map((skin) => new Float64Array(skin.joints.length * 16));
  const records = rig.skins.map((skin) => new Float64Array(skin.joints.length * 16));
  // Dual-quaternion skinning moves only vertices of two influences or more (one influence: exactly M v, as linear).
  const blended = rig.primitives.map((p) => {
    for (let v = 0; v < p.vertexCount; v++) {
      let used = 0;
      for (let k = 0; k < p.influences; k++) if (p.weights[v * p.influences + k] !== 0) used++;
      if (used > 1) return true;
    }
    return false;
  });
  const morph = baked.morph;
  const weights = new Float64Array(morph?.weightCount ?? 0);
  const largest = Math.max(0, ...rig.primitives.map((p) => p.vertexCount)) * 3;
  const morphed = new Float64Array(largest);
  const positions = new Float64Array(largest);
  const grow = (count: number, points = positions) => {
    for (let v = 0; v < 3 * count; v += 3) {
      for (let c = 0; c < 3; c++) {
        const x = points[v + c];
        if (x < box[c]) box[c] = x;
        if (x > box[c + 3]) box[c + 3] = x;
      }
    }
  };
  // Each prop's rest-pose vertices (its model space), its joint's (skin, index) and a scratch for them placed.
  const held = props.map((h) => {
    const rest = propRestPositions(h.prop);
    let skin = 0;
    while (skin + 1 < rig.skins.length && character.gpu.skinSlotOffset[skin + 1] <= h.slot) skin++;
    return { rest, local: h.local, skin, joint: h.slot - character.gpu.skinSlotOffset[skin], placed: new Float64Array(rest.length) };
  });
  const placement = new Float64Array(16);
  let pose = 0;
  for (const clip of clips) {
    for (let frame = 0; frame < frames; frame++, pose++) {
      box = poseBoxes.subarray(6 * pose, 6 * pose + 6);
      box.set([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
      const time = (frame / frames) * clipDurations[clip];
      poser.evaluate({ clipA: clip, timeA: time });
      if (morph) sampleMorphLut(baked, clip, time, weights);
      rig.skins.forEach((_, s) => dualQuaternionJoints(poser.jointMatrices(s, joints[s]), records[s]));
      rig.primitives.forEach((prim, p) => {
        // The unmorphed mesh (a crowd without CrowdMorph bakes it), then the morphed one.
        const sources = morph && prim.morph ? [prim.positions, morphPrimitive(prim, weights, morph.setBase, morphed)] : [prim.positions];
        for (const source of sources) {
          skinPositions(prim, joints[prim.skin], positions, 0, source);
          grow(prim.vertexCount);
          if (!blended[p]) continue;
          for (let v = 0; v < prim.vertexCount; v++) {
            skinVertexDualQuaternion(records[prim.skin], prim.joints, prim.weights, v * prim.influences, prim.influences, source, v * 3, positions, v * 3);
          }
          grow(prim.vertexCount);
        }
      });
      // The props: joint matrix x local x rest vertex (as prop.wgsl places them and the prop's skin pass draws them).
      for (const h of held) {
        mat4d.multiply(joints[h.skin].subarray(h.joint * 16, h.joint * 16 + 16), h.local, placement);
        transformPoints(placement, h.rest, h.placed);
        grow(h.rest.length / 3, h.placed);
      }
    }
  }
  const union = Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
  for (let p = 0; p < pose; p++) {
    for (let c = 0; c < 3; c++) {
      union[c] = Math.min(union[c], poseBoxes[6 * p + c]);
      union[c + 3] = Math.max(union[c + 3], poseBoxes[6 * p + c + 3]);
    }
  }
  if (!(union[0] <= union[3])) throw new RangeError(`impostors: ${character.name} has no vertices to frame`);
  const margin = IMPOSTOR_BOX_MARGIN * Math.hypot(union[3] - union[0], union[4] - union[1], union[5] - union[2]);
  for (const b of [union, ...Array.from({ length: pose }, (_, p) => poseBoxes.subarray(6 * p, 6 * p + 6))]) {
    for (let c = 0; c < 3; c++) {
      b[c] -= margin;
      b[c + 3] += margin;
    }
  }
  return { box: union, poses: poseBoxes };
}

/** A prop's vertices in its rest pose (every primitive's, 3 numbers each), as CrowdProps draws it: skinned by its rest joint matrices. */
function propRestPositions(prop: Character): Float64Array {
  const rig = prop.rig;
  const poser = new CpuPoser(rig, (_clip, _time, out) => restPose(rig.nodes, out));
  poser.evaluate({ clipA: 0, timeA: 0 });
  return poser.positions(rig.primitives);
}

/** `out` = `m` (column-major 4x4, affine) applied to each point of `points` (3 numbers each). */
function transformPoints(m: ArrayLike<number>, points: Float64Array, out: Float64Array): void {
  for (let v = 0; v < points.length; v += 3) {
    const x = points[v], y = points[v + 1], z = points[v + 2];
    for (let c = 0; c < 3; c++) out[v + c] = m[c] * x + m[c + 4] * y + m[c + 8] * z + m[c + 12];
  }
}

/**
 * The atlas's layout for `clips` (resolved) of the crowd's character holding `held` (heldInAtlas:
 * the first `byAll` every instance's, CrowdProps.heldByAll, then chosen instances') under
 * `options` (checked by name: a RangeError or TypeError). With props of chosen instances, each
 * pose's box is also found without them (PoseBoxes.plainPoses: one more CPU pose a baked frame).
 */
export function atlasGrid(crowd: { readonly device: GPUDevice; readonly character: Character }, options: ImpostorOptions, clips: readonly number[], held: readonly HeldProp[], byAll = held.length): AtlasGrid {
  const limits = crowd.device.limits;
  const materials = [crowd.character, ...held.map((h) => h.prop)].flatMap((c) => c.rig.primitives.map((p) => p.material));
  const boxes = (frames: number): PoseBoxes => {
    const all = impostorBoxes(crowd.character, frames, clips, held);
    return byAll < held.length ? { ...all, plainPoses: impostorBoxes(crowd.character, frames, clips, held.slice(0, byAll)).poses } : all;
  };
  return new AtlasGrid(clips.length, boxes, limits.maxTextureDimension2D, options, limits.maxTextureArrayLayers, {
    surface: uniformSurface(materials), tintMask: held.length > 0, unlit: allUnlit(materials), emissiveScale: emissiveScale(materials), occlusion: hasOcclusion(materials),
  });
}

/**
 * The props an atlas of `capacity` layers holds (CrowdProps; the box takes their reach, the bake
 * draws them): every instance's, then, where a second look fits, chosen instances' (their sets
 * need layers of their own; with one layer their holders are meshes, and their reach would only
 * coarsen every cell and move the switch).
 */
export function heldInAtlas(props: HeldProps | undefined, capacity: number): readonly HeldProp[] {
  if (!props) return [];
  return capacity > 1 ? [...props.heldByAll, ...props.heldByChosen] : props.heldByAll;
}

/** The atlas's layout for `clips` (atlasGrid) with the props an atlas of its capacity holds (heldInAtlas): laid out twice where those include props of chosen instances. */
export function propsGrid(crowd: { readonly device: GPUDevice; readonly character: Character }, options: ImpostorOptions, clips: readonly number[], props: HeldProps | undefined): AtlasGrid {
  const grid = atlasGrid(crowd, options, clips, props?.heldByAll ?? []);
  const held = heldInAtlas(props, grid.capacity), byAll = props?.heldByAll.length ?? 0;
  return held.length > byAll ? atlasGrid(crowd, options, clips, held, byAll) : grid;
}
