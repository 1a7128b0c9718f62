/**
 * The source layout's rules (docs/architecture.md), checked on the tree: src/ holds index.ts and
 * folders only; the kernel (src/runtime) imports no feature; no feature imports another; no
 * import runs uphill in the layers math -> bake -> anim -> character -> runtime -> features; the
 * file that defines Crowd stays readable in one sitting; a source file over 400 lines (src/, and
 * the demo's and the tools' in demo/ and tools/) says why in its header. Each rule is a function,
 * first shown to catch a made-up violation.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimalPageSources } from '../tools/bench/size';
import { REPO_ROOT } from './helpers/models';

const SRC = join(REPO_ROOT, 'src');

/** Every .ts file under `dir`, repo-relative with '/' separators. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [relative(REPO_ROOT, path).split(sep).join('/')] : [];
  });
}

/** The repo-relative files `text` (the file at `file`) imports or re-exports by relative path, type-only ones included. */
export function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"](\.[^'"]+)['"]/gm), ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1]);
  return specs.map((spec) => relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), spec.replace(/\?raw$/, ''))).split(sep).join('/'));
}

/** The rule breaks among `files` (path -> text): the kernel or the WebGL 2 backend importing a feature, a feature importing another. */
export function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of files) {
    const own = /^src\/features\/([^/]+)\//.exec(file)?.[1];
    for (const target of importsOf(file, text)) {
      const other = /^src\/features\/([^/]+)/.exec(target)?.[1];
      if (other === undefined) continue;
      if (file.startsWith('src/runtime/')) problems.push(`${file} (the kernel) imports ${target}`);
      else if (file.startsWith('src/webgl2/')) problems.push(`${file} (the WebGL 2 backend) imports ${target}`);
      else if (own !== undefined && own !== other) problems.push(`${file} (feature ${own}) imports ${target} (feature ${other})`);
    }
  }
  return problems;
}

/**
 * The layers from the floor up (docs/architecture.md): a file may import from its own layer and
 * those below it, never from one above. src/three and src/index.ts sit on top of the public API
 * and are not in the chain. src/webgl2 (the WebGL 2 backend) sits above the kernel and beside the
 * features: last in the chain, so nothing below imports it, and layerViolations refuses its
 * importing a feature.
 */
export const LAYERS = ['math', 'bake', 'anim', 'character', 'runtime', 'features', 'webgl2'] as const;

