// Control pass: evaluates every GPU-driven animation controller for this frame and writes the
// pose pass's input for it (the instance record's base clip and world transform, and its layer
// stack). The TypeScript reference is src/anim/control/ (AnimationController); the CPU keeps the
// discrete state (which fades, which action phase, which locomotion input) and rewrites a
// controller's ControlInput only on an event or a due timer (src/features/controllers/control-records.ts).
//
// Between events everything here is a function of the crowd clock, evaluated in closed form
// from the ControlInput written at clock `input.clock`: clip times (phase + speed * elapsed,
// looped or clamped), fade weights (curve of elapsed / duration), the action layer's weight and
// the handover of a previous action. Locomotion is integrated per frame with the frame's dt in
// ControlState (position, velocity, heading, blend phase), exactly as Locomotion.update steps
// it, because its bounded acceleration and phase-synced blend are sums over frames.
//
// Two entry points: `applyUpdates` copies this frame's rewritten ControlInputs (a compact list
// uploaded in one writeBuffer) into place; `main` evaluates one controller per thread.
// Layouts: src/runtime/layout.ts (checked against this file by test/runtime/layout.test.ts).

override WORKGROUP_SIZE: u32; // no default: the pass sets it (WORKGROUP_SIZE in src/runtime/limits.ts)

// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
const SOURCE_CLIP: u32 = 0u;
const SOURCE_LOCOMOTION: u32 = 1u;
const PLAY_LOOP: u32 = 1u;
const PLAY_HOLD: u32 = 2u;
const PLAY_FROZEN: u32 = 4u;
const ACTION_NONE: u32 = 0u;
const ACTION_IN: u32 = 1u;
const ACTION_PLAY: u32 = 2u;
const ACTION_OUT: u32 = 3u;
const INPUT_NONE: u32 = 0u;
const INPUT_SPEED: u32 = 1u;
const INPUT_DIRECTION: u32 = 2u;
const CURVE_LINEAR: u32 = 0u;
const CURVE_CUBIC: u32 = 1u;
const CURVE_TABLE: u32 = 2u;
const CURVE_SAMPLES: u32 = 256u;
const MAX_FADES: u32 = 3u;
const MAX_BLEND: u32 = 4u;
const NO_INDEX: u32 = 0xffffffffu;
const HOLD_SECONDS: f32 = 0x1.a36e2ep-14f; // 0.0001
const SPEED_TIE: f32 = 0x1.4f8b58p-17f; // 0.00001
const EDGE_EPSILON: f32 = 0x1.197998p-40f; // 1e-12
const MASK_NONE: u32 = 0xffffffffu;
const REFERENCE_REST: u32 = 0xffffffffu;
const STACK_LAYERS: u32 = 6u;
const CLIP_WORDS: u32 = 4u;
const CLIP_DURATION: u32 = 0u;
const CLIP_SPEED: u32 = 1u;
const CLIP_LOOP: u32 = 2u;
const CLIP_CYCLE: u32 = 3u;
const ACTION_WORDS: u32 = 8u;
const ACTION_CLIP: u32 = 0u;
const ACTION_FADE_IN: u32 = 1u;
const ACTION_FADE_OUT: u32 = 2u;
const ACTION_CURVE: u32 = 3u;
const ACTION_MASK: u32 = 4u;
const LOCO_IDLE: u32 = 0u;
const LOCO_WALK_SPEED: u32 = 1u;
const LOCO_MAX_ACCELERATION: u32 = 2u;
const LOCO_MAX_DECELERATION: u32 = 3u;
const LOCO_MIN_SPEED: u32 = 4u;
const LOCO_TURN_RATE: u32 = 5u;
const LOCO_DIRECTIONS: u32 = 6u;
const DIRECTION_WORDS: u32 = 2u;
const DIRECTION_COUNT: u32 = 8u;
const LOCO_WORDS: u32 = 22u;
const PLANE_TRIANGLES: u32 = 0u;
const PLANE_HULL: u32 = 1u;
const PLANE_ENTRIES: u32 = 2u;
const PLANE_HEADER_WORDS: u32 = 3u;
const ENTRY_WORDS: u32 = 2u;
const ENTRY_DURATION: u32 = 1u;
const TRIANGLE_WORDS: u32 = 9u;
const TRIANGLE_ORIGIN: u32 = 3u;
const TRIANGLE_MATRIX: u32 = 5u;
const EDGE_WORDS: u32 = 7u;
const EDGE_ORIGIN: u32 = 2u;
const EDGE_VECTOR: u32 = 4u;
const EDGE_INVERSE_LENGTH2: u32 = 6u;
const ROOT_WORDS: u32 = 2u;
const BLEND_ENTRIES: u32 = 3u;
const MIN_BLEND_WEIGHT: f32 = 0x1.0c6f7ap-20f; // 0.000001
const TICK_RATE_SCALE: f32 = 4096.0;
const PI: f32 = 0x1.921fb6p1f; // 3.141592653589793

