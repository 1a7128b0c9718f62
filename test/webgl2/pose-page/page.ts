/**
 * The WebGL 2 pose pass (src/webgl2/gl-pose-pass.ts) in the browser, against the TypeScript twin
 * (CpuPoser over the lookup tables, src/anim): `window.poseCase(url, options)` loads a character,
 * writes seeded random INSTANCE records (and layer stacks and masks for `layered` of them) with the
 * real CPU record classes into GLRecordTextures, poses them all at crowd clock `clock` with the
 * slots listed in a shuffled order, reads the three row textures back (NaN first, so a joint
 * not written shows) and returns the worst error against the twin, as a fraction of the
 * character's bounding-box diagonal. `window.glCase(name)` runs the refusals and the record
 * texture checks that need a real context.
 */
import { CpuPoser } from '../../../src/anim/evaluate';
import type { CpuLayerStack } from '../../../src/anim/layers';
import { sampleLut } from '../../../src/anim/lut';
import { loadCharacter, type Character } from '../../../src/character/character';
import { InstanceRecords, type InstanceAnimation } from '../../../src/runtime/instance-records';
import { LayerStackRecords, MaskTable, type ResolvedLayers } from '../../../src/runtime/layer-records';
import { INSTANCE, LAYER_STACK, MASK_NONE } from '../../../src/runtime/layout';
import { seededRandom } from '../../../tools/random';
import { GLPosePass, type GLPoseInputs } from '../../../src/webgl2/gl-pose-pass';
import { GLRecordTexture } from '../../../src/webgl2/record-texture';
import { bindJointTarget, GLSL_JOINT_FETCH } from '../../../src/webgl2/gl-joints';
import { InstanceStore } from '../../../src/runtime/instance-store';
import { PosePass } from '../../../src/runtime/pose-pass';

const gl = (document.getElementById('gl') as HTMLCanvasElement).getContext('webgl2')!;

/** A GPUQueue stand-in for the record classes' upload(): writeBuffer on a GLRecordTexture. */
const queue = { writeBuffer: (t: GLRecordTexture, offset: number, data: ArrayBuffer, dataOffset?: number, size?: number) => t.write(offset, data, dataOffset, size) } as unknown as GPUQueue;
const asBuffer = (t: GLRecordTexture) => t as unknown as GPUBuffer;

export interface PoseCaseOptions {
  count: number;
  layered: number;
  clock: number;
  seed: number;
  rootMotion?: boolean;
  /** A made-up violation: the twin evaluates clip A this many seconds later. */
  shiftA?: number;
  /**
   * Plain records only: pose slots [0, growFrom) with the pass holding only them, then grow it to
   * every record and pose only the rest; the first ones must survive the growth.
   */
  growFrom?: number;
  /** Then times this many more encodes (each waited for with a 1-texel readPixels): passMs is their median. */
  repeat?: number;
}

export interface PoseCaseResult {
  worst: number; worstLinear: number; worstTranslation: number; unwritten: number; diagonal: number; joints: number; nodes: number; clips: number;
  passMs: number; layersCompiled: boolean;
  /** CPU ms of one encode call (JS side: partition, upload of the slot list, state, draws), median of `repeat`. */
  encodeCpuMs: number;
}

function randomStack(next: () => number, clips: number, durations: Float32Array, masks: number): ResolvedLayers {
  const clip = () => Math.floor(next() * clips);
  const time = (c: number) => (next() * 2 - 1) * 2 * Math.max(durations[c], 0.1);
  const layers = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
    const c = clip();
    return { clip: c, time: time(c), speed: next() * 2 - 0.5, weight: next() < 0.2 ? 1 : next(), mask: masks > 0 && next() < 0.6 ? Math.floor(next() * masks) : MASK_NONE };
  });
  const additive = Array.from({ length: Math.floor(next() * 3) }, (_, k) => {
    const c = clip();
    const kind = k === 0 ? 'rest' : next() < 0.5 ? 'identity' : 'clip';
    const r = clip();
    const reference = kind === 'clip' ? { clip: r, time: time(r), speed: next() } : kind as 'rest' | 'identity';
    return { clip: c, time: time(c), speed: next(), weight: next(), mask: masks > 0 && next() < 0.5 ? Math.floor(next() * masks) : MASK_NONE, reference };
  });
  return { layers, additive };
}

