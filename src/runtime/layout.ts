// Over 400 lines: every byte layout shared with WGSL in one file, the one source of truth that test/runtime/layout.test.ts checks against the shaders (DESIGN.md, practice 2).
/**
 * Byte layouts of every buffer shared by TypeScript and WGSL: the one source of truth.
 * test/runtime/layout.test.ts parses the structs in shaders/*.wgsl and checks these offsets
 * against WGSL's alignment rules, so a field added on one side only fails a test.
 */

import { MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS } from '../anim/layer-stack';

/**
 * One instance's animation record (shaders/pose.wgsl `Instance`), written by the CPU only when
 * the instance changes. Clip times advance on the GPU in exact integer arithmetic (the clip
 * clock, src/runtime/clip-clock.ts): a clip's position at crowd clock `clock` is
 * phase x 2^32 + rate x ticks (mod 2^64, in 2^-64 turns of the clip), ticks = clock in
 * CLOCK_TICKS_PER_SECOND, plus speed x (the rest of the clock below one tick); so a steady crowd costs
 * no upload per frame and float32 never rounds a product of the clock.
 */
export const INSTANCE = {
  size: 112,
  world: 0, //      mat4x4f: 64 bytes (column-major model-to-world transform)
  clipA: 64, //     u32: base clip
  clipB: 68, //     u32: clip blended over A
  phaseA: 72, //    u32: clip A position at clock 0, in 2^-32 turns of the clip (time / duration x 2^32)
  phaseB: 76, //    u32: clip B position at clock 0
  speedA: 80, //    f32: playback rate of A (1 = real time, negative plays backwards)
  speedB: 84, //    f32: playback rate of B
  blend: 88, //     f32: weight of B in [0, 1] (0 = A only)
  layers: 92, //    u32: index of this instance's LAYER_STACK record (its low bits, LAYERS_INDEX), LAYERS_NONE for none; LAYERS_IDLE set: no stack applies; LAYERS_SHOWN: an impostor may show it
  rateLoA: 96, //   u32: clip A's rate, low word: speed / duration in 2^-64 turns per clock tick, a 64-bit integer mod 2^64
  rateHiA: 100, //  u32: high word
  rateLoB: 104, //  u32: clip B's rate, low word
  rateHiB: 108, //  u32: high word
} as const;
export const LAYERS_NONE = 0xffffffff;
/**
 * The top bit of an instance record's `layers` word: no stack applies to the pose, which is the
 * record's clips alone (clip A and clip B by `blend`). The control pass sets it where a GPU-driven
 * controller's output this frame is at most two clips and no action layer: it writes those as the
 * record's blend and the stack empty (the same pose: shaders/pose.wgsl blends an unmasked override
 * layer as it blends clip B), so the cull pass may route the instance to the impostors, which show
 * two clips dissolved. LAYERS_NONE has the bit, so `(layers & LAYERS_IDLE) == 0` reads "a stack
 * applies"; stack indices stay below it (InstanceStore's capacity). The CPU's copy of a record
 * never has it set for a stack: the control pass writes every GPU-driven record each frame before
 * the cull and pose passes read them.
 */
export const LAYERS_IDLE = 0x80000000;
/**
 * The next bit of an instance record's `layers` word, set on the GPU alone (the impostor feature's
 * shown pass, shaders/impostors/shown.wgsl, each frame before the cull pass; never in the CPU's
 * copy, whose uploads clear it): the stack applies (LAYERS_IDLE clear) but is a weighted blend
 * of clips the atlas holds (its override layers that weigh anything are unmasked, its additive
 * layers weigh nothing), so the cull pass may route the instance to the impostors, which show
 * its two heaviest clips dissolved (the shown record at its stack index). Stack indices stay
 * below it (InstanceStore's capacity); a pass indexing the stacks takes `layers & LAYERS_INDEX`.
 */
export const LAYERS_SHOWN = 0x40000000;
/** The stack index's bits of an instance record's `layers` word (below LAYERS_SHOWN and LAYERS_IDLE). */
export const LAYERS_INDEX = 0x3fffffff;
/** The top bit of a slot's stamp (SlotStamps): its instance is never routed to the impostors (its prop set has no atlas layer, or it has morph weights of its own: InstanceStore.setMeshOnly). */
export const SLOT_MESH_ONLY = 0x80000000;
/**
 * Why an instance is drawn only as a mesh (InstanceStore.setMeshOnly), one bit per feature that
 * says so, so that one feature's "no longer" leaves another's "still": it holds props of chosen
 * instances whose set has no atlas layer and differs from the stand-in's (CrowdImpostors marks
 * it), or morph weights of its own (CrowdMorph overrides: the atlas holds the clips' weights).
 */
export const MESH_ONLY_PROP = 1;
export const MESH_ONLY_MORPH = 2;

