import { ClipEventTable, EVENT_SLACK_SECONDS } from '../events/clip-events';
import { ACTION_NONE, type AnimationController } from './controller';
import type { ControllerConfig } from './config';
import { SOURCE_LOCOMOTION, TIME_EPSILON, type Source } from './crossfader';
import { evaluateCurve } from './curves';
import { HOLD_SECONDS, type ClipPlayback } from './playback';

/**
 * Clip events of an animation controller: which of its playbacks cross an event, and when, from
 * its state in closed form. Both drivers use it: a CPU-driven controller scans each step (0, dt]
 * from inside AnimationController.update; a GPU-driven one asks for its next crossing after a
 * cursor and schedules it (src/features/controllers/gpu-controller-events.ts).
 *
 * Sources, in tie order: 0 the crossfader's current source, 1..3 its fade targets, 4 the action
 * handed over (fading out), 5 the action. Each plays a clip (ClipPlayback: looping or clamped,
 * not while frozen, held at its first frame or finished), except the locomotion blend: its
 * events are those of its heaviest clip (ties: the first), played at the blend's phase, once
 * however many crossfade sources show the blend (the source index is the first of them, the
 * weight their sum). Crossing rules: src/anim/events/clip-events.ts.
 *
 * Weight of a source at a crossing (compared with the crowd's eventWeightThreshold, >=):
 * evaluated at the crossing time from the state the scan starts from, advanced continuously
 * (fade curves at elapsed +- tau, the action's fade at its phase time + tau; no transition falls
 * inside a scan; an action's phases are intervals of the time since its request, so its weight
 * is a closed form across them). Crossfade sources get Crossfader.sourceWeights; an action layer scales every
 * source below it by (1 - its weight) unless it is masked (part of the body); the action's own
 * weight is actionWeight, the handed-over action's previousWeight.
 */
export const SOURCE_PREVIOUS = 4;
export const SOURCE_ACTION = 5;
export const CONTROLLER_SOURCES = 6;

/** Receives the crossings a scan finds: tau seconds after the scan's start, source index, clip index, event index. */
export interface ControllerEventSink {
  event(tau: number, source: number, clip: number, index: number): void;
}

/** A linear stretch of the locomotion phase: phase(tau) = phase + rate x tau (cycles per second), valid for tau > from. */
export interface PhaseSegment {
  phase: number;
  rate: number;
  from: number;
}

/** The crossing found by next(): tau, source, clip, event index (-1: none fired, scan again from tau). */
export interface ControllerCrossing {
  tau: number;
  source: number;
  clip: number;
  index: number;
}

/** Most crossings below the threshold next() steps over before it hands back a rescan point. */
const MAX_SKIPS = 256;

/** The event table of a config (its "events"), for controllers outside a crowd (simulate). */
export function configEventTable(config: ControllerConfig, clipDurations: ArrayLike<number>): ClipEventTable {
  const table = new ClipEventTable(config.clipNames, clipDurations);
  config.events.forEach((list, clip) => { if (list.length) table.set(clip, list, `config.events.${config.clipNames[clip]}`); });
  return table;
}

/**
 * The scanner (one per crowd or simulation, reused: nothing allocates per scan). load() takes a
 * controller's state as tau = 0; next() finds crossings after a cursor.
 */
export class ControllerEvents {
  /** Where step() sends crossings (CrowdControllers points it at the crowd's queue). */
  sink: ControllerEventSink | null = null;
  private controller: AnimationController | null = null;
  private readonly active = new Uint8Array(CONTROLLER_SOURCES);
  private readonly loop = new Uint8Array(CONTROLLER_SOURCES);
  private readonly clip = new Int32Array(CONTROLLER_SOURCES);
  private readonly time0 = new Float64Array(CONTROLLER_SOURCES);
  private readonly speed = new Float64Array(CONTROLLER_SOURCES);
  private readonly duration = new Float64Array(CONTROLLER_SOURCES);
  /** Crossings of a source count only after this tau (the locomotion segment's start; -Infinity otherwise). */
  private readonly from = new Float64Array(CONTROLLER_SOURCES);
  /** Crossfade source index of the locomotion blend, -1 when none shows it. */
  private locomotionSource = -1;
  private readonly fadeWeights = new Float64Array(4);
  private readonly candidate: ControllerCrossing = { tau: 0, source: 0, clip: 0, index: 0 };
  readonly found: ControllerCrossing = { tau: 0, source: 0, clip: 0, index: 0 };
  private readonly segment: PhaseSegment = { phase: 0, rate: 0, from: 0 };

  /**
   * @param tables The event tables (the crowd's, or configEventTable's).
   * @param threshold Weight a source needs at a crossing, in (0, 1] (read on every scan: the crowd's setting).
   */
  constructor(readonly tables: ClipEventTable, readonly threshold: () => number) {}

