// Root-motion pass: for a crowd whose character was loaded with rootMotion mode 'apply', writes
// the world matrix of every instance that moves by its clips' root motion, before the cull, pose,
// skin and shadow passes read it:
//
//     world = anchor * M,   M = (1 - blend) * M_A(tA0 -> tA) + blend * M_B(tB0 -> tB)
//
// where M_X(t0 -> t1) = M_X(t0)^-1 * M_X(t1) is clip X's root motion between its time at the
// anchor and its time now (tX = tX0 + speedX * (clock - anchorClock), unwrapped), in closed form:
// whole cycles times the cycle's motion plus the partial cycle (src/anim/root-motion.ts is the
// CPU twin and documents the algebra). A motion is (x, z, yaw): rotate by yaw about +y, then
// translate by (x, 0, z); the blend mixes the two clips' (x, z, yaw) linearly, which is exact
// while the blend and speeds stay as they were at the anchor (the CPU re-anchors on every change).
// Nothing is integrated frame by frame: each frame is a function of the anchor and the clock.
//
// Layouts: ROOT_ANCHOR and ROOT_MOTION_PARAMS in src/runtime/layout.ts (checked against this file
// by test/runtime/layout.test.ts); tables written by src/features/root-motion/root-motion-pass.ts.

override WORKGROUP_SIZE: u32; // no default: the pass sets it (WORKGROUP_SIZE in src/runtime/limits.ts)

// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
const HANDLE_FREE: u32 = 0xffffffffu;
const ROOT_CLIP_VEC4S: u32 = 2u;

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
// END generated

struct RootParams {
  handleCount: u32,
  clock: f32,
  trackBase: u32,
  clipCount: u32,
}

struct Anchor {
  world: mat4x4f,
  clock: f32,
  timeA: f32,
  timeB: f32,
  moves: u32,
}

@group(0) @binding(0) var<uniform> params: RootParams;
// Per clip c, ROOT_CLIP_VEC4S (2) vec4f: tables[2c] = (duration s, last entry index, track offset
// (u32 bits), 1 if it has a track else 0), tables[2c + 1] = (x, z, yaw) of one whole cycle; then
// from params.trackBase the baked root-motion track, one (x, 0, z, yaw) per entry (BakedRootMotion.track).
@group(0) @binding(1) var<storage, read> tables: array<vec4f>;
@group(0) @binding(2) var<storage, read> anchors: array<Anchor>;
// Instance slot of each handle (InstanceStore.handleSlots), HANDLE_FREE for a free handle.
@group(0) @binding(3) var<storage, read> slotOfHandle: array<u32>;
@group(0) @binding(4) var<storage, read_write> instances: array<Instance>;

// sinCos (to a few ULP; WGSL's sin and cos may be off by 2^-11) is in the generated block (PRECISE_SIN_COS).

// M(t) of `clip` at unwrapped clip time t (seconds): (x, z, yaw). rootMotionAt in src/anim/root-motion.ts.
fn motionAt(clip: u32, t: f32) -> vec3f {
  let info = tables[ROOT_CLIP_VEC4S * clip];
  let d = info.x;
  if (!(d > 0.0) || info.w == 0.0) {
    return vec3f(0.0);
  }
  let k = floor(t / d);
  let r = clamp(t - k * d, 0.0, d);
  // M(r): the two neighbouring track entries, linearly, as every baked table is read.
  let last = info.y;
  let u = r / d * last;
  let i = min(floor(u), last - 1.0);
  let e = params.trackBase + bitcast<u32>(info.z) + u32(i);
  let m = mix(tables[e], tables[e + 1u], u - i);
  let cycle = tables[ROOT_CLIP_VEC4S * clip + 1u];
  if (cycle.z == 0.0) {
    // No turn per cycle (always so without rootMotion.yaw): C^k = k whole displacements.
    return vec3f(k * cycle.x + m.x, k * cycle.y + m.z, m.w);
  }
  // C^k = (w_C * e^(i (k - 1) yaw / 2) sin(k yaw / 2) / sin(yaw / 2), k yaw), w = z + i x.
  let half = sinCos(cycle.z / 2.0);
  var ratio: f32;
  if (abs(half.x) > 1e-6) {
    ratio = sinCos(k * cycle.z / 2.0).x / half.x;
  } else {
    ratio = k * sinCos(k * cycle.z / 2.0).y / half.y;
  }
  let phase = sinCos((k - 1.0) * cycle.z / 2.0);
  let sRe = phase.y * ratio;
  let sIm = phase.x * ratio;
  let turn = sinCos(k * cycle.z);
  let wz = cycle.y * sRe - cycle.x * sIm + (m.z * turn.y - m.x * turn.x);
  let wx = cycle.y * sIm + cycle.x * sRe + (m.z * turn.x + m.x * turn.y);
  return vec3f(wx, wz, k * cycle.z + m.w);
}

// M(t0)^-1 * M(t1) of `clip`: its root motion from t0 to t1 in the frame it had at t0.
fn motionBetween(clip: u32, t0: f32, t1: f32) -> vec3f {
  let a = motionAt(clip, t0);
  let b = motionAt(clip, t1);
  let dx = b.x - a.x;
  let dz = b.y - a.y;
  let back = sinCos(a.z);
  return vec3f(dx * back.y - dz * back.x, dz * back.y + dx * back.x, b.z - a.z);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let handle = id.x;
  if (handle >= params.handleCount) {
    return;
  }
  let slot = slotOfHandle[handle];
  let anchor = anchors[handle];
  if (slot == HANDLE_FREE || anchor.moves == 0u) {
    return;
  }
  let record = instances[slot];
  let elapsed = params.clock - anchor.clock;
  var m = motionBetween(record.clipA, anchor.timeA, anchor.timeA + record.speedA * elapsed);
  if (record.blend > 0.0) {
    let b = motionBetween(record.clipB, anchor.timeB, anchor.timeB + record.speedB * elapsed);
    m = mix(m, b, record.blend);
  }
  let turn = sinCos(m.z);
  let w = anchor.world;
  instances[slot].world = mat4x4f(
    turn.y * w[0] - turn.x * w[2],
    w[1],
    turn.x * w[0] + turn.y * w[2],
    w[3] + m.x * w[0] + m.y * w[2],
  );
}
