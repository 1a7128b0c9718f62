/**
 * crowd-skin: instanced skinned animation for WebGPU, with a WebGL 2 path where WebGPU is missing.
 *
 *   const character = await loadCharacter('/models/Fox/Fox.glb');
 *   const crowd = new Crowd(device, character, { colorFormat, depthFormat });
 *   crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, transform });
 *   const props = new CrowdProps(crowd); // features: objects made from the crowd
 *   // each frame:
 *   crowd.update(dt); crowd.setCamera(viewProjection, eye); crowd.encode(encoder); crowd.draw(renderPass, viewProjection);
 *
 * The public API: every value here is something you construct or call, and every type is one a
 * public method takes or returns. Nothing else in src/ is a stable API.
 */

// Loading: a glTF file -> a validated, baked Character.
export { loadCharacter, type Character, type LoadOptions, type MorphTargetInfo } from './character/character';
export { loadClips, type ClipLoadOptions, type ClipSource } from './character/clips';
export type { ClipBinding, ClipLibrary, HumanoidBinding, JointNameMap } from './bake/clip-library';
export type { CharacterBounds } from './bake/bounds';
export type { MeshLods } from './bake/mesh-lod';
export type { MeshLodOptions, MeshSimplifier } from './bake/mesh-lod-options';
export { MeshoptSimplifier } from './bake/meshopt-simplifier';
export { MeshoptDecoder } from './bake/meshopt-decoder';
export { dracoDecoder } from './bake/draco-decoder';
export { ktx2Decoder } from './runtime/ktx2-decoder';
export type { BlockFormat, Ktx2Texture } from './bake/decode-ktx2';
export type { Decoders, GltfDecoder } from './bake/extensions';
export type { DrawOrder } from './bake/draw-order';
export { ModelError } from './bake/errors';
export type { EncodedImage } from './bake/gltf-json';
export type { ResourceReader } from './bake/parse';
export type { BakedRootMotion, RootMotionMode, RootMotionOptions, RootMotionTranslation } from './bake/root-motion';
export { rootMotionAt, rootMotionBetween } from './anim/root-motion';

// The crowd: instances of one Character, posed on the GPU and drawn in one call per primitive.
export {
  Crowd, type AnimationState, type CameraOptions, type CrowdOptions, type CrowdTargetFormats, type CullStats, type InstanceId, type InstanceInit,
  type LayersInit, type MorphWeights, type ShadowOptions,
} from './runtime/crowd';
// One page, both backends (issue 37): a crowd made from a canvas on WebGPU where it works, on WebGL 2 where it does not (docs/webgl2.md).
export { createCrowd, BackendUnavailableError, type CanvasCrowd, type CanvasCrowdOptions, type CrowdBackend } from './webgl2/create-crowd';
export { GPUCanvasCrowd, type ClearColor } from './webgl2/canvas-crowd';
// Types only: the WebGL 2 classes are values in `crowd-skin/webgl2` (src/webgl2/index.ts) and behind createCrowd's dynamic
// import, so that a page on WebGPU does not carry them (docs/webgl2.md, "Loaded on demand").
export type { GLCanvasCrowd } from './webgl2/gl-canvas-crowd';
export type { GLCrowd, GLCrowdOptions } from './webgl2/gl-crowd';
export type { GLShadowMap } from './webgl2/gl-shadow-pass';
// A layer stack: LayerStackInit is the form people write, LayerStackArrays the packed one controllers fill; Crowd.setLayers takes either.
export {
  MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS,
  type AdditiveLayerInit, type ClipTimeInit, type LayerInit, type LayerStackArrays, type LayerStackInit, type MaskId,
} from './anim/layer-stack';
export type { AttachmentId, AttachOptions, ClipEventListener, PaletteState } from './runtime/crowd-types';
export type { BulkInit } from './runtime/bulk-add';
export type { MaskSpec } from './anim/masks';
export type { ClipEvent } from './anim/events/clip-events';
/** For those who write a feature of their own (docs/architecture.md): the hooks and what the kernel hands a feature. */
export type { CrowdFeature, CrowdKernel, DrawShadow, EncodedFrame, FeatureStage, PickMeshList } from './runtime/feature';
export type { CullRoute } from './runtime/culling/cull-route';
export type { CullFrame } from './runtime/culling/cull-pass';
export type { AppearanceLayout, AppearanceLooks, AppearanceSource, RgbaImage } from './runtime/appearance-groups';

