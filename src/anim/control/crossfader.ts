import { evaluateCurve, type BlendCurve, type CurveCodes } from './curves';
import { ClipPlayback, PLAYBACK_WORDS } from './playback';

/**
 * Crossfades between pose sources, per the rules of the animation literature.
 *
 * A source is a clip (with its own playback clock) or the locomotion blend. `current` is the
 * source shown when no fade is in flight. Each fade blends its target over the result of
 * everything before it: P = current, then P = mix(P, target_i, weight_i) for each fade in order.
 * When fade i completes (weight 1) everything before it is hidden, so its target becomes
 * `current` and fades 0..i leave the list.
 *
 * Transition kinds: 'smooth' (both keep playing), 'frozen' (the outgoing clips' clocks stop
 * during the fade), 'first-frame' (the target is held at its first frame until the fade
 * completes, then plays), 'immediate' (switch now, no fade).
 *
 * fadeTo rules: a fade toward the source already shown (no fade in flight) or already last in
 * the fade list is ignored. Mid-fade retargeting, for the last fade (source S, target T, at
 * normalised time u): going back to S reverses that fade from where it is (its weight runs back
 * down at the same rate, then the fade leaves the list); a third source X replaces T while
 * u < 0.5, and otherwise T, being more than half shown, stays as the source: X is faded in on
 * top while the S-to-T fade completes underneath.
 */

export type TransitionKind = 'smooth' | 'frozen' | 'first-frame' | 'immediate';
export const TRANSITION_KINDS: readonly TransitionKind[] = ['smooth', 'frozen', 'first-frame', 'immediate'];

export const SOURCE_CLIP = 0;
export const SOURCE_LOCOMOTION = 1;

/** A pose source: a clip with its clock, or the locomotion blend (which keeps its own clocks). */
export class Source {
  /** SOURCE_CLIP (0): the clip in `playback`; SOURCE_LOCOMOTION (1): the locomotion blend. */
  kind = SOURCE_CLIP;
  /** The clip and its clock (a clip source only). */
  readonly playback = new ClipPlayback();

  /** Copies `other` into this one; returns this. */
  copy(other: Source): this {
    this.kind = other.kind;
    this.playback.copy(other.playback);
    return this;
  }

  /** Writes kind and playback into out[o .. o + SOURCE_WORDS). @internal */
  save(out: Float64Array, o: number): void {
    out[o] = this.kind;
    this.playback.save(out, o + 1);
  }

  /** Reads what save wrote. @internal */
  load(words: Float64Array, o: number): void {
    this.kind = words[o];
    this.playback.load(words, o + 1);
  }

  /** Same source: both locomotion, or both the same clip (whatever its time). */
  sameAs(other: Source): boolean {
    return this.kind === other.kind && (this.kind === SOURCE_LOCOMOTION || this.playback.clip === other.playback.clip);
  }
}

/** One fade in flight: its target blends in over what is below it. */
export class Fade {
  /** The source faded in. */
  readonly target = new Source();
  /** Seconds since the fade began (runs back down while reversing). */
  elapsed = 0;
  /** Seconds the whole fade takes (> 0). */
  duration = 1;
  /** Shape of the weight over progress: 'linear', 'cubic', or a function of u in [0, 1]. */
  curve: BlendCurve = 'linear';
  /** How the clocks run during the fade (see the transition kinds above). */
  kind: TransitionKind = 'smooth';
  /** True while the fade runs back (its source was asked for again). */
  reversing = false;
  /** Current weight of the target, in [0, 1]. */
  weight = 0;

  /** Writes every field into out[o .. o + FADE_WORDS), the curve as its number in `codes`. @internal */
  save(out: Float64Array, o: number, codes: CurveCodes): void {
    this.target.save(out, o);
    const f = o + SOURCE_WORDS;
    out[f] = this.elapsed;
    out[f + 1] = this.duration;
    out[f + 2] = codes.code(this.curve);
    out[f + 3] = TRANSITION_KINDS.indexOf(this.kind);
    out[f + 4] = this.reversing ? 1 : 0;
    out[f + 5] = this.weight;
  }

