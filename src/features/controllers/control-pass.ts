import controlWgsl from '../../../shaders/controllers/control.wgsl?raw';
import { clockResidual, clockTicks } from '../../runtime/clip-clock';
import { CONTROL_INPUT, CONTROL_PARAMS, CONTROL_STATE, CONTROL_UPDATE, LOCOMOTION_DRIVE } from '../../runtime/layout';
import { checkStorageBinding, formatCount, growthCount, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE, type BufferItems } from '../../runtime/limits';

/** The dispatch is 1D: one controller per thread, at most this many workgroups. */
const MAX_WORKGROUPS = MAX_WORKGROUPS_PER_DIMENSION;
/** How the pass's growing buffers follow their counts: per handle (inputs, states), per controller (the handle list, at most one update each). */
const INPUT_ITEMS: BufferItems = { noun: 'handles', bytes: CONTROL_INPUT.size };
const STATE_ITEMS: BufferItems = { noun: 'handles', bytes: CONTROL_STATE.size };
const LIST_ITEMS: BufferItems = { noun: 'controllers', bytes: 4 };
const UPDATE_ITEMS: BufferItems = { noun: 'updates', bytes: CONTROL_UPDATE.size };
const MODEL_ITEMS: BufferItems = { noun: 'model words', bytes: 4 };

/**
 * The model-wide tables of the control pass (shaders/controllers/control.wgsl `model`): f32 words, with u32
 * fields stored as their bits. Built once per controller config (src/control-model.ts).
 */
export interface ControlModel {
  readonly words: Float32Array<ArrayBuffer>;
  readonly clipBase: number;
  readonly actionBase: number;
  readonly curveBase: number;
  readonly locoBase: number;
  /** Offset of the 2D locomotion blend space's tables, or CONTROL.NO_INDEX when there is none. */
  readonly planeBase: number;
  /** Offset of the clips' root displacements (x, z per clip index; rate matching), or CONTROL.NO_INDEX when there are none. */
  readonly rootBase: number;
}

/** When the frame is, for the control pass (seconds). */
export interface ControlClocks {
  /** The crowd clock the pose records are written against. */
  readonly crowdClock: number;
  /** Seconds since the last frame. */
  readonly dt: number;
  /** The control clock relative to the latest even and odd period starts (see CONTROL_INPUT.basis). */
  readonly clock0: number;
  readonly clock1: number;
}

/** What the control pass reads and writes per instance: InstanceStore satisfies it. */
export interface ControlTargets {
  readonly instanceBuffer: GPUBuffer;
  readonly layerStackBuffer: GPUBuffer;
  readonly handleSlotBuffer: GPUBuffer;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
}

/**
 * The compute pass that evaluates GPU-driven animation controllers (shaders/controllers/control.wgsl) and
 * writes their instance records and layer stacks, before the pose pass reads them.
 * create: the constructor uploads the model tables and builds the two pipelines (apply the
 * frame's rewritten inputs; evaluate). update(): uploads the rewritten inputs (one writeBuffer)
 * and the handle list when it changed, grows the per-handle buffers (copying the GPU-owned
 * state across in the next encode) and writes the uniforms. encode(): records the dispatches.
 * Owns its buffers; reads the targets' buffers without owning them.
 */
