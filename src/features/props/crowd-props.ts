import { mat4d } from 'wgpu-matrix';
import type { Character } from '../../character/character';
import type { Crowd } from '../../runtime/crowd';
import type { AttachmentId, AttachOptions, InstanceId } from '../../runtime/crowd-types';
import type { CrowdFeature, FeatureStage, CrowdKernel, DrawShadow, EncodedFrame } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import type { SkinningMethod } from '../../runtime/layout';
import { show } from '../../math/show';
import { MeshBuffers } from '../../runtime/mesh-buffers';
import { PropPass, type PropBand } from './prop-pass';
import { PropSets } from './prop-sets';
import { PROP_SET_OTHERS, type HeldProp, type PropDraw } from '../../runtime/held-props';
import { frameBindGroupAt } from '../../runtime/skin-frame';
import { SkinPass, type SkinPassOptions } from '../../runtime/skin-pass';
import { checkOffset, destroyGpu, isCharacter, restJointRows, skinInputs, type Attachment, type AttachmentGpu } from './attachment';

/**
 * Props on joints, a crowd feature: `const props = new CrowdProps(crowd)`, then
 * `props.attach(sword, { joint: 'Hand.R' })`. Validation and the CPU-side
 * description of each attachment, and its GPU objects: a PropPass (places the prop of every
 * drawn instance on the GPU from the joint matrices) and a SkinPass over the prop's own mesh
 * that draws it over the PropPass's list, one indirect draw per prop primitive. The prop is
 * drawn in its rest pose (a static glTF mesh loads as a Character whose meshes are one-joint
 * skins). Per frame the CPU writes one small uniform per attachment; a chosen-instance list is
 * uploaded only when it changes.
 */
export class CrowdProps implements CrowdFeature {
  readonly featureName = 'props';
  private readonly attachments = new Map<AttachmentId, Attachment>();
  /** The same attachments in attach order, for the per-frame loops (no iterator objects). */
  private readonly list: Attachment[] = [];
  private nextId = 0;
  private device: GPUDevice | undefined;
  /** What the crowd's joint buffer holds (set by passesCreated): the prop passes read the joint by it. */
  private skinning: SkinningMethod = 'linear';
  private readonly kernel: CrowdKernel;
  private readonly character: Character;
  private readonly options: SkinPassOptions;
  private held: readonly HeldProp[] = [];
  private chosen: readonly HeldProp[] = [];
  private heldChanges = 0;
  private holderChanges = 0;
  /** Per slot, the props of chosen instances its instance holds (the impostor atlas bakes a layer a set). */
  private readonly sets: PropSets;
  /** Reused by encode: the frame's band list (no allocation per frame). */
  private readonly bandScratch = { buffer: undefined as unknown as GPUBuffer, offset: 0 };

  /** Installs props on `crowd` (one CrowdProps per crowd); its GPU objects live on the crowd's device. */
  constructor(crowd: Crowd) {
    this.kernel = crowd.install(this);
    this.character = this.kernel.character;
    this.options = this.kernel.options;
    this.sets = new PropSets(this.kernel.device, this.kernel.store.capacity);
    this.kernel.store.attach(this.sets);
    this.passesCreated(this.kernel.device);
  }

  /** Draw calls draw() records: one per prop primitive per attachment. */
  get drawCount(): number {
    let n = 0;
    for (let i = 0; i < this.list.length; i++) n += this.list[i].prop.rig.primitives.length;
    return n;
  }

  /** Bytes of the attachments' GPU buffers: their passes' and rest joints (Crowd.gpuBytes). */
  get gpuBytes(): number {
    let n = 0;
    for (const a of this.list) if (a.gpu) n += a.gpu.pass.gpuBytes + a.gpu.rest.size;
    return n;
  }

  /** @internal The props every instance holds (attached without `instances`), in attach order: the impostor atlas bakes them. */
  get heldByAll(): readonly HeldProp[] {
    return this.held;
  }

  /** @internal The props of chosen instances (attached with `instances`), in attach order: bit i of a prop set (propSets) is the i-th. */
  get heldByChosen(): readonly HeldProp[] {
    return this.chosen;
  }

  /** @internal Changes whenever heldByAll or heldByChosen does. */
  get heldVersion(): number {
    return this.heldChanges;
  }

  /** @internal Changes whenever an instance's prop set may have changed (a selection set, an attach or detach, a removal, a clear). */
  get holdersVersion(): number {
    return this.holderChanges;
  }

  /** @internal Per slot, the props of chosen instances its instance holds (PropSets: bit i, heldByChosen[i]). */
  get propSets(): PropSets {
    return this.sets;
  }

