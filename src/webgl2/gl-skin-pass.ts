/**
 * The instanced skinned draw on WebGL 2 (shaders/webgl2/skin.vert.glsl, skin.frag.glsl): the
 * twin of src/runtime/skin-pass.ts. One instanced draw per mesh primitive and LOD level, whatever
 * the instance count: instance i of a level's draw is the slot in entry i of that level's list
 * (GLDrawLists, filled on the CPU by the culling), its joint matrices read from the pose pass's
 * GLJointTarget, its world transform from the INSTANCE record texture. Shading: the same glTF
 * metallic-roughness materials, sun, ambient and hemisphere lights as skin.wgsl (docs/webgl2.md).
 * The environment light is prefiltered as on WebGPU (GLEnvironmentMap); sun shadows come from a
 * GLShadowPass's map (setShadowMap), sampled with the same 3 x 3 PCF; per-instance appearance
 * from a GLAppearanceSource (tint, variant, parts). Not yet on WebGL 2: dual-quaternion skinning
 * (refused by name). Morph targets are drawn undeformed, as a WebGPU crowd without CrowdMorph does.
 *
 * create: the constructor uploads the mesh (GLMesh), the materials and textures (GLMaterials) and
 * links the program variants it needs; draw(): writes the camera and the used prefix of the
 * instance lists (the frame's only uploads) and issues the draws into the bound framebuffer.
 */
import skinFragment from '../../shaders/webgl2/skin.frag.glsl?raw';
import skinVertex from '../../shaders/webgl2/skin.vert.glsl?raw';
import type { Character } from '../character/character';
import { CAMERA, INSTANCE } from '../runtime/layout';
import { resolveLights, type LightOptions, type ResolvedLights } from '../runtime/lights';
import { writeCamera } from '../runtime/skin-pass';
import { materialConstants } from '../runtime/material-data';
import { bindJointTarget, GLSL_JOINT_FETCH, type GLJointTarget } from './gl-joints';
import { GLAppearance, type GLAppearanceSource } from './gl-appearance';
import { GLEnvironmentMap } from './gl-environment-map';
import { GLMaterials, MATERIAL_SAMPLER_NAMES, type GLMaterial } from './gl-materials';
import { GLMesh, type GLPrimitive } from './gl-mesh';
import { GLStateGuard } from './gl-state';
import { createSampler as sampler, linkProgram, uploadWords as upload, withDefines } from './gl-program';
import type { GLRecordTexture } from './record-texture';

/** Instance slots to draw, per mesh LOD level, filled on the CPU by the culling (gl-crowd). */
export interface GLDrawLists {
  /** A Uint32 per drawn instance slot, levels packed: level L's slots at [offsets[L], offsets[L] + counts[L]). */
  readonly slots: Uint32Array;
  /** First entry of each level's list in `slots`. */
  readonly offsets: Uint32Array;
  /** Entries of each level's list. */
  readonly counts: Uint32Array;
  /** Levels listed: at most the character's mesh LOD levels. */
  readonly levels: number;
  /**
   * Parallel to `slots`: the joint set each listed slot's matrices are read from (its palette
   * entry less PALETTE_SHARED, GLPalette); absent: set = slot (a set per instance).
   */
  readonly jointSets?: Uint32Array;
}

/** What GLSkinPass takes of CrowdOptions. */
export interface GLSkinPassOptions {
  /** The sun, ambient, hemisphere and environment light (docs/materials.md; the environment needs EXT_color_buffer_float). */
  lights?: LightOptions;
  /** Only 'linear' on WebGL 2 (default). */
  skinning?: 'linear' | 'dual-quaternion';
  /** A feature's per-instance appearance (tints, base-colour variants, parts); default none. */
  appearance?: GLAppearanceSource;
  /** Whether the framebuffer drawn into is SRGB8_ALPHA8 (it encodes); default false: the shader encodes to sRGB, as for a canvas. */
  srgbTarget?: boolean;
}

