import type { Character } from '../character/character';
import { show } from '../math/show';
import type { FeatureList } from './feature';
import { clipOf } from './input';
import type { InstanceAnimation } from './instance-records';
import type { InstanceStore } from './instance-store';
import type { RecordBufferLike } from './record-device';

/**
 * Many instances in one call (Crowd.addMany): per-instance values from typed arrays, the rest
 * shared. Every array is optional; a per-instance array overrides the shared value of its field.
 * Placement is either `transforms` (16 column-major numbers each) or positions / yaws / scales
 * (as Crowd.setPlacement: yaw radians about +y, 0 facing +z; uniform scale).
 */
export interface BulkInit {
  /** Instances to add (a non-negative integer). */
  count: number;
  /** x, y, z per instance (3 x count numbers; default 0, 0, 0). */
  positions?: Float32Array | Float64Array;
  /** Yaw per instance, radians (default 0). */
  yaws?: Float32Array | Float64Array;
  /** Uniform scale per instance, > 0 (default 1). */
  scales?: Float32Array | Float64Array;
  /** Model-to-world matrices, 16 per instance; not with positions, yaws or scales. */
  transforms?: Float32Array | Float64Array;
  /** Clip A of every instance: a name or index (default 0); `clipsA` per instance overrides it. */
  clipA?: string | number;
  /** Clip B of every instance (default clip A); `clipsB` overrides it. */
  clipB?: string | number;
  /** Clip A index per instance (below the character's clip count). */
  clipsA?: Uint32Array | Uint16Array | Uint8Array;
  /** Clip B index per instance (default: the instance's clip A). */
  clipsB?: Uint32Array | Uint16Array | Uint8Array;
  /** Seconds into clip A per instance (default 0); clip B starts at the same time unless `timesB`. */
  timesA?: Float32Array | Float64Array;
  /** Seconds into clip B per instance (default: its time A). */
  timesB?: Float32Array | Float64Array;
  /** Playback speed of clip A per instance, and of clip B unless `speedsB` (default 1). */
  speeds?: Float32Array | Float64Array;
  /** Playback speed of clip B per instance (default: its speed A). */
  speedsB?: Float32Array | Float64Array;
  /** Weight of clip B per instance, in [0, 1] (default 0). */
  blends?: Float32Array | Float64Array;
}

const FIELDS = new Set(['count', 'positions', 'yaws', 'scales', 'transforms', 'clipA', 'clipB', 'clipsA', 'clipsB', 'timesA', 'timesB', 'speeds', 'speedsB', 'blends']);
/** Numbers per instance of each per-instance array. */
const WIDTH: Record<string, number> = { positions: 3, yaws: 1, scales: 1, transforms: 16, clipsA: 1, clipsB: 1, timesA: 1, timesB: 1, speeds: 1, speedsB: 1, blends: 1 };

/**
 * Adds `init.count` instances to `store` (records written at crowd clock `clock`, each then
 * announced to `features`), writing their ids into `out` (allocated when absent) and returning
 * it. Everything is checked, and the store grown once, before the first instance is added: a
 * refused call changes nothing. No object is made per instance.
 */
export function addMany<B extends RecordBufferLike>(store: InstanceStore<B>, character: Character, features: FeatureList, clock: number, init: BulkInit,
  out?: Float64Array): Float64Array {
  if (typeof init !== 'object' || init === null) throw new TypeError(`addMany needs { count, positions, clipsA, timesA, ... } (BulkInit), got ${show(init)}`);
  for (const key of Object.keys(init)) if (!FIELDS.has(key)) throw new TypeError(`addMany: unknown field "${key}" (fields: ${[...FIELDS].join(', ')})`);
  const { count } = init;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`addMany: count must be a non-negative integer, got ${show(count)}`);
  const ids = out ?? new Float64Array(count);
  if (!(ids instanceof Float64Array) || ids.length < count) {
    // Ids carry a generation (instance-ids.ts) and pass 2^32, so only a Float64Array holds them all.
    throw new TypeError(`addMany: out must be a Float64Array of at least ${count} ids, got ${show(out)}`);
  }
  for (const [key, width] of Object.entries(WIDTH)) {
    const array = init[key as keyof BulkInit] as ArrayLike<number> | undefined;
    if (array === undefined) continue;
    if (!ArrayBuffer.isView(array)) throw new TypeError(`addMany: ${key} must be a typed array, got ${show(array)}`);
    if (array.length < count * width) throw new RangeError(`addMany: ${key} holds ${array.length} numbers, needs ${width} x count = ${count * width}`);
  }
  if (init.transforms && (init.positions || init.yaws || init.scales)) throw new TypeError('addMany: give transforms or positions / yaws / scales, not both');
  const clipA = clipOf(character, init.clipA ?? 0, 'clipA');
  const clipB = init.clipB === undefined ? undefined : clipOf(character, init.clipB, 'clipB');
  const clips = character.clipDurations.length;
  checkEach(init.clipsA, count, 'clipsA', (v) => v < clips, `a clip index below ${clips}`);
  checkEach(init.clipsB, count, 'clipsB', (v) => v < clips, `a clip index below ${clips}`);
  for (const key of ['positions', 'yaws', 'timesA', 'timesB', 'speeds', 'speedsB', 'transforms'] as const) {
    checkEach(init[key], count * WIDTH[key], key, Number.isFinite, 'a finite number');
  }
  checkEach(init.scales, count, 'scales', (v) => v > 0 && Number.isFinite(v), 'a positive finite number');
  checkEach(init.blends, count, 'blends', (v) => v >= 0 && v <= 1, 'in [0, 1]');

  store.reserve(store.count + count);
  const { records } = store;
  const { positions, yaws, scales, transforms, clipsA, clipsB, timesA, timesB, speeds, speedsB, blends } = init;
  const animation: InstanceAnimation = { clipA, clipB: clipB ?? clipA, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0 };
  const world = new Float32Array(16);
  const announce = features.announcesAdds;
  for (let i = 0; i < count; i++) {
    const handle = store.add();
    const slot = store.slot(handle);
    if (transforms) {
      records.setWorld(slot, transforms.subarray(i * 16, i * 16 + 16));
    } else {
      records.setPlacement(slot, positions ? positions[3 * i] : 0, positions ? positions[3 * i + 1] : 0, positions ? positions[3 * i + 2] : 0,
        yaws ? yaws[i] : 0, scales ? scales[i] : 1);
    }
    const a = clipsA ? clipsA[i] : clipA;
    animation.clipA = a;
    animation.clipB = clipsB ? clipsB[i] : clipB ?? a;
    animation.timeA = timesA ? timesA[i] : 0;
    animation.timeB = timesB ? timesB[i] : animation.timeA;
    animation.speedA = speeds ? speeds[i] : 1;
    animation.speedB = speedsB ? speedsB[i] : animation.speedA;
    animation.blend = blends ? blends[i] : 0;
    records.setAnimation(slot, animation, clock);
    if (announce) features.added(handle, slot, records.getWorld(slot, world));
    ids[i] = store.idOf(handle);
  }
  return ids;
}

/** Throws a RangeError naming `key` and the first of its first `n` values that fails `ok`. */
function checkEach(array: ArrayLike<number> | undefined, n: number, key: string, ok: (v: number) => boolean, what: string): void {
  if (!array) return;
  for (let i = 0; i < n; i++) if (!ok(array[i])) throw new RangeError(`addMany: ${key}[${i}] must be ${what}, got ${show(array[i])}`);
}
