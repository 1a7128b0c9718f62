import type { ClipEvent } from '../anim/events/clip-events';
import type { Character } from '../character/character';
import type { AttachmentId, AttachOptions, ClipEventListener, InstanceId, MorphWeights } from './crowd-types';
import type { CrowdFeature } from './feature';
import { CrowdInstances } from './crowd-instances';

/**
 * The per-feature methods Crowd had before features became objects of their own (0.1): each
 * forwards in one line to the installed feature, found by name, and is kept for one release.
 * A feature that is not installed is named in the error, with the line that installs it. The
 * kernel imports no feature: the shapes below are what these methods call, nothing more.
 */

interface PropsApi extends CrowdFeature {
  attach(prop: Character, options: AttachOptions): AttachmentId;
  detach(id: AttachmentId): void;
  setInstances(id: AttachmentId, instances: readonly InstanceId[] | undefined): void;
  readonly ids: AttachmentId[];
  records(id: AttachmentId): GPUBuffer;
}

interface MorphApi extends CrowdFeature {
  set(id: InstanceId, weights: MorphWeights | null): void;
  setOne(id: InstanceId, target: string | number, weight: number | null): void;
  get(id: InstanceId, out?: Float32Array): Float32Array;
}

interface RootMotionApi extends CrowdFeature {
  setMoves(id: InstanceId, on: boolean): void;
  moves(id: InstanceId): boolean;
}

interface ClipEventsApi extends CrowdFeature {
  setClipEvents(clip: string | number, events: readonly ClipEvent[]): void;
  clipEvents(clip: string | number): ClipEvent[];
  on(listener: ClipEventListener): () => void;
  threshold: number;
}

/** The class a feature is made with, for the error that says how. */
const MAKER: Record<string, string> = {
  props: 'CrowdProps', morph: 'CrowdMorph', 'root-motion': 'CrowdRootMotion', 'clip-events': 'CrowdEvents',
};

/** Crowd's deprecated per-feature methods (see the file comment) over the instance API they share with GLCrowd (CrowdInstances); Crowd extends this. */
export abstract class FeatureMethods extends CrowdInstances {

  /** @deprecated Use `new CrowdProps(crowd).attach(prop, options)` (src/features/props). */
  attach(prop: Character, options: AttachOptions): AttachmentId { return this.need<PropsApi>('props', 'attach').attach(prop, options); }
  /** @deprecated Use CrowdProps.detach. */
  detach(id: AttachmentId): void { this.need<PropsApi>('props', 'detach').detach(id); }
  /** @deprecated Use CrowdProps.setInstances. */
  setAttachmentInstances(id: AttachmentId, instances: readonly InstanceId[] | undefined): void { this.need<PropsApi>('props', 'setAttachmentInstances').setInstances(id, instances); }
  /** @deprecated Use CrowdProps.ids. */
  get attachments(): AttachmentId[] { return this.features.get<PropsApi>('props')?.ids ?? []; }
  /** @internal @deprecated Use CrowdProps.records. */
  attachmentRecords(id: AttachmentId): GPUBuffer { return this.need<PropsApi>('props', 'attachmentRecords').records(id); }

  /** @deprecated Use `new CrowdMorph(crowd).set(id, weights)` (src/features/morph). */
  setMorphWeights(id: InstanceId, weights: MorphWeights | null): void { this.need<MorphApi>('morph', 'setMorphWeights').set(id, weights); }
  /** @deprecated Use CrowdMorph.setOne. */
  setMorphWeight(id: InstanceId, target: string | number, weight: number | null): void { this.need<MorphApi>('morph', 'setMorphWeight').setOne(id, target, weight); }
  /** @deprecated Use CrowdMorph.get. */
  getMorphWeights(id: InstanceId, out?: Float32Array): Float32Array { return this.need<MorphApi>('morph', 'getMorphWeights').get(id, out); }

  /**
   * @deprecated Use `new CrowdRootMotion(crowd).setMoves(id, on)` (src/features/root-motion).
   * Without the feature, turning it off is a no-op and turning it on is refused, as for a
   * character not loaded with rootMotion mode 'apply'.
   */
  setRootMotion(id: InstanceId, on: boolean): void {
    const feature = this.features.get<RootMotionApi>('root-motion');
    if (feature) return feature.setMoves(id, on);
    this.getAnimation(id); // refuses an id that is not live
    if (on) throw new Error(`instance ${id} cannot move by root motion: ${this.character.rootMotion?.mode === 'apply' ? 'create the root-motion feature first (new CrowdRootMotion(crowd))' : "the character was not loaded with rootMotion mode 'apply'"}`);
  }
  /** @deprecated Use CrowdRootMotion.moves. */
  movesByRootMotion(id: InstanceId): boolean {
    this.getAnimation(id); // refuses an id that is not live
    return this.features.get<RootMotionApi>('root-motion')?.moves(id) ?? false;
  }

  /** @deprecated Use `new CrowdEvents(crowd).setClipEvents(clip, events)` (src/features/clip-events). */
  setClipEvents(clip: string | number, events: readonly ClipEvent[]): void { this.need<ClipEventsApi>('clip-events', 'setClipEvents').setClipEvents(clip, events); }
  /** @deprecated Use CrowdEvents.clipEvents. */
  clipEvents(clip: string | number): ClipEvent[] { return this.need<ClipEventsApi>('clip-events', 'clipEvents').clipEvents(clip); }
  /** @deprecated Use CrowdEvents.on. */
  onEvent(listener: ClipEventListener): () => void { return this.need<ClipEventsApi>('clip-events', 'onEvent').on(listener); }
  /** @deprecated Use CrowdEvents.threshold. */
  get eventWeightThreshold(): number { return this.need<ClipEventsApi>('clip-events', 'eventWeightThreshold').threshold; }
  /** @deprecated Use CrowdEvents.threshold. */
  set eventWeightThreshold(value: number) { this.need<ClipEventsApi>('clip-events', 'eventWeightThreshold').threshold = value; }

  /** The feature installed as `name`, or an Error that says how to install it. */
  private need<T extends CrowdFeature>(name: string, method: string): T {
    const feature = this.features.get<T>(name);
    if (!feature && name === 'morph' && !this.character.baked.morph) throw new RangeError(`${this.character.name} has no morph targets`);
    if (!feature) throw new Error(`crowd.${method} needs the ${name} feature: create it once with new ${MAKER[name]}(crowd) (crowd.${method} is deprecated: call it on that object)`);
    return feature;
  }
}
