import type { Crowd } from '../../runtime/crowd';
import type { InstanceId } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel, EncodedFrame, FeatureStage } from '../../runtime/feature';
import { WORLD } from '../../math/float32';
import { show } from '../../math/show';
import { createPickTarget, PickPass, type PickTarget } from './pick-pass';
import { checkRay, pointerRay, rayViewProjection, rectToNdc, type PickCamera, type PickRay, type Ray, type ScreenRect } from './ray';
import { SelectPass, type SelectTarget } from './select-pass';
import { SlotIds } from './slot-ids';
import { CpuRaycaster, type RaycastHit } from './cpu-raycast';

/** The nearest instance a ray hits on its posed mesh. */
export interface PickHit {
  /** The instance, as Crowd.add returned it. */
  id: InstanceId;
  /** Distance from the ray's origin to the hit, world units (for pickPointer: from the near plane). */
  distance: number;
  /** The hit point in world space: origin + unit direction x distance. */
  point: [number, number, number];
}

/** How pick() searches along its ray. */
export interface PickOptions {
  /** How far along the ray to search, world units (default 1000 x the rest pose's bounds diagonal); depth resolves it to 2^-24 of this. */
  maxDistance?: number;
}

/** Picks in flight at once (pick, pickPointer, selectRect together); a further request is refused until one settles. */
export const MAX_PENDING_PICKS = 16;

/** Half the width of a pick's orthographic box, in rest-pose bounds diagonals: small against any triangle, large against float32 rounding. */
const PICK_HALF_WIDTH = 1e-3;

interface PickRequest {
  kind: 'pick';
  ray: PickRay;
  viewProjection: Float32Array;
  target: PickTarget | undefined;
  resolve(hit: PickHit | null): void;
  reject(error: unknown): void;
}

interface SelectRequest {
  kind: 'select';
  viewProjection: Float32Array;
  ndc: Float32Array;
  target: SelectTarget | undefined;
  resolve(ids: InstanceId[]): void;
  reject(error: unknown): void;
}

type Request = PickRequest | SelectRequest;

/** The requests encoded in one frame, with what their answers are read against. */
interface Batch {
  requests: Request[];
  /** Slot -> id when they were encoded. */
  ids: Float64Array;
}

/**
 * Picking (docs/picking.md): which instance is under the pointer or along a ray, hit against its
 * posed mesh (the skin shader's own vertex stage, so layers, controllers, root motion and morph
 * targets are all in it), and which instances are inside a screen rectangle. Nothing stalls: a
 * request made before frame N's encode() is recorded in it (after the pose pass), its readback is
 * requested in frame N+1's update() (after frame N was submitted), and its promise settles when
 * the GPU has finished frame N, typically before frame N+2 is drawn. Answers are of frame N as
 * drawn: the instances its camera drew (after culling, at their LOD level), or every instance
 * without a camera; an instance removed before the promise settles is not reported. On a
 * WebGL 2 crowd (GLCrowd) every answer is the CPU's and settles at once: pick and pickPointer are
 * raycast()'s nearest hit (plain instances only), selectRect runs select.wgsl's test over the records.
 *
 * @example
 * ```ts
 * const picking = new CrowdPicking(crowd);
 * canvas.addEventListener('click', async (e) => {
 *   const hit = await picking.pickPointer(e.offsetX, e.offsetY, { viewProjection, width: canvas.clientWidth, height: canvas.clientHeight });
 *   if (hit) console.log(`#${hit.id} at ${hit.distance}`);
 * });
 * ```
 */
