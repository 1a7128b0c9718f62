/**
 * The pose pass on WebGL 2 (no compute): fragment passes that render every listed instance's
 * joint matrices into three RGBA32F textures (GLJointTexture, one per matrix row), which the draw
 * reads with texelFetch (GLSL_JOINT_FETCH). Two stages, as pose.wgsl's two halves: the local
 * matrix of every rig node (shaders/webgl2/pose-local.frag.glsl: clips, blend, layers with masks,
 * additive layers; root motion is taken out of the clips at bake time, so the tables already
 * hold in-place clips, as on WebGPU) into a node target, then each joint's chain composed and
 * multiplied by its inverse bind matrix (pose.frag.glsl) into the joint target. Each listed slot is
 * posed into a joint set: the slot itself while every instance has a set of its own, else its
 * palette entry (encode's `entries`, GLPalette), and slots drawing a shared pose are skipped.
 *
 * Why two stages: a single fragment per joint walking its chain evaluated every node once per
 * joint below it (the sum of the joints' depths, ~8x the node count for RobotExpressive); on
 * SwiftShader (Chromium, loaded 2-core EPYC, median of 5) 2,000 RobotExpressives took 1,188 ms
 * that way and 750 ms with the node stage first (Fox: 252 -> 193 ms); docs/webgl2-pose.md.
 */
import localFragment from '../../shaders/webgl2/pose-local.frag.glsl?raw';
import poseFragment from '../../shaders/webgl2/pose.frag.glsl?raw';
import poseVertex from '../../shaders/webgl2/pose.vert.glsl?raw';
import type { Character } from '../character/character';
import { clockResidual, clockTicks } from '../runtime/clip-clock';
import { checkSkinning, PALETTE_SHARED, type SkinningMethod } from '../runtime/layout';
import { refsWithRecords } from '../runtime/pose-pass';
import { GLJointTexture, type GLJointTarget } from './gl-joints';
import { GLStateGuard } from './gl-state';
import { createWordTexture, recordTextureWidth, type GLRecordTexture } from './record-texture';

/**
 * What the pose pass reads per instance: the WebGL 2 form of PoseInputs (src/runtime/pose-pass.ts),
 * with its field names, so that an instance store whose buffers are GLRecordTextures satisfies it
 * as InstanceStore satisfies PoseInputs. Read only; the pass does not own them.
 */
export interface GLPoseInputs {
  /** INSTANCE records: plain ones in slots [0, plainCount), layered ones after them. */
  readonly instanceBuffer: GLRecordTexture;
  /** LAYER_STACK records, indexed by each layered record's `layers`. */
  readonly layerStackBuffer: GLRecordTexture;
  /** Blend masks, nodeCount f32 each. */
  readonly masksBuffer: GLRecordTexture;
  /** Records without a layer stack, in slots [0, plainCount). */
  readonly plainCount: number;
  /** Records with one, in slots [plainCount, plainCount + layeredCount). */
  readonly layeredCount: number;
}

/** Options of GLPosePass. */
export interface GLPoseOptions {
  /** Only 'linear' on WebGL 2 ('dual-quaternion' is refused by name); default 'linear'. */
  skinning?: SkinningMethod;
  /** Instance slots the joint target holds at first (default 1); update() grows it to the records' count. */
  capacity?: number;
}

/** Texture units the pass binds: tracks, refs, instances, stacks, masks, then the node stage's three rows. */
const UNITS = 8;
/** The unit of the node stage's row 0 (rows 1, 2 follow). */
const LOCAL_UNIT = 5;

/** One program: the node stage for plain records or for records with layer stacks (CROWD_LAYERS 1), or the joint stage. */
interface PoseProgram {
  readonly program: WebGLProgram;
  readonly at: Record<(typeof UNIFORMS)[number], WebGLUniformLocation | null>;
}

const UNIFORMS = [
  'poseTracks', 'poseTracksWidth', 'poseRefs', 'poseRefsWidth', 'poseInstances', 'poseInstancesWidth', 'poseStacks', 'poseStacksWidth', 'poseMasks', 'poseMasksWidth',
  'poseNodeCount', 'poseClipBase', 'poseRestBase', 'poseNodeBase', 'poseSlotBase', 'poseMaxDepth', 'poseClockTicks', 'poseClockResidual',
  'poseRunLength', 'poseSlotsPerRow', 'poseTargetSize', 'poseLocalRow0', 'poseLocalRow1', 'poseLocalRow2', 'poseLocalNodes', 'poseLocalSlotsPerRow',
] as const;

