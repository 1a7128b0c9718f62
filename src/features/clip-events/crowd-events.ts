import { ClipEventTable, EVENT_SLACK_SECONDS, firstCrossing, nextCrossing, type ClipEvent, type Crossing } from '../../anim/events/clip-events';
import { EventQueue } from '../../anim/events/event-queue';
import type { ExternalEventSource } from '../../anim/events/scheduler';
import type { Character } from '../../character/character';
import type { Crowd } from '../../runtime/crowd';
import type { ClipEventListener } from '../../runtime/crowd-types';
import type { CrowdFeature } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { FIRST_ADDITIVE_PLAYBACK, INSTANCE, LAYER, LAYER_STACK, LAYERS_NONE, MASK_NONE, MAX_OVERRIDE_LAYERS, PLAYBACKS } from '../../runtime/layout';


/** Default of CrowdEvents.threshold. */
export const DEFAULT_EVENT_WEIGHT_THRESHOLD = 0.5;

/**
 * Clip events, a crowd feature: `const events = new CrowdEvents(crowd)`, then
 * `events.setClipEvents('Walk', [{ name: 'step', time: 0.4 }])` and
 * `events.on((id, name, clip, time) => ...)` (rules: docs/clip-events.md). The event tables, the listeners, and the
 * schedule of every instance's next crossing, so that update() costs O(events due), not
 * O(instances).
 *
 * Instances without a controller are scheduled from their records: each playback (clip A, clip
 * B, each layer) of a clip with events, whose weight is at least the threshold and whose speed is
 * not 0, has its next crossing in closed form (phase + speed x clock in float64: the records'
 * float64 phases and speeds for clips A and B, the layers' float32 ones) in the
 * queue, keyed by (instance, playback). Records only change through the Crowd's methods, which
 * call changed() for that instance alone. Weights (the threshold rule):
 * - clip A: 1 - blend, clip B: blend (A and B the same clip at the same phase and speed count as
 *   one playback of weight 1);
 * - override layer i: its weight times (1 - w) of every unmasked override layer above it; the
 *   base clips are scaled by (1 - w) of every unmasked override layer; masked layers (part of the
 *   body) and additive layers scale nothing below them; an additive layer's weight is its own.
 *   Additive reference poses never fire.
 * Instances driven by controllers are external (CrowdControllers, which finds this feature by
 * name and uses it through ClipEventScheduler): their controllers schedule
 * (keyed entries returned to the ExternalEventSource) or push decided crossings (one-shot).
 *
 * The event clock is the sum of update dts in float64, never rebased (the crowd clock is rebased
 * every 600 s: `offset` is the event clock at crowd clock 0), so a rebase changes no schedule.
 */
export class CrowdEvents implements CrowdFeature {
  readonly featureName = 'clip-events';
  /** Runs on WebGL 2 too: it is CPU work only (the records' clocks). */
  readonly onWebGL2 = true;
  /** @internal The event tables (ClipEventScheduler: the controllers plan with them). */
  readonly tables: ClipEventTable;
  /** @internal The schedule of every instance's next crossings. */
  readonly queue = new EventQueue();
  private listeners: ClipEventListener[] = [];
  private weightThreshold = DEFAULT_EVENT_WEIGHT_THRESHOLD;
  /** Event clock, seconds (float64, never rebased). */
  private eventClock = 0;
  /** Event clock at crowd clock 0. */
  private offset = 0;
  private external = new Uint8Array(64);
  /** Per instance: the source of its keyed entries (GPU-driven controllers), or null. */
  private readonly owners: (ExternalEventSource | null)[] = [];
  private readonly sources = new Set<ExternalEventSource>();
  private readonly crossing: Crossing = { index: 0, position: 0 };
  private readonly weights = new Float64Array(PLAYBACKS);
  /** Views of the store's record memory, renewed when it grows. */
  private recordBytes: ArrayBuffer | null = null;
  private recordF32 = new Float32Array(0);
  private recordU32 = new Uint32Array(0);
  private stackBytes: ArrayBuffer | null = null;
  private stackF32 = new Float32Array(0);
  private stackU32 = new Uint32Array(0);

  private readonly store: InstanceStore;
  private readonly character: Character;

