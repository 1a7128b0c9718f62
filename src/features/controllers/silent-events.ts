import { ClipEventTable, type ClipEvent } from '../../anim/events/clip-events';
import { EventQueue } from '../../anim/events/event-queue';
import type { ClipEventScheduler } from '../../anim/events/scheduler';

/**
 * The scheduler controllers use on a crowd without the clip-events feature: empty tables (so
 * nothing is ever planned or pushed) and nobody to tell. Checking config events still works
 * (`tables.check`), so a bad config is refused the same with or without the feature.
 */
export class SilentEvents implements ClipEventScheduler {
  readonly tables: ClipEventTable;
  readonly queue = new EventQueue();
  readonly clock = 0;
  readonly threshold = 1;

  constructor(clipNames: readonly string[], clipDurations: ArrayLike<number>) {
    this.tables = new ClipEventTable(clipNames, clipDurations);
  }

  setAll(_events: ReadonlyMap<number, readonly ClipEvent[]>): void {}

  setExternal(): void {}

  emit(): void {}

  fire(): void {}
}