/**
 * create: the constructor checks the context (EXT_color_buffer_float, MAX_TEXTURE_SIZE: refused
 * by name before anything is made), uploads the baked tables and rig records as textures, builds
 * the node stage's program for plain records and the joint stage's program, and the node and
 * joint targets; the node stage's program for layered records is built by the first update()
 * that sees one (as PosePass does). update(): notes the inputs and the clock, grows the targets
 * to the records' count. encode(): the node stage's draws (plain, layered), then the joint stage's.
 */
export class GLPosePass {
  /** Always 'linear' (the pass writes matrix rows). */
  readonly skinning: SkinningMethod = 'linear';
  private target: GLJointTexture;
  /** The node stage's local matrices (a 'joint' per rig node), grown with the target. */
  private local: GLJointTexture;
  private readonly plain: PoseProgram;
  private layered: PoseProgram | undefined;
  private readonly chain: PoseProgram;
  private readonly tracks: WebGLTexture;
  private readonly refs: WebGLTexture;
  private readonly tracksWidth: number;
  private readonly refsWidth: number;
  private readonly bases: { restBase: number; clipBase: number; nodeBase: number; slotBase: number };
  private readonly vertexArray: WebGLVertexArrayObject;
  private readonly slotBuffer: WebGLBuffer;
  private slotBufferBytes = 0;
  /** encode's (slot, joint set) pairs, plain slots first (grown, never per frame once large enough). */
  private sorted = new Uint32Array(128);
  private readonly state: GLStateGuard;
  private inputs: GLPoseInputs | undefined;
  private ticks = 0;
  private residual = 0;