struct Instance {
  world: mat4x4f,
  clipA: u32,
  clipB: u32,
  phaseA: u32,
  phaseB: u32,
  speedA: f32,
  speedB: f32,
  blend: f32,
  layers: u32,
  rateLoA: u32,
  rateHiA: u32,
  rateLoB: u32,
  rateHiB: u32,
}

struct Layer {
  clip: u32,
  phase: u32,
  speed: f32,
  weight: f32,
  mask: u32,
  refClip: u32,
  refPhase: u32,
  refSpeed: f32,
  rateLo: u32,
  rateHi: u32,
  refRateLo: u32,
  refRateHi: u32,
}

struct LayerStack {
  overrideCount: u32,
  additiveCount: u32,
  layers: array<Layer, STACK_LAYERS>,
}

const HALF_PI_HI: f32 = 0x1.921fb6p0f; // f32(pi / 2)
const HALF_PI_LO: f32 = -0x1.777a5cp-25f; // pi / 2 - HALF_PI_HI

// (sin x, cos x): Cody-Waite reduction to |r| <= pi/4, then Taylor series to r^9 and r^10.
fn sinCos(x: f32) -> vec2f {
  let k = floor(x / HALF_PI_HI + 0.5);
  let r = (x - k * HALF_PI_HI) - k * HALF_PI_LO;
  let r2 = r * r;
  let s = r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0)))));
  let c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0)))));
  let q = i32(k) & 3;
  if (q == 0) { return vec2f(s, c); }
  if (q == 1) { return vec2f(c, -s); }
  if (q == 2) { return vec2f(-s, -c); }
  return vec2f(-c, s);
}

// a * b as a 64-bit (low word, high word) pair, from 16-bit halves (WGSL has no 64-bit integers).
fn mulWide(a: u32, b: u32) -> vec2u {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2u((mid << 16u) | (p00 & 0xffffu), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// Position at `ticks` (the crowd clock in CLOCK_TICKS_PER_SECOND) of a clip recorded as (phase,
// rate): phase * 2^32 + rate * ticks mod 2^64, in 2^-64 turns, as (low word, high word). Exact.
fn clipTurns(phase: u32, rateLo: u32, rateHi: u32, ticks: i32) -> vec2u {
  let c = bitcast<u32>(ticks);
  let low = mulWide(rateLo, c);
  // A negative tick count reads as ticks + 2^32 in a u32: take rateLo * 2^32 back off.
  return vec2u(low.x, phase + low.y + rateHi * c - select(0u, rateLo, ticks < 0));
}

// Entry index in [0, last) and fraction in [0, 1] of position `turns` plus `extra` turns (a small
// float32 rest of either sign) in a table of last + 1 entries (last >= 1) spanning one turn.
struct ClipEntry {
  index: u32,
  fraction: f32,
}

fn clipEntry(turns: vec2u, extra: f32, last: u32) -> ClipEntry {
  let u = mulWide(turns.y, last); // u.y whole entries, u.x the fraction in 2^-32
  var f = f32(u.x) * 2.3283064365386963e-10 + (f32(turns.x) * 5.421010862427522e-20 + extra) * f32(last);
  let whole = floor(f);
  f -= whole;
  var i = (i32(u.y) + i32(whole)) % i32(last);
  if (i < 0) {
    i += i32(last);
  }
  return ClipEntry(u32(i), f);
}
// END generated

// Trigonometry to f32 precision. WGSL lets sin, cos and atan2 be off by 2^-11 (absolute) or
// 4096 ULP, which here would turn into a millimetre of drift a second; these stay within a
// few ULP, so the GPU follows the CPU reference (src/anim/control/locomotion.ts) to 1e-5.
// sinCos is in the generated block (PRECISE_SIN_COS, shared with shaders/root-motion/root-motion.wgsl).

// atan(t) for |t| <= tan(pi/8): Taylor series to t^15.
fn atanSmall(t: f32) -> f32 {
  let t2 = t * t;
  return t * (1.0 + t2 * (-1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (-1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (-1.0 / 11.0 + t2 * (1.0 / 13.0 + t2 * (-1.0 / 15.0))))))));
}