  /**
   * The crossings of one step of a CPU-stepped controller, to `sink`: called by
   * AnimationController.update after its locomotion moved (`phaseBefore` is the blend phase
   * before) and before its fades and action advance by dt.
   */
  step(controller: AnimationController, dt: number, phaseBefore: number): void {
    if (!this.sink || !(dt > 0) || !this.tables.hasEvents) return;
    let segment: PhaseSegment | null = null;
    const loco = controller.locomotion;
    if (loco && loco.blend.cycleDuration > 0) {
      segment = this.segment;
      segment.phase = phaseBefore;
      segment.rate = loco.rateScale / loco.blend.cycleDuration;
      segment.from = -Infinity;
    }
    this.load(controller, segment, true);
    // The step covers (slack, dt + slack]: see EVENT_SLACK_SECONDS.
    const c = this.found;
    c.tau = EVENT_SLACK_SECONDS; c.source = CONTROLLER_SOURCES; c.index = 0;
    while (this.next(c.tau, c.source, c.index, dt + EVENT_SLACK_SECONDS)) {
      if (c.index >= 0) this.sink.event(c.tau, c.source, c.clip, c.index);
    }
  }

  /**
   * Takes `controller`'s state as tau = 0. `locomotion` is its blend phase as a function of tau
   * (null: the blend's events are left out); `clips` says whether the clip playbacks (crossfade
   * clips and actions) are scanned too.
   */
  load(controller: AnimationController, locomotion: PhaseSegment | null, clips: boolean): void {
    this.controller = controller;
    const f = controller.crossfader;
    this.locomotionSource = -1;
    this.active.fill(0);
    for (let i = 0; i <= f.fadeCount; i++) {
      const source: Source = i === 0 ? f.current : f.fades[i - 1].target;
      if (source.kind === SOURCE_LOCOMOTION) {
        if (this.locomotionSource < 0) {
          this.locomotionSource = i;
          if (locomotion) this.loadLocomotion(i, controller, locomotion);
        }
      } else if (clips) {
        this.loadPlayback(i, source.playback);
      }
    }
    if (clips && controller.actionPhase !== ACTION_NONE) {
      if (controller.previousAction >= 0) this.loadPlayback(SOURCE_PREVIOUS, controller.previousPlayback);
      this.loadPlayback(SOURCE_ACTION, controller.actionPlayback);
    }
  }

  /**
   * Finds the first crossing after the cursor (tau, source, index), in (tau, source, index)
   * order, at tau <= limit, whose source's weight is at least the threshold, into `found`;
   * false when there is none. After MAX_SKIPS crossings below the threshold it stops with
   * found.index = -1 at the last one skipped (scan again from there).
   */
  next(tau: number, source: number, index: number, limit: number): boolean {
    const found = this.found;
    const threshold = this.threshold();
    for (let skips = 0; skips < MAX_SKIPS; skips++) {
      let best = -1;
      let bestTau = Infinity;
      let bestIndex = 0;
      for (let s = 0; s < CONTROLLER_SOURCES; s++) {
        if (!this.active[s] || !this.crossingAfter(s, tau, source, index)) continue;
        const c = this.candidate;
        if (c.tau < bestTau) { best = s; bestTau = c.tau; bestIndex = c.index; }
      }
      if (best < 0 || !(bestTau <= limit)) return false;
      found.tau = bestTau; found.source = best; found.clip = this.clip[best]; found.index = bestIndex;
      if (this.weightAt(best, bestTau) >= threshold) return true;
      tau = bestTau; source = best; index = bestIndex;
    }
    found.index = -1;
    return true;
  }

  /** Weight of source `s` at tau seconds after the loaded state (see the rules above). */
  weightAt(s: number, tau: number): number {
    const c = this.controller!;
    let action = 0;
    let actionMasked = true;
    let previous = 0;
    let previousMasked = true;
    if (c.actionPhase !== ACTION_NONE) {
      // The action's phases are intervals of the time since its request (AnimationController.updateAction).
      const config = c.runtime.config.actions[c.action];
      const t = c.actionTime + tau;
      const outAt = c.actionOutTime;
      const fadingIn = t < config.fadeIn - TIME_EPSILON;
      actionMasked = config.mask >= 0;
      if (fadingIn) action = evaluateCurve(config.curve, t / config.fadeIn);
      else if (t < outAt - TIME_EPSILON) action = 1;
      else if (t < outAt + config.fadeOut - TIME_EPSILON) action = 1 - evaluateCurve(config.curve, (t - outAt) / config.fadeOut);
      if (c.previousAction >= 0) {
        previous = fadingIn ? c.previousStartWeight * (1 - evaluateCurve(config.curve, t / config.fadeIn)) : 0;
        previousMasked = c.runtime.config.actions[c.previousAction].mask >= 0;
      }
    }
    if (s === SOURCE_ACTION) return action;
    const aboveAction = actionMasked ? 1 : 1 - action;
    if (s === SOURCE_PREVIOUS) return previous * aboveAction;
    const scale = aboveAction * (previousMasked ? 1 : 1 - previous);
    const f = c.crossfader;
    const w = this.fadeWeights;
    for (let i = 0; i < f.fadeCount; i++) {
      const fade = f.fades[i];
      w[i] = evaluateCurve(fade.curve, (fade.elapsed + (fade.reversing ? -tau : tau)) / fade.duration);
    }
    let total = 0;
    let rest = 1;
    // Crossfader.sourceWeights: fade i's target gets w_i x prod_{j > i} (1 - w_j), current the rest.
    for (let i = f.fadeCount; i >= 0; i--) {
      const weight = i === 0 ? rest : w[i - 1] * rest;
      if (i > 0) rest *= 1 - w[i - 1];
      const source = i === 0 ? f.current : f.fades[i - 1].target;
      if (i === s || (s === this.locomotionSource && source.kind === SOURCE_LOCOMOTION)) total += weight;
    }
    return total * scale;
  }