const wrap = (t: number, d: number) => (d > 0 ? t - Math.floor(t / d) * d : 0);

async function poseCase(url: string, o: PoseCaseOptions): Promise<PoseCaseResult> {
  const character: Character = await loadCharacter(url, o.rootMotion ? { rootMotion: { mode: 'in-place' } } : {});
  const { rig, baked } = character;
  const data = character.gpu;
  const durations = baked.clipDurations;
  const clips = durations.length;
  const next = seededRandom(o.seed);
  const total = o.count + o.layered;
  const records = new InstanceRecords(total, durations);
  const maskTable = new MaskTable(data.nodeCount);
  const maskWeights: Float32Array[] = [];
  for (let m = 0; m < 3; m++) {
    const w = new Float32Array(data.nodeCount).map(() => (next() < 0.3 ? 0 : next() < 0.5 ? 1 : next()));
    maskWeights.push(w);
    maskTable.add(w);
  }
  const stacks = new LayerStackRecords(Math.max(1, o.layered), durations, () => maskTable.count);
  const animations: InstanceAnimation[] = [];
  const stackOf: (ResolvedLayers | undefined)[] = [];
  for (let s = 0; s < total; s++) {
    const clipA = s % clips;
    const clipB = Math.floor(next() * clips);
    const span = 3 * Math.max(durations[clipA], durations[clipB], 0.1);
    const a: InstanceAnimation = {
      clipA, clipB, blend: s % 5 === 0 ? 0 : s % 5 === 1 ? 1 : next(),
      timeA: (next() * 2 - 1) * span, timeB: (next() * 2 - 1) * span, speedA: next() * 2.5 - 0.5, speedB: next() * 2,
    };
    animations.push(a);
    records.setWorld(s, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, s, 0, 0, 1]);
    records.setAnimation(s, a, 0);
    if (s >= o.count) {
      const stack = randomStack(next, clips, durations, maskTable.count);
      stacks.validate(stack);
      stacks.set(s - o.count, stack, 0);
      records.setLayerStack(s, s - o.count);
      stackOf.push(stack);
    } else {
      records.clearLayers(s);
      stackOf.push(undefined);
    }
  }
  const instances = new GLRecordTexture(gl, 'PoseCase.instances', total * INSTANCE.size);
  const stackTexture = new GLRecordTexture(gl, 'PoseCase.stacks', Math.max(1, o.layered) * LAYER_STACK.size);
  const masks = new GLRecordTexture(gl, 'PoseCase.masks', maskTable.byteLength);
  records.upload(queue, asBuffer(instances));
  stacks.upload(queue, asBuffer(stackTexture));
  maskTable.upload(queue, asBuffer(masks));

  const pass = new GLPosePass(gl, character);
  const growFrom = o.growFrom ?? 0;
  const inputs: GLPoseInputs = { instanceBuffer: instances, layerStackBuffer: stackTexture, masksBuffer: masks, plainCount: growFrom || o.count, layeredCount: o.layered };
  pass.update(inputs, o.clock);
  // NaN everywhere first: a joint the pass does not write stays NaN.
  const poison = () => {
    gl.bindFramebuffer(gl.FRAMEBUFFER, (pass.joints as unknown as { framebuffer: WebGLFramebuffer }).framebuffer);
    for (let i = 0; i < 3; i++) gl.clearBufferfv(gl.COLOR, i, [NaN, NaN, NaN, NaN]);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  };
  poison();
  const order = Uint32Array.from({ length: total }, (_, i) => i);
  for (let i = total - 1; i > 0; i--) { const j = Math.floor(next() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
  if (growFrom > 0) {
    pass.encode(Uint32Array.from({ length: growFrom }, (_, i) => i), growFrom);
    const before = pass.joints;
    pass.update({ ...inputs, plainCount: o.count }, o.clock);
    if (pass.joints === before) throw new Error('poseCase: the joint target did not grow');
    order.set(Uint32Array.from({ length: total - growFrom }, (_, i) => growFrom + i));
  }
  const target = pass.joints;
  const fb = (target as unknown as { framebuffer: WebGLFramebuffer }).framebuffer;
  const start = performance.now();
  pass.encode(order, total - growFrom);
  const rows = [0, 1, 2].map((i) => {
    const out = new Float32Array(target.width * target.height * 4);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, fb);
    gl.readBuffer(gl.COLOR_ATTACHMENT0 + i);
    gl.readPixels(0, 0, target.width, target.height, gl.RGBA, gl.FLOAT, out);
    return out;
  });
  let passMs = performance.now() - start;
  const times: number[] = [];
  const cpu: number[] = [];
  const texel = new Float32Array(4);
  for (let k = 0; k < (o.repeat ?? 0); k++) {
    const t0 = performance.now();
    pass.encode(order, total - growFrom);
    cpu.push(performance.now() - t0);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, fb);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, texel);
    times.push(performance.now() - t0);
  }
  if (times.length > 0) passMs = times.sort((a, b) => a - b)[times.length >> 1];
  const encodeCpuMs = cpu.length > 0 ? cpu.sort((a, b) => a - b)[cpu.length >> 1] : Number.NaN;
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);

  const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
  const diagonal = Math.hypot(...[0, 1, 2].map((k) => character.bounds.max[k] - character.bounds.min[k]));
  const at = (t: number, speed: number, c: number) => wrap(t + speed * o.clock, durations[c]);
  let worstLinear = 0, worstTranslation = 0, unwritten = 0;
  const J = data.slotCount;
  for (let s = 0; s < total; s++) {
    const a = animations[s];
    const timeA = at(a.timeA, a.speedA, a.clipA) + (o.shiftA ?? 0);
    const stack = stackOf[s];
    if (stack) {
      const cpu: CpuLayerStack = {
        base: { clip: a.clipA, time: timeA },
        layers: [
          ...(a.blend > 0 ? [{ clip: a.clipB, time: at(a.timeB, a.speedB, a.clipB), weight: a.blend }] : []),
          ...stack.layers.map((l) => ({ clip: l.clip, time: at(l.time, l.speed, l.clip), weight: l.weight, mask: l.mask === MASK_NONE ? undefined : maskWeights[l.mask] })),
        ],
        additive: stack.additive.map((l) => ({
          clip: l.clip, time: at(l.time, l.speed, l.clip), weight: l.weight, mask: l.mask === MASK_NONE ? undefined : maskWeights[l.mask],
          reference: typeof l.reference === 'string' ? l.reference : { clip: l.reference.clip, time: at(l.reference.time, l.reference.speed, l.reference.clip) },
        })),
      };
      poser.evaluateStack(cpu);
    } else {
      poser.evaluate({ clipA: a.clipA, timeA, clipB: a.clipB, timeB: at(a.timeB, a.speedB, a.clipB), blend: a.blend });
    }
    let j = 0;
    rig.skins.forEach((_, k) => {
      const m = poser.jointMatrices(k);
      for (let q = 0; q < m.length / 16; q++, j++) {
        const texel = ((s % target.slotsPerRow) * J + j) + Math.floor(s / target.slotsPerRow) * target.width;
        // The 3x3 part against the matrix's own scale (its largest 3x3 entry, at least 1: 100 for
        // RobotExpressive's scaled nodes, whose bind-space vertices are that much smaller), the
        // translation against the diagonal.
        let scale = 1;
        for (let i = 0; i < 12; i++) if (i % 4 !== 3) scale = Math.max(scale, Math.abs(m[q * 16 + i]));
        for (let r = 0; r < 3; r++) {
          for (let c = 0; c < 4; c++) {
            const got = rows[r][texel * 4 + c];
            const want = m[q * 16 + c * 4 + r];
            if (Number.isNaN(got)) { unwritten++; continue; }
            const e = Math.abs(got - want);
            if (c === 3) worstTranslation = Math.max(worstTranslation, e / diagonal);
            else worstLinear = Math.max(worstLinear, e / scale);
          }
        }
      }
    });
  }
  const layersCompiled = pass.layersCompiled;
  pass.destroy();
  instances.destroy(); stackTexture.destroy(); masks.destroy();
  return { worst: Math.max(worstLinear, worstTranslation), worstLinear, worstTranslation, unwritten, diagonal, joints: J, nodes: data.nodeCount, clips, passMs, layersCompiled, encodeCpuMs };
}