// atan2(y, x) in (-pi, pi], as Math.atan2.
fn atan2Precise(y: f32, x: f32) -> f32 {
  let ax = abs(x);
  let ay = abs(y);
  if (ax == 0.0 && ay == 0.0) {
    return select(0.0, PI, x < 0.0 || (x == 0.0 && 1.0 / x < 0.0)) * select(1.0, -1.0, y < 0.0);
  }
  let z = min(ax, ay) / max(ax, ay); // in [0, 1]
  var a: f32;
  if (z > 0.41421356) {
    a = PI / 4.0 + atanSmall((z - 1.0) / (z + 1.0));
  } else {
    a = atanSmall(z);
  }
  if (ay > ax) { a = PI / 2.0 - a; }
  if (x < 0.0) { a = PI - a; }
  return select(a, -a, y < 0.0);
}

struct ControlParams {
  count: u32,
  crowdTicks: i32,
  dt: f32,
  updateCount: u32,
  clipBase: u32,
  actionBase: u32,
  curveBase: u32,
  locoBase: u32,
  clock0: f32,
  clock1: f32,
  planeBase: u32,
  rootBase: u32,
  crowdResidual: f32,
}

// A pose source: a clip with its clock (or, for kind SOURCE_LOCOMOTION, the locomotion blend).
struct Source {
  kind: u32,
  clip: u32,
  time: f32,
  speed: f32,
  flags: u32,
}

struct Fade {
  source: Source,
  elapsed: f32,
  duration: f32,
  curve: u32,
  reversing: u32,
}

struct ControlInput {
  clock: f32,
  basis: u32,
  epoch: u32,
  hasLocomotion: u32,
  fadeCount: u32,
  current: Source,
  fades: array<Fade, MAX_FADES>,
  actionPhase: u32,
  action: u32,
  actionTime: f32,
  actionPlay: Source,
  previousAction: u32,
  previousStartWeight: f32,
  previousPlay: Source,
  inputMode: u32,
  desiredParameter: f32,
  inputX: f32,
  inputZ: f32,
  running: u32,
  startX: f32,
  startZ: f32,
  startHeading: f32,
  hasFacing: u32,
  facing: f32,
  startVelocityX: f32,
  startVelocityZ: f32,
  startPhase: f32,
  actionOutTime: f32,
}

struct ControlState {
  x: f32,
  z: f32,
  velocityX: f32,
  velocityZ: f32,
  heading: f32,
  phase: f32,
  epoch: u32,
  pad0: u32,
}

struct Update {
  handle: u32,
  input: ControlInput,
}

@group(0) @binding(0) var<uniform> params: ControlParams;
// Per clip (clipBase + CLIP_WORDS c): duration s, configured speed, loop (0/1), blend-space
// duration max(duration, 1e-3); per action (actionBase + ACTION_WORDS a): clip, fadeIn s, fadeOut
// s, curve, mask (u32 bits); locomotion (locoBase): idle clip, walkSpeed, maxAcceleration,
// maxDeceleration, minSpeed, turnRate, then per direction (walk clip, run clip) or NO_INDEX; the
// 2D blend space (planeBase); root displacements (rootBase + ROOT_WORDS c, with root motion): x, z
// of one cycle of clip c (0 for clips that do not travel); curve tables (curveBase): CURVE_SAMPLES
// weights per table. Offsets and strides: CONTROL_MODEL in src/features/controllers/control-records.ts.
@group(0) @binding(1) var<storage, read> model: array<f32>;
// Per handle: written by the CPU (through applyUpdates) on events.
@group(0) @binding(2) var<storage, read_write> inputs: array<ControlInput>;
// Per handle: integrated here every frame.
@group(0) @binding(3) var<storage, read_write> states: array<ControlState>;
// The handles of GPU-driven controllers, params.count of them.
@group(0) @binding(4) var<storage, read> handles: array<u32>;
// Instance slot of each handle (InstanceStore.handleSlots).
@group(0) @binding(5) var<storage, read> slotOfHandle: array<u32>;
@group(0) @binding(6) var<storage, read_write> instances: array<Instance>;
@group(0) @binding(7) var<storage, read_write> stacks: array<LayerStack>;
@group(1) @binding(0) var<storage, read> updates: array<Update>;

