import type { ClipEventTable } from './clip-events';
import type { EventQueue } from './event-queue';

/**
 * A source of clip events other than the instance records (GPU-driven controllers): its
 * instances are marked external, and its keyed entries come back to it when due.
 */
export interface ExternalEventSource {
  /** A keyed entry of the instance of `handle` (InstanceStore handles, not ids) is due: emit it (ClipEventScheduler.emit) and schedule the next. `source` is the playback, order mod PLAYBACKS. */
  due(handle: number, source: number, clip: number, event: number, aux: number, due: number): void;
  /** The tables or the threshold changed: reschedule every instance. */
  reschedule(): void;
}

/**
 * What a crowd's clip events offer other features (the controllers schedule their instances'
 * crossings through it): the tables, the queue, the clock, and the switch that makes an
 * instance's events come from a controller. The clip-events feature implements it and is found
 * by name ('clip-events'); features that use it import this contract, not the feature.
 */
export interface ClipEventScheduler {
  readonly tables: ClipEventTable;
  readonly queue: EventQueue;
  /** Event clock now: seconds since the crowd was made (the sum of update dts, float64). */
  readonly clock: number;
  /** Weight a playback needs at a crossing for its event to fire, in (0, 1]. */
  readonly threshold: number;
  /** Replaces several clips' events at once (clip index -> events); all are validated before any changes. */
  setAll(events: ReadonlyMap<number, readonly import('./clip-events').ClipEvent[]>, where: (clip: number) => string): void;
  /** Makes events of the instance of `handle` come from its controller (on; `source` gets its keyed entries back) or from its records again (off). */
  setExternal(handle: number, on: boolean, source?: ExternalEventSource | null): void;
  /** Tells every listener that the instance of `handle` crossed event `event` of clip `clip` (both indices); listeners hear its id (InstanceStore.idOf). */
  emit(handle: number, clip: number, event: number): void;
  /**
   * Queues a crossing already decided (a one-shot entry) of the instance of `handle` now, through
   * its playback or source `source`, to be emitted at event clock `due` (seconds). It is dropped if
   * that instance is removed first, even when another instance takes its handle before `due`.
   */
  fire(handle: number, source: number, due: number, clip: number, event: number): void;
}