/** One layer of a stack (shaders/pose.wgsl `Layer`); times advance like the instance's (phase, speed, rate as there). */
export const LAYER = {
  size: 48,
  clip: 0, //       u32
  phase: 4, //      u32: clip position at clock 0, 2^-32 turns
  speed: 8, //      f32: playback rate
  weight: 12, //    f32: in [0, 1]
  mask: 16, //      u32: mask index (nodeCount f32 weights each, in the masks buffer) or MASK_NONE
  refClip: 20, //   u32: additive layers: reference clip, REFERENCE_REST (rest pose) or REFERENCE_IDENTITY (difference clips)
  refPhase: 24, //  u32: reference clip position at clock 0, 2^-32 turns
  refSpeed: 28, //  f32: reference playback rate
  rateLo: 32, //    u32: the clip's rate (INSTANCE.rateLoA), low word
  rateHi: 36, //    u32: high word
  refRateLo: 40, // u32: the reference clip's rate, low word
  refRateHi: 44, // u32: high word
} as const;
export const MASK_NONE = 0xffffffff;
export const REFERENCE_REST = 0xffffffff;
export const REFERENCE_IDENTITY = 0xfffffffe;
/**
 * Layers per stack record: override layers first, then additive layers. The two counts are
 * written once, in src/anim/layer-stack.ts (the layer-stack vocabulary, which the controllers'
 * packed stacks are sized by too); the pose, morph and control shaders get them through their
 * generated constant blocks (src/runtime/wgsl-constants.ts) and the clip events count a record's
 * playbacks from them (PLAYBACKS below), so adding a layer slot is a change of one number there
 * (then `npm run gen:wgsl`; test/runtime/wgsl-constants.test.ts fails until the shaders are
 * regenerated). Each further slot costs 48 bytes per layered instance.
 */
export { MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS };
/**
 * Playbacks per instance: clip A, clip B, the override layers, then the additive layers. A
 * playback's number is its place in that order (the first additive layer is FIRST_ADDITIVE_PLAYBACK);
 * event schedules key an instance's playbacks as id x PLAYBACKS + playback.
 */
export const PLAYBACKS = 2 + MAX_OVERRIDE_LAYERS + MAX_ADDITIVE_LAYERS;
export const FIRST_ADDITIVE_PLAYBACK = 2 + MAX_OVERRIDE_LAYERS;
export const STACK_LAYERS = MAX_OVERRIDE_LAYERS + MAX_ADDITIVE_LAYERS;

/**
 * An instance's layer stack (shaders/pose.wgsl `LayerStack`): MAX_OVERRIDE_LAYERS override
 * layers, then MAX_ADDITIVE_LAYERS additive layers. Layer holds only 4-byte fields, so it is
 * 4-byte aligned and the array follows the two counts directly: 8 + 6 x 48 = 296 bytes.
 */
export const LAYER_STACK = {
  size: 8 + STACK_LAYERS * LAYER.size,
  overrideCount: 0, // u32
  additiveCount: 4, // u32
  layers: 8, //        array<Layer, STACK_LAYERS>
} as const;

/**
 * The crowd clock's unit on the GPU: passes get the clock as a signed count of these ticks
 * (2^-20 s, about 0.95 us) for the exact integer maths of the clip clock, plus the rest below
 * one tick in float32 seconds (src/runtime/clip-clock.ts). An i32 of ticks spans +-2048 s, over
 * three times the crowd's 600 s rebase period.
 */
export const CLOCK_TICKS_PER_SECOND = 2 ** 20;

/** The pose pass's uniform block (shaders/pose.wgsl `Params`), one per dispatch. */
export const POSE_PARAMS = {
  size: 56,
  instanceCount: 0, //   u32: records this dispatch poses (direct dispatches)
  nodeCount: 4, //       u32: rig nodes per instance
  slotCount: 8, //       u32: joint matrices per instance
  clipBase: 12, //       u32: index in `tracks` of clip 0's (duration, entries, difference, 0)
  restBase: 16, //       u32: index in `tracks` of the first rest-pose vec4
  maxDepth: 20, //       u32: deepest node's depth (roots have depth 0)
  clockTicks: 24, //     i32: crowd clock in ticks (CLOCK_TICKS_PER_SECOND), rounded to the nearest
  dispatchWidth: 28, //  u32: workgroups per row of the 2D dispatch
  listBase: 32, //       u32: index in the bound instance list of this dispatch's first entry
  countIndex: 36, //     u32: COUNT_FROM_PARAMS (instanceCount holds the count), or the word of the list buffer that does
  nodeBase: 40, //       u32: index in `tracks` of node 0's (parent, depth, 0, 0)
  slotBase: 44, //       u32: index in `tracks` of joint slot 0's 5 vec4f
  clockResidual: 48, //  f32: crowd clock - clockTicks ticks, seconds (at most half a tick)
  sharedBase: 52, //     u32: the palette's first shared pose (JointPalette.size); a slot's PALETTE_SHARED entry is rewritten to its clip A's time bucket from it
} as const;
/** POSE_PARAMS.countIndex when the count is POSE_PARAMS.instanceCount (no cull pass ran). */
export const COUNT_FROM_PARAMS = 0xffffffff;