fn modelU32(i: u32) -> u32 {
  return bitcast<u32>(model[i]);
}

fn clipDuration(clip: u32) -> f32 {
  return model[params.clipBase + clip * CLIP_WORDS + CLIP_DURATION];
}

fn wrapTime(t: f32, d: f32) -> f32 {
  if (!(d > 0.0)) {
    return 0.0;
  }
  let w = t - floor(t / d) * d;
  return select(w, 0.0, w >= d);
}

// A blend curve at normalised time u (src/anim/control/curves.ts): linear, cubic 3u^2 - 2u^3,
// or a table of CURVE_SAMPLES weights sampled from a JavaScript function, read linearly.
fn curveAt(curve: u32, u: f32) -> f32 {
  let x = select(select(u, 1.0, u >= 1.0), 0.0, u <= 0.0);
  if (curve == CURVE_LINEAR) {
    return x;
  }
  if (curve == CURVE_CUBIC) {
    return x * x * (3.0 - 2.0 * x);
  }
  let base = params.curveBase + (curve - CURVE_TABLE) * CURVE_SAMPLES;
  let f = x * f32(CURVE_SAMPLES - 1u);
  let i = min(u32(f), CURVE_SAMPLES - 2u);
  return clamp(mix(model[base + i], model[base + i + 1u], f - f32(i)), 0.0, 1.0);
}

struct Sample {
  time: f32,
  speed: f32,
}

// A clip source `elapsed` seconds after it was written (ClipPlayback: sampleTime, sampleSpeed).
fn playback(s: Source, elapsed: f32) -> Sample {
  let d = clipDuration(s.clip);
  if ((s.flags & PLAY_HOLD) != 0u) {
    return Sample(0.0, 0.0);
  }
  let frozen = (s.flags & PLAY_FROZEN) != 0u;
  var t = s.time;
  if (!frozen) {
    t = s.time + s.speed * elapsed;
  }
  if (!(d > 0.0)) {
    return Sample(0.0, 0.0);
  }
  if ((s.flags & PLAY_LOOP) != 0u) {
    return Sample(wrapTime(t, d), select(s.speed, 0.0, frozen));
  }
  let clamped = clamp(t, 0.0, d - HOLD_SECONDS);
  let finished = select(clamped <= 0.0, clamped >= d - HOLD_SECONDS, s.speed >= 0.0);
  return Sample(clamped, select(s.speed, 0.0, frozen || finished));
}

// The weighted clips of the flattened blend (src/anim/control/output.ts WeightedClips): at most
// MAX_BLEND entries; a heavier entry replaces the lightest when full.
struct Entry {
  clip: u32,
  time: f32,
  speed: f32,
  weight: f32,
}

var<private> entries: array<Entry, MAX_BLEND>;
var<private> entryCount: u32;

fn lightest(count: u32) -> u32 {
  var k = 0u;
  for (var i = 1u; i < count; i++) {
    if (entries[i].weight < entries[k].weight) {
      k = i;
    }
  }
  return k;
}

fn removeEntry(k: u32) {
  for (var i = k; i + 1u < entryCount; i++) {
    entries[i] = entries[i + 1u];
  }
  entryCount--;
}

fn addEntry(clip: u32, time: f32, speed: f32, weight: f32) {
  if (!(weight > MIN_BLEND_WEIGHT)) {
    return;
  }
  if (entryCount == MAX_BLEND) {
    let k = lightest(MAX_BLEND);
    if (entries[k].weight >= weight) {
      return;
    }
    removeEntry(k);
  }
  entries[entryCount] = Entry(clip, time, speed, weight);
  entryCount++;
}