  private loadPlayback(s: number, p: ClipPlayback): void {
    if (p.frozen || p.holdFirstFrame || p.finished || p.speed === 0 || !(p.duration > 0) || this.tables.count(p.clip) === 0) return;
    this.active[s] = 1;
    this.loop[s] = p.loop ? 1 : 0;
    this.clip[s] = p.clip;
    this.time0[s] = p.time;
    this.speed[s] = p.speed;
    this.duration[s] = p.duration;
    this.from[s] = -Infinity;
  }

  private loadLocomotion(s: number, c: AnimationController, segment: PhaseSegment): void {
    const blend = c.locomotion!.blend;
    if (blend.count === 0 || segment.rate === 0) return;
    let k = 0;
    for (let i = 1; i < blend.count; i++) if (blend.weights[i] > blend.weights[k]) k = i;
    const clip = blend.clips[k];
    if (this.tables.count(clip) === 0) return;
    const d = blend.durations[k];
    this.active[s] = 1;
    this.loop[s] = 1;
    this.clip[s] = clip;
    this.time0[s] = segment.phase * d;
    this.speed[s] = segment.rate * d;
    this.duration[s] = d;
    this.from[s] = segment.from;
  }

  /**
   * The first crossing of source s after the cursor (tau, source, index) in (tau, source,
   * index) order, into `candidate`; false when it has none.
   */
  private crossingAfter(s: number, tau: number, source: number, index: number): boolean {
    const times = this.tables.timesOf(this.clip[s]);
    if (this.loop[s]) return loopCrossingAfter(times, this.time0[s], this.speed[s], this.duration[s], this.from[s], s, tau, source, index, this.candidate);
    const n = times.length;
    const t0 = this.time0[s];
    const v = this.speed[s];
    const forward = v > 0;
    const end = this.duration[s] - HOLD_SECONDS;
    const c = this.candidate;
    for (let k = 0; k < n; k++) {
      const j = forward ? k : n - 1 - k;
      const t = ((forward ? Math.min(times[j], end) : times[j]) - t0) / v;
      if (t > 0 && t > this.from[s] && after(t, s, j, tau, source, index)) { c.tau = t; c.index = j; return true; }
    }
    return false;
  }
}

/** Whether crossing (t, s, j) comes after the cursor (tau, source, index) in (tau, source, index) order. */
function after(t: number, s: number, j: number, tau: number, source: number, index: number): boolean {
  return t > tau || (t === tau && (s > source || (s === source && j > index)));
}

/**
 * The first crossing of a looping playback (event `times` of a clip `d` seconds long, at clip
 * time t0 at tau = 0 playing at `v` clip seconds per second; crossings count only after tau =
 * `from`) that comes after the cursor (tau, source, index), as source `s`: into out (tau,
 * index); false when none (v = 0). Walks the crossings from a cycle before the cursor's position:
 * three cycles hold the answer.
 */
export function loopCrossingAfter(times: Float64Array, t0: number, v: number, d: number, from: number, s: number,
  tau: number, source: number, index: number, out: { tau: number; index: number }): boolean {
  const n = times.length;
  const forward = v > 0;
  const u = t0 + v * Math.max(tau, from);
  let base = (Math.floor(u / d) + (forward ? -1 : 1)) * d;
  let j = forward ? 0 : n - 1;
  for (let k = 0; k < 3 * n + 2; k++) {
    const t = (base + times[j] - t0) / v;
    if (t > from && after(t, s, j, tau, source, index)) { out.tau = t; out.index = j; return true; }
    if (forward) { if (++j === n) { j = 0; base += d; } } else if (--j < 0) { j = n - 1; base -= d; }
  }
  return false;
}