/**
 * Per rig node (shaders/pose.wgsl `Node`) and per joint slot (`JointSlot`): the character's
 * static GPU records, packed at load time by packRigData, so they are defined beside it in
 * src/bake/rig-data.ts (a layer below the runtime) and re-exported here.
 */
export { JOINT_SLOT, NODE } from '../bake/rig-data';

/** vec4f per joint slot in PosePass's tracks buffer: the inverse bind matrix's 4 columns, then (node, 0, 0, 0). */
export const SLOT_VEC4S = 5;

/**
 * One output joint matrix: model(node) * inverseBind, in model space (shaders/skin.wgsl applies
 * the instance's world transform), as the top three rows of the affine 4x4 (3 x vec4f = 48 bytes;
 * the bottom row is always 0 0 0 1). shaders/skin.wgsl reads them at (instance * slotCount + slot) * 3.
 */
export const JOINT_MATRIX_BYTES = 48;

/** vec4f per 'linear' joint record (JOINT_MATRIX_BYTES / 16), the stride pose.wgsl, skin.wgsl and prop.wgsl index by. */
export const MATRIX_VEC4S = JOINT_MATRIX_BYTES / 16;

/**
 * How a crowd skins (CrowdOptions.skinning): 'linear' blends joint matrices (linear blend
 * skinning), 'dual-quaternion' blends their rigid parts as dual quaternions (after a linear
 * blend of their scale / shear), which keeps twisted joints from collapsing. src/anim/dual-quaternion.ts
 * is the reference.
 */
export type SkinningMethod = 'linear' | 'dual-quaternion';

/**
 * One joint record in 'dual-quaternion' mode (shaders/pose.wgsl writes it, shaders/skin.wgsl
 * reads it at (instance * slotCount + slot) * 4): the joint matrix model * inverseBind (model space)
 * = [A | t] split as A = R S (R the polar rotation of A, S = R^T A its scale and shear in bind
 * space, the identity for a rigid joint). 4 vec4f = 64 bytes.
 */
export const JOINT_DQ = {
  size: 64,
  real: 0, //  vec4f: unit quaternion (x, y, z, w) of R: the real part of the dual quaternion
  rows: 16, // 3 x vec4f: the rows of [S | t] (S row i in xyz, translation component i in w)
} as const;

/** vec4f per dual-quaternion joint record (JOINT_DQ.size / 16), the stride pose.wgsl, skin.wgsl and prop.wgsl index by. */
export const DQ_VEC4S = JOINT_DQ.size / 16;

/** u32 words per vec4f record of the character's records (rest pose, clip records) that follow the track references in pose.wgsl's trackRefs, read back with bitcast. */
export const RECORD_WORDS = 4;

/** Newton steps at most of pose.wgsl's polar decomposition (a rotation converges in 1, a scale of 100 in about 5). */
export const DQ_POLAR_ITERATIONS = 16;

/**
 * Below this |det(A)| / (|A|_F / sqrt 3)^3, a joint's 3x3 counts as degenerate: defined in
 * src/anim/dual-quaternion.ts (the float64 twin, a layer below the runtime), re-exported here for
 * pose.wgsl's generated block.
 */
export { DQ_DEGENERATE_DET } from '../anim/dual-quaternion';

/** Bytes per joint of the joint buffer for each skinning method. */
export const JOINT_BYTES: Readonly<Record<SkinningMethod, number>> = { linear: JOINT_MATRIX_BYTES, 'dual-quaternion': JOINT_DQ.size };

/** `value` when it is a SkinningMethod (undefined: 'linear', unless `required`); a RangeError naming `skinning` otherwise. */
export function checkSkinning(value: unknown, required = false): SkinningMethod {
  if (value === undefined && !required) return 'linear';
  if (typeof value === 'string' && Object.hasOwn(JOINT_BYTES, value)) return value as SkinningMethod;
  throw new RangeError(`skinning must be 'linear' or 'dual-quaternion', got ${JSON.stringify(value)}`);
}

/** Per-primitive uniform block (shaders/skin.wgsl `Material`). */
export const MATERIAL = {
  size: 224,
  baseColorFactor: 0, //    vec4f: linear RGBA
  slotCount: 16, //         u32: joint matrices per instance
  metallic: 20, //          f32 in [0, 1]
  roughness: 24, //         f32 in [0, 1], perceptual
  alphaCutoff: 28, //       f32: MASK discards alpha below it
  emissive: 32, //          vec3f: linear emitted radiance (x emissive strength)
  occlusionStrength: 44, // f32 in [0, 1]
  flags: 48, //             u32: MATERIAL_FLAGS bits
  normalScale: 52, //       f32: normalTexture.scale (multiplies the map's X and Y)
  // 8 bytes of padding
  uvTransform: 64, //       array<vec4f, 10>: per texture (base, metal-rough, occlusion, emissive, normal) the rows (a, b, c, texCoord), (d, e, f, 0) of KHR_texture_transform
} as const;

/** Bits of MATERIAL.flags (skin.wgsl reads them as literals: keep in step). */
export const MATERIAL_FLAGS = { unlit: 1, mask: 2, tangents: 4 } as const;