/** Texture units: the material's five (0..4, MATERIAL_SAMPLER_NAMES order), the environment, the shadow map, the instance records, the joint target's three. */
const ENVIRONMENT_UNIT = 5;
const SHADOW_UNIT = 6;
const INSTANCE_UNIT = 7;
const JOINT_UNIT = 8;
/** With appearance: its records (vertex and fragment) and the variant images (fragment). */
const APPEARANCE_UNIT = 11;
const VARIANT_UNIT = 12;
/** Texture units [0, SKIN_UNITS) the skin and shadow draws bind (GLCrowd saves and restores them). */
export const SKIN_UNITS = VARIANT_UNIT + 1;
/** Uniform buffer binding points of the Camera and Material blocks. */
const CAMERA_BINDING = 0;
const MATERIAL_BINDING = 1;

/** A linked program variant and the uniform locations draw() sets. */
interface Program {
  program: WebGLProgram;
  instanceWidth: WebGLUniformLocation | null;
  /** With appearance: the records' width and the primitive's (index, varied). */
  appearanceWidth: WebGLUniformLocation | null;
  appearancePrimitive: WebGLUniformLocation | null;
  /** The draw call that last set its joint and record uniforms (GLSkinPass.calls). */
  stamp: number;
}

interface DrawItem {
  /** Index in the character's primitives. */
  index: number;
  mesh: GLPrimitive;
  program: Program;
  /** The depth-only variant (DEPTH_ONLY: MASK's cut-out test alone), for GLShadowPass. */
  depthProgram: Program;
  material: GLMaterial;
  blend: boolean;
  doubleSided: boolean;
}

/** The WebGL 2 skin pass: owns its mesh, materials, programs and buffers; not the joint target, records or lists it reads. */
export class GLSkinPass {
  /** The lights as the shader reads them (setLights changes them). */
  lights: ResolvedLights;
  /** Draw order: opaque and MASK primitives in file order, then BLEND ones (as SkinPass). */
  private readonly items: DrawItem[] = [];
  private readonly mesh: GLMesh;
  private readonly materials: GLMaterials;
  private readonly programs = new Map<string, Program>();
  private readonly camera: WebGLBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  private readonly inverse = new Float32Array(16);
  /** The instance slot lists (an instanced attribute), grown to the largest list set drawn. */
  private readonly slotBuffer: WebGLBuffer;
  /** The lists' joint sets (GLDrawLists.jointSets), while a palette is active; grown as slotBuffer. */
  private readonly jointSetBuffer: WebGLBuffer;
  private jointSetCapacity = 0;
  private slotCapacity = 0;
  private readonly slotCount: number;
  /** NEAREST, no mips: bound on the record and joint units, where float and integer textures are read with texelFetch (a filtering sampler would make them incomplete). */
  private readonly fetchSampler: WebGLSampler;
  /** Repeats across (longitude), clamps down, linear: how skin.frag.glsl reads the environment's layers. */
  private readonly environmentSampler: WebGLSampler;
  /** The prefiltered lights.environment (owned), or undefined. */
  private environment: GLEnvironmentMap | undefined;
  /** The #defines every program shares (ENVIRONMENT follows `environment`). */
  private readonly defines: Record<string, number>;
  /** less-equal comparison, linear (a 2 x 2 hardware PCF per tap, as WebGPU's comparison sampler). */
  private readonly shadowSampler: WebGLSampler;
  /** The 1x1 depth texture bound where there is no shadow map (never read: shadowStrength 0). Owned. */
  private readonly noShadow: WebGLTexture;
  /** The map of setShadowMap (not owned), or undefined. */
  private shadowTexture: WebGLTexture | undefined;
  /** The appearance source's GL side (owned; the source is not), or undefined. */
  private readonly appearance: GLAppearance | undefined;
  /** draw() and drawDepth() calls so far: stamps which programs had their per-call uniforms set, with no allocation. */
  private calls = 0;
  /** What draw() changes of the context, put back after it (drawDepth runs inside GLShadowPass's guard). */
  private readonly state: GLStateGuard;