// Features: each an object made from a crowd (`new CrowdProps(crowd)`); a page ships only those it makes.
export { CrowdProps } from './features/props/crowd-props';
export { CrowdMorph } from './features/morph/crowd-morph';
export { CrowdAppearance, type AppearanceOptions, type AppearanceImage, type InstanceAppearance } from './features/appearance/crowd-appearance';
export { CrowdRootMotion } from './features/root-motion/crowd-root-motion';
export { CrowdSteering } from './features/steering/crowd-steering';
export { MAX_TWIN_AGENTS } from './features/steering/twin-engine';
export type { CrowdSteeringOptions, FlowFieldOptions, GroundPoint, SteeringAgentOptions, SteeringAgents } from './features/steering/types';
export { CrowdImpostors, type ImpostorAtlasInfo, type ImpostorLook, type ImpostorLookStats, type ImpostorOptions, type PartialLayers } from './features/impostors/crowd-impostors';
export { DEFAULT_IMPOSTOR_BUDGET } from './features/impostors/impostor-atlas';
export { CrowdEvents } from './features/clip-events/crowd-events';
export { CrowdPicking, MAX_PENDING_PICKS, type PickHit, type PickOptions } from './features/picking/crowd-picking';
export type { RaycastHit } from './features/picking/cpu-raycast';
export type { PickCamera, Ray, ScreenRect } from './features/picking/ray';
export type { InstanceAnimation } from './runtime/instance-records';
export type { SkinPassOptions } from './runtime/skin-pass';
export type { AmbientOptions, HemisphereOptions, LightOptions, LinearRgb, SunOptions } from './runtime/lights';
export type { EnvironmentData, EnvironmentOptions } from './runtime/environment-map';
export type { SkinningMethod } from './runtime/layout';
export { requiredCrowdLimits } from './runtime/limits';
export { DEFAULT_PALETTE_SIZE } from './runtime/joint-palette';
/**
 * wgpu-matrix's 4x4 matrix functions (column-major Float32Array, WebGPU's clip space), which
 * crowd-skin uses itself: re-exported so that a page can build its transforms and
 * view-projection with one install (`mat4.perspective`, `mat4.lookAt`, `mat4.multiply`, ...).
 */
export { mat4 } from 'wgpu-matrix';

// Animation control: crossfades, locomotion and actions per instance, from a JSON config.
export { CrowdControllers, type ControlledCrowd, type ControllerDriverKind, type CrowdControllersOptions } from './features/controllers/crowd-controllers';
export type { ControlFrameStats, LocomotionReadback } from './features/controllers/gpu-controllers';
export { AnimationController, ControllerRuntime, type ControllerDriver, type FadeOptions, type StepEventScanner } from './anim/control/controller';
export {
  ControllerConfigStore, DIRECTIONS, defaultControllerConfig, parseControllerConfig, serializeControllerConfig,
  type ActionConfig, type ClipSet, type ClipSettings, type ControllerConfig, type Direction, type LocomotionConfig,
} from './anim/control/config';
export type { Crossfader, Fade, Source, TransitionKind } from './anim/control/crossfader';
export type { BlendCurve } from './anim/control/curves';
export type { Locomotion, LocomotionRuntime } from './anim/control/locomotion';
/** @deprecated use LayerStackArrays: AnimationController.output is one, read-only. */
export type StackOutput = import('./anim/layer-stack').LayerStackArrays;
export type { ClipPlayback } from './anim/control/playback';
export type { BlendWeights } from './anim/blend-weights';
export type { BlendSpace1D } from './anim/blend-space-1d';
export type { BlendSpace2D } from './anim/blend-space-2d';