/**
 * Camera uniform block (shaders/skin.wgsl `Camera`). ShadowPass keeps its own copy whose
 * viewProjection is the light's.
 */
export const CAMERA = {
  size: 224,
  viewProjection: 0, //       mat4x4f
  lightDirection: 64, //      vec3f: direction light travels, world space, unit length
  shadowStrength: 76, //      f32: 0 = no shadow map (lit everywhere), 1 = full shadow where occluded
  lightViewProjection: 80, // mat4x4f: world -> the shadow map's clip space
  shadowTexel: 144, //        f32: 1 / shadow map size
  shadowBias: 148, //         f32: depth bias in the map's depth units
  // 8 bytes of padding
  eye: 160, //                vec4f: camera position (w 1), or for an orthographic camera the direction towards it (w 0)
  sunColor: 176, //           vec3f: linear RGB x intensity (lights.ts)
  skyColor: 192, //           vec3f: ambient + hemisphere irradiance of a +y normal
  groundColor: 208, //        vec3f: ambient + hemisphere irradiance of a -y normal
} as const;

/**
 * Most mesh LOD levels a crowd draws (level 0 is the mesh as loaded). Each level costs one
 * indirect draw per primitive, and two instance lists (camera, shadow) of 4 bytes per instance.
 */
export const MAX_LOD_LEVELS = 4;

/**
 * The cull pass's counters (shaders/culling/cull.wgsl `counters`, u32 words), cleared before each cull:
 * instances to pose (plain, layered), then instances drawn per LOD level for the camera, then
 * per level for the shadow map.
 */
export const CULL_COUNTERS = {
  words: 5 + 2 * MAX_LOD_LEVELS,
  posePlain: 0,
  poseLayered: 1,
  camera: 2, //               + level
  shadow: 2 + MAX_LOD_LEVELS, // + level
  impostor: 2 + 2 * MAX_LOD_LEVELS, // instances drawn as impostors (CULL_PARAMS.impostorDistance; a feature draws them)
  band: 3 + 2 * MAX_LOD_LEVELS, //    instances in the impostor band (CULL_PARAMS.impostorBand): drawn both ways, faded
  dot: 4 + 2 * MAX_LOD_LEVELS, //     impostors drawn as dots (CULL_PARAMS.impostorDot), listed from the impostor list's end
} as const;

/**
 * The indirect-arguments buffer the cull pass fills (u32 words): two dispatchWorkgroupsIndirect
 * triples (plain, layered pose dispatches), then one drawIndexedIndirect quintuple (indexCount,
 * instanceCount, firstIndex, baseVertex, firstInstance) per (list, level, primitive), list 0 the
 * camera and 1 the shadow map: word CULL_ARGS.draws + ((list * levels + level) * primitives + primitive) * 5;
 * then the impostor list's drawIndexedIndirect quintuple (CullPass.impostorArgsOffset; instances of
 * IMPOSTOR_CHUNK quads), the band's impostors' one,
 * one drawIndexedIndirect quintuple per primitive for the band's meshes (at the band's level), the
 * dots' drawIndirect quadruple (vertexCount, instanceCount, firstVertex, firstInstance: a point a
 * dot, firstVertex where the dots begin in the impostor list) and their dispatchWorkgroupsIndirect
 * triple (DOT_WORKGROUP dots a workgroup: the impostor feature's pass that lists the dots that
 * light a sample, impostor.wgsl listDots), and,
 * while impostors are routed, the impostor list itself from CULL_PARAMS.impostorList (a 256-byte
 * boundary, listStride slots: the impostors from its start, the dots from its end), then the band list from CULL_PARAMS.bandList (listStride slots,
 * then listStride fades as f32 bits by slot).
 */
export const CULL_ARGS = {
  posePlain: 0,
  poseLayered: 3,
  draws: 6,
  drawWords: 5,
  impostorWords: 5,
  dotWords: 7,
} as const;

/** Dots a workgroup of impostor.wgsl listDots (the cull pass's finalize writes its dispatch: CULL_ARGS, the dots' triple). */
export const DOT_WORKGROUP = 64;

/**
 * Indices an impostor draws: one quad, two triangles of an indexed triangle list over its 4
 * vertices (the cull stats count them). The cull stats' "vertices" are indices drawn, as a mesh's.
 */
export const IMPOSTOR_VERTICES = 6;

/**
 * Quads an instance of the impostor draw holds (shaders/culling/cull.wgsl impostorArgs): one
 * indexed draw of the count's chunks of IMPOSTOR_CHUNK quads (4 vertices and 6 u16 indices each,
 * ImpostorPass's index buffer, 48 KiB) as instances, the last chunk's quads past the count
 * (impostor.wgsl reads it from the cull counters) drawn off screen; the vertex shader takes the
 * impostor from instance x IMPOSTOR_CHUNK + vertex / 4. A quad an instance, a million in view took
 * 8.5x the frame on SwiftShader, which sets up each instance as a draw of its own; a non-indexed
 * list of 6 vertices a quad ran the vertex shader 6 times a quad, indexed it runs 4 times (0.86x
 * the frame; docs/impostors.md).
 */