  /**
   * Throws, with nothing made: an Error naming EXT_color_buffer_float when the context cannot
   * render to float textures; a RangeError naming MAX_TEXTURE_SIZE when a table or the joint
   * target would not fit; a RangeError naming `skinning` for 'dual-quaternion' (it needs WebGPU)
   * or an unknown method; a RangeError naming `capacity` when it is not a whole number >= 1.
   */
  constructor(private readonly gl: WebGL2RenderingContext, private readonly character: Pick<Character, 'gpu'>, options: GLPoseOptions = {}) {
    const skinning = checkSkinning(options.skinning);
    if (skinning !== 'linear') throw new RangeError(`skinning '${skinning}' needs WebGPU: the WebGL 2 pose pass writes 'linear' joint matrices only`);
    const capacity = options.capacity ?? 1;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a whole number >= 1, got ${String(capacity)}`);
    if (!gl.getExtension('EXT_color_buffer_float')) throw new Error('GLPosePass: this WebGL 2 context lacks EXT_color_buffer_float, which the GPU pose pass needs to render joint matrices into float textures');
    const rig = character.gpu;
    const maxSize = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    const refs = refsWithRecords(rig);
    this.bases = refs;
    this.tracksWidth = recordTextureWidth('GLPosePass.tracks', rig.tracks.byteLength, maxSize);
    this.refsWidth = recordTextureWidth('GLPosePass.trackRefs', refs.data.byteLength, maxSize);
    this.target = new GLJointTexture(gl, 'GLPosePass.joints', rig.slotCount, capacity); // checks its size, then allocates
    try {
      this.local = new GLJointTexture(gl, 'GLPosePass.localMatrices', rig.nodeCount, capacity);
    } catch (error) {
      this.target.destroy(gl);
      throw error;
    }
    const made: WebGLTexture[] = [];
    let plain: PoseProgram | undefined;
    try {
      this.tracks = createWordTexture(gl, 'GLPosePass.tracks', new Uint32Array(rig.tracks.buffer, rig.tracks.byteOffset, rig.tracks.length), this.tracksWidth);
      made.push(this.tracks);
      this.refs = createWordTexture(gl, 'GLPosePass.trackRefs', refs.data, this.refsWidth);
      made.push(this.refs);
      plain = this.program('node', false);
      this.plain = plain;
      this.chain = this.program('joint', false);
    } catch (error) {
      // A lost context or a shader that does not compile here: leave nothing behind.
      for (const texture of made) gl.deleteTexture(texture);
      if (plain) gl.deleteProgram(plain.program);
      this.target.destroy(gl);
      this.local.destroy(gl);
      throw error;
    }
    this.state = new GLStateGuard(gl, UNITS);
    this.slotBuffer = gl.createBuffer()!;
    this.vertexArray = gl.createVertexArray()!;
  }

  /** The joint matrices (replaced when update() grows it: read it after update()). */
  get joints(): GLJointTarget {
    return this.target;
  }

  /** Whether the program for layered records has been built (a layered record was seen). */
  get layersCompiled(): boolean {
    return this.layered !== undefined;
  }

  /**
   * Notes `inputs` and the crowd clock `clock` (seconds; a RangeError naming it beyond
   * +-MAX_GPU_CLOCK_SECONDS) for the next encode, and grows the joint target to hold `sets`
   * joint sets (default plainCount + layeredCount: a set per instance slot; the palette's budget
   * and shared poses while it is active); the poses already written are kept.
   */
  update(inputs: GLPoseInputs, clock: number, sets?: number): void {
    const ticks = clockTicks(clock, 'GLPosePass.update: clock');
    const count = sets ?? inputs.plainCount + inputs.layeredCount;
    // A set per slot grows by doubling, as the store does; a palette's sets are a fixed count.
    if (count > this.target.capacity) this.grow(sets ?? Math.max(count, this.target.capacity * 2));
    if (inputs.layeredCount > 0 && !this.layered) this.layered = this.program('node', true);
    this.inputs = inputs;
    this.ticks = ticks;
    this.residual = clockResidual(clock, ticks);
  }

  /**
   * Renders the joint matrices of the first `count` instance slots listed in `slots` (each below
   * plainCount + layeredCount; any order) into the joint target: one fragment per rig node into
   * the node target, then one per joint slot. `entries` (per slot; PALETTE_* in layout.ts): the
   * joint set each slot is posed into, a slot whose entry has PALETTE_SHARED (or is
   * PALETTE_NONE) is not posed; without it, set = slot.
   * Puts back the GL state it changes (GLStateGuard). Throws, drawing nothing, before update()
   * or for a count, slot or joint set out of range.
   */
  encode(slots: Uint32Array, count: number, entries?: Uint32Array): void {
    const inputs = this.inputs;
    if (!inputs) throw new Error('GLPosePass.encode: call update() first');
    if (!Number.isInteger(count) || count < 0 || count > slots.length) throw new RangeError(`GLPosePass.encode: count must be a whole number in [0, ${slots.length}] (the slots given), got ${String(count)}`);
    if (count === 0 || this.character.gpu.slotCount === 0) return;
    const [plainCount, posed] = this.partition(slots, count, inputs, entries);
    if (posed === 0) return;
    count = posed;
    const gl = this.gl;
    if (!inputs.instanceBuffer.texture) throw new Error(`GLPosePass.encode: ${inputs.instanceBuffer.label} holds no records yet (write them first)`);
    this.state.save();
    try {
      gl.bindBuffer(gl.ARRAY_BUFFER, this.slotBuffer);
      if (this.slotBufferBytes < count * 8) {
        this.slotBufferBytes = this.sorted.byteLength;
        gl.bufferData(gl.ARRAY_BUFFER, this.slotBufferBytes, gl.DYNAMIC_DRAW);
      }
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.sorted, 0, 2 * count);
      gl.bindVertexArray(this.vertexArray);
      for (const location of [0, 1]) {
        gl.enableVertexAttribArray(location);
        gl.vertexAttribDivisor(location, 1);
      }
      this.bindUnit(0, this.tracks);
      this.bindUnit(1, this.refs);
      this.bindUnit(2, inputs.instanceBuffer.texture);
      this.bindUnit(3, inputs.layerStackBuffer.texture);
      this.bindUnit(4, inputs.masksBuffer.texture);
      for (let u = LOCAL_UNIT; u < UNITS; u++) {
        gl.activeTexture(gl.TEXTURE0 + u);
        gl.bindTexture(gl.TEXTURE_2D, null); // the node target is drawn into first: no feedback loop
      }
      this.bindTarget(this.local);
      if (plainCount > 0) this.draw(this.plain, this.local, 0, plainCount, inputs);
      if (count > plainCount) this.draw(this.layered!, this.local, plainCount, count - plainCount, inputs);
      this.bindTarget(this.target);
      for (let i = 0; i < 3; i++) {
        gl.activeTexture(gl.TEXTURE0 + LOCAL_UNIT + i);
        gl.bindTexture(gl.TEXTURE_2D, this.local.rows[i]);
      }
      this.draw(this.chain, this.target, 0, count, inputs);
    } finally {
      gl.bindVertexArray(null);
      this.state.restore();
    }
  }

  /** Deletes the pass's textures, programs, buffer and joint target. */
  destroy(): void {
    const gl = this.gl;
    this.target.destroy(gl);
    this.local.destroy(gl);
    gl.deleteTexture(this.tracks);
    gl.deleteTexture(this.refs);
    for (const p of [this.plain, this.layered, this.chain]) if (p) gl.deleteProgram(p.program);
    gl.deleteBuffer(this.slotBuffer);
    gl.deleteVertexArray(this.vertexArray);
  }

  /**
   * Copies the listed slots and their joint sets into `sorted` as pairs, plain ones first (those
   * without a set of their own left out); returns [plain pairs, all pairs]. Throws naming a slot
   * or a set out of range.
   */
  private partition(slots: Uint32Array, count: number, inputs: GLPoseInputs, entries: Uint32Array | undefined): [number, number] {
    if (this.sorted.length < 2 * count) this.sorted = new Uint32Array(Math.max(2 * count, this.sorted.length * 2));
    const sorted = this.sorted;
    const total = inputs.plainCount + inputs.layeredCount, sets = this.target.capacity;
    let front = 0;
    let back = count;
    for (let i = 0; i < count; i++) {
      const s = slots[i];
      if (s >= total) throw new RangeError(`GLPosePass.encode: slots[${i}] is ${s}, but only slots [0, ${total}) hold records`);
      const set = entries ? entries[s] : s;
      if (set >= PALETTE_SHARED) continue; // a shared pose (or none): posed by GLPalette, not per instance
      if (set >= sets) throw new RangeError(`GLPosePass.encode: slot ${s}'s joint set is ${set}, but the joint target holds ${sets}`);
      const at = s < inputs.plainCount ? front++ : --back;
      sorted[2 * at] = s;
      sorted[2 * at + 1] = set;
    }
    // Shared slots left a gap between the plain pairs and the layered ones: close it.
    if (back > front) sorted.copyWithin(2 * front, 2 * back, 2 * count);
    return [front, front + count - back];
  }

  private bindUnit(unit: number, texture: WebGLTexture | null): void {
    this.gl.activeTexture(this.gl.TEXTURE0 + unit);
    this.gl.bindTexture(this.gl.TEXTURE_2D, texture);
  }

  private bindTarget(target: GLJointTexture): void {
    const gl = this.gl;
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, target.framebuffer);
    gl.drawBuffers(DRAW_BUFFERS);
    gl.viewport(0, 0, target.width, target.height);
  }

  /** Draws sorted slots [first, first + count) with program `p` into `target` (bound). */
  private draw(p: PoseProgram, target: GLJointTexture, first: number, count: number, inputs: GLPoseInputs): void {
    const gl = this.gl;
    const rig = this.character.gpu;
    const at = p.at;
    gl.useProgram(p.program);
    gl.vertexAttribIPointer(0, 1, gl.UNSIGNED_INT, 8, first * 8); // WebGL 2 has no base instance: the list starts at `first`
    gl.vertexAttribIPointer(1, 1, gl.UNSIGNED_INT, 8, first * 8 + 4);
    gl.uniform1i(at.poseTracks, 0);
    gl.uniform1i(at.poseRefs, 1);
    gl.uniform1i(at.poseInstances, 2);
    gl.uniform1i(at.poseStacks, 3);
    gl.uniform1i(at.poseMasks, 4);
    gl.uniform1i(at.poseTracksWidth, this.tracksWidth);
    gl.uniform1i(at.poseRefsWidth, this.refsWidth);
    gl.uniform1i(at.poseInstancesWidth, inputs.instanceBuffer.width);
    gl.uniform1i(at.poseStacksWidth, inputs.layerStackBuffer.width);
    gl.uniform1i(at.poseMasksWidth, inputs.masksBuffer.width);
    gl.uniform1ui(at.poseNodeCount, rig.nodeCount);
    gl.uniform1ui(at.poseClipBase, this.bases.clipBase);
    gl.uniform1ui(at.poseRestBase, this.bases.restBase);
    gl.uniform1ui(at.poseNodeBase, this.bases.nodeBase);
    gl.uniform1ui(at.poseSlotBase, this.bases.slotBase);
    gl.uniform1ui(at.poseMaxDepth, rig.maxDepth);
    gl.uniform1ui(at.poseClockTicks, this.ticks >>> 0);
    gl.uniform1f(at.poseClockResidual, this.residual);
    gl.uniform1i(at.poseRunLength, target.jointCount);
    gl.uniform1i(at.poseSlotsPerRow, target.slotsPerRow);
    gl.uniform2f(at.poseTargetSize, target.width, target.height);
    gl.uniform1i(at.poseLocalRow0, LOCAL_UNIT);
    gl.uniform1i(at.poseLocalRow1, LOCAL_UNIT + 1);
    gl.uniform1i(at.poseLocalRow2, LOCAL_UNIT + 2);
    gl.uniform1i(at.poseLocalNodes, this.local.jointCount);
    gl.uniform1i(at.poseLocalSlotsPerRow, this.local.slotsPerRow);
    gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, count);
  }

  /** New joint and node targets for `capacity` slots; the joint target keeps the old one's poses (same width, so the same texels). */
  private grow(capacity: number): void {
    const gl = this.gl;
    const old = this.target;
    const grown = new GLJointTexture(gl, 'GLPosePass.joints', this.character.gpu.slotCount, capacity);
    let local: GLJointTexture;
    try {
      local = new GLJointTexture(gl, 'GLPosePass.localMatrices', this.character.gpu.nodeCount, capacity);
    } catch (error) {
      grown.destroy(gl);
      throw error;
    }
    this.local.destroy(gl);
    this.local = local;
    const read = gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    const draw = gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    const scissor = gl.isEnabled(gl.SCISSOR_TEST); // a blit is scissored
    if (scissor) gl.disable(gl.SCISSOR_TEST);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, old.framebuffer);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, grown.framebuffer);
    for (let i = 0; i < 3; i++) {
      gl.readBuffer(gl.COLOR_ATTACHMENT0 + i);
      gl.drawBuffers(DRAW_BUFFERS.map((b, k) => (k === i ? b : gl.NONE)));
      gl.blitFramebuffer(0, 0, old.width, old.height, 0, 0, old.width, old.height, gl.COLOR_BUFFER_BIT, gl.NEAREST);
    }
    gl.readBuffer(gl.COLOR_ATTACHMENT0);
    gl.drawBuffers(DRAW_BUFFERS);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, read);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, draw);
    if (scissor) gl.enable(gl.SCISSOR_TEST);
    old.destroy(gl);
    this.target = grown;
  }

  /** Compiles and links a program: the node stage (`layers`: CROWD_LAYERS 1) or the joint stage; throws naming it and the log. */
  private program(stage: 'node' | 'joint', layers: boolean): PoseProgram {
    const gl = this.gl;
    const label = stage === 'joint' ? 'GLPosePass.jointProgram' : layers ? 'GLPosePass.layeredProgram' : 'GLPosePass.plainProgram';
    const compile = (type: number, source: string, stage: string) => {
      const shader = gl.createShader(type)!;
      gl.shaderSource(shader, source);
      gl.compileShader(shader);
      if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
        const log = gl.getShaderInfoLog(shader);
        gl.deleteShader(shader);
        throw new Error(`${label}: the ${stage} shader did not compile: ${log}`);
      }
      return shader;
    };
    // GLSL has no pipeline-overridable constants: the layered program defines CROWD_LAYERS after the #version line.
    const fragment = stage === 'joint' ? poseFragment : layers ? localFragment.replace(/^#version 300 es\n/, '#version 300 es\n#define CROWD_LAYERS 1\n') : localFragment;
    const vs = compile(gl.VERTEX_SHADER, poseVertex, 'vertex');
    const fs = compile(gl.FRAGMENT_SHADER, fragment, 'fragment');
    const program = gl.createProgram()!;
    gl.attachShader(program, vs);
    gl.attachShader(program, fs);
    gl.bindAttribLocation(program, 0, 'poseSlot');
    gl.bindAttribLocation(program, 1, 'poseEntry');
    gl.linkProgram(program);
    gl.deleteShader(vs);
    gl.deleteShader(fs);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
      const log = gl.getProgramInfoLog(program);
      gl.deleteProgram(program);
      throw new Error(`${label}: the program did not link: ${log}`);
    }
    const at = Object.fromEntries(UNIFORMS.map((name) => [name, gl.getUniformLocation(program, name)])) as PoseProgram['at'];
    return { program, at };
  }
}

/** The three row attachments, in GLSL's output locations 0, 1, 2. */
const DRAW_BUFFERS = [0x8ce0, 0x8ce1, 0x8ce2]; // COLOR_ATTACHMENT0..2
