import steeringWgsl from '../../../shaders/steering/steering.wgsl?raw';
import { LOCOMOTION_DRIVE } from '../../runtime/layout';
import { checkStorageBinding, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import { AGENT, AGENT_STATE, CONTACT_WORDS, OBSTACLE_VERTEX, PROJECTION_ITERATIONS, SCAN_BLOCK, SORTED_AGENT, STEERING_PARAMS } from './layout';
import { tableSizeFor } from './step';

/** What the pass writes per instance: InstanceStore satisfies it. */
export interface SteeringTargets {
  /** INSTANCE records: the pass writes `world` of every agent. */
  readonly instanceBuffer: GPUBuffer;
  /** The slot of every handle (u32; 0xffffffff for a free handle). */
  readonly handleSlotBuffer: GPUBuffer;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
}

/** What the CPU hands the pass each frame (CrowdSteering keeps it): mirrors and what changed in them. */
export interface SteeringUploads {
  /** AGENT records by handle (the CPU mirror). */
  readonly agents: ArrayBuffer;
  /** Byte range of `agents` changed since the last upload ([lo, hi), empty when lo >= hi). */
  dirtyLo: number;
  dirtyHi: number;
  /** OBSTACLE_VERTEX records, re-uploaded whole when `obstaclesChanged`. */
  readonly obstacles: ArrayBuffer;
  obstacleBytes: number;
  obstaclesChanged: boolean;
  /** Flow field directions (x, z per cell, maxGoals fields of columns x rows cells). */
  readonly fields: Float32Array<ArrayBuffer>;
  /** Byte range of `fields` changed since the last upload ([lo, hi), empty when lo >= hi). */
  fieldsDirtyLo: number;
  fieldsDirtyHi: number;
  /** The STEERING_PARAMS block of this step. */
  readonly params: ArrayBuffer;
}

const ENTRY_POINTS = ['clearCells', 'countCells', 'scanCells', 'scatterCells', 'steer', 'moveAgents', 'gatherAgents', 'projectAgents', 'placeAgents'] as const;
type EntryPoint = (typeof ENTRY_POINTS)[number];
/** A dispatch: an entry point, or the projection's with its two position buffers swapped (source B, target A). */
type Dispatch = EntryPoint | 'projectBack' | 'placeFromB';
type BindGroups = Record<Dispatch, GPUBindGroup>;
const pipelineOf = (d: Dispatch): EntryPoint => d === 'projectBack' ? 'projectAgents' : d === 'placeFromB' ? 'placeAgents' : d;
/** The bindings each dispatch uses (indices into SteeringPass.bind's buffer list; steering.wgsl's @binding numbers). */
const BINDINGS: Readonly<Record<Dispatch, readonly number[]>> = {
  clearCells: [0, 3, 16], countCells: [0, 1, 2, 3, 6, 16], scanCells: [0, 3, 4, 16], scatterCells: [0, 1, 2, 4, 5, 6],
  steer: [0, 1, 2, 4, 5, 7, 8, 9, 15], moveAgents: [0, 1, 2, 9, 10, 11, 12],
  gatherAgents: [0, 1, 2, 14, 15], projectAgents: [0, 7, 13, 14, 15], projectBack: [0, 7, 13, 14, 15], placeAgents: [0, 1, 2, 10, 11, 12, 13], placeFromB: [0, 1, 2, 10, 11, 12, 13],
};
/**
 * Bindings 13 (projectSource) and 14 (projectTarget) are A -> B as listed; swapped (B -> A) for
 * gatherAgents (writes A), projectBack (odd iterations) and placeFromB (after an odd count).
 */
const SWAPPED: readonly Dispatch[] = ['gatherAgents', 'projectBack', 'placeFromB'];

/**
 * The steering compute pass (shaders/steering/steering.wgsl): one step of every agent, six
 * dispatches in one compute pass, then the position projection's `projectionIterations` + 2.
 * create: the constructor builds the pipelines (one per entry point, each with the layout of what
 * it binds, so no stage exceeds 8 storage buffers: steer binds 8). update():
 * grows the buffers to the handles (copying the agents' motion over), uploads what changed and the
 * uniforms. encode(): the dispatches. Owns its buffers; writes the targets' instance buffer
 * without owning it, and the locomotion channel it owns (driveBuffer).
 */
export class SteeringPass {
  private readonly params: GPUBuffer;
  /** 4 zero bytes (of 16) that encode copies over the uniforms' dt after the step (see encode). */
  private readonly zeros: GPUBuffer;
  private readonly pipelines: Record<EntryPoint, GPUComputePipeline>;
  private agents!: GPUBuffer;
  private states!: GPUBuffer;
  private cellRanks!: GPUBuffer;
  private nextVelocities!: GPUBuffer;
  /** The projection's two position buffers (vec4f by handle: x, z, radius, near an obstacle 1 or 0), read and written in turn. */
  private projectedA!: GPUBuffer;
  private projectedB!: GPUBuffer;
  /** CONTACT_WORDS u32 by handle: each agent's contacts this step (steer writes, projectAgents reads). */
  private contacts!: GPUBuffer;
  private sorted!: GPUBuffer;
  private cellCounts!: GPUBuffer;
  private cellStarts!: GPUBuffer;
  /** Agents counted per block of SCAN_BLOCK grid cells (u32, scanBlocks of them). */
  private blockSums!: GPUBuffer;
  private obstacles: GPUBuffer;
  private fields: GPUBuffer;
  private drives!: GPUBuffer;
  private capacity = 0;
  /** Cells of the hashed grid (a power of two >= 64, tableSizeFor the capacity). */
  private tableSize = 0;
  /** Workgroups of the prefix sum: ceil(tableSize / SCAN_BLOCK), 1 to 16,384 (a capacity of at most twice the most handles, 65,535 workgroups x WORKGROUP_SIZE, gives a table of at most 2^24 cells). */
  private scanBlocks = 0;
  private handleCount = 0;
  private bindGroups: BindGroups | undefined;
  private bound: SteeringTargets | undefined;
  private boundGeneration = -1;
  /** A view of the last `uploads.params` (the same buffer every frame), made once. */
  private paramsView: DataView | undefined;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'SteeringPass', timestampWrites: undefined };

  /**
   * @param projectionIterations Jacobi iterations of the position projection each step, 0 to
   *   MAX_PROJECTION_ITERATIONS (CrowdSteeringOptions.projectionIterations, checked there); 0: none.
   */
  constructor(readonly device: GPUDevice, private readonly projectionIterations = PROJECTION_ITERATIONS) {
    this.params = device.createBuffer({ label: 'SteeringPass.params', size: STEERING_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.zeros = device.createBuffer({ label: 'SteeringPass.zeros', size: 16, usage: GPUBufferUsage.COPY_SRC });
    const module = device.createShaderModule({ label: 'SteeringPass.shader', code: steeringWgsl });
    const make = (entryPoint: EntryPoint): GPUComputePipeline => device.createComputePipeline({
      label: `SteeringPass.${entryPoint}`, layout: 'auto', compute: { module, entryPoint, constants: { WORKGROUP_SIZE, PROJECTING: projectionIterations > 0 ? 1 : 0 } },
    });
    this.pipelines = Object.fromEntries(ENTRY_POINTS.map((e) => [e, make(e)])) as Record<EntryPoint, GPUComputePipeline>;
    this.obstacles = this.storage('obstacles', OBSTACLE_VERTEX.size);
    this.fields = this.storage('fields', 8);
    this.grow(64);
  }

  /** The agents' motion (AGENT_STATE by handle), for readback. Owned by the pass; replaced when handles outgrow it. */
  get stateBuffer(): GPUBuffer {
    return this.states;
  }

  /**
   * The kernel's locomotion channel (LOCOMOTION_DRIVE by handle, src/runtime/layout.ts) that
   * moveAgents writes. Owned by the pass; replaced when handles outgrow it (in update).
   */
  get driveBuffer(): GPUBuffer {
    return this.drives;
  }

  /** @internal The grid of the last step (tests: held to the twin's SteeringGrid): cellStarts (u32, tableSize + 1) and sorted (SORTED_AGENT records by cell). */
  get gridBuffers(): { readonly cellStarts: GPUBuffer; readonly sorted: GPUBuffer; readonly tableSize: number } {
    return { cellStarts: this.cellStarts, sorted: this.sorted, tableSize: this.tableSize };
  }

  /** Bytes of the pass's GPU buffers. */
  get gpuBytes(): number {
    let bytes = 0;
    for (const b of this.buffers()) bytes += b.size;
    return bytes;
  }

  /**
   * Prepares the step for `handles` agent handles: grows the buffers, uploads the changed agent
   * records, obstacles, fields and the uniforms (STEERING_PARAMS; this writes handleCount and
   * tableSize into `uploads.params`). Returns the bytes uploaded.
   */
  update(targets: SteeringTargets, uploads: SteeringUploads, handles: number): number {
    if (Math.ceil(handles / WORKGROUP_SIZE) > MAX_WORKGROUPS_PER_DIMENSION) throw new RangeError(`SteeringPass: ${handles} agent handles need more than ${MAX_WORKGROUPS_PER_DIMENSION} workgroups`);
    let bytes = 0;
    if (handles > this.capacity) {
      this.grow(Math.max(handles, 2 * this.capacity));
      uploads.dirtyLo = 0;
      uploads.dirtyHi = Math.min(uploads.agents.byteLength, this.capacity * AGENT.size);
    }
    const queue = this.device.queue;
    if (uploads.dirtyLo < uploads.dirtyHi) {
      const hi = Math.min(uploads.dirtyHi, this.capacity * AGENT.size);
      queue.writeBuffer(this.agents, uploads.dirtyLo, uploads.agents, uploads.dirtyLo, hi - uploads.dirtyLo);
      bytes += hi - uploads.dirtyLo;
      uploads.dirtyLo = Infinity;
      uploads.dirtyHi = 0;
    }
    if (uploads.obstaclesChanged) {
      if (uploads.obstacleBytes > this.obstacles.size) {
        checkStorageBinding(this.device, 'SteeringPass.obstacles', uploads.obstacleBytes);
        this.obstacles.destroy();
        this.obstacles = this.storage('obstacles', uploads.obstacleBytes);
        this.bindGroups = undefined;
      }
      if (uploads.obstacleBytes > 0) queue.writeBuffer(this.obstacles, 0, uploads.obstacles, 0, uploads.obstacleBytes);
      bytes += uploads.obstacleBytes;
      uploads.obstaclesChanged = false;
    }
    if (uploads.fields.byteLength > this.fields.size) {
      checkStorageBinding(this.device, 'SteeringPass.fields', uploads.fields.byteLength);
      this.fields.destroy();
      this.fields = this.storage('fields', uploads.fields.byteLength);
      this.bindGroups = undefined;
      uploads.fieldsDirtyLo = 0;
      uploads.fieldsDirtyHi = uploads.fields.byteLength;
    }
    if (uploads.fieldsDirtyLo < uploads.fieldsDirtyHi) {
      const lo = uploads.fieldsDirtyLo, hi = Math.min(uploads.fieldsDirtyHi, uploads.fields.byteLength);
      queue.writeBuffer(this.fields, lo, uploads.fields.buffer, uploads.fields.byteOffset + lo, hi - lo);
      bytes += hi - lo;
      uploads.fieldsDirtyLo = Infinity;
      uploads.fieldsDirtyHi = 0;
    }
    if (targets !== this.bound || targets.generation !== this.boundGeneration || !this.bindGroups) this.bind(targets);
    this.handleCount = handles;
    if (handles === 0) return bytes; // no step to run (encode records nothing): an idle steering writes nothing a frame
    if (this.paramsView?.buffer !== uploads.params) this.paramsView = new DataView(uploads.params);
    const view = this.paramsView;
    view.setUint32(STEERING_PARAMS.handleCount, handles, true);
    view.setUint32(STEERING_PARAMS.tableSize, this.tableSize, true);
    queue.writeBuffer(this.params, 0, uploads.params);
    return bytes + STEERING_PARAMS.size;
  }

  /**
   * Records the step (after update; before the passes that read the instance records);
   * `timestampWrites` times it (benchmarks). After the dispatches the pass zeroes its own dt on the
   * GPU (a 4-byte copy in the same encoder), so a second encode of one update (two views drawn a
   * frame) steps nobody: below MIN_STEP_DT every dispatch leaves the agents' motion as it is and
   * moveAgents writes their placements and locomotion records again, the same. Submitted with the
   * first encode or after it; the next update writes the uniforms anew.
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (this.handleCount === 0 || !this.bindGroups) return;
    // The targets' buffers were replaced since update (an add past the store's capacity before this encode).
    if (this.bound && this.bound.generation !== this.boundGeneration) this.bind(this.bound);
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    const agents = Math.ceil(this.handleCount / WORKGROUP_SIZE), groups = this.bindGroups;
    this.dispatch(pass, groups, 'clearCells', Math.ceil(this.tableSize / WORKGROUP_SIZE));
    this.dispatch(pass, groups, 'countCells', agents);
    this.dispatch(pass, groups, 'scanCells', this.scanBlocks);
    this.dispatch(pass, groups, 'scatterCells', agents);
    this.dispatch(pass, groups, 'steer', agents);
    this.dispatch(pass, groups, 'moveAgents', agents);
    if (this.projectionIterations > 0) {
      this.dispatch(pass, groups, 'gatherAgents', agents);
      for (let i = 0; i < this.projectionIterations; i++) this.dispatch(pass, groups, i % 2 === 0 ? 'projectAgents' : 'projectBack', agents);
      this.dispatch(pass, groups, this.projectionIterations % 2 === 0 ? 'placeAgents' : 'placeFromB', agents);
    }
    pass.end();
    encoder.copyBufferToBuffer(this.zeros, 0, this.params, STEERING_PARAMS.dt, 4);
  }

  private dispatch(pass: GPUComputePassEncoder, groups: BindGroups, entry: Dispatch, workgroups: number): void {
    pass.setPipeline(this.pipelines[pipelineOf(entry)]);
    pass.setBindGroup(0, groups[entry]);
    pass.dispatchWorkgroups(workgroups);
  }

  destroy(): void {
    for (const b of this.buffers()) b.destroy();
  }

  /** Every buffer the pass owns (gpuBytes, destroy): the per-handle ones first, as grow replaces them. */
  private buffers(): GPUBuffer[] {
    return [...this.handleBuffers(), this.states, this.params, this.zeros, this.obstacles, this.fields];
  }

  /** The buffers sized by handles that grow replaces outright (states is copied over, so it is not among them). */
  private handleBuffers(): GPUBuffer[] {
    return [this.agents, this.drives, this.cellRanks, this.nextVelocities, this.projectedA, this.projectedB, this.contacts, this.sorted, this.cellCounts, this.cellStarts, this.blockSums];
  }

  private storage(name: string, size: number, extra = 0): GPUBuffer {
    return this.device.createBuffer({ label: `SteeringPass.${name}`, size: Math.max(16, size), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | extra });
  }

  /** Buffers for `capacity` handles; the agents' motion so far is copied into the new state buffer. */
  private grow(capacity: number): void {
    for (const [label, size] of [['agents', AGENT.size], ['states', AGENT_STATE.size], ['drives', LOCOMOTION_DRIVE.size]] as const) checkStorageBinding(this.device, `SteeringPass.${label}`, capacity * size);
    const old = this.capacity > 0 ? this.states : undefined;
    const table = tableSizeFor(capacity);
    if (this.capacity > 0) for (const b of this.handleBuffers()) b.destroy();
    this.agents = this.storage('agents', capacity * AGENT.size);
    this.states = this.storage('states', capacity * AGENT_STATE.size, GPUBufferUsage.COPY_SRC);
    this.drives = this.storage('drives', capacity * LOCOMOTION_DRIVE.size, GPUBufferUsage.COPY_SRC);
    this.cellRanks = this.storage('cellRanks', capacity * 8);
    this.nextVelocities = this.storage('nextVelocities', capacity * 8);
    this.projectedA = this.storage('projectedA', capacity * 16);
    this.projectedB = this.storage('projectedB', capacity * 16);
    this.contacts = this.storage('contacts', capacity * CONTACT_WORDS * 4);
    this.sorted = this.storage('sorted', capacity * SORTED_AGENT.size, GPUBufferUsage.COPY_SRC);
    this.cellCounts = this.storage('cellCounts', table * 4);
    this.cellStarts = this.storage('cellStarts', (table + 1) * 4, GPUBufferUsage.COPY_SRC);
    const blocks = Math.ceil(table / SCAN_BLOCK);
    this.blockSums = this.storage('blockSums', blocks * 4);
    if (old) {
      const encoder = this.device.createCommandEncoder({ label: 'SteeringPass.grow' });
      encoder.copyBufferToBuffer(old, 0, this.states, 0, old.size);
      this.device.queue.submit([encoder.finish()]);
      old.destroy();
    }
    this.capacity = capacity;
    this.tableSize = table;
    this.scanBlocks = blocks;
    this.bindGroups = undefined;
  }

  private bind(targets: SteeringTargets): void {
    const buffers: GPUBuffer[] = [
      this.params, this.agents, this.states, this.cellCounts, this.cellStarts, this.sorted, this.cellRanks,
      this.obstacles, this.fields, this.nextVelocities, targets.handleSlotBuffer, targets.instanceBuffer, this.drives,
      this.projectedA, this.projectedB, this.contacts, this.blockSums,
    ];
    const swapped = (binding: number): GPUBuffer => binding === 13 ? this.projectedB : binding === 14 ? this.projectedA : buffers[binding];
    const group = (key: Dispatch): GPUBindGroup => {
      const pick = SWAPPED.includes(key) ? swapped : (binding: number): GPUBuffer => buffers[binding];
      return this.device.createBindGroup({
        label: `SteeringPass.${key}`, layout: this.pipelines[pipelineOf(key)].getBindGroupLayout(0),
        entries: BINDINGS[key].map((binding) => ({ binding, resource: { buffer: pick(binding) } })),
      });
    };
    this.bindGroups = Object.fromEntries((Object.keys(BINDINGS) as Dispatch[]).map((key) => [key, group(key)])) as BindGroups;
    this.bound = targets;
    this.boundGeneration = targets.generation;
  }
}