export const IMPOSTOR_CHUNK = 4096;

/** Flags of CULL_PARAMS.flags. */
export const CULL_FRUSTUM = 1; //    test the camera frustum and the distance limit (else every instance is visible)
export const CULL_LOD = 2; //        choose mesh LOD levels by distance (else level 0)
export const CULL_ANIMATION_LOD = 4; // pose far instances every 2nd / 4th frame (else every frame)
export const CULL_SHADOWS = 8; //    build the shadow-caster lists (light frustum)
/** CULL_PARAMS.forcedLevel when the level is chosen by distance. */
export const LOD_NOT_FORCED = 0xffffffff;

/**
 * The cull pass's uniform block (shaders/culling/cull.wgsl `CullParams`), written once per frame.
 * Planes are (unit normal, d): a point p is inside when dot(normal, p) + d >= 0.
 * Distances are world units divided by the instance's scale (the largest column norm of its
 * world matrix), so one threshold serves instances of every size.
 */
export const CULL_PARAMS = {
  size: 480,
  planes: 0, //             array<vec4f, 6>: camera frustum (left, right, bottom, top, near, far)
  lightPlanes: 96, //       array<vec4f, 6>: the shadow map's light frustum
  cameraPosition: 192, //   vec3f: world
  maxDistance: 204, //      f32: instances whose bounds start farther than this (world units) are culled
  boxCentre: 208, //        vec3f: model-space centre of the bounds of instances without a layer stack
  instanceCount: 220, //    u32
  boxHalf: 224, //          vec3f: half extents of that box
  plainCount: 236, //       u32: instances in slots [0, plainCount) have no layer stack
  layeredCentre: 240, //    vec3f: bounds of instances with a layer stack
  frame: 252, //            u32: frame counter (animation LOD phases)
  layeredHalf: 256, //      vec3f
  listStride: 268, //       u32: entries per instance list (a multiple of 64)
  lodDistances: 272, //     vec4f: distance / scale at which levels 1..4 begin (3.4e38 when absent)
  animationDistances: 288, // vec4f: distance / scale beyond which instances are posed every 2nd (x), 4th (y) frame
  flags: 304, //            u32: CULL_* flags
  levels: 308, //           u32: LOD levels drawn, 1..MAX_LOD_LEVELS
  primitives: 312, //       u32: mesh primitives (draws per level)
  shadowLodBias: 316, //    u32: shadow casters draw level + this (clamped)
  forcedLevel: 320, //      u32: LOD_NOT_FORCED, or the level every instance draws
  dispatchWidth: 324, //    u32: workgroups per row of the 2D cull dispatch, and the pose dispatches it writes
  impostorDistance: 328, // f32: visible instances from this distance / scale on go to the impostor list, unposed (3.4e38: none)
  impostorList: 332, //     u32: word of the args buffer where the impostor list starts (CullPass.impostorListOffset / 4)
  impostorBand: 336, //     f32: visible instances from this distance / scale up to impostorDistance are in the band: drawn as both, faded (= impostorDistance: no band)
  bandList: 340, //         u32: word of the args buffer where the band list starts (CullPass.bandListOffset / 4)
  bandLevel: 344, //        u32: the LOD level the band's meshes draw (below levels)
  impostorDot: 348, //      f32: impostors from this distance / scale on are drawn as dots, listed from the impostor list's end (3.4e38: none)
  impostorClips: 352, //    array<vec4u, 8>: bit c (word c / 32, bit c % 32) set: clip c is in the impostor atlas; an instance showing another clip is never routed (IMPOSTOR_CLIPS clips)
} as const;

/** Clips the cull pass's impostor clip mask holds (CULL_PARAMS.impostorClips: 32 words); an instance showing a clip past them is never routed to impostors. */
export const IMPOSTOR_CLIPS = 1024;

/** Per (level, primitive) of the LOD index ranges (shaders/culling/cull.wgsl `LodRange`). */
export const LOD_RANGE = {
  size: 8,
  indexCount: 0, // u32
  firstIndex: 4, // u32
} as const;

/*
 * The control pass (shaders/controllers/control.wgsl): GPU-driven animation controllers. The CPU writes a
 * CONTROL_INPUT per controlled handle on events (the discrete state of src/anim/control as of
 * the crowd clock `clock`); the pass integrates CONTROL_STATE (locomotion) every frame and
 * writes the instance record and layer stack that the pose pass reads.
 */

