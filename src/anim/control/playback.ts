import { wrapTime } from '../../math/time';

/**
 * One clip playing inside a controller: its clock (seconds), rate and end behaviour. A fixed-
 * shape object, reused: controllers allocate these once and copy values between them.
 */
export class ClipPlayback {
  /** Clip index. */
  clip = 0;
  /** Seconds into the clip: in [0, duration) when looping, [0, duration - HOLD_SECONDS] when clamped. */
  time = 0;
  /** Playback rate: 1 = real time, negative plays backwards. */
  speed = 1;
  /** Seconds. */
  duration = 0;
  /** Loop (wrap) or clamp (hold the end) when time runs past either end. */
  loop = true;
  /** A frozen clock does not advance (the outgoing clip of a frozen transition). */
  frozen = false;
  /** Held at its first frame until released (the target of a first-frame transition). */
  holdFirstFrame = false;

  /** Starts `clip` (duration in seconds, rate, loop or clamp) at `time` seconds, unfrozen; returns this. */
  set(clip: number, duration: number, speed: number, loop: boolean, time = 0): this {
    this.clip = clip;
    this.duration = duration;
    this.speed = speed;
    this.loop = loop;
    this.frozen = false;
    this.holdFirstFrame = false;
    this.time = 0;
    this.setTime(time);
    return this;
  }

  /** Copies every field of `other` into this one; returns this. */
  copy(other: ClipPlayback): this {
    this.clip = other.clip;
    this.time = other.time;
    this.speed = other.speed;
    this.duration = other.duration;
    this.loop = other.loop;
    this.frozen = other.frozen;
    this.holdFirstFrame = other.holdFirstFrame;
    return this;
  }

  /** Writes every field into out[o .. o + PLAYBACK_WORDS) (see AnimationController.saveState). @internal */
  save(out: Float64Array, o: number): void {
    out[o] = this.clip;
    out[o + 1] = this.time;
    out[o + 2] = this.speed;
    out[o + 3] = this.duration;
    out[o + 4] = this.loop ? 1 : 0;
    out[o + 5] = this.frozen ? 1 : 0;
    out[o + 6] = this.holdFirstFrame ? 1 : 0;
  }

  /** Reads every field from words[o .. o + PLAYBACK_WORDS), as save wrote them. @internal */
  load(words: Float64Array, o: number): void {
    this.clip = words[o];
    this.time = words[o + 1];
    this.speed = words[o + 2];
    this.duration = words[o + 3];
    this.loop = words[o + 4] === 1;
    this.frozen = words[o + 5] === 1;
    this.holdFirstFrame = words[o + 6] === 1;
  }

  /** Advances the clock by dt seconds at `speed` (not while frozen or held). */
  advance(dt: number): void {
    if (this.frozen || this.holdFirstFrame) return;
    this.setTime(this.time + this.speed * dt);
  }

  /** Whether a clamped clip has reached the end it plays toward. */
  get finished(): boolean {
    if (this.loop) return false;
    return this.speed >= 0 ? this.time >= this.duration - HOLD_SECONDS : this.time <= 0;
  }

  /** Current time as the pose should be sampled (the first frame while held). */
  get sampleTime(): number {
    return this.holdFirstFrame ? 0 : this.time;
  }

  /** Current rate as the GPU should advance it (0 while frozen or held, or when clamped at an end). */
  get sampleSpeed(): number {
    return this.frozen || this.holdFirstFrame || this.finished ? 0 : this.speed;
  }

  private setTime(t: number): void {
    const d = this.duration;
    if (!(d > 0)) { this.time = 0; return; }
    if (this.loop) {
      this.time = wrapTime(t, d);
    } else {
      // t = d would wrap to the first frame in the sampler; hold just before it.
      this.time = t < 0 ? 0 : t > d - HOLD_SECONDS ? d - HOLD_SECONDS : t;
    }
  }
}

/** Float64 words ClipPlayback.save writes. */
export const PLAYBACK_WORDS = 7;

/** A clamped clip holds this long before its end, since time d samples as time 0. */
export const HOLD_SECONDS = 1e-4;