// Locomotion.update for one frame of `dt` seconds, then its blend and phase advance. The blend
// is BlendSpace1D over idle 0, walk 1, run 2 in the direction sector's clip set ("sectors"), or
// BlendSpace2D over the velocity relative to the heading ("2d", planeBlend).
struct Blend {
  count: u32,
  clips: array<u32, BLEND_ENTRIES>,
  weights: array<f32, BLEND_ENTRIES>,
  durations: array<f32, BLEND_ENTRIES>,
  cycle: f32,
  rateScale: f32,
}

// Appends an entry with weight > 0 (pushEntry).
fn pushBlend(b: ptr<function, Blend>, clip: u32, weight: f32, duration: f32) {
  if (weight > 0.0) {
    (*b).clips[(*b).count] = clip;
    (*b).weights[(*b).count] = weight;
    (*b).durations[(*b).count] = duration;
    (*b).count++;
  }
}

// BlendSpace2D.evaluate at (x, y): barycentric weights of the first triangle holding the point
// (within EDGE_EPSILON), else the nearest point of the hull boundary. Tables: writePlane in
// src/features/controllers/control-records.ts.
fn planeBlend(x: f32, y: f32, b: ptr<function, Blend>) {
  let P = params.planeBase;
  let triangles = modelU32(P + PLANE_TRIANGLES);
  let hull = modelU32(P + PLANE_HULL);
  let entries = P + PLANE_HEADER_WORDS;
  let triBase = entries + modelU32(P + PLANE_ENTRIES) * ENTRY_WORDS;
  for (var t = 0u; t < triangles; t++) {
    let o = triBase + t * TRIANGLE_WORDS;
    let dx = x - model[o + TRIANGLE_ORIGIN];
    let dy = y - model[o + TRIANGLE_ORIGIN + 1u];
    let m = o + TRIANGLE_MATRIX;
    let wb = model[m] * dx + model[m + 1u] * dy;
    let wc = model[m + 2u] * dx + model[m + 3u] * dy;
    let wa = 1.0 - wb - wc;
    if (!(wa >= -EDGE_EPSILON && wb >= -EDGE_EPSILON && wc >= -EDGE_EPSILON)) {
      continue;
    }
    let ws = array<f32, 3>(wa, wb, wc);
    for (var k = 0u; k < 3u; k++) {
      let e = entries + modelU32(o + k) * ENTRY_WORDS;
      pushBlend(b, modelU32(e), select(0.0, ws[k], ws[k] > EDGE_EPSILON), model[e + ENTRY_DURATION]);
    }
    return;
  }
  let edgeBase = triBase + triangles * TRIANGLE_WORDS;
  var best = 0u;
  var bestS = 0.0;
  var bestDistance = 3.4e38;
  for (var k = 0u; k < hull; k++) {
    let o = edgeBase + k * EDGE_WORDS;
    let dx = x - model[o + EDGE_ORIGIN];
    let dy = y - model[o + EDGE_ORIGIN + 1u];
    let ex = model[o + EDGE_VECTOR];
    let ey = model[o + EDGE_VECTOR + 1u];
    let s = clamp((dx * ex + dy * ey) * model[o + EDGE_INVERSE_LENGTH2], 0.0, 1.0);
    let rx = dx - s * ex;
    let ry = dy - s * ey;
    let distance = rx * rx + ry * ry;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = k;
      bestS = s;
    }
  }
  let o = edgeBase + best * EDGE_WORDS;
  let ea = entries + modelU32(o) * ENTRY_WORDS;
  let eb = entries + modelU32(o + 1u) * ENTRY_WORDS;
  pushBlend(b, modelU32(ea), 1.0 - bestS, model[ea + ENTRY_DURATION]);
  pushBlend(b, modelU32(eb), bestS, model[eb + ENTRY_DURATION]);
}