/** Enumerations and limits of the control records (the values src/anim/control uses too; test/runtime/wgsl-constants.test.ts compares). */
export const CONTROL = {
  /** Source kinds. */
  SOURCE_CLIP: 0,
  SOURCE_LOCOMOTION: 1,
  /** Playback flags: loops (else clamps), held at its first frame, clock stopped. */
  PLAY_LOOP: 1,
  PLAY_HOLD: 2,
  PLAY_FROZEN: 4,
  /** Action phases. */
  ACTION_NONE: 0,
  ACTION_IN: 1,
  ACTION_PLAY: 2,
  ACTION_OUT: 3,
  /** Locomotion input modes. */
  INPUT_NONE: 0,
  INPUT_SPEED: 1,
  INPUT_DIRECTION: 2,
  /** Curves: linear, cubic, or CURVE_TABLE + the index of a sampled table. */
  CURVE_LINEAR: 0,
  CURVE_CUBIC: 1,
  CURVE_TABLE: 2,
  /** Weights per sampled curve table (u = i / (CURVE_SAMPLES - 1)). */
  CURVE_SAMPLES: 256,
  /** Fades in flight per controller (Crossfader's MAX_FADES). */
  MAX_FADES: 3,
  /** Clips in the flattened weighted average (output.ts MAX_BLEND). */
  MAX_BLEND: 4,
  /** No action / no clip. */
  NO_INDEX: 0xffffffff,
} as const;

/** Seconds a clamped clip holds before its end (playback.ts HOLD_SECONDS). */
export const CONTROL_HOLD_SECONDS = 1e-4;
/** actionOutTime of an action that never ends (a clip at speed 0): a finite stand-in for Infinity, which WGSL may not hold. */
export const CONTROL_ACTION_NEVER = 3e38;

/** Relative tolerance under which a desired speed counts as the current one (locomotion.ts SPEED_TIE). */
export const CONTROL_SPEED_TIE = 1e-5;

/** A pose source (shaders/controllers/control.wgsl `Source`): 5 x 4 bytes. */
export const CONTROL_SOURCE = {
  size: 20,
  kind: 0, //   u32: SOURCE_CLIP or SOURCE_LOCOMOTION
  clip: 4, //   u32
  time: 8, //   f32: seconds, at the record's clock
  speed: 12, // f32: playback rate
  flags: 16, // u32: PLAY_LOOP | PLAY_HOLD | PLAY_FROZEN
} as const;

/** A fade in flight (`Fade`): its target source, then 4 x 4 bytes. */
export const CONTROL_FADE = {
  size: 36,
  source: 0, //     Source
  elapsed: 20, //   f32: seconds since the fade began, at the record's clock
  duration: 24, //  f32: seconds (> 0)
  curve: 28, //     u32: CURVE_*
  reversing: 32, // u32: 1 while running back
} as const;

/** One controller's discrete state (`ControlInput`), per handle. */
export const CONTROL_INPUT = {
  size: 264,
  clock: 0, //               f32: control clock when written, seconds since the start of its basis period
  basis: 4, //               u32: parity of that period (ControlParams.clock0 / clock1 give now in each)
  epoch: 8, //               u32: a change (re)initialises the locomotion state from start*
  hasLocomotion: 12, //      u32: 0 or 1
  fadeCount: 16, //          u32: 0..MAX_FADES
  current: 20, //            Source
  fades: 40, //              array<Fade, MAX_FADES>
  actionPhase: 148, //       u32: ACTION_*
  action: 152, //            u32: action index
  actionTime: 156, //        f32: seconds since the action was requested (its phases are intervals of it)
  actionPlay: 160, //        Source: the action's clip (clamped)
  previousAction: 180, //    u32: handed-over action, or NO_INDEX
  previousStartWeight: 184, // f32: its weight at the handover
  previousPlay: 188, //      Source
  inputMode: 208, //         u32: INPUT_*
  desiredParameter: 212, //  f32: speed parameter in [0, 2] (INPUT_SPEED)
  inputX: 216, //            f32: world direction (INPUT_DIRECTION), length <= 1
  inputZ: 220, //            f32
  running: 224, //           u32: 0 or 1
  startX: 228, //            f32: position and heading the state starts from on a new epoch (model units, radians)
  startZ: 232, //            f32
  startHeading: 236, //      f32: radians about +y, 0 faces +z
  hasFacing: 240, //         u32: 1 while face() keeps a heading (strafing), else 0
  facing: 244, //            f32: that heading, radians
  startVelocityX: 248, //    f32: velocity the state starts from on a new epoch, units per second
  startVelocityZ: 252, //    f32
  startPhase: 256, //        f32: normalised blend phase it starts from, [0, 1)
  actionOutTime: 260, //     f32: actionTime at which the action fades out (ACTION_NEVER: never)
} as const;

/**
 * The kernel's locomotion channel (WGSL `LocomotionDrive`, LOCOMOTION_DRIVE_STRUCT): one record per
 * instance handle in a GPU buffer that one feature writes (CrowdFeature.locomotionDrive: steering)
 * and another reads (CrowdKernel.locomotionDrive: the controllers' control pass), so neither names
 * the other. Written in FeatureStage 'drive', read in 'control' of the same encode. While `driven`
 * is 1 the writer owns the instance's placement (it writes the world matrix); the reader takes
 * the ground motion as its locomotion (blend, clip rates) and leaves the placement alone.
 */