  /** Reads what save wrote. @internal */
  load(words: Float64Array, o: number, codes: CurveCodes): void {
    this.target.load(words, o);
    const f = o + SOURCE_WORDS;
    this.elapsed = words[f];
    this.duration = words[f + 1];
    this.curve = codes.curve(words[f + 2]);
    this.kind = TRANSITION_KINDS[words[f + 3]];
    this.reversing = words[f + 4] === 1;
    this.weight = words[f + 5];
  }

  /** Normalised time of the fade, elapsed / duration in [0, 1]. */
  get progress(): number {
    return Math.min(Math.max(this.elapsed / this.duration, 0), 1);
  }
}

/** Most fades in flight; a further one completes the oldest first. */
export const MAX_FADES = 3;

/** Float64 words Source.save and Fade.save write; Crossfader.save writes 1 + SOURCE_WORDS, then FADE_WORDS per fade in flight. */
export const SOURCE_WORDS = 1 + PLAYBACK_WORDS;
export const FADE_WORDS = SOURCE_WORDS + 6;

/**
 * Seconds of slack when deciding that a fade (or an action phase) has run its length: time
 * summed from steps like 0.1 s lands a hair short (10 x 0.1 = 0.9999999999999999), which would
 * otherwise end a 1 s fade at 10 fps a whole frame late.
 */
export const TIME_EPSILON = 1e-9;

/** The crossfades of one controller (the rules above); read AnimationController.crossfader, change it through the controller. */
export class Crossfader {
  /** The source shown under every fade in flight. */
  readonly current = new Source();
  /** Fades in flight, oldest first: entries 0 to fadeCount - 1 (the array is fixed, MAX_FADES long). */
  readonly fades: Fade[] = Array.from({ length: MAX_FADES }, () => new Fade());
  /** Fades in flight, 0 to MAX_FADES. */
  fadeCount = 0;

  /**
   * Writes the state into out: the fade count and current at [o, o + 1 + SOURCE_WORDS), the fades
   * in flight from `fades` on, FADE_WORDS each (the rest is left as it was). Two places, so that
   * a saver can keep the fades, rarely in flight, apart from what every load reads. @internal
   */
  save(out: Float64Array, o: number, fades: number, codes: CurveCodes): void {
    out[o] = this.fadeCount;
    this.current.save(out, o + 1);
    for (let i = 0; i < this.fadeCount; i++) this.fades[i].save(out, fades + i * FADE_WORDS, codes);
  }

  /** Reads what save wrote. @internal */
  load(words: Float64Array, o: number, fades: number, codes: CurveCodes): void {
    this.fadeCount = words[o];
    this.current.load(words, o + 1);
    for (let i = 0; i < this.fadeCount; i++) this.fades[i].load(words, fades + i * FADE_WORDS, codes);
  }

  /** Shows `source` now: no fade, every fade in flight dropped. */
  play(source: Source): void {
    this.current.copy(source);
    this.current.playback.holdFirstFrame = false;
    this.fadeCount = 0;
    this.refreeze();
  }

  /** Fades to `target` over `seconds` (see the rules above). Returns what it did, for tracing. */
  fadeTo(target: Source, seconds: number, kind: TransitionKind, curve: BlendCurve): 'ignored' | 'played' | 'started' | 'reversed' | 'retargeted' {
    if (kind === 'immediate' || !(seconds > 0)) {
      if (this.fadeCount === 0 && this.current.sameAs(target)) return 'ignored';
      this.play(target);
      return 'played';
    }
    if (this.fadeCount === 0) {
      if (this.current.sameAs(target)) return 'ignored';
      this.push(target, seconds, kind, curve);
      return 'started';
    }
    const last = this.fades[this.fadeCount - 1];
    const source = this.fadeCount >= 2 ? this.fades[this.fadeCount - 2].target : this.current;
    const shown = last.reversing ? source : last.target; // where the last fade is heading
    const other = last.reversing ? last.target : source;
    if (shown.sameAs(target)) return 'ignored';
    if (other.sameAs(target)) {
      last.reversing = !last.reversing;
      this.refreeze();
      return 'reversed';
    }
    if (last.progress < 0.5 && !last.reversing) {
      last.target.copy(target);
      last.target.playback.holdFirstFrame = last.kind === 'first-frame';
      this.refreeze();
      return 'retargeted';
    }
    this.push(target, seconds, kind, curve);
    return 'started';
  }