fn locomotionBlend(velocity: vec2f, heading: f32) -> Blend {
  let L = params.locoBase;
  let walkSpeed = model[L + LOCO_WALK_SPEED];
  let speed = length(velocity);
  let forward = sinCos(heading);
  let along = dot(velocity, forward);
  let across = -velocity.x * forward.y + velocity.y * forward.x;
  var b: Blend;
  b.count = 0u;
  if (params.planeBase != NO_INDEX) {
    planeBlend(across / walkSpeed, along / walkSpeed, &b);
  } else {
    var sector = 0;
    if (speed > 0.0) {
      sector = i32(floor(atan2Precise(across, along) / (2.0 * PI / f32(DIRECTION_COUNT)) + 0.5)); // Math.round: halves up
    }
    let count = i32(DIRECTION_COUNT);
    let direction = L + LOCO_DIRECTIONS + u32(((sector % count) + count) % count) * DIRECTION_WORDS;
    let walk = modelU32(direction);
    let run = modelU32(direction + 1u);
    let idle = modelU32(L + LOCO_IDLE);
    let p = min(speed / walkSpeed, 2.0);
    let cycle = params.clipBase + CLIP_CYCLE;
    if (walk == NO_INDEX || p <= 0.0) {
      pushBlend(&b, idle, 1.0, model[cycle + idle * CLIP_WORDS]);
    } else if (p >= 2.0) {
      pushBlend(&b, run, 1.0, model[cycle + run * CLIP_WORDS]);
    } else if (p < 1.0) {
      pushBlend(&b, idle, 1.0 - p, model[cycle + idle * CLIP_WORDS]);
      pushBlend(&b, walk, p, model[cycle + walk * CLIP_WORDS]);
    } else {
      pushBlend(&b, walk, 2.0 - p, model[cycle + walk * CLIP_WORDS]);
      pushBlend(&b, run, p - 1.0, model[cycle + run * CLIP_WORDS]);
    }
  }
  // finishBlend: normalise, cycle duration, and the rate multiplier of the clips' own speeds.
  var total = 0.0;
  for (var i = 0u; i < b.count; i++) {
    total += b.weights[i];
  }
  b.cycle = 0.0;
  b.rateScale = 0.0;
  var displacement = vec2f(0.0);
  for (var i = 0u; i < b.count; i++) {
    b.weights[i] /= total;
    b.cycle += b.weights[i] * b.durations[i];
    b.rateScale += b.weights[i] * model[params.clipBase + b.clips[i] * CLIP_WORDS + CLIP_SPEED];
    if (params.rootBase != NO_INDEX) {
      let c = params.rootBase + b.clips[i] * ROOT_WORDS;
      displacement += b.weights[i] * vec2f(model[c], model[c + 1u]);
    }
  }
  // Rate matching (Locomotion.updateBlend): the root's speed at rate 1 is |displacement| / cycle.
  let distance = length(displacement);
  if (distance > 0.0) {
    b.rateScale = sign(b.rateScale) * speed * b.cycle / distance;
  }
  return b;
}

fn stepLocomotion(input: ControlInput, handle: u32) -> ControlState {
  var s = states[handle];
  if (s.epoch != input.epoch) {
    s = ControlState(input.startX, input.startZ, input.startVelocityX, input.startVelocityZ, input.startHeading, input.startPhase, input.epoch, 0u);
  }
  let L = params.locoBase;
  let walkSpeed = model[L + LOCO_WALK_SPEED];
  let dt = params.dt;
  var desired = vec2f(0.0);
  if (input.inputMode == INPUT_SPEED) {
    desired = sinCos(s.heading) * input.desiredParameter * walkSpeed;
  } else if (input.inputMode == INPUT_DIRECTION) {
    desired = vec2f(input.inputX, input.inputZ) * walkSpeed * select(1.0, 2.0, input.running != 0u);
  }
  var v = vec2f(s.velocityX, s.velocityZ);
  let delta = desired - v;
  let change = length(delta);
  let speeding = dot(desired, desired) >= dot(v, v) * (1.0 - SPEED_TIE);
  let limit = select(model[L + LOCO_MAX_DECELERATION], model[L + LOCO_MAX_ACCELERATION], speeding) * dt;
  let k = select(1.0, limit / change, change > limit && change > 0.0);
  v += delta * k;
  let minSpeed = model[L + LOCO_MIN_SPEED];
  if (input.inputMode == INPUT_NONE && length(v) < minSpeed) {
    v = vec2f(0.0);
  }
  s.x += v.x * dt;
  s.z += v.y * dt;
  // Toward the facing that face() keeps, else (direction input) toward the movement.
  if (input.hasFacing != 0u || (length(v) > minSpeed && input.inputMode != INPUT_SPEED)) {
    let goal = select(atan2Precise(v.x, v.y), input.facing, input.hasFacing != 0u);
    var turn = goal - s.heading;
    turn -= floor(turn / (2.0 * PI) + 0.5) * 2.0 * PI;
    let maxStep = model[L + LOCO_TURN_RATE] * dt;
    s.heading += clamp(turn, -maxStep, maxStep);
  }
  s.velocityX = v.x;
  s.velocityZ = v.y;
  let b = locomotionBlend(v, s.heading);
  let u = s.phase + dt * b.rateScale / b.cycle;
  let wrapped = u - floor(u);
  s.phase = select(wrapped, 0.0, wrapped >= 1.0);
  states[handle] = s;
  return s;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn applyUpdates(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= params.updateCount) {
    return;
  }
  inputs[updates[id.x].handle] = updates[id.x].input;
}