export class ControlPass {
  private readonly params: GPUBuffer;
  private readonly paramData = new ArrayBuffer(CONTROL_PARAMS.size);
  private readonly paramView = new DataView(this.paramData);
  private modelBuffer: GPUBuffer;
  private readonly layout: GPUBindGroupLayout;
  private readonly updateLayout: GPUBindGroupLayout;
  private readonly driveLayout: GPUBindGroupLayout;
  /** A zeroed channel record bound when no feature provides the locomotion channel (no handle driven). */
  private readonly noDrive: GPUBuffer;
  /** 8 zero bytes that encode copies over the uniforms' dt and updateCount after the dispatches (see encode). */
  private readonly zeros: GPUBuffer;
  private driveGroup: GPUBindGroup | undefined;
  private driveBound: GPUBuffer | undefined;
  private readonly evaluate: GPUComputePipeline;
  private readonly apply: GPUComputePipeline;
  private inputs: GPUBuffer;
  private states: GPUBuffer;
  private handles: GPUBuffer;
  private updates: GPUBuffer;
  /** Handles the per-handle buffers hold. */
  private handleCapacity: number;
  private bindGroup: GPUBindGroup | undefined;
  private updateGroup: GPUBindGroup | undefined;
  private bound: ControlTargets | undefined;
  private boundGeneration = -1;
  /** Old per-handle buffers to copy into the new ones at the next encode (growth), then destroy. */
  private pendingCopies: { from: GPUBuffer; to: GPUBuffer; bytes: number }[] = [];
  private count = 0;
  private updateCount = 0;
  /** The handle list buffer was replaced: upload the whole list at the next update. */
  private listStale = false;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'ControlPass' };

  constructor(readonly device: GPUDevice, private model: ControlModel) {
    checkStorageBinding(device, 'ControlPass.model', { ...MODEL_ITEMS, count: model.words.length });
    this.modelBuffer = device.createBuffer({ label: 'ControlPass.model', size: Math.max(16, model.words.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.modelBuffer, 0, model.words);
    this.params = device.createBuffer({ label: 'ControlPass.params', size: CONTROL_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: 'ControlPass.layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        storage(1, 'read-only-storage'), storage(2, 'storage'), storage(3, 'storage'), storage(4, 'read-only-storage'),
        storage(5, 'read-only-storage'), storage(6, 'storage'), storage(7, 'storage'),
      ],
    });
    this.updateLayout = device.createBindGroupLayout({ label: 'ControlPass.updateLayout', entries: [storage(0, 'read-only-storage')] });
    // Its own group, so that neither pipeline passes 8 storage buffers (applyUpdates binds the updates instead).
    this.driveLayout = device.createBindGroupLayout({ label: 'ControlPass.driveLayout', entries: [storage(1, 'read-only-storage')] });
    this.noDrive = device.createBuffer({ label: 'ControlPass.noDrive', size: LOCOMOTION_DRIVE.size, usage: GPUBufferUsage.STORAGE });
    this.zeros = device.createBuffer({ label: 'ControlPass.zeros', size: 16, usage: GPUBufferUsage.COPY_SRC });
    const module = device.createShaderModule({ label: 'ControlPass.shader', code: controlWgsl });
    const constants = { WORKGROUP_SIZE };
    this.evaluate = device.createComputePipeline({
      label: 'ControlPass.evaluatePipeline',
      layout: device.createPipelineLayout({ label: 'ControlPass.evaluateLayout', bindGroupLayouts: [this.layout, this.driveLayout] }),
      compute: { module, entryPoint: 'main', constants },
    });
    this.apply = device.createComputePipeline({
      label: 'ControlPass.applyPipeline',
      layout: device.createPipelineLayout({ label: 'ControlPass.applyLayout', bindGroupLayouts: [this.layout, this.updateLayout] }),
      compute: { module, entryPoint: 'applyUpdates', constants },
    });
    this.handleCapacity = 64;
    this.inputs = this.perHandle('inputs', CONTROL_INPUT.size, this.handleCapacity);
    this.states = this.perHandle('states', CONTROL_STATE.size, this.handleCapacity);
    this.handles = this.createBuffer('handles', 256);
    this.updates = this.createBuffer('updates', 16 * CONTROL_UPDATE.size);
  }

  /**
   * Makes room for handles [0, handles) and `controllers` controlled handles (the handle list,
   * and at most one update each per frame): checks every buffer against the device's limits
   * first, then allocates, then swaps, so a refusal (a RangeError naming the buffer, the limit
   * and how many fit) changes nothing. Grown per-handle buffers keep their contents (copied at
   * the next encode). The driver calls it when a controller is added, so frames never refuse.
   */
  reserve(handles: number, controllers: number): void {
    const listBytes = controllers * 4;
    const updateBytes = controllers * CONTROL_UPDATE.size;
    if (handles <= this.handleCapacity && listBytes <= this.handles.size && updateBytes <= this.updates.size) return;
    const maxControllers = MAX_WORKGROUPS * WORKGROUP_SIZE;
    if (controllers > maxControllers) {
      throw new RangeError(`ControlPass: ${formatCount(controllers)} controllers need more than ${MAX_WORKGROUPS} workgroups of ${WORKGROUP_SIZE}: at most ${formatCount(maxControllers)} controllers fit`);
    }
    // Check: every count that must fit, before anything is allocated.
    const capacity = handles <= this.handleCapacity ? this.handleCapacity
      : Math.min(growthCount(this.device, 'ControlPass.inputs', handles, this.handleCapacity, INPUT_ITEMS),
        growthCount(this.device, 'ControlPass.states', handles, this.handleCapacity, STATE_ITEMS));
    const listCount = listBytes <= this.handles.size ? 0 : growthCount(this.device, 'ControlPass.handles', controllers, this.handles.size / 4, LIST_ITEMS);
    const updateCount = updateBytes <= this.updates.size ? 0
      : growthCount(this.device, 'ControlPass.updates', controllers, this.updates.size / CONTROL_UPDATE.size, UPDATE_ITEMS);
    // Allocate, then swap.
    const grown = capacity > this.handleCapacity ? [this.perHandle('inputs', CONTROL_INPUT.size, capacity), this.perHandle('states', CONTROL_STATE.size, capacity)] : undefined;
    const list = listCount > 0 ? this.createBuffer('handles', listCount * 4) : undefined;
    const updates = updateCount > 0 ? this.createBuffer('updates', updateCount * CONTROL_UPDATE.size) : undefined;
    if (grown) {
      this.pendingCopies.push({ from: this.inputs, to: grown[0], bytes: this.inputs.size }, { from: this.states, to: grown[1], bytes: this.states.size });
      [this.inputs, this.states] = grown;
      this.handleCapacity = capacity;
    }
    if (list) {
      this.handles.destroy();
      this.handles = list;
      this.listStale = true;
    }
    if (updates) {
      this.updates.destroy();
      this.updates = updates;
    }
    this.bindGroup = undefined;
  }

  /**
   * Prepares the frame: `handleList[0, count)` are the controlled handles (uploaded when
   * `listChanged`), `updates` holds `updateCount` CONTROL_UPDATE records to apply first, `clock`
   * is the crowd clock and `dt` the seconds since the last frame. `handleLimit` is one more than
   * the largest handle that may appear. Grows what is short through reserve (which the driver
   * has normally called already, when the controllers were added).
   */
  update(targets: ControlTargets, handleList: Uint32Array, count: number, listChanged: boolean,
    updates: ArrayBuffer, updateCount: number, handleLimit: number, clocks: ControlClocks): void {
    const ticks = clockTicks(clocks.crowdClock, 'ControlPass.update: crowdClock');
    this.reserve(handleLimit, Math.max(count, updateCount));
    const updateBytes = updateCount * CONTROL_UPDATE.size;
    if (this.listStale) {
      listChanged = true;
      this.listStale = false;
    }
    if (targets !== this.bound || targets.generation !== this.boundGeneration || !this.bindGroup) this.bind(targets);
    if (listChanged && count > 0) this.device.queue.writeBuffer(this.handles, 0, handleList.buffer, handleList.byteOffset, count * 4);
    if (updateBytes > 0) this.device.queue.writeBuffer(this.updates, 0, updates, 0, updateBytes);
    this.count = count;
    this.updateCount = updateCount;
    const v = this.paramView;
    v.setUint32(CONTROL_PARAMS.count, count, true);
    v.setInt32(CONTROL_PARAMS.crowdTicks, ticks, true);
    v.setFloat32(CONTROL_PARAMS.crowdResidual, clockResidual(clocks.crowdClock, ticks), true);
    v.setFloat32(CONTROL_PARAMS.dt, clocks.dt, true);
    v.setFloat32(CONTROL_PARAMS.clock0, clocks.clock0, true);
    v.setFloat32(CONTROL_PARAMS.clock1, clocks.clock1, true);
    v.setUint32(CONTROL_PARAMS.updateCount, updateCount, true);
    v.setUint32(CONTROL_PARAMS.clipBase, this.model.clipBase, true);
    v.setUint32(CONTROL_PARAMS.actionBase, this.model.actionBase, true);
    v.setUint32(CONTROL_PARAMS.curveBase, this.model.curveBase, true);
    v.setUint32(CONTROL_PARAMS.locoBase, this.model.locoBase, true);
    v.setUint32(CONTROL_PARAMS.planeBase, this.model.planeBase, true);
    v.setUint32(CONTROL_PARAMS.rootBase, this.model.rootBase, true);
    this.device.queue.writeBuffer(this.params, 0, this.paramData);
  }

  /**
   * Records the copies of a growth, then the two dispatches (call after update, before the pose
   * pass). `drive` is the kernel's locomotion channel now (CrowdKernel.locomotionDrive), or
   * undefined; its bind group is remade when the buffer is replaced, and the targets' when one of
   * theirs was since update (the store grew). After the dispatches the
   * pass zeroes its own dt and updateCount on the GPU (an 8-byte copy in the same encoder), so a
   * second encode of one update (two views drawn a frame: a split screen, a shadow map and the
   * main view) writes the same records again without integrating the locomotion or advancing its
   * phase a second time, submitted with the first or after it; the next update writes both anew.
   */
  encode(encoder: GPUCommandEncoder, drive?: GPUBuffer): void {
    for (const copy of this.pendingCopies) {
      encoder.copyBufferToBuffer(copy.from, 0, copy.to, 0, copy.bytes);
    }
    if (this.pendingCopies.length > 0) {
      // Destroyed once the copies have run.
      const old = this.pendingCopies.map((c) => c.from);
      this.pendingCopies = [];
      this.device.queue.onSubmittedWorkDone().then(() => { for (const b of old) b.destroy(); }, () => {});
    }
    if (this.count === 0 && this.updateCount === 0) return;
    // The store's buffers were replaced since update (an add past its capacity before this encode).
    if (this.bound && this.bound.generation !== this.boundGeneration) this.bind(this.bound);
    const pass = encoder.beginComputePass(this.passDescriptor);
    if (this.updateCount > 0) {
      pass.setPipeline(this.apply);
      pass.setBindGroup(0, this.bindGroup!);
      pass.setBindGroup(1, this.updateGroup!);
      pass.dispatchWorkgroups(Math.ceil(this.updateCount / WORKGROUP_SIZE));
    }
    if (this.count > 0) {
      const channel = drive ?? this.noDrive;
      if (channel !== this.driveBound || !this.driveGroup) {
        this.driveGroup = this.device.createBindGroup({ label: 'ControlPass.driveGroup', layout: this.driveLayout, entries: [{ binding: 1, resource: { buffer: channel } }] });
        this.driveBound = channel;
      }
      pass.setPipeline(this.evaluate);
      // Group 0 has one layout in both pipelines: bound by apply above, it stays bound.
      if (this.updateCount === 0) pass.setBindGroup(0, this.bindGroup!);
      pass.setBindGroup(1, this.driveGroup);
      pass.dispatchWorkgroups(Math.ceil(this.count / WORKGROUP_SIZE));
    }
    pass.end();
    // dt and updateCount are adjacent words (CONTROL_PARAMS): the frame is integrated, its updates applied.
    encoder.copyBufferToBuffer(this.zeros, 0, this.params, CONTROL_PARAMS.dt, 8);
  }

  /**
   * Replaces the model tables (a curve table was added: an event, never per frame). The buffer
   * is rewritten in place when it is big enough, else replaced.
   */
  setModel(model: ControlModel): void {
    const words = model.words.length;
    checkStorageBinding(this.device, 'ControlPass.model', { ...MODEL_ITEMS, count: words });
    if (model.words.byteLength > this.modelBuffer.size) {
      const size = growthCount(this.device, 'ControlPass.model', words, this.modelBuffer.size / 4, MODEL_ITEMS) * 4;
      const grown = this.device.createBuffer({ label: 'ControlPass.model', size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.modelBuffer.destroy();
      this.modelBuffer = grown;
      this.bindGroup = undefined;
    }
    this.device.queue.writeBuffer(this.modelBuffer, 0, model.words);
    this.model = model;
  }

  /** The per-handle locomotion state buffer (CONTROL_STATE records), for readback. Owned by the pass. */
  get stateBuffer(): GPUBuffer {
    return this.states;
  }

  destroy(): void {
    for (const b of [this.params, this.modelBuffer, this.inputs, this.states, this.handles, this.updates, this.noDrive, this.zeros]) b.destroy();
    for (const copy of this.pendingCopies) copy.from.destroy();
  }

  private bind(targets: ControlTargets): void {
    const buffers = [this.params, this.modelBuffer, this.inputs, this.states, this.handles, targets.handleSlotBuffer, targets.instanceBuffer, targets.layerStackBuffer];
    this.bindGroup = this.device.createBindGroup({
      label: 'ControlPass.bindGroup', layout: this.layout, entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.updateGroup = this.device.createBindGroup({ label: 'ControlPass.updateGroup', layout: this.updateLayout, entries: [{ binding: 0, resource: { buffer: this.updates } }] });
    this.bound = targets;
    this.boundGeneration = targets.generation;
  }

  private perHandle(name: string, recordBytes: number, capacity: number): GPUBuffer {
    return this.device.createBuffer({ label: `ControlPass.${name}`, size: capacity * recordBytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  }

  /** Bytes of the pass's GPU buffers. */
  get gpuBytes(): number {
    return this.modelBuffer.size + this.params.size + this.noDrive.size + this.zeros.size + this.inputs.size + this.states.size + this.handles.size + this.updates.size;
  }

  private createBuffer(name: string, size: number): GPUBuffer {
    return this.device.createBuffer({ label: `ControlPass.${name}`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  }
}