export const LOCOMOTION_DRIVE = {
  size: 32,
  x: 0, //        f32: position on the ground plane after this frame's step, model units
  z: 4, //        f32
  heading: 8, //  f32: facing, radians about +y (0 faces +z)
  forward: 12, // f32: velocity along the facing, units per second (negative: backing up)
  right: 16, //   f32: velocity to the right of the facing (sin(h - pi/2), cos(h - pi/2) = (-cos h, sin h)), units per second
  driven: 20, //  u32: 1 while the writer drives this handle, else 0
  // 8 bytes of padding
} as const;

/** One controller's integrated locomotion (`ControlState`), per handle, written by the GPU only. */
export const CONTROL_STATE = {
  size: 32,
  x: 0, //         f32: position on the ground plane, model units
  z: 4, //         f32
  velocityX: 8, // f32: units per second
  velocityZ: 12, // f32
  heading: 16, //  f32: radians
  phase: 20, //    f32: normalised blend phase in [0, 1)
  epoch: 24, //    u32
  // 4 bytes of padding
} as const;

/** The control pass's uniform block (`ControlParams`). */
export const CONTROL_PARAMS = {
  size: 52,
  count: 0, //       u32: controllers evaluated
  crowdTicks: 4, //  i32: the crowd clock the pose records are written against, in ticks (POSE_PARAMS.clockTicks)
  dt: 8, //          f32: seconds since the last frame (locomotion integration)
  updateCount: 12, // u32: rewritten inputs to apply first
  clipBase: 16, //   u32: model-table offsets (shaders/controllers/control.wgsl `model`)
  actionBase: 20, // u32
  curveBase: 24, //  u32
  locoBase: 28, //   u32
  clock0: 32, //     f32: control clock now, seconds since the start of the latest even period
  clock1: 36, //     f32: the same for the latest odd period
  planeBase: 40, //  u32: model-table offset of the 2D locomotion blend space, NO_INDEX for none
  rootBase: 44, //   u32: model-table offset of the clips' root displacements (rate matching), NO_INDEX for none
  crowdResidual: 48, // f32: the rest of that crowd clock, seconds (POSE_PARAMS.clockResidual)
} as const;

/** One rewritten input (`Update`): the handle, then the ControlInput. */
export const CONTROL_UPDATE = {
  size: 4 + 264,
  handle: 0, // u32
  input: 4, //  ControlInput
} as const;

/*
 * The prop pass (shaders/props/prop.wgsl): props attached to a joint (CrowdProps.attach). Per attachment
 * and frame it places the prop of every drawn instance at world * jointMatrix * local and lists
 * the instances to draw; SkinPass draws the prop from those records.
 */

/** Flags of PROP_PARAMS.flags. */
export const PROP_CULLED = 1; //   the cull pass ran: entries come from its camera lists (else slot = entry)
export const PROP_SELECTED = 2; // only instances marked in the selection this frame get the prop (else every one)
/** A free handle in InstanceStore.handleSlotBuffer (the store's Int32Array holds -1: the same 32 bits). prop.wgsl and root-motion.wgsl get it by this name. */
export const HANDLE_FREE = 0xffffffff;

/** The prop pass's uniform block (shaders/props/prop.wgsl `PropParams`), one per attachment, written each frame. */
export const PROP_PARAMS = {
  size: 128,
  local: 0, //          mat4x4f: joint matrix -> prop placement in model space: inverse(inverseBind) * offset
  lengths: 64, //       vec4u: entries per LOD level's list (culled: copied from the cull counters; else (count, 0, 0, 0))
  listStride: 80, //    u32: entries per list (the store's listStride), and the word of the prop list's length
  slotCount: 84, //     u32: joint matrices per instance
  joint: 88, //         u32: joint slot the prop follows
  levels: 92, //        u32: lists to read, 1..MAX_LOD_LEVELS (the z of the dispatch)
  flags: 96, //         u32: PROP_* flags
  frame: 100, //        u32: this frame's mark (never 0); a selected slot holds it in the selection
  selectedCount: 104, // u32: handles in the selection (after its listStride marks)
  dispatchWidth: 108, // u32: workgroups per row of the 2D dispatch
  bandLength: 112, //   u32: slots in the impostor band's list (placeBand; copied from the cull counters)
} as const;

/*
 * The root-motion pass (shaders/root-motion/root-motion.wgsl): for a crowd whose character was loaded with
 * rootMotion mode 'apply', it writes each moving instance's world = anchor * M every frame, M the
 * motion of its clips since the anchor in closed form (src/anim/root-motion.ts is the CPU twin).
 */

/** One handle's anchor (shaders/root-motion/root-motion.wgsl `Anchor`), written by the CPU on events only. */
export const ROOT_ANCHOR = {
  size: 80,
  world: 0, //  mat4x4f: model-to-world at the anchor (column-major)
  clock: 64, // f32: crowd clock at the anchor, seconds in the current clock period
  timeA: 68, // f32: clip A time at the anchor, seconds, wrapped into [0, duration)
  timeB: 72, // f32: clip B time at the anchor
  moves: 76, // u32: 1 when the pass writes this handle's world, 0 when something else places it
} as const;