/** A context whose getParameter / getExtension answers differ from `gl`'s for the refusal checks. */
function restricted(overrides: { maxTextureSize?: number; noFloat?: boolean }): WebGL2RenderingContext {
  return new Proxy(gl, {
    get(target, key) {
      if (key === 'getParameter') return (p: number) => (p === target.MAX_TEXTURE_SIZE && overrides.maxTextureSize ? overrides.maxTextureSize : target.getParameter(p));
      if (key === 'getExtension') return (name: string) => (overrides.noFloat && name === 'EXT_color_buffer_float' ? null : target.getExtension(name));
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function glCase(name: string, url: string): Promise<string> {
  const character = await loadCharacter(url);
  const attempt = (fn: () => unknown) => { try { fn(); return 'no error'; } catch (e) { return (e as Error).message; } };
  if (name === 'no-float') return attempt(() => new GLPosePass(restricted({ noFloat: true }), character));
  if (name === 'small-textures') return attempt(() => new GLPosePass(restricted({ maxTextureSize: 64 }), character));
  if (name === 'dual-quaternion') return attempt(() => new GLPosePass(gl, character, { skinning: 'dual-quaternion' }));
  if (name === 'huge-capacity') return attempt(() => new GLPosePass(gl, character, { capacity: 1e9 }));
  if (name === 'huge-growth') {
    // update() refused growing past MAX_TEXTURE_SIZE leaves the pass as it was (same target, still usable).
    const pass = new GLPosePass(gl, character);
    const records = new GLRecordTexture(gl, 'Growth.records', INSTANCE.size);
    const before = pass.joints;
    const message = attempt(() => pass.update({ instanceBuffer: records, layerStackBuffer: records, masksBuffer: records, plainCount: 1e9, layeredCount: 0 }, 0));
    const same = pass.joints === before;
    pass.destroy();
    records.destroy();
    return `${message} | same target: ${same}`;
  }
  if (name === 'joint-fetch') return jointFetch(character);
  if (name === 'record-readback') {
    // Words written at unaligned offsets across a row boundary read back through a framebuffer exactly.
    const t = new GLRecordTexture(gl, 'Readback.records', 1024 * 16 * 3);
    const words = Uint32Array.from({ length: 1030 }, (_, i) => (i * 2654435761) >>> 0);
    t.write(1024 * 16 - 8, words);
    t.write(4, new Uint32Array([0xdeadbeef]));
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.texture, 0);
    const out = new Uint32Array(t.width * t.height * 4);
    gl.readPixels(0, 0, t.width, t.height, gl.RGBA_INTEGER, gl.UNSIGNED_INT, out);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    gl.deleteFramebuffer(fb);
    const expected = new Uint32Array(out.length);
    expected.set(words, (1024 * 16 - 8) / 4);
    expected[1] = 0xdeadbeef;
    const bad = expected.findIndex((w, i) => out[i] !== w);
    t.destroy();
    return bad < 0 ? 'equal' : `word ${bad}: ${out[bad]} != ${expected[bad]}`;
  }
  throw new Error(`unknown case ${name}`);
}

/**
 * GLSL_JOINT_FETCH as a draw uses it: a program that declares it reads crowdJointMatrix(slot,
 * joint) for every slot and joint (bindJointTarget sets its uniforms, on units 3 to 5) into a
 * float target, one texel per matrix column; compared with the row textures read back directly.
 */
function jointFetch(character: Character): string {
  const durations = character.baked.clipDurations;
  const count = 7;
  const records = new InstanceRecords(count, durations);
  for (let s = 0; s < count; s++) {
    records.setAnimation(s, { clipA: s % durations.length, clipB: 0, timeA: 0.1 * s, timeB: 0, speedA: 1, speedB: 0, blend: 0 }, 0);
    records.clearLayers(s);
  }
  const instances = new GLRecordTexture(gl, 'JointFetch.instances', count * INSTANCE.size);
  const empty = new GLRecordTexture(gl, 'JointFetch.empty', 16);
  records.upload(queue, asBuffer(instances));
  empty.write(0, new Uint32Array(4));
  const pass = new GLPosePass(gl, character);
  pass.update({ instanceBuffer: instances, layerStackBuffer: empty, masksBuffer: empty, plainCount: count, layeredCount: 0 }, 0.5);
  pass.encode(Uint32Array.from({ length: count }, (_, i) => i), count);
  const target = pass.joints;
  const J = target.jointCount;
  const compile = (type: number, source: string) => {
    const shader = gl.createShader(type)!;
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(`joint-fetch shader: ${gl.getShaderInfoLog(shader)}`);
    return shader;
  };
  const program = gl.createProgram()!;
  gl.attachShader(program, compile(gl.VERTEX_SHADER, '#version 300 es\nvoid main() { vec2 c = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)); gl_Position = vec4(c * 2.0 - 1.0, 0.0, 1.0); }'));
  gl.attachShader(program, compile(gl.FRAGMENT_SHADER, `#version 300 es\nprecision highp float;\nprecision highp int;\n${GLSL_JOINT_FETCH}\nout vec4 color;\nvoid main() { int x = int(gl_FragCoord.x); color = crowdJointMatrix(int(gl_FragCoord.y), x / 4)[x % 4]; }`));
  gl.linkProgram(program);
  const out = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, out);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, J * 4, count);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, out, 0);
  gl.viewport(0, 0, J * 4, count);
  gl.useProgram(program);
  bindJointTarget(gl, program, target, 3);
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  const columns = new Float32Array(J * 4 * count * 4);
  gl.readPixels(0, 0, J * 4, count, gl.RGBA, gl.FLOAT, columns);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, null, 0);
  const rows = target.rows.map((texture) => {
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    const r = new Float32Array(target.width * target.height * 4);
    gl.readPixels(0, 0, target.width, target.height, gl.RGBA, gl.FLOAT, r);
    return r;
  });
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  let bad = '';
  for (let s = 0; s < count && !bad; s++) {
    for (let j = 0; j < J && !bad; j++) {
      const texel = (s % target.slotsPerRow) * J + j + Math.floor(s / target.slotsPerRow) * target.width;
      for (let c = 0; c < 4; c++) {
        const column = Array.from(columns.subarray(((s * J * 4) + j * 4 + c) * 4, ((s * J * 4) + j * 4 + c) * 4 + 4));
        const expected = [rows[0][texel * 4 + c], rows[1][texel * 4 + c], rows[2][texel * 4 + c], c === 3 ? 1 : 0];
        if (column.some((v, k) => v !== expected[k])) { bad = `slot ${s} joint ${j} column ${c}: ${column} != ${expected}`; break; }
      }
    }
  }
  const allZero = columns.every((v) => v === 0);
  gl.deleteFramebuffer(fb); gl.deleteTexture(out); gl.deleteProgram(program);
  pass.destroy(); instances.destroy(); empty.destroy();
  return bad || (allZero ? 'all zero' : 'equal');
}