  constructor(private readonly gl: WebGL2RenderingContext, character: Character, options: GLSkinPassOptions = {}) {
    if (options.skinning !== undefined && options.skinning !== 'linear') {
      throw new RangeError(`GLSkinPass: skinning '${String(options.skinning)}' is not on WebGL 2 yet (only 'linear'); dual-quaternion skinning needs WebGPU`);
    }
    this.lights = resolveLights(options.lights);
    const { gpu, rig, textures } = character;
    this.slotCount = gpu.slotCount;
    this.state = new GLStateGuard(gl, SKIN_UNITS);
    this.camera = gl.createBuffer();
    this.slotBuffer = gl.createBuffer();
    this.jointSetBuffer = gl.createBuffer();
    const linear = [[gl.TEXTURE_MIN_FILTER, gl.LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR]];
    this.fetchSampler = sampler(gl, [[gl.TEXTURE_MIN_FILTER, gl.NEAREST], [gl.TEXTURE_MAG_FILTER, gl.NEAREST]]);
    this.environmentSampler = sampler(gl, [...linear, [gl.TEXTURE_WRAP_S, gl.REPEAT], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE]]);
    this.shadowSampler = sampler(gl, [...linear, [gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE], [gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL],
      [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE]]);
    this.noShadow = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.noShadow);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.DEPTH_COMPONENT32F, 1, 1);
    gl.bindTexture(gl.TEXTURE_2D, null);
    this.defines = { ENCODE_SRGB: options.srgbTarget ? 0 : 1, ENVIRONMENT: 0, DEPTH_ONLY: 0, INSTANCE_TEXELS: INSTANCE.size / 16, INSTANCE_WORLD_TEXEL: INSTANCE.world / 16 };
    this.materials = new GLMaterials(gl, textures);
    try {
      gl.bindBuffer(gl.UNIFORM_BUFFER, this.camera);
      gl.bufferData(gl.UNIFORM_BUFFER, CAMERA.size, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.UNIFORM_BUFFER, null);
      this.mesh = new GLMesh(gl, rig.primitives, gpu.skinSlotOffset, this.slotBuffer, character.lods?.indices, character.drawOrder);
      this.appearance = options.appearance && new GLAppearance(gl, options.appearance);
      Object.assign(this.defines, this.appearance?.defines ?? { APPEARANCE: 0 });
      this.environment = this.lights.environment && new GLEnvironmentMap(gl, this.lights.environment);
      this.defines.ENVIRONMENT = Number(this.environment !== undefined);
      this.mesh.primitives.forEach((mesh, index) => {
        const m = mesh.primitive.material;
        this.items.push({
          index, mesh, program: this.programOf(mesh), depthProgram: this.programOf(mesh, true), material: this.materials.material(m, gpu.slotCount, mesh.tangents),
          blend: m.alphaMode === 'BLEND', doubleSided: m.doubleSided,
        });
      });
    } catch (error) {
      this.destroy();
      throw error;
    }
    this.items.sort((a, b) => Number(a.blend) - Number(b.blend) || a.index - b.index);
  }

  /**
   * Lights with `options` from now on (as Crowd.setLights): checks them first (throwing names the
   * field, nothing changed), prefilters a new environment (an event) and frees the old one, and
   * switches the programs' ENVIRONMENT.
   */
  setLights(options: LightOptions | undefined): void {
    const lights = resolveLights(options);
    const same = lights.environment?.image === this.lights.environment?.image && lights.environment?.intensity === this.lights.environment?.intensity;
    if (!same) {
      const made = lights.environment && new GLEnvironmentMap(this.gl, lights.environment);
      this.environment?.destroy();
      this.environment = made;
      this.defines.ENVIRONMENT = Number(made !== undefined);
      for (const item of this.items) item.program = this.programOf(item.mesh);
      // (depth programs read no environment: unchanged)
    }
    this.lights = lights;
  }

  /**
   * Shades with a shadow map from now on (`texture` a DEPTH_COMPONENT32F map, GLShadowPass's;
   * `lightViewProjection` world -> the map's clip space, depth in [0, 1]; `size` its texels a side;
   * `strength` in [0, 1]; `bias` in depth units), or without one (undefined), as SkinPass.setShadowMap.
   * The texture is not owned.
   */
  setShadowMap(texture: WebGLTexture | undefined, lightViewProjection?: ArrayLike<number>, size = 1, strength = 1, bias = 0.002): void {
    this.shadowTexture = texture;
    this.cameraData[CAMERA.shadowStrength / 4] = texture ? strength : 0;
    if (texture && lightViewProjection) this.cameraData.set(lightViewProjection, CAMERA.lightViewProjection / 4);
    this.cameraData[CAMERA.shadowTexel / 4] = 1 / size;
    this.cameraData[CAMERA.shadowBias / 4] = bias;
  }

  /** Mesh LOD levels of the character (GLDrawLists.levels at most this). */
  get levels(): number { return this.mesh.levels; }

  /** Program variants linked (one per distinct vertex streams). */
  get programCount(): number { return this.programs.size; }

  /**
   * Draws the listed instances into the bound framebuffer (depth tested, 'less'; the caller
   * clears it and sets the viewport). `viewProjection`: column-major, world -> clip space with
   * depth in [0, 1] as the WebGPU crowd takes it (remapped to GL's [-1, 1] in the shader).
   * `instances`: the INSTANCE records (world at INSTANCE.world); `joints`: the pose pass's target.
   * Checks everything first and names what is wrong, leaving GL state untouched when it refuses.
   * Puts back the state it changes (GLStateGuard) but for the depth and blend functions, cullFace,
   * frontFace and the uniform-buffer bindings (generic, 0 and 1), as docs/webgl2.md lists.
   */
  draw(viewProjection: ArrayLike<number>, joints: GLJointTarget, instances: GLRecordTexture, lists: GLDrawLists): void {
    this.check(viewProjection, joints, instances, lists);
    const gl = this.gl;
    writeCamera(this.cameraData, viewProjection, this.lights, this.inverse);
    gl.bindBuffer(gl.UNIFORM_BUFFER, this.camera);
    gl.bufferSubData(gl.UNIFORM_BUFFER, 0, this.cameraData);
    this.state.save(false);
    try {
      this.issue(this.camera, joints, instances, lists, false);
    } finally {
      this.state.restore();
    }
  }

  /**
   * GLShadowPass's draw: the listed instances depth-only (every primitive, both faces; MASK's
   * cut-out texels discarded) with `camera`, a CAMERA uniform buffer holding the light's
   * view-projection, into the bound framebuffer. Checks its inputs as draw() does.
   */
  drawDepth(camera: WebGLBuffer, joints: GLJointTarget, instances: GLRecordTexture, lists: GLDrawLists): void {
    this.check(undefined, joints, instances, lists);
    this.issue(camera, joints, instances, lists, true);
  }

  /** The draws of draw() (shaded) and drawDepth() (`depth`): one instanced draw per primitive and listed level. */
  private issue(camera: WebGLBuffer, joints: GLJointTarget, instances: GLRecordTexture, lists: GLDrawLists, depth: boolean): void {
    const gl = this.gl;
    const call = ++this.calls;
    gl.bindBufferBase(gl.UNIFORM_BUFFER, CAMERA_BINDING, camera);
    let used = 0;
    for (let level = 0; level < lists.levels; level++) used = Math.max(used, lists.offsets[level] + lists.counts[level]);
    if (used === 0) return;
    this.slotCapacity = upload(gl, this.slotBuffer, this.slotCapacity, lists.slots, used);
    const jointSets = lists.jointSets ? this.jointSetBuffer : undefined;
    if (lists.jointSets) this.jointSetCapacity = upload(gl, this.jointSetBuffer, this.jointSetCapacity, lists.jointSets, used);
    gl.activeTexture(gl.TEXTURE0 + INSTANCE_UNIT);
    gl.bindTexture(gl.TEXTURE_2D, instances.texture);
    for (let unit = INSTANCE_UNIT; unit < JOINT_UNIT + 3; unit++) gl.bindSampler(unit, this.fetchSampler);
    gl.activeTexture(gl.TEXTURE0 + SHADOW_UNIT);
    gl.bindTexture(gl.TEXTURE_2D, depth ? null : this.shadowTexture ?? this.noShadow);
    gl.bindSampler(SHADOW_UNIT, depth ? null : this.shadowSampler);
    const looks = this.appearance;
    if (looks) {
      gl.activeTexture(gl.TEXTURE0 + APPEARANCE_UNIT);
      gl.bindTexture(gl.TEXTURE_2D, looks.source.records.texture);
      gl.bindSampler(APPEARANCE_UNIT, this.fetchSampler);
      gl.activeTexture(gl.TEXTURE0 + VARIANT_UNIT);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, looks.variants);
      gl.bindSampler(VARIANT_UNIT, looks.sampler);
    }
    if (this.environment) {
      gl.activeTexture(gl.TEXTURE0 + ENVIRONMENT_UNIT);
      gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.environment.texture);
      gl.bindSampler(ENVIRONMENT_UNIT, this.environmentSampler);
    }
    gl.enable(gl.DEPTH_TEST);
    gl.depthFunc(gl.LESS);
    gl.frontFace(gl.CCW);
    gl.cullFace(gl.BACK);
    // BLEND: "over" (three.js's NormalBlending), depth tested but not written.
    gl.blendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    let current: Program | undefined;
    for (const item of this.items) {
      const program = depth ? item.depthProgram : item.program;
      if (program !== current) {
        current = program;
        gl.useProgram(current.program);
        if (current.stamp !== call) {
          current.stamp = call;
          bindJointTarget(gl, current.program, joints, JOINT_UNIT);
          gl.uniform1i(current.instanceWidth, instances.width);
          if (looks) gl.uniform1i(current.appearanceWidth, looks.source.records.width);
        }
      }
      if (looks) gl.uniform2ui(current.appearancePrimitive, item.index, looks.varied(item.index));
      if (item.doubleSided || depth) gl.disable(gl.CULL_FACE);
      else gl.enable(gl.CULL_FACE);
      if (item.blend && !depth) gl.enable(gl.BLEND);
      else gl.disable(gl.BLEND);
      gl.depthMask(!item.blend || depth);
      gl.bindBufferBase(gl.UNIFORM_BUFFER, MATERIAL_BINDING, item.material.uniforms);
      for (let t = 0; t < 5; t++) {
        gl.activeTexture(gl.TEXTURE0 + t);
        gl.bindTexture(gl.TEXTURE_2D, item.material.textures[t]);
        gl.bindSampler(t, item.material.samplers[t]);
      }
      gl.bindVertexArray(item.mesh.vertexArray);
      for (let level = 0; level < lists.levels; level++) {
        const count = lists.counts[level];
        if (count === 0) continue;
        const [indexCount, firstIndex] = item.mesh.ranges[level];
        this.mesh.pointSlots(lists.offsets[level], jointSets);
        gl.drawElementsInstanced(gl.TRIANGLES, indexCount, item.mesh.indexType, firstIndex * item.mesh.indexBytes, count);
      }
    }
    gl.bindVertexArray(null);
    gl.depthMask(true);
  }

  destroy(): void {
    const gl = this.gl;
    this.mesh?.destroy();
    this.materials.destroy();
    for (const { program } of this.programs.values()) gl.deleteProgram(program);
    this.programs.clear();
    gl.deleteBuffer(this.camera);
    gl.deleteBuffer(this.slotBuffer);
    gl.deleteBuffer(this.jointSetBuffer);
    gl.deleteSampler(this.fetchSampler);
    gl.deleteSampler(this.environmentSampler);
    gl.deleteSampler(this.shadowSampler);
    gl.deleteTexture(this.noShadow);
    this.appearance?.destroy();
    this.environment?.destroy();
  }

  /** Throws naming the first input draw() cannot use. */
  private check(viewProjection: ArrayLike<number> | undefined, joints: GLJointTarget, instances: GLRecordTexture, lists: GLDrawLists): void {
    if (viewProjection && viewProjection.length !== 16) throw new RangeError(`GLSkinPass.draw: viewProjection must have 16 numbers, got ${viewProjection.length}`);
    if (joints.jointCount !== this.slotCount) throw new RangeError(`GLSkinPass.draw: the joint target holds ${joints.jointCount} joints an instance, the character has ${this.slotCount}`);
    if (!instances.texture) throw new Error('GLSkinPass.draw: the instance records have no texture yet: write them first');
    const looks = this.appearance?.source.records;
    if (looks && !looks.texture) throw new Error('GLSkinPass.draw: the appearance records have no texture yet: write them first');
    if (!Number.isInteger(lists.levels) || lists.levels < 0 || lists.levels > this.mesh.levels) {
      throw new RangeError(`GLSkinPass.draw: lists.levels is ${lists.levels}, the character has ${this.mesh.levels} mesh LOD levels`);
    }
    if (lists.offsets.length < lists.levels || lists.counts.length < lists.levels) {
      throw new RangeError(`GLSkinPass.draw: lists.offsets (${lists.offsets.length}) and lists.counts (${lists.counts.length}) need an entry per level (${lists.levels})`);
    }
    const records = Math.floor(instances.size / INSTANCE.size);
    for (let level = 0; level < lists.levels; level++) {
      const end = lists.offsets[level] + lists.counts[level];
      if (end > lists.slots.length) throw new RangeError(`GLSkinPass.draw: level ${level}'s list ends at entry ${end}, lists.slots has ${lists.slots.length}`);
      if (lists.jointSets && end > lists.jointSets.length) throw new RangeError(`GLSkinPass.draw: level ${level}'s list ends at entry ${end}, lists.jointSets has ${lists.jointSets.length}`);
      for (let i = lists.offsets[level]; i < end; i++) {
        if (lists.slots[i] >= records) throw new RangeError(`GLSkinPass.draw: lists.slots[${i}] is slot ${lists.slots[i]}, the instance records hold ${records}`);
      }
    }
  }

  /** The program that draws `mesh` under the current defines (its material's too, materialConstants: what it lacks is not sampled), or its depth-only variant (no environment). */
  private programOf(mesh: GLPrimitive, depth = false): Program {
    const variant = { INFLUENCES: mesh.influences, NORMALS: Number(mesh.normals), TANGENTS: Number(mesh.tangents), COLORS: Number(mesh.colors), UV1: Number(mesh.uvSets === 2), ...materialConstants(mesh.primitive.material) };
    return this.program({ ...this.defines, ...variant, ...(depth ? { DEPTH_ONLY: 1, ENVIRONMENT: 0 } : {}) });
  }

  /** The program of a variant (#defines), linked once; its sampler uniforms point at their fixed texture units. */
  private program(defines: Record<string, number>): Program {
    const key = JSON.stringify(defines);
    let made = this.programs.get(key);
    if (made) return made;
    const gl = this.gl;
    const program = linkProgram(gl, `GLSkinPass.program ${key}`, withDefines(skinVertex, defines, GLSL_JOINT_FETCH), withDefines(skinFragment, defines));
    gl.uniformBlockBinding(program, gl.getUniformBlockIndex(program, 'Camera'), CAMERA_BINDING);
    gl.uniformBlockBinding(program, gl.getUniformBlockIndex(program, 'Material'), MATERIAL_BINDING);
    gl.useProgram(program);
    MATERIAL_SAMPLER_NAMES.forEach((name, unit) => gl.uniform1i(gl.getUniformLocation(program, name), unit));
    gl.uniform1i(gl.getUniformLocation(program, 'crowdInstances'), INSTANCE_UNIT);
    gl.uniform1i(gl.getUniformLocation(program, 'environmentMap'), ENVIRONMENT_UNIT);
    gl.uniform1i(gl.getUniformLocation(program, 'shadowMap'), SHADOW_UNIT);
    gl.uniform1i(gl.getUniformLocation(program, 'crowdAppearances'), APPEARANCE_UNIT);
    gl.uniform1i(gl.getUniformLocation(program, 'appearanceVariants'), VARIANT_UNIT);
    const at = (name: string) => gl.getUniformLocation(program, name);
    made = { program, instanceWidth: at('crowdInstanceWidth'), appearanceWidth: at('crowdAppearanceWidth'), appearancePrimitive: at('appearancePrimitive'), stamp: 0 };
    this.programs.set(key, made);
    return made;
  }
}