/** The root-motion pass's uniform block (`RootParams`). */
export const ROOT_MOTION_PARAMS = {
  size: 16,
  handleCount: 0, // u32: handles to visit (InstanceStore.handleCount)
  clock: 4, //       f32: crowd clock now, seconds
  trackBase: 8, //   u32: vec4 index in `tables` of the first track entry (clip c's facts are vec4s 2c and 2c + 1)
  clipCount: 12, //  u32
} as const;

/*
 * Morph targets (src/features/morph/morph-pass.ts, shaders/morph/morph.wgsl, the morph entry points of
 * shaders/skin.wgsl). Per instance a padded vector of BakedMorph.weightCount f32 weights (vec4
 * groups; morph set m's targets from BakedMorph.setBase[m]): the CPU writes overrides, the morph
 * pass writes the weights the vertex shader reads.
 */

/** An override weight that means "not overridden: the animated value" (valid overrides are in [0, 1]). */
export const MORPH_ANIMATED = -1;

/** The morph pass's uniform block (shaders/morph/morph.wgsl `MorphParams`). */
export const MORPH_PARAMS = {
  size: 36,
  count: 0, //         u32: instances, slots [0, count)
  groups: 4, //        u32: vec4 weight groups per instance
  clockTicks: 8, //    i32: crowd clock in ticks (POSE_PARAMS.clockTicks)
  dispatchWidth: 12, // u32: threads per row of the 2D dispatch
  nodeCount: 16, //    u32: rig nodes (mask width)
  restBase: 20, //     u32: index in `tables` of the default weights (groups vec4f)
  clipBase: 24, //     u32: index in `tables` of clip 0's (duration, entries, difference, 0)
  maskBase: 28, //     u32: index in `refs` of each group's mask node
  clockResidual: 32, // f32: the rest of the crowd clock, seconds (POSE_PARAMS.clockResidual)
} as const;

/**
 * Header of a primitive's morph-target buffer (shaders/skin.wgsl `MorphHeader`), followed by
 * the displacements: per vertex, per target, the POSITION displacement (x, y, z, 0), then when
 * `normals` is 1 the NORMAL one: vec4f index (vertex * targetCount + t) * (1 + normals).
 */
export const MORPH_HEADER = {
  size: 16,
  weightBase: 0, //   u32: first weight of the primitive's morph set in an instance's weights
  targetCount: 4, //  u32: targets of the set (0: a primitive without targets, nothing read)
  weightStride: 8, // u32: weights per instance (BakedMorph.weightCount)
  normals: 12, //     u32: 1 when NORMAL displacements follow each POSITION one, else 0
} as const;

/**
 * The joint-matrix palette (src/runtime/culling/palette-pass.ts): per instance slot a u32 entry,
 * the joint set its pose is written to and read from. Below PALETTE_SHARED an entry of its own
 * (held while the instance is drawn, given back when it is not); with PALETTE_SHARED set, a
 * shared pose (clip, time bucket) it draws while the palette has no free entry; PALETTE_NONE
 * when it holds none. Readers mask with PALETTE_INDEX_MASK.
 */
export const PALETTE_NONE = 0xffffffff;
export const PALETTE_SHARED = 0x80000000;
export const PALETTE_INDEX_MASK = 0x7fffffff;
/** Shared poses per clip: clip time buckets of duration / PALETTE_BUCKETS, a power of two (the bucket is the top PALETTE_BUCKET_BITS of the clip position). */
export const PALETTE_BUCKET_BITS = 4;
export const PALETTE_BUCKETS = 1 << PALETTE_BUCKET_BITS;
/** Frames a released entry's pose state is put back by, so that the cull pass finds it due at any animation-LOD step (at most 4). */
export const PALETTE_STALE_FRAMES = 8;

/** The palette pass's uniform block (shaders/culling/palette.wgsl `PaletteParams`), one per list dispatch (256 bytes apart). */
export const PALETTE_PARAMS = {
  size: 48,
  stride: 256, //       bytes between the blocks of consecutive dispatches (minUniformBufferOffsetAlignment)
  frame: 0, //          u32: the cull pass's frame counter
  slotTotal: 4, //      u32: slots the release dispatch walks (the store's listStride)
  count: 8, //          u32: live instances (slots at and above it give their entries back)
  listStride: 12, //    u32: entries per draw list
  list: 16, //          u32: which draw list this dispatch walks (camera levels, then shadow levels, then = lists: the impostor band's, bound alone)
  lists: 20, //         u32: draw lists in the store (2 x levels)
  sharedBase: 24, //    u32: first shared entry (the palette size)
  clockTicks: 28, //    i32: crowd clock in ticks (the shared pose's time bucket)
  dispatchWidth: 32, // u32: workgroups per row of the indirect 2D grids
  pad: 36,
} as const;

/** The palette's free-stack buffer (u32 words): the count of free entries (an i32 atomic), padding, then the stack. */
export const PALETTE_FREE = {
  count: 0,
  stack: 4, // word of the first stacked entry
} as const;