export class CrowdPicking implements CrowdFeature {
  readonly featureName = 'picking';
  /** Runs on WebGL 2 too, on the CPU there (CpuRaycaster for pick, the records' matrices for selectRect). */
  readonly onWebGL2 = true;
  private readonly kernel: CrowdKernel;
  private readonly ids: SlotIds;
  private pickPass: PickPass | undefined;
  private selectPass: SelectPass | undefined;
  /** Every pick target made on the current device, and those not in flight. */
  private targets: PickTarget[] = [];
  private freeTargets: PickTarget[] = [];
  /** Requested, not yet encoded. */
  private queued: Request[] = [];
  /** Encoded, readback not yet requested (the frame may not be submitted yet). */
  private encoded: Batch[] = [];
  /** Every batch whose promises have not settled: removals are noted in them. */
  private readonly open = new Set<Batch>();
  private readonly diagonal: number;
  private cpu: CpuRaycaster | undefined;
  /** On a WebGL 2 crowd every answer is the CPU's, at once (no pick or select pass). */
  private readonly onCpu: boolean;
  private readonly world = new Float32Array(16);

  /** Installs picking on `crowd`: a Crowd, or a GLCrowd, where it answers on the CPU (docs/picking.md, "On WebGL 2"). */
  constructor(private readonly crowd: Pick<Crowd, 'install' | 'worldTransform'>) {
    this.kernel = crowd.install(this);
    this.onCpu = this.kernel.backend === 'webgl2';
    const { store, character } = this.kernel;
    const { min, max } = character.bounds;
    this.diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) || 1;
    this.ids = new SlotIds(store.capacity);
    store.attach(this.ids);
    // The instances already in the crowd.
    for (let handle = 0; handle < store.handleCount; handle++) if (store.has(handle)) this.ids.set(store.slot(handle), store.idOf(handle));
    if (!this.onCpu) this.passesCreated(this.kernel.device);
  }

  /** Requests in flight: made and not yet settled. */
  get pending(): number {
    let n = this.queued.length;
    for (const batch of this.open) n += batch.requests.length;
    return n;
  }

  /**
   * The nearest instance that `ray` hits (world space) on its posed mesh within
   * options.maxDistance, or null. Settles a frame or two later (see the class).
   */
  pick(ray: Ray, options: PickOptions = {}): Promise<PickHit | null> {
    if (typeof options !== 'object' || options === null) throw new TypeError(`options must be { maxDistance }, got ${show(options)}`);
    return this.request(checkRay(ray, options.maxDistance ?? Math.min(1000 * this.diagonal, WORLD.max)));
  }

  /**
   * Synchronous: every instance `ray` hits within options.maxDistance now, nearest first (one hit
   * per instance, its nearest triangle), posed on the CPU at the clip times the crowd holds now
   * (CpuRaycaster, src/features/picking/cpu-raycast.ts). Plain instances only: those with a layer
   * stack (setLayers, controllers) are left out and counted in `raycastSkipped`; pick() answers
   * them. Every instance is tested, culled or not; morph targets are not applied.
   */
  raycast(ray: Ray, options: PickOptions = {}): RaycastHit[] {
    if (typeof options !== 'object' || options === null) throw new TypeError(`options must be { maxDistance }, got ${show(options)}`);
    return this.raycastChecked(checkRay(ray, options.maxDistance ?? Math.min(1000 * this.diagonal, WORLD.max)));
  }

  private raycastChecked(checked: PickRay): RaycastHit[] {
    const { kernel, ids, crowd } = this;
    this.cpu ??= new CpuRaycaster({
      character: kernel.character, store: kernel.store, get clock() { return kernel.clock; },
      idOf: (slot) => ids.get(slot), world: (id, out) => crowd.worldTransform(id, out),
    });
    return this.cpu.raycast(checked);
  }

  /** Instances the last raycast() left out because they have a layer stack (their pose exists on the GPU only). */
  get raycastSkipped(): number {
    return this.cpu?.skipped ?? 0;
  }

  /**
   * The nearest instance under pointer (x, y) of `camera` (x right, y down from the top left, in
   * the units of camera.width and camera.height: CSS pixels for pointer events' offsetX/offsetY),
   * or null. The ray runs from the near plane to the far plane through that point.
   */
  pickPointer(x: number, y: number, camera: PickCamera): Promise<PickHit | null> {
    return this.request(pointerRay(x, y, camera));
  }

  /**
   * The instances whose rest-pose bounds centre, placed by their world transform this frame (root
   * motion included), projects inside `rect` (corners in the pointer's units, any order) in front
   * of `camera`; in no particular order. Settles like pick.
   */
  selectRect(rect: ScreenRect, camera: PickCamera): Promise<InstanceId[]> {
    const ndc = rectToNdc(rect, camera, new Float32Array(4));
    if (this.onCpu) return Promise.resolve(this.selectOnCpu(Float32Array.from(camera.viewProjection), ndc));
    this.checkRoom();
    return new Promise((resolve, reject) => {
      this.queued.push({ kind: 'select', viewProjection: Float32Array.from(camera.viewProjection), ndc, target: undefined, resolve, reject });
    });
  }

  added(handle: number, slot: number): void {
    this.ids.set(slot, this.kernel.store.idOf(handle));
  }

  /** After the pose pass: this frame's requests, against the joints and world matrices it wrote. */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage !== 'after-pose' || this.queued.length === 0) return;
    const { store, character } = this.kernel;
    const batch: Batch = { requests: this.queued, ids: this.ids.snapshot(store.count) };
    this.queued = [];
    const { min, max } = character.bounds;
    const centre = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
    for (const request of batch.requests) {
      if (request.kind === 'pick') {
        request.target = this.freeTargets.pop() ?? this.newTarget();
        // The impostors' band and far instances, drawn from their own lists (CrowdFeature.drawPick).
        this.pickPass!.encode(encoder, request.target, request.viewProjection, request.ray.origin, store, frame, this.kernel.feature('impostors'));
      } else {
        request.target = this.selectPass!.encode(encoder, store.instanceBuffer, store.count, request.viewProjection, centre, request.ndc);
      }
    }
    this.encoded.push(batch);
    this.open.add(batch);
  }

  /** In the next update(): the frames that encoded requests were submitted, so their readbacks may be mapped now. */
  prepare(): void {
    if (this.encoded.length === 0) return;
    for (const batch of this.encoded) void this.answer(batch);
    this.encoded = [];
  }

  passesCreated(device: GPUDevice): void {
    this.pickPass?.destroy();
    this.pickPass = new PickPass(device, this.kernel.draws);
    this.selectPass ??= new SelectPass(device);
  }

  /** On a new device: requests encoded on the old one are refused (their buffers are gone); queued ones run on the new one. */
  restore(device: GPUDevice): void {
    this.selectPass = new SelectPass(device);
    this.targets = [];
    this.freeTargets = [];
    for (const batch of this.encoded) this.fail(batch, new Error('picking: the crowd was restored onto a new device before this request was read back; ask again'));
    this.encoded = [];
  }

  destroy(): void {
    const error = new Error('picking: the crowd was destroyed before this request was read back');
    for (const request of this.queued) request.reject(error);
    this.queued = [];
    for (const batch of this.encoded) this.fail(batch, error);
    this.encoded = [];
    this.pickPass?.destroy();
    for (const target of this.targets) {
      target.camera.destroy();
      target.readback.destroy();
    }
  }

  private request(ray: PickRay): Promise<PickHit | null> {
    if (this.onCpu) {
      // WebGL 2: the CPU raycaster's nearest hit, settled at once (plain instances only: see raycast).
      const hit = this.raycastChecked(ray)[0];
      return Promise.resolve(hit ? { id: hit.id, distance: hit.distance, point: hit.point } : null);
    }
    this.checkRoom();
    const viewProjection = rayViewProjection(ray, PICK_HALF_WIDTH * this.diagonal, new Float32Array(16));
    return new Promise((resolve, reject) => {
      this.queued.push({ kind: 'pick', ray, viewProjection, target: undefined, resolve, reject });
    });
  }

  /** selectRect on the CPU (WebGL 2): select.wgsl's test, each live slot's bounds centre through its record's world matrix and the camera. */
  private selectOnCpu(m: Float32Array, ndc: Float32Array): InstanceId[] {
    const { store, character } = this.kernel;
    const { min, max } = character.bounds;
    const cx = (min[0] + max[0]) / 2, cy = (min[1] + max[1]) / 2, cz = (min[2] + max[2]) / 2;
    const ids: InstanceId[] = [], w = this.world;
    for (let slot = 0; slot < store.count; slot++) {
      store.records.getWorld(slot, w);
      const x = w[0] * cx + w[4] * cy + w[8] * cz + w[12], y = w[1] * cx + w[5] * cy + w[9] * cz + w[13], z = w[2] * cx + w[6] * cy + w[10] * cz + w[14];
      const clipW = m[3] * x + m[7] * y + m[11] * z + m[15], clipZ = m[2] * x + m[6] * y + m[10] * z + m[14];
      if (clipW <= 0 || clipZ < 0 || clipZ > clipW) continue;
      const nx = (m[0] * x + m[4] * y + m[8] * z + m[12]) / clipW, ny = (m[1] * x + m[5] * y + m[9] * z + m[13]) / clipW;
      if (nx >= ndc[0] && ny >= ndc[1] && nx <= ndc[2] && ny <= ndc[3]) ids.push(this.ids.get(slot));
    }
    return ids;
  }

  private newTarget(): PickTarget {
    const target = createPickTarget(this.kernel.device, `CrowdPicking.target${this.targets.length}`);
    this.targets.push(target);
    return target;
  }

  private checkRoom(): void {
    if (this.pending >= MAX_PENDING_PICKS) {
      throw new RangeError(`${MAX_PENDING_PICKS} picks are already in flight (MAX_PENDING_PICKS): await one before asking again`);
    }
  }

  /** Maps every readback of `batch`, then answers each request. */
  private async answer(batch: Batch): Promise<void> {
    try {
      await Promise.all(batch.requests.map((r) => r.target!.readback.mapAsync(GPUMapMode.READ)));
    } catch (error) {
      this.fail(batch, error);
      return;
    }
    this.open.delete(batch);
    // An id removed (or cleared) before the answer names no live instance now, even where its handle was reused: not reported.
    const reported = (id: InstanceId) => this.kernel.store.hasId(id);
    for (const request of batch.requests) {
      if (request.kind === 'pick') {
        const target = request.target!;
        const words = new Uint32Array(target.readback.getMappedRange(), 0, 2);
        const slot = words[0] - 1;
        const depth = new Float32Array(words.buffer, 4, 1)[0];
        target.readback.unmap();
        if (this.targets.includes(target)) this.freeTargets.push(target); // not one of a replaced device
        const id = slot >= 0 && slot < batch.ids.length ? batch.ids[slot] : -1;
        if (slot < 0 || id < 0 || !reported(id)) {
          request.resolve(null);
          continue;
        }
        const { origin, direction, maxDistance } = request.ray;
        const distance = depth * maxDistance;
        request.resolve({ id, distance, point: [origin[0] + direction[0] * distance, origin[1] + direction[1] * distance, origin[2] + direction[2] * distance] });
      } else {
        const target = request.target!;
        const words = new Uint32Array(target.readback.getMappedRange());
        const length = Math.min(words[0], target.count);
        const ids: InstanceId[] = [];
        for (let i = 0; i < length; i++) {
          const id = batch.ids[words[1 + i]];
          if (reported(id)) ids.push(id);
        }
        target.readback.unmap();
        for (const buffer of [target.params, target.list, target.readback]) buffer.destroy();
        request.resolve(ids);
      }
    }
  }

  private fail(batch: Batch, error: unknown): void {
    this.open.delete(batch);
    for (const request of batch.requests) {
      if (request.kind === 'select' && request.target) for (const buffer of [request.target.params, request.target.list, request.target.readback]) buffer.destroy();
      request.reject(error);
    }
  }
}
