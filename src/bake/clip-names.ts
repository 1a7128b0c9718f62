/**
 * The one clip resolver: a clip given by name or index -> its index, with an error that names
 * where the value came from, in the caller's wording. Used by Character, the controller config,
 * the controllers, the layer-stack JSON and the command-line tools.
 */
export interface ClipWording {
  /** Where the value came from ("config.clips", "--clip", "additiveClips[0].clip"), put first. */
  where?: string;
  /** What may name a clip: a name or an index (default), a name only, or (command lines) a name or a digit string. */
  accepts?: 'name or index' | 'name' | 'name or digits';
  /** The noun after "no clip": '' (default), 'named', or 'named or numbered'. */
  noun?: '' | 'named' | 'named or numbered';
  /** The model, said as "in <model>" after the value. */
  model?: string;
  /** Quote for names in the message: JSON (default, "Walk") or single quotes with indices (0 'Walk'), as the tools print. */
  quote?: 'json' | 'single';
}

/** Index of `value` among `clipNames`; throws a RangeError in the caller's wording when there is none. */
export function resolveClip(clipNames: readonly string[], value: unknown, wording: ClipWording = {}): number {
  const index = findClip(clipNames, value, wording.accepts ?? 'name or index');
  if (index >= 0) return index;
  throw new RangeError(clipNotFound(clipNames, value, wording));
}

function findClip(clipNames: readonly string[], value: unknown, accepts: NonNullable<ClipWording['accepts']>): number {
  const inRange = (i: number) => Number.isInteger(i) && i >= 0 && i < clipNames.length;
  if (typeof value === 'string') {
    const byName = clipNames.indexOf(value);
    if (byName >= 0) return byName;
    if (accepts === 'name or digits' && /^\d+$/.test(value) && inRange(Number(value))) return Number(value);
    return -1;
  }
  if (accepts === 'name or index' && typeof value === 'number' && inRange(value)) return value;
  return -1;
}

/** The message for a clip that does not resolve, e.g. `--clip: no clip named or numbered 'Dance' (clips: 0 'Survey', 1 'Walk')`. */
export function clipNotFound(clipNames: readonly string[], value: unknown, wording: ClipWording = {}): string {
  const where = wording.where ? `${wording.where}: ` : '';
  if (typeof value !== 'string' && typeof value !== 'number') {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
    return `${where}a clip is named by ${wording.accepts === 'name' ? 'its name (a string)' : 'its name or index'}, got ${kind}`;
  }
  const single = wording.quote === 'single';
  const shown = single ? `'${String(value)}'` : JSON.stringify(value) ?? String(value);
  const list = clipNames.map((n, i) => (single ? `${i} '${n}'` : JSON.stringify(n))).join(', ') || 'none';
  const noun = wording.noun ? `${wording.noun} ` : '';
  const model = wording.model ? ` in ${wording.model}` : '';
  return `${where}no clip ${noun}${shown}${model} (clips: ${list})`;
}

/**
 * Clip names, made unique: glTF allows two animations with one name, and clips from other files
 * (ClipLibrary) may reuse a name, but clips are picked by name, so the second "Walk" becomes
 * "Walk (2)", the third "Walk (3)" (skipping any suffix a name in the list already uses); the
 * first keeps its name. `renamed(index, name, unique)` is told of each rename (the callers warn).
 */
export function uniqueClipNames(names: readonly string[], renamed: (index: number, name: string, unique: string) => void): string[] {
  const taken = new Set(names);
  const used = new Set<string>();
  return names.map((name, a) => {
    if (!used.has(name)) { used.add(name); return name; }
    let n = 2;
    while (taken.has(`${name} (${n})`) || used.has(`${name} (${n})`)) n++;
    const unique = `${name} (${n})`;
    used.add(unique);
    renamed(a, name, unique);
    return unique;
  });
}