  /** Live attachments, in attach order. */
  get ids(): AttachmentId[] {
    return [...this.attachments.keys()];
  }

  /**
   * Attaches `prop` (a Character from loadCharacter: a static glTF mesh, drawn with its
   * materials, or a skinned one, drawn in its rest pose) to joint `options.joint` of every
   * instance, or of `options.instances`: each frame the prop of every drawn instance is placed on
   * the GPU at world * joint's model matrix * `options.offset`, from the joint matrices the pose
   * pass wrote, and drawn by the crowd's draw() in one instanced draw per prop primitive. With a
   * camera it is culled with its character. A joint name that does not exist, an offset that is
   * not 16 finite numbers of an affine matrix, or an instance that does not exist throws an error
   * naming it, and nothing changes.
   *
   * @example
   * ```ts
   * const props = new CrowdProps(crowd);
   * const sword = await loadCharacter('/models/Props/Sword.glb');
   * const id = props.attach(sword, { joint: 'Hand.R', offset: mat4.translation([0, -0.08, 0]) });
   * props.detach(id);
   * ```
   */
  attach(prop: Character, options: AttachOptions): AttachmentId {
    const store = this.kernel.store;
    if (!isCharacter(prop)) throw new TypeError('prop must be a Character (from loadCharacter: a static glTF mesh or a skinned one)');
    if (prop.rig.primitives.length === 0) throw new RangeError(`prop ${JSON.stringify(prop.name)} has no mesh to draw`);
    if (typeof options !== 'object' || options === null) throw new TypeError('attach needs options: { joint, offset?, instances? }');
    const joint = this.jointSlot(options.joint);
    const offset = checkOffset(options.offset);
    const selection = options.instances === undefined ? null : this.checkInstances(store, options.instances);
    const local = mat4d.multiply(this.bindMatrix(joint, options.joint), offset, new Float64Array(16));
    const attachment: Attachment = { prop, joint, jointName: options.joint, offset, local, rest: restJointRows(prop), selection };
    if (this.device) attachment.gpu = this.createGpu(this.device, attachment, this.nextId);
    const id = this.nextId++;
    this.attachments.set(id, attachment);
    this.list.push(attachment);
    this.followAttachments();
    return id;
  }

  /** Removes an attachment and frees its GPU objects. */
  detach(id: AttachmentId): void {
    const attachment = this.get(id);
    destroyGpu(attachment);
    this.attachments.delete(id);
    this.list.splice(this.list.indexOf(attachment), 1);
    this.followAttachments();
  }

  /** Chooses the instances that get attachment `id`'s prop (undefined: every instance). */
  setInstances(id: AttachmentId, instances: readonly InstanceId[] | undefined): void {
    const attachment = this.get(id);
    const selection = instances === undefined ? null : this.checkInstances(this.kernel.store, instances);
    attachment.selection = selection;
    attachment.gpu?.pass.setSelection(selection && [...selection]);
    this.followAttachments();
  }

  /**
   * Follows the attachments: heldByAll and heldByChosen (new arrays when either changed), and each
   * slot's prop set (PropSets, bit i: the i-th attachment of chosen instances). The impostor
   * feature bakes an atlas layer a prop set in use, and keeps a holder whose set has none a mesh.
   * On attachment changes, not per frame: O(instances + chosen handles).
   */
  private followAttachments(): void {
    const store = this.kernel.store;
    const held = this.list.filter((a) => a.selection === null);
    const chosen = this.list.filter((a) => a.selection !== null);
    const same = (was: readonly HeldProp[], now: Attachment[]) => was.length === now.length && now.every((a, i) => was[i].local === a.local);
    if (!same(this.held, held) || !same(this.chosen, chosen)) {
      const described = (a: Attachment): HeldProp => ({ prop: a.prop, joint: a.jointName, offset: a.offset, slot: a.joint, local: a.local });
      this.held = held.map(described);
      this.chosen = chosen.map(described);
      this.heldChanges++;
    }
    const sets = new Uint32Array(store.count);
    chosen.forEach((a, i) => {
      const bit = 2 ** Math.min(i, PROP_SET_OTHERS);
      for (const handle of a.selection!) if (store.has(handle)) sets[store.slot(handle)] |= bit;
    });
    this.sets.assign(sets, store.count);
    this.holderChanges++;
  }

  /** CrowdFeature: takes a removed instance out of every selection (its handle may be reused by another instance). */
  removed(handle: number): void {
    for (const a of this.attachments.values()) {
      if (a.selection?.delete(handle)) {
        a.gpu?.pass.setSelection([...a.selection]);
        // The slot's prop set went with it (the store moved the last instance's over it).
        this.holderChanges++;
      }
    }
  }