/** The imports among `files` that run uphill: a file of one layer importing a file of a layer above it (type-only ones included). */
export function uphillImports(files: ReadonlyMap<string, string>): string[] {
  const layerOf = (path: string) => LAYERS.indexOf(/^src\/([^/]+)\//.exec(path)?.[1] as (typeof LAYERS)[number]);
  const problems: string[] = [];
  for (const [file, text] of files) {
    const own = layerOf(file);
    if (own < 0) continue;
    for (const target of importsOf(file, text)) {
      const other = layerOf(target);
      if (other > own) problems.push(`${file} (${LAYERS[own]}) imports ${target} (${LAYERS[other]}, a layer above)`);
    }
  }
  return problems;
}

/** Lines of `text` as `wc -l` and an editor count them: a final newline ends the last line, it starts none. */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Files over `limit` lines whose first comment block (within its first 40 lines) does not say why ("over 400 lines"). */
export function unexplainedLongFiles(files: ReadonlyMap<string, string>, limit = 400): string[] {
  return [...files].filter(([, text]) => lineCount(text) > limit && !/over 400 lines/i.test(text.split('\n').slice(0, 40).join('\n')))
    .map(([file, text]) => `${file}: ${lineCount(text)} lines`);
}

const read = (files: string[]) => new Map(files.map((file) => [file, readFileSync(join(REPO_ROOT, file), 'utf8')]));
const tree = read(sources(SRC));
/** The demo's and the tools' sources (demo/, tools/): held to the same length rule as src/, so that they too read in one sitting. */
const scripts = read([...sources(join(REPO_ROOT, 'demo')), ...sources(join(REPO_ROOT, 'tools'))]);

describe('the source layout', () => {
  it('the checks catch what they look for (made-up files)', () => {
    const made = new Map([
      ['src/runtime/crowd.ts', "import { CrowdProps } from '../features/props/crowd-props';\n"],
      ['src/runtime/x.ts', "export type { A } from '../features/morph/a';\n"],
      ['src/features/controllers/a.ts', "import type { CrowdEvents } from '../clip-events/crowd-events';\nimport { x } from './b';\n"],
      ['src/features/props/a.ts', "import { Crowd } from '../../runtime/crowd';\n"],
      ['src/webgl2/gl-crowd.ts', "import { CrowdEvents } from '../features/clip-events/crowd-events';\nimport { InstanceStore } from '../runtime/instance-store';\n"],
    ]);
    expect(layerViolations(made)).toEqual([
      'src/runtime/crowd.ts (the kernel) imports src/features/props/crowd-props',
      'src/runtime/x.ts (the kernel) imports src/features/morph/a',
      'src/features/controllers/a.ts (feature controllers) imports src/features/clip-events/crowd-events (feature clip-events)',
      'src/webgl2/gl-crowd.ts (the WebGL 2 backend) imports src/features/clip-events/crowd-events',
    ]);
    const uphill = new Map([
      ['src/anim/dual-quaternion.ts', "import { DQ_DEGENERATE_DET } from '../runtime/layout';\nimport type { SkinnedPrimitive } from '../bake/rig';\n"],
      ['src/character/character.ts', "import { packRigData, type RigData } from '../runtime/rig-data';\nimport { bake } from '../bake/bake';\n"],
      ['src/math/pose.ts', "export type { Rig } from '../bake/rig';\n"],
      ['src/runtime/crowd.ts', "import type { Character } from '../character/character';\nimport { x } from './layout';\n"],
      ['src/features/props/a.ts', "import { Crowd } from '../../runtime/crowd';\n"],
      ['src/three/a.ts', "import { Crowd } from '../index';\n"],
      ['src/runtime/crowd-types.ts', "import type { GLCrowd } from '../webgl2/gl-crowd';\n"],
      ['src/features/morph/a.ts', "import { GLRecordTexture } from '../../webgl2/record-texture';\n"],
      ['src/webgl2/gl-crowd.ts', "import { CrowdInstances } from '../runtime/crowd-instances';\n"],
    ]);
    expect(uphillImports(uphill)).toEqual([
      'src/anim/dual-quaternion.ts (anim) imports src/runtime/layout (runtime, a layer above)',
      'src/character/character.ts (character) imports src/runtime/rig-data (runtime, a layer above)',
      'src/math/pose.ts (math) imports src/bake/rig (bake, a layer above)',
      'src/runtime/crowd-types.ts (runtime) imports src/webgl2/gl-crowd (webgl2, a layer above)',
      'src/features/morph/a.ts (features) imports src/webgl2/record-texture (webgl2, a layer above)',
    ]);
    const long = 'x\n'.repeat(401);
    expect(unexplainedLongFiles(new Map([['a.ts', long], ['b.ts', `/** Over 400 lines: one pass. */\n${long}`], ['c.ts', 'x\n'], ['d.ts', 'x\n'.repeat(400)], ['e.ts', 'x\n'.repeat(400) + 'x']])))
      .toEqual(['a.ts: 401 lines', 'e.ts: 401 lines']);
  });

  it('src/ holds index.ts and folders only', () => {
    const loose = readdirSync(SRC).filter((name) => !statSync(join(SRC, name)).isDirectory() && name !== 'index.ts');
    expect(loose).toEqual([]);
  });

  it('the kernel and the WebGL 2 backend import no feature, and no feature imports another', () => {
    expect(tree.size).toBeGreaterThan(50);
    expect(layerViolations(tree)).toEqual([]);
  });

  it('no import runs uphill (math -> bake -> anim -> character -> runtime -> features -> webgl2)', () => {
    expect(uphillImports(tree)).toEqual([]);
  });

  it('the file that defines Crowd has at most 450 lines', () => {
    const defining = [...tree].filter(([, text]) => /^export class Crowd\b/m.test(text));
    expect(defining.map(([file]) => file)).toEqual(['src/runtime/crowd.ts']);
    expect(defining[0][1].split('\n').length).toBeLessThanOrEqual(450);
  });

  it('a source file over 400 lines says in its header why', () => {
    expect(unexplainedLongFiles(tree)).toEqual([]);
  });

  it('so does one of the demo (demo/) or the tools (tools/)', () => {
    expect(scripts.has('demo/app.ts') && scripts.has('tools/bench.ts')).toBe(true);
    expect(unexplainedLongFiles(scripts)).toEqual([]);
  });
});

describe('what a page that draws a plain crowd ships (examples/minimal bundled from src/, tools/bench/size.ts)', () => {
  /** The page's own source files: no feature, no clip-library binder, no CPU evaluator (issues 19 and 33). */
  it('no feature, no clip-library binding and no CPU blend, layer or morph evaluator', async () => {
    const shipped = (await minimalPageSources(REPO_ROOT)).map((i) => i.what);
    expect(shipped).toContain('src/runtime/crowd.ts');
    expect(shipped).toContain('src/character/character.ts');
    const optional = shipped.filter((file) => /^src\/features\/|^src\/bake\/clip-library\.ts$|^src\/character\/clips\.ts$|^src\/anim\/(evaluate|layers|morph)\.ts$/.test(file));
    expect(optional).toEqual([]);
  });

  /** Mesh LOD is opt-in (LoadOptions.lod hands the simplifier in): a page that asks for none ships none of it (issue 33). */
  it("no meshoptimizer simplifier (about 54 KB of the page's 255 KB)", async () => {
    const shipped = (await minimalPageSources(REPO_ROOT, { dependencies: true })).map((i) => i.what);
    expect(shipped.some((file) => file.startsWith('wgpu-matrix/'))).toBe(true);
    // The simplifier here; the encoder has its own check below.
    expect(shipped.filter((file) => /^meshoptimizer\/meshopt_simplifier|^src\/bake\/meshopt-simplifier\.ts$/.test(file))).toEqual([]);
  });

  /** Decoders of compressed files are handed in (LoadOptions.decoders, issue 38): a page that hands in none ships none, nor the code that reads their data. */
  it('no meshoptimizer decoder, no Draco or KTX2 glue (src/bake/decode-meshopt.ts, decode-draco.ts, decode-ktx2.ts, src/runtime/ktx2-upload.ts)', async () => {
    const shipped = (await minimalPageSources(REPO_ROOT, { dependencies: true })).map((i) => i.what);
    expect(shipped).toContain('src/bake/extensions.ts');
    expect(shipped.filter((file) => /^meshoptimizer\/meshopt_decoder|^src\/bake\/(meshopt-decoder|draco-decoder|decode-draco|decode-ktx2)\.ts$|^src\/runtime\/ktx2-(decoder|upload)\.ts$/.test(file))).toEqual([]);
    // decode-meshopt.ts lends parse.ts one small function (isFallbackBuffer); the decoding stays out.
    const meshopt = (await minimalPageSources(REPO_ROOT)).find((i) => i.what === 'src/bake/decode-meshopt.ts');
    expect(meshopt?.bytes ?? 0).toBeLessThan(400);
  });

  /** What only some loads need is fetched by them (dynamic imports): root-motion extraction, making mesh LOD levels, the VRM and morph target readers and the morph bake. */
  it('no root-motion extraction, mesh LOD making, VRM or morph target reader, no morph bake (src/bake/root-motion.ts, mesh-lod.ts, vrm-humanoid.ts, load-morph.ts, bake-morph.ts: imported on demand)', async () => {
    const shipped = (await minimalPageSources(REPO_ROOT)).map((i) => i.what);
    expect(shipped).toContain('src/bake/mesh-lod-options.ts');
    expect(shipped.filter((file) => /^src\/bake\/(root-motion|mesh-lod|vrm-humanoid|load-morph|bake-morph)\.ts$/.test(file))).toEqual([]);
  });

  /** Triangles are ordered for the vertex cache by src/bake/vertex-cache.ts, not by meshoptimizer's encoder (20 KB of WebAssembly). */
  it('no meshoptimizer encoder (the vertex-cache order is our own, src/bake/vertex-cache.ts)', async () => {
    const shipped = (await minimalPageSources(REPO_ROOT, { dependencies: true })).map((i) => i.what);
    expect(shipped).toContain('src/bake/draw-order.ts');
    expect(shipped.filter((file) => /^meshoptimizer\/meshopt_encoder/.test(file))).toEqual([]);
  });
});