  /**
   * Installs clip events on `crowd` (before any CrowdControllers on it: the controllers schedule
   * their instances' events through this feature when it is there as they are made). A CPU-only
   * feature: it runs on a WebGL 2 crowd (GLCrowd) as on a Crowd.
   */
  constructor(crowd: Pick<Crowd, 'hasFeature' | 'character' | 'install'>) {
    if (crowd.hasFeature('controllers')) {
      throw new Error('create CrowdEvents before CrowdControllers on a crowd: the controllers schedule their events through it as they are made');
    }
    this.character = crowd.character;
    this.tables = new ClipEventTable(this.character.clipNames, this.character.clipDurations);
    this.store = crowd.install(this).store;
  }

  /** Event clock now: seconds since the crowd was made (the sum of update dts). */
  get clock(): number {
    return this.eventClock;
  }

  /** Weight a playback needs at a crossing for its event to fire, in (0, 1]. */
  get threshold(): number {
    return this.weightThreshold;
  }

  /** Sets the weight threshold, in (0, 1]; reschedules every instance, O(instances). */
  set threshold(value: number) {
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) throw new RangeError(`eventWeightThreshold must be in (0, 1], got ${value}`);
    this.weightThreshold = value;
    this.rescheduleAll();
  }

  /**
   * Sets the events of `clip` (a name or an index): named times in seconds, each in [0, the
   * clip's duration]; an empty array removes them. Validated first: a bad entry throws an error
   * naming it and every table stays as it was. O(instances).
   */
  setClipEvents(clip: string | number, events: readonly ClipEvent[]): void {
    const index = this.character.clipIndex(clip);
    this.tables.set(index, events, `events of clip ${JSON.stringify(this.character.clipNames[index])}`);
    this.rescheduleAll();
  }

  /** @internal Replaces several clips' events at once (clip index -> events); all are validated before any changes. */
  setAll(events: ReadonlyMap<number, readonly ClipEvent[]>, where: (clip: number) => string): void {
    const checked = [...events].map(([clip, list]) => [clip, this.tables.check(clip, list, where(clip))] as const);
    for (const [clip, sorted] of checked) this.tables.apply(clip, sorted);
    this.rescheduleAll();
  }

  /**
   * Calls `listener(id, name, clip, time)` for every event an instance's playback crosses (`id`
   * its InstanceId, clip by name, time the event's time in the clip, seconds), from
   * crowd.update(): in crossing-time order within the frame, ties by the instances' handles (ids
   * modulo HANDLE_SPAN: src/runtime/instance-ids.ts). Returns the function that removes it.
   */
  on(listener: ClipEventListener): () => void {
    if (typeof listener !== 'function') throw new TypeError(`onEvent takes a function (id, name, clip, time) => void, got ${listener === null ? 'null' : typeof listener}`);
    this.listeners = [...this.listeners, listener];
    return () => { this.listeners = this.listeners.filter((l) => l !== listener); };
  }

  /**
   * @internal Makes events of instance `handle` come from its controller (on: `source` gets its keyed
   * entries back when due; a CPU-driven controller pushes one-shot entries and needs none) or
   * from its records again (off).
   */
  setExternal(handle: number, on: boolean, source: ExternalEventSource | null = null): void {
    if (handle >= this.external.length) {
      const grown = new Uint8Array(Math.max(handle + 1, this.external.length * 2));
      grown.set(this.external);
      this.external = grown;
    }
    this.cancelAll(handle);
    this.external[handle] = on ? 1 : 0;
    while (this.owners.length <= handle) this.owners.push(null);
    this.owners[handle] = on ? source : null;
    if (source) this.sources.add(source);
    if (!on) this.changed(handle);
  }

  /** Whether instance `handle`'s events come from a controller. */
  isExternal(handle: number): boolean {
    return handle < this.external.length && this.external[handle] === 1;
  }

  /** The events of `clip` (a name or an index) in time order (a copy). */
  clipEvents(clip: string | number): ClipEvent[] {
    return this.tables.get(this.character.clipIndex(clip));
  }

  /** CrowdFeature: a new instance is scheduled from its records. */
  added(handle: number): void {
    this.changed(handle);
  }

  /** CrowdFeature: reschedules instance `handle` from its records (after any change to them). Allocation-free. */
  changed(handle: number): void {
    if (this.isExternal(handle)) return;
    if (!this.tables.hasEvents) {
      this.cancelAll(handle); // nothing is pending unless events were just removed
      return;
    }
    const slot = this.store.slot(handle);
    this.views();
    const r = slot * (INSTANCE.size / 4);
    const f = this.recordF32;
    const u = this.recordU32;
    const w = this.weights;
    w.fill(0);
    let scale = 1;
    const stack = u[r + INSTANCE.layers / 4];
    let overrides = 0;
    let additives = 0;
    if (stack !== LAYERS_NONE) {
      const s = stack * (LAYER_STACK.size / 4);
      overrides = this.stackU32[s + LAYER_STACK.overrideCount / 4];
      additives = this.stackU32[s + LAYER_STACK.additiveCount / 4];
      for (let i = overrides - 1; i >= 0; i--) {
        const l = this.layerWord(stack, i);
        const weight = this.stackF32[l + LAYER.weight / 4];
        w[2 + i] = weight * scale;
        if (this.stackU32[l + LAYER.mask / 4] === MASK_NONE) scale *= 1 - weight;
      }
      for (let k = 0; k < additives; k++) w[FIRST_ADDITIVE_PLAYBACK + k] = this.stackF32[this.layerWord(stack, MAX_OVERRIDE_LAYERS + k) + LAYER.weight / 4];
    }
    const blend = f[r + INSTANCE.blend / 4];
    const clipA = u[r + INSTANCE.clipA / 4];
    const records = this.store.records;
    const same = clipA === u[r + INSTANCE.clipB / 4] && records.exactPhase(slot, 0) === records.exactPhase(slot, 1) && records.exactSpeed(slot, 0) === records.exactSpeed(slot, 1);
    w[0] = same ? scale : (1 - blend) * scale;
    w[1] = same ? 0 : blend * scale;
    for (let p = 0; p < PLAYBACKS; p++) {
      const live = p < 2 || (p < FIRST_ADDITIVE_PLAYBACK ? p - 2 < overrides : p - FIRST_ADDITIVE_PLAYBACK < additives);
      if (live) this.schedule(handle, p, slot);
      else this.queue.cancel(handle * PLAYBACKS + p);
    }
  }

  /** CrowdFeature: forgets instance `handle` (removed from the crowd). */
  removed(handle: number): void {
    this.cancelAll(handle);
    if (handle < this.external.length) this.external[handle] = 0;
    if (handle < this.owners.length) this.owners[handle] = null;
  }

  /** CrowdFeature: forgets every instance (the crowd was cleared). */
  cleared(): void {
    this.queue.clear();
    this.external.fill(0);
    this.owners.fill(null);
  }

  /**
   * Advances the event clock by dt and fires every crossing now due, in order (crossing time,
   * then instance id, then playback). `crowdClock` is the crowd clock after the step (for the
   * records' phases). A negative dt fires nothing and reschedules every instance.
   */
  settle(dt: number, crowdClock: number): void {
    this.eventClock += dt;
    this.offset = this.eventClock - crowdClock;
    if (dt < 0) {
      this.queue.clear();
      this.rescheduleAll();
      return;
    }
    const q = this.queue;
    const p = q.popped;
    while (q.pop(this.eventClock + EVENT_SLACK_SECONDS)) {
      const handle = Math.floor(p.order / PLAYBACKS);
      const source = p.order - handle * PLAYBACKS;
      const { key, clip, event, aux, due } = p;
      if (key < 0) {
        if (this.store.hasId(aux)) this.emit(handle, clip, event); // aux: the id it was queued for (fire)
      } else if (this.isExternal(handle)) {
        this.owners[handle]?.due(handle, source, clip, event, aux, due);
      } else {
        this.fireRecord(handle, source, clip, event, due);
      }
    }
  }

  /** @internal Tells every listener that the instance of `handle` crossed event `event` of clip `clip` (both indices), naming it by its id now. */
  emit(handle: number, clip: number, event: number): void {
    const t = this.tables;
    if (event >= t.count(clip)) return; // the table changed since the crossing was decided
    const id = this.store.idOf(handle);
    const listeners = this.listeners;
    const name = t.name(clip, event);
    const clipName = t.clipNames[clip];
    const time = t.time(clip, event);
    for (let i = 0; i < listeners.length; i++) listeners[i](id, name, clipName, time);
  }

  /** @internal ClipEventScheduler.fire: a one-shot entry that remembers the instance's id (aux), so a reused handle does not hear it. */
  fire(handle: number, source: number, due: number, clip: number, event: number): void {
    this.queue.push(due, handle * PLAYBACKS + source, clip, event, this.store.idOf(handle));
  }

  /** @internal Reschedules every instance (the tables or the threshold changed): O(instances). */
  rescheduleAll(): void {
    for (let handle = 0; handle < this.store.handleCount; handle++) if (this.store.has(handle)) this.changed(handle);
    for (const source of this.sources) source.reschedule();
  }

  /** Record playback `p` of `handle` crossed (clip, event) at `due`: schedule its next crossing, then emit. */
  private fireRecord(handle: number, p: number, clip: number, event: number, due: number): void {
    const slot = this.store.slot(handle);
    this.views();
    const pb = this.playback(slot, p);
    const phase = pb[0];
    const speed = pb[1];
    const times = this.tables.timesOf(clip);
    const d = this.character.clipDurations[clip];
    // The crossing's position in the current phase's terms (a rebase shifts positions by whole cycles).
    const at = phase + speed * (due - this.offset);
    const c = this.crossing;
    c.index = event;
    c.position = Math.round((at - times[event]) / d) * d + times[event];
    nextCrossing(times, d, speed > 0, c);
    const next = Math.max(due, this.offset + (c.position - phase) / speed);
    this.queue.schedule(handle * PLAYBACKS + p, next, handle * PLAYBACKS + p, clip, c.index, 0);
    this.emit(handle, clip, event);
  }

  /** Schedules (or cancels) playback `p` of `handle` from its record and weight (this.weights[p]). */
  private schedule(handle: number, p: number, slot: number): void {
    const key = handle * PLAYBACKS + p;
    const pb = this.playback(slot, p);
    const phase = pb[0];
    const speed = pb[1];
    const clip = pb[2];
    const d = this.character.clipDurations[clip];
    if (!(this.weights[p] >= this.weightThreshold) || speed === 0 || !(d > 0) || this.tables.count(clip) === 0) {
      this.queue.cancel(key);
      return;
    }
    // Crossings up to the slack past now belong to the frame that ended now (fired, or not crossed by the old playback).
    const u = phase + speed * (this.eventClock + EVENT_SLACK_SECONDS - this.offset);
    const c = firstCrossing(this.tables.timesOf(clip), d, u, speed > 0, this.crossing);
    this.queue.schedule(key, this.offset + (c.position - phase) / speed, key, clip, c.index, 0);
  }

  /** (phase, speed, clip) of playback `p` of record `slot`, in scratch (valid until the next call). */
  private playback(slot: number, p: number): Float64Array {
    const out = this.scratch;
    if (p < 2) {
      const r = slot * (INSTANCE.size / 4);
      const records = this.store.records;
      out[0] = records.exactPhase(slot, p as 0 | 1);
      out[1] = records.exactSpeed(slot, p as 0 | 1);
      out[2] = this.recordU32[r + (p === 0 ? INSTANCE.clipA : INSTANCE.clipB) / 4];
    } else {
      const stack = this.recordU32[slot * (INSTANCE.size / 4) + INSTANCE.layers / 4];
      const i = p < FIRST_ADDITIVE_PLAYBACK ? p - 2 : MAX_OVERRIDE_LAYERS + p - FIRST_ADDITIVE_PLAYBACK;
      out[0] = this.store.stacks.exactPhase(stack, i);
      out[1] = this.store.stacks.exactSpeed(stack, i);
      out[2] = this.stackU32[this.layerWord(stack, i) + LAYER.clip / 4];
    }
    return out;
  }

  private readonly scratch = new Float64Array(3);

  /** Word index of layer `i` of stack record `stack`. */
  private layerWord(stack: number, i: number): number {
    return stack * (LAYER_STACK.size / 4) + (LAYER_STACK.layers + i * LAYER.size) / 4;
  }

  private cancelAll(handle: number): void {
    for (let p = 0; p < PLAYBACKS; p++) this.queue.cancel(handle * PLAYBACKS + p);
  }

  /** Renews the typed views when the store's record memory was replaced (growth). */
  private views(): void {
    const records = this.store.records.bytes;
    if (records !== this.recordBytes) {
      this.recordBytes = records;
      this.recordF32 = new Float32Array(records);
      this.recordU32 = new Uint32Array(records);
    }
    const stacks = this.store.stacks.bytes;
    if (stacks !== this.stackBytes) {
      this.stackBytes = stacks;
      this.stackF32 = new Float32Array(stacks);
      this.stackU32 = new Uint32Array(stacks);
    }
  }
}