  /** CrowdFeature: empties every selection (the crowd was cleared). */
  cleared(): void {
    for (const a of this.attachments.values()) {
      if (a.selection && a.selection.size > 0) {
        a.selection.clear();
        a.gpu?.pass.setSelection([]);
        this.holderChanges++;
      }
    }
  }

  /** @internal The records PropPass writes for attachment `id` (INSTANCE-sized per slot, world first): tests. */
  records(id: AttachmentId): GPUBuffer {
    const gpu = this.get(id).gpu;
    if (!gpu) throw new Error('the crowd has no GPU objects');
    return gpu.pass.records;
  }

  /**
   * CrowdFeature: records every attachment's prop pass, after the crowd's pose pass, over the
   * cull pass's camera lists when it ran this frame.
   */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage !== 'after-pose') return;
    const store = this.kernel.store;
    const counters = frame.cullCounters;
    const levels = frame.levels;
    // The impostor band's slots (a crowd with CrowdImpostors): placed for every prop too (a prop of chosen instances on its holders alone), drawn by drawBand.
    let band: PropBand | undefined;
    if (frame.routed && counters) {
      band = this.bandScratch;
      this.bandScratch.buffer = frame.routed.args;
      this.bandScratch.offset = frame.routed.bandListOffset(store.listStride);
    }
    for (let i = 0; i < this.list.length; i++) {
      const a = this.list[i];
      const pass = a.gpu!.pass;
      pass.update(store, counters !== undefined, levels, band);
      pass.encode(encoder, counters);
    }
  }

  /** @internal HeldProps.drawBand: the band's props (of chosen instances on their holders alone), faded as the band's meshes (CrowdImpostors calls it after them). */
  drawBand(pass: GPURenderPassEncoder, camera: GPUBuffer, list: GPUBuffer, offset: number, bytes: number): void {
    for (let i = 0; i < this.list.length; i++) {
      const a = this.list[i];
      const gpu = a.gpu!;
      if (gpu.pass.generation === 0) continue;
      gpu.skin.followLights(this.kernel.draws.skin);
      let band = gpu.band;
      if (!band || band.list !== list || band.offset !== offset || band.camera !== camera || band.generation !== gpu.pass.generation) {
        const group = frameBindGroupAt(this.device!, gpu.skin.frameBindGroupLayout, 'Crowd.propBand', camera, skinInputs(gpu), list, offset, bytes);
        band = gpu.band = { group, list, offset, camera, generation: gpu.pass.generation };
      }
      pass.setBindGroup(0, band.group);
      pass.setBindGroup(2, gpu.skin.shadowGroup);
      const items = gpu.skin.items;
      for (let k = 0; k < items.length; k++) {
        const item = items[k];
        pass.setPipeline(gpu.skin.bandPipeline(item));
        pass.setBindGroup(1, item.material);
        gpu.mesh.setBuffers(pass, item.mesh);
        pass.drawIndexedIndirect(gpu.pass.bandArgs, gpu.pass.argsOffset(0, 0, item.index));
      }
    }
  }

  /** @internal HeldProps.propDraw: attachment `id`'s GPU objects (its records once the crowd has encoded a frame). */
  propDraw(id: AttachmentId): PropDraw {
    const gpu = this.get(id).gpu;
    if (!gpu) throw new Error('the crowd has no GPU objects');
    // The records and the list are made by the pass's first update (the crowd's encode): read when used.
    return { mesh: gpu.mesh, skin: gpu.skin, get inputs() { return skinInputs(gpu); } };
  }

  /** CrowdFeature: records the props' draws into the crowd's render pass (one per prop primitive per attachment). */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void {
    for (let i = 0; i < this.list.length; i++) {
      const gpu = this.list[i].gpu!;
      // Before the first encode the pass has no list yet: nothing to draw.
      if (gpu.pass.generation === 0) continue;
      if (gpu.boundGeneration !== gpu.pass.generation) {
        gpu.skin.bind(skinInputs(gpu));
        gpu.boundGeneration = gpu.pass.generation;
      }
      // The crowd's lights as they are now (setLights, a three.js scene's), its environment shared.
      gpu.skin.followLights(this.kernel.draws.skin);
      gpu.skin.setShadowMap(shadow?.view, shadow?.lightViewProjection, shadow?.mapSize, shadow?.strength ?? 1);
      gpu.skin.update(viewProjection);
      gpu.skin.drawIndirect(pass, gpu.pass);
    }
  }

  /**
   * CrowdFeature: (re-)creates every attachment's GPU objects on `device`, their prop passes
   * reading the crowd's joint buffer as it is laid out now (construction, restore, a change of
   * Crowd.skinning).
   */
  passesCreated(device: GPUDevice): void {
    this.destroy();
    this.device = device;
    this.skinning = this.kernel.skinning;
    for (const [id, a] of this.attachments) a.gpu = this.createGpu(device, a, id);
  }

  /** CrowdFeature: frees every attachment's GPU objects (a no-op for those of a lost device); the CPU side stays. */
  destroy(): void {
    for (const a of this.attachments.values()) destroyGpu(a);
  }

  private get(id: AttachmentId): Attachment {
    const attachment = this.attachments.get(id);
    if (!attachment) throw new RangeError(`attachment ${id} does not exist (detached, or never attached)`);
    return attachment;
  }

  /** The joint slot of a joint name; a RangeError naming it and the joints otherwise. */
  private jointSlot(joint: unknown): number {
    if (typeof joint !== 'string') throw new TypeError(`joint must be a joint name (a string), got ${joint === null ? 'null' : typeof joint}`);
    const slot = this.character.jointNames.indexOf(joint);
    if (slot < 0) {
      const names = [...new Set(this.character.jointNames)];
      const some = names.slice(0, 12).map((n) => JSON.stringify(n)).join(', ');
      throw new RangeError(`no joint named ${JSON.stringify(joint)} in ${this.character.name} (joints: ${some}${names.length > 12 ? `, ... ${names.length} in all` : ''})`);
    }
    return slot;
  }

  /** inverse(inverseBind) of joint slot `slot`, from the float32 values the pose pass multiplies by. */
  private bindMatrix(slot: number, name: string): Float64Array {
    const { rig, gpu } = this.character;
    let skin = 0;
    while (skin + 1 < rig.skins.length && gpu.skinSlotOffset[skin + 1] <= slot) skin++;
    const j = slot - gpu.skinSlotOffset[skin];
    const inverseBind = Float64Array.from(rig.skins[skin].inverseBind.subarray(j * 16, j * 16 + 16), Math.fround);
    const det = mat4d.determinant(inverseBind);
    if (!Number.isFinite(det) || Math.abs(det) < 1e-30) {
      throw new RangeError(`joint ${JSON.stringify(name)} has a singular inverse bind matrix: its model matrix cannot be recovered to place a prop`);
    }
    return mat4d.inverse(inverseBind, new Float64Array(16));
  }

  /** The handles of the live, distinct instances of a list of ids; a RangeError naming the first bad entry and why (removed, never added). */
  private checkInstances(store: InstanceStore, instances: readonly InstanceId[]): Set<number> {
    if (!Array.isArray(instances)) throw new TypeError(`instances must be an array of instance ids, got ${instances === null ? 'null' : typeof instances}`);
    const handles = new Set<number>();
    instances.forEach((id, i) => {
      const handle = store.find(id);
      if (handle < 0) throw new RangeError(`instances[${i}]: ${Number.isInteger(id) ? store.missing(id) : `instance id must be an integer from Crowd.add, got ${show(id)}`}`);
      handles.add(handle);
    });
    return handles;
  }

  private createGpu(device: GPUDevice, a: Attachment, id: AttachmentId): AttachmentGpu {
    const { prop } = a;
    const label = `Crowd.prop${id}`;
    const owned: { destroy(): void }[] = [];
    try {
      const mesh = new MeshBuffers(device, prop.rig.primitives, prop.gpu.skinSlotOffset);
      owned.push(mesh);
      // slotCount 0: every instance of the prop reads the same rest-pose joint matrices.
      // Linear: the prop's own rest joints are matrix rows, whatever the crowd's skinning.
      // Its lights follow the crowd's at each draw (followLights): no environment of its own to prefilter.
      const skin = new SkinPass(device, mesh, 0, prop.textures, { ...this.options, lights: undefined, skinning: 'linear' });
      owned.push(skin);
      const rest = device.createBuffer({ label: `${label}.rest`, size: Math.max(16, a.rest.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      owned.push(rest);
      device.queue.writeBuffer(rest, 0, a.rest);
      const pass = new PropPass(device, {
        slotCount: this.character.gpu.slotCount, joint: a.joint, local: a.local, label, skinning: this.skinning,
        draws: mesh.primitives.map((p) => p.ranges[0]),
      });
      pass.setSelection(a.selection && [...a.selection]);
      return { pass, mesh, skin, rest, boundGeneration: -1 };
    } catch (error) {
      for (const o of owned) o.destroy();
      throw error;
    }
  }
}