/**
 * For comparing with the WebGPU path in the same browser (not a test: a measurement): the WebGPU
 * pose pass (shaders/pose.wgsl) on `count` plain records made as poseCase makes them, through the
 * real InstanceStore; the median wall ms of `repeat` dispatches, each waited for.
 */
async function webgpuPoseMs(url: string, count: number, clock: number, repeat: number, seed: number): Promise<number> {
  const character = await loadCharacter(url);
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter!.requestDevice({ requiredLimits: { maxComputeWorkgroupStorageSize: adapter!.limits.maxComputeWorkgroupStorageSize } });
  const durations = character.baked.clipDurations;
  const data = character.gpu;
  const store = new InstanceStore(device, { nodeCount: data.nodeCount, slotCount: data.slotCount, clipDurations: durations, capacity: count, paletteSize: Infinity });
  const next = seededRandom(seed);
  const clips = durations.length;
  for (let s = 0; s < count; s++) {
    const h = store.add();
    const clipA = s % clips, clipB = Math.floor(next() * clips);
    const span = 3 * Math.max(durations[clipA], durations[clipB], 0.1);
    store.records.setAnimation(store.slot(h), { clipA, clipB, blend: s % 5 === 0 ? 0 : s % 5 === 1 ? 1 : next(), timeA: (next() * 2 - 1) * span, timeB: (next() * 2 - 1) * span, speedA: next() * 2.5 - 0.5, speedB: next() * 2 }, 0);
  }
  store.upload(device.queue);
  const pass = new PosePass(device, data);
  pass.update(store, clock);
  const times: number[] = [];
  for (let k = 0; k < repeat + 1; k++) {
    const t0 = performance.now();
    const encoder = device.createCommandEncoder();
    pass.encode(encoder);
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (k > 0) times.push(performance.now() - t0); // the first includes the pipeline's compile
  }
  pass.destroy();
  store.destroy();
  device.destroy();
  return times.sort((a, b) => a - b)[times.length >> 1];
}

Object.assign(window, { poseCase, glCase, webgpuPoseMs });
document.body.dataset.ready = '1';
