import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageWgsl, renameWgsl } from '../../tools/rename-wgsl';
import { stripWgsl } from '../../tools/strip-wgsl';
import { gpuSuite } from '../helpers/gpu-suite';
import { REPO_ROOT } from '../helpers/models';

/**
 * The renamer the package build runs on every shader after the stripper (tools/rename-wgsl.ts):
 * the shader's own names get short ones, one to one, and what the host or the language names
 * (overrides, entry points, struct members, attributes, enumerants) keeps its name. Checked on
 * hand-made cases and on every file under shaders/ (the renamed token stream is the stripped
 * one under a one-to-one renaming), and by compiling every packaged shader where a WebGPU
 * adapter exists. `CROWD_SKIN_PACKAGED_WGSL=1 npx vitest run test/runtime/...` runs the GPU
 * tests themselves on the packaged shaders (vite.config.ts).
 */

const TOKEN = /0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?[fhiu]?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fhiu]?|[\p{XID_Start}_][\p{XID_Continue}]*|\S/gu;
const IDENT = /^[\p{XID_Start}_]/u;
const tokens = (source: string) => source.match(TOKEN) ?? [];

/**
 * Whether `after` is `before` with its identifiers renamed one to one (every other token equal),
 * and the names `kept` unchanged; the first difference otherwise.
 */
function renaming(before: string, after: string, kept: readonly string[] = []): string {
  const [a, b] = [tokens(before), tokens(after)];
  if (a.length !== b.length) return `${a.length} tokens became ${b.length}`;
  const forward = new Map<string, string>();
  const backward = new Map<string, string>();
  for (let i = 0; i < a.length; i++) {
    // A member or swizzle after '.', an attribute's name after '@': names of their own, never renamed.
    if (!IDENT.test(a[i]) || !IDENT.test(b[i]) || a[i - 1] === '.' || a[i - 1] === '@') {
      if (a[i] !== b[i]) return `token ${i}: '${a[i]}' became '${b[i]}'`;
      continue;
    }
    if ((forward.get(a[i]) ?? b[i]) !== b[i]) return `'${a[i]}' became both '${forward.get(a[i])}' and '${b[i]}' (token ${i})`;
    if ((backward.get(b[i]) ?? a[i]) !== a[i]) return `'${backward.get(b[i])}' and '${a[i]}' both became '${b[i]}' (token ${i})`;
    forward.set(a[i], b[i]);
    backward.set(b[i], a[i]);
  }
  for (const name of kept) if (forward.has(name) && forward.get(name) !== name) return `'${name}' became '${forward.get(name)}'`;
  return '';
}

/** Every .wgsl file under shaders/, in any folder. */
function shaderFiles(): string[] {
  const root = join(REPO_ROOT, 'shaders');
  return (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.wgsl')).sort().map((f) => join(root, f));
}

/** What the host names in `source`: overrides and entry points. */
function hostNames(source: string): string[] {
  const stripped = stripWgsl(source);
  return [...stripped.matchAll(/(?<!\p{XID_Continue})override ([\p{XID_Start}_][\p{XID_Continue}]*)/gu), ...stripped.matchAll(/@(?:compute|vertex|fragment)[^;{]*?fn ([\p{XID_Start}_][\p{XID_Continue}]*)/gu)].map((m) => m[1]);
}

describe('renameWgsl', () => {
  it('shortens declared names, most used first, and keeps overrides, entry points, members, attributes and enumerants', () => {
    const source = stripWgsl(`
      override WORKGROUP_SIZE: u32;
      const TRACK_MASK: u32 = 0x7fffffffu;
      struct Pose { t: vec3f, r: vec4f, group: u32 }
      @group(0) @binding(0) var<storage, read> poses: array<Pose>;
      fn masked(value: u32) -> u32 { return value & TRACK_MASK; }
      @compute @workgroup_size(WORKGROUP_SIZE)
      fn main(@builtin(global_invocation_id) group: vec3u) {
        let read = poses[group.x];
        let colour = read.r.r + f32(masked(read.group));
      }`);
    const renamed = renameWgsl(source);
    expect(renaming(source, renamed, ['WORKGROUP_SIZE', 'main', 't', 'r', 'group', 'read', 'storage', 'global_invocation_id', 'builtin', 'workgroup_size'])).toBe('');
    // Members and swizzles after '.', attribute names after '@': untouched even where a local has the name.
    expect(renamed).toContain('@group(0)@binding(0)var<storage,read>');
    expect(renamed).toContain('.r.r+');
    expect(renamed).toContain('struct ');
    expect(renamed).not.toMatch(/TRACK_MASK|masked|poses|colour|Pose\b/);
    expect(renamed.length).toBeLessThan(source.length);
  });

  it('never gives a name one already in the shader, nor a keyword, and keeps names as short as theirs', () => {
    const source = 'const a:u32=1u;const LONG_NAME:u32=2u;fn f(b:u32)->u32{let fn_result=b+a+LONG_NAME;return fn_result;}';
    const renamed = renameWgsl(source);
    expect(renaming(source, renamed, ['a', 'b', 'f'])).toBe('');
    expect(renamed).toBe('const a:u32=1u;const c:u32=2u;fn f(b:u32)->u32{let d=b+a+c;return d;}');
  });

  it('the check here sees a renaming that is not one to one, or a kept name changed', () => {
    expect(renaming('let a=b;let c=d;', 'let x=y;let x=z;')).toMatch(/'a' and 'c' both became 'x'/);
    expect(renaming('let a=a;', 'let x=y;')).toMatch(/'a' became both 'x' and 'y'/);
    expect(renaming('a.b', 'a.c', ['b'])).toMatch(/'b' became 'c'/);
    expect(renaming('a;a.b', 'x;x.c')).toMatch(/'b' became 'c'/); // a member is never renamed
    expect(renaming('a+b', 'a-b')).toMatch(/'\+' became '-'/);
  });

  const files = shaderFiles();
  it.each(files.map((f) => [f.slice(REPO_ROOT.length + 1), f]))('%s: a one-to-one renaming of the stripped text that keeps what the host names, and smaller', (_, file) => {
    const source = readFileSync(file, 'utf8');
    const stripped = stripWgsl(source);
    const packaged = packageWgsl(source);
    expect(renaming(stripped, packaged, hostNames(source))).toBe('');
    expect(packaged.length).toBeLessThan(stripped.length);
  });

  it('finds the shaders and their host names', () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
    expect(hostNames(readFileSync(join(REPO_ROOT, 'shaders/pose.wgsl'), 'utf8'))).toEqual(['WORKGROUP_SIZE', 'MAX_NODES', 'LAYERS_ENABLED', 'DUAL_QUATERNION', 'main']);
  });

  describe('every packaged shader compiles without an error (needs a WebGPU adapter)', () => {
    let device: GPUDevice | undefined;
    gpuSuite({}, (gpu) => { device = gpu.device; });
    it.each(files.map((f) => [f.slice(REPO_ROOT.length + 1), f]))('%s', async (_, file) => {
      if (!device) return;
      const info = await device.createShaderModule({ code: packageWgsl(readFileSync(file, 'utf8')) }).getCompilationInfo();
      expect(info.messages.filter((m) => m.type === 'error').map((m) => m.message)).toEqual([]);
    });
  });
});