  /** Advances every clock and fade by dt seconds; completed fades leave the list. */
  update(dt: number): void {
    this.current.playback.advance(dt);
    for (let i = 0; i < this.fadeCount; i++) {
      const fade = this.fades[i];
      fade.target.playback.advance(dt);
      fade.elapsed += fade.reversing ? -dt : dt;
      fade.weight = evaluateCurve(fade.curve, fade.progress);
    }
    // A completed fade hides everything before it.
    for (let i = this.fadeCount - 1; i >= 0; i--) {
      const fade = this.fades[i];
      if (!fade.reversing && fade.elapsed >= fade.duration - TIME_EPSILON) {
        this.current.copy(fade.target);
        this.current.playback.holdFirstFrame = false;
        this.removeFirst(i + 1);
        break;
      }
    }
    // A reversed fade that ran back to its start leaves the list.
    for (let i = this.fadeCount - 1; i >= 0; i--) {
      if (this.fades[i].reversing && this.fades[i].elapsed <= TIME_EPSILON) this.removeAt(i);
    }
    this.refreeze();
  }

  /**
   * Weight of each source in the final pose, for flattening: `current` gets
   * prod(1 - w_i), fade i's target gets w_i * prod_{j > i}(1 - w_j). Writes fadeCount + 1
   * weights into `out` (current first).
   */
  sourceWeights(out: Float64Array): void {
    let rest = 1;
    for (let i = this.fadeCount - 1; i >= 0; i--) {
      out[i + 1] = this.fades[i].weight * rest;
      rest *= 1 - this.fades[i].weight;
    }
    out[0] = rest;
  }

  /** Whether any source (shown or fading) is the locomotion blend. */
  usesLocomotion(): boolean {
    if (this.current.kind === SOURCE_LOCOMOTION) return true;
    for (let i = 0; i < this.fadeCount; i++) if (this.fades[i].target.kind === SOURCE_LOCOMOTION) return true;
    return false;
  }

  private push(target: Source, seconds: number, kind: TransitionKind, curve: BlendCurve): void {
    const weight = evaluateCurve(curve, 0); // first: a custom curve that throws leaves the list as it was
    if (this.fadeCount === MAX_FADES) {
      // Complete the oldest fade at once to make room: its target becomes current, unless it
      // was reversing (heading back to current), which completes by dropping it.
      if (!this.fades[0].reversing) {
        this.current.copy(this.fades[0].target);
        this.current.playback.holdFirstFrame = false;
      }
      this.removeFirst(1);
    }
    const fade = this.fades[this.fadeCount++];
    fade.target.copy(target);
    fade.target.playback.frozen = false;
    fade.target.playback.holdFirstFrame = kind === 'first-frame';
    if (kind === 'first-frame') fade.target.playback.time = 0;
    fade.elapsed = 0;
    fade.duration = seconds;
    fade.curve = curve;
    fade.kind = kind;
    fade.reversing = false;
    fade.weight = weight;
    this.refreeze();
  }

  /**
   * Sets every clock's frozen flag from the fades in flight: a clip is stopped while any frozen
   * fade above it heads to its target (the clip is part of that fade's outgoing pose). Called
   * after every change to the list, so a fade that completes, reverses, is dropped or retargeted
   * never leaves a clock stopped, or running, against that rule.
   */
  private refreeze(): void {
    let frozen = false;
    for (let i = this.fadeCount - 1; i >= 0; i--) {
      const fade = this.fades[i];
      fade.target.playback.frozen = frozen;
      if (fade.kind === 'frozen' && !fade.reversing) frozen = true;
    }
    this.current.playback.frozen = frozen;
  }

  /** Drops the first `count` fades, keeping the Fade objects for reuse. */
  private removeFirst(count: number): void {
    for (let k = 0; k < count; k++) this.removeAt(0);
  }

  private removeAt(index: number): void {
    const removed = this.fades[index];
    for (let i = index; i < this.fadeCount - 1; i++) this.fades[i] = this.fades[i + 1];
    this.fades[this.fadeCount - 1] = removed;
    this.fadeCount--;
  }
}
