/**
 * Public instance ids (InstanceId) and the dense handles behind them.
 *
 *   id = handle + generation * HANDLE_SPAN        handle = id mod HANDLE_SPAN
 *
 * A handle indexes everything kept per instance outside its slot (InstanceStore's handle -> slot
 * map and its GPU copy, the passes that work per handle: controllers, root motion, props'
 * selections, the clip-event queue), so handles stay dense and are reused once free. The
 * generation counts how many instances the handle held before this one: removing an instance
 * bumps it, so the id of a removed instance names no live one again, even after its handle is
 * reused (InstanceStore.handle refuses it by name). Generation 0 ids equal their handles: the
 * first ids a crowd hands out are 0, 1, 2, ... as before.
 *
 * Ids stay exact integers: handles are below HANDLE_SPAN and generations below
 * GENERATION_LIMIT, so every id is below HANDLE_SPAN x GENERATION_LIMIT = 2^53
 * (Number.MAX_SAFE_INTEGER + 1). A handle whose generation would reach GENERATION_LIMIT is
 * retired for good rather than wrapped to 0 (a wrap would make the ids of long-removed
 * instances valid again): it is never handed out again, and a crowd refuses to add once all
 * HANDLE_SPAN handles are live or retired. Reaching it takes 2^29 removals of one handle.
 */

/** Handles per crowd, and the step between two generations of one handle's ids: 2^24 (16,777,216 instances live at once). */
export const HANDLE_SPAN = 2 ** 24;

/** Generations a handle lives through before it is retired: 2^29, so that ids stay below 2^53. */
export const GENERATION_LIMIT = 2 ** 29;

/** The id of `handle` in generation `generation`. */
export function instanceId(handle: number, generation: number): number {
  return handle + generation * HANDLE_SPAN;
}

/** The handle an id names (its value mod HANDLE_SPAN); the id must be a non-negative integer. */
export function handleOfId(id: number): number {
  return id % HANDLE_SPAN;
}

/** The generation an id names; the id must be a non-negative integer. */
export function generationOfId(id: number): number {
  return (id - (id % HANDLE_SPAN)) / HANDLE_SPAN;
}