// The (phase, rateLo, rateHi) words of a record that puts a clip of `d` seconds at `time` at the
// crowd clock, playing at `speed`: what the CPU writes through src/runtime/clip-clock.ts, so that the
// pose pass (clipTurns, clipEntry) reads `time` back exactly.
fn clipWords(time: f32, speed: f32, d: f32) -> vec3u {
  if (!(d > 0.0)) {
    return vec3u(0u);
  }
  let x = speed / d * TICK_RATE_SCALE; // the rate in 2^-32 turns per tick: 2^32 / CLOCK_TICKS_PER_SECOND turns per tick at 1 turn a second
  let whole = floor(x);
  let rate = vec2u(u32((x - whole) * 4294967296.0), bitcast<u32>(i32(whole)));
  let turns = fract(time / d) * 65536.0;
  let high = floor(turns);
  let now = (u32(high) << 16u) | u32((turns - high) * 65536.0);
  let rest = bitcast<u32>(i32(round(speed * params.crowdResidual / d * 4294967296.0)));
  return vec3u(now - clipTurns(0u, rate.x, rate.y, params.crowdTicks).y - rest, rate);
}

fn pushLayer(stack: u32, index: u32, clip: u32, time: f32, speed: f32, weight: f32, mask: u32) {
  let w = clipWords(time, speed, clipDuration(clip));
  stacks[stack].layers[index] = Layer(clip, w.x, speed, weight, mask, REFERENCE_REST, 0u, 0.0, w.y, w.z, 0u, 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= params.count) {
    return;
  }
  let handle = handles[id.x];
  let input = inputs[handle];
  let slot = slotOfHandle[handle];
  // Times are kept short for f32: each record is written against the control clock's latest
  // even or odd period (CrowdControllers rewrites every record within a period).
  let elapsed = select(params.clock0, params.clock1, input.basis != 0u) - input.clock;

  var loco: ControlState;
  var blend: Blend;
  if (input.hasLocomotion != 0u) {
    loco = stepLocomotion(input, handle);
    blend = locomotionBlend(vec2f(loco.velocityX, loco.velocityZ), loco.heading);
  }

  // Source weights of the crossfade (Crossfader.sourceWeights): each fade blends over all before it.
  var weights: array<f32, MAX_FADES + 1u>;
  var rest = 1.0;
  for (var i = i32(input.fadeCount) - 1; i >= 0; i--) {
    let f = input.fades[i];
    let e = f.elapsed + select(elapsed, -elapsed, f.reversing != 0u);
    let w = curveAt(f.curve, e / f.duration);
    weights[i + 1] = w * rest;
    rest *= 1.0 - w;
  }
  weights[0] = rest;

  // Flatten every source into at most MAX_BLEND weighted clips (AnimationController.writeOutput).
  entryCount = 0u;
  for (var i = 0u; i <= input.fadeCount; i++) {
    var source = input.current;
    if (i > 0u) {
      source = input.fades[i - 1u].source;
    }
    if (source.kind == SOURCE_CLIP) {
      let p = playback(source, elapsed);
      addEntry(source.clip, p.time, p.speed, weights[i]);
    } else if (input.hasLocomotion != 0u) {
      for (var k = 0u; k < blend.count; k++) {
        addEntry(blend.clips[k], loco.phase * blend.durations[k], blend.durations[k] / blend.cycle * blend.rateScale, weights[i] * blend.weights[k]);
      }
    }
  }

  // The action layers: a handed-over action fading out under the new one, then the action.
  var previousWeight = 0.0;
  var actionWeight = 0.0;
  var action = ActionInfo(0u, 0.0, 0.0, CURVE_LINEAR, MASK_NONE);
  if (input.actionPhase != ACTION_NONE) {
    action = actionInfo(input.action);
    // The phases are intervals of t, the seconds since the request (AnimationController.updateAction):
    // fading in [0, fadeIn), playing [fadeIn, out), fading out [out, out + fadeOut). The CPU
    // rewrites the record where the layers change (the action's end, a handover's end).
    let t = input.actionTime + elapsed;
    let out = input.actionOutTime;
    let fadingIn = t < action.fadeIn;
    if (fadingIn) {
      actionWeight = curveAt(action.curve, t / action.fadeIn);
    } else if (t < out) {
      actionWeight = 1.0;
    } else {
      actionWeight = select(0.0, 1.0 - curveAt(action.curve, (t - out) / action.fadeOut), action.fadeOut > 0.0);
    }
    if (input.previousAction != NO_INDEX && fadingIn) {
      previousWeight = input.previousStartWeight * (1.0 - curveAt(action.curve, t / action.fadeIn));
    }
  }
  let handover = previousWeight > 0.0;
  let limit = select(MAX_BLEND, MAX_BLEND - 1u, handover);
  while (entryCount > limit) {
    removeEntry(lightest(entryCount));
  }

  // Write the records: base clip in the instance record, the rest as override layers.
  let stack = instances[slot].layers;
  var base = Entry(input.current.clip, 0.0, 0.0, 1.0);
  if (entryCount > 0u) {
    base = entries[0];
  }
  let words = clipWords(base.time, base.speed, clipDuration(base.clip));
  instances[slot].clipA = base.clip;
  instances[slot].clipB = base.clip;
  instances[slot].phaseA = words.x;
  instances[slot].phaseB = 0u;
  instances[slot].speedA = base.speed;
  instances[slot].speedB = 0.0;
  instances[slot].rateLoA = words.y;
  instances[slot].rateHiA = words.z;
  instances[slot].rateLoB = 0u;
  instances[slot].rateHiB = 0u;
  instances[slot].blend = 0.0;
  var layer = 0u;
  var total = base.weight;
  for (var i = 1u; i < entryCount; i++) {
    total += entries[i].weight;
    pushLayer(stack, layer, entries[i].clip, entries[i].time, entries[i].speed, entries[i].weight / total, MASK_NONE);
    layer++;
  }
  if (handover) {
    let previous = actionInfo(input.previousAction);
    let p = playback(input.previousPlay, elapsed);
    pushLayer(stack, layer, previous.clip, p.time, p.speed, previousWeight, previous.mask);
    layer++;
  }
  if (input.actionPhase != ACTION_NONE && actionWeight > 0.0) {
    let p = playback(input.actionPlay, elapsed);
    pushLayer(stack, layer, action.clip, p.time, p.speed, actionWeight, action.mask);
    layer++;
  }
  stacks[stack].overrideCount = layer;
  stacks[stack].additiveCount = 0u;

  if (input.hasLocomotion != 0u) {
    let sc = sinCos(loco.heading);
    let c = sc.y;
    let s = sc.x;
    instances[slot].world = mat4x4f(vec4f(c, 0.0, -s, 0.0), vec4f(0.0, 1.0, 0.0, 0.0), vec4f(s, 0.0, c, 0.0), vec4f(loco.x, 0.0, loco.z, 1.0));
  }
}

struct ActionInfo {
  clip: u32,
  fadeIn: f32,
  fadeOut: f32,
  curve: u32,
  mask: u32,
}

fn actionInfo(index: u32) -> ActionInfo {
  let o = params.actionBase + index * ACTION_WORDS;
  return ActionInfo(modelU32(o + ACTION_CLIP), model[o + ACTION_FADE_IN], model[o + ACTION_FADE_OUT], modelU32(o + ACTION_CURVE), modelU32(o + ACTION_MASK));
}
