import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dracoCompressed, ktx2Compressed, meshoptCompressed, smallTextures } from '../../tools/compress';
import { assetToGlb, GltfBuilder, longClipModel, skinnedModel, toGlb, translationMatrix } from './gltf-builder';
import { BUNDLED_MODELS, REPO_ROOT, TEST_MODELS } from './models';
import { seededRandom } from './prng';

/**
 * The fuzz generator: seeded mutations of real and hand-built glTF files, for
 * test/bake/fuzz.test.ts. Every case is a file as bytes (what a user would load) plus where it
 * "lives" (its path, so relative uris resolve in its folder). The same seed gives the same cases.
 *
 * Mutations (one per case, picked at random, each named in the case's `mutation`):
 * truncation at every chunk boundary and at random, bit flips in the binary chunk, numbers set
 * to extremes, fields deleted or given the wrong type, indices out of range, key times not
 * increasing or not finite, NaN / Infinity / huge values in keys, positions and inverse bind
 * matrices, accessor counts of 2^31 (with and without data), cycles and nodes with two parents,
 * unknown required extensions and versions, hostile uris, and valid-but-unusual edits
 * (duplicate clip names, a primitive without POSITION).
 */

export interface FuzzSeed {
  name: string;
  /** Path the file pretends to have (its folder is where relative uris resolve). */
  path: string;
  bytes: Uint8Array;
  /** The seed takes a case in one round of the seeds out of `every` (1 when absent): see fuzzCases. */
  every?: number;
}

/**
 * Seeds that take a case in one round out of N. RecursiveSkeletons (84 skins of 10 joints, 840
 * channels) took 46% of the 500 cases' time at one case a round (16 cases, a valid load about
 * 1.3 s of CPU, against 10 to 130 ms for the other seeds): its size, not a code path the others
 * miss, is what sets it apart, so it takes a case every 4th round (4 of 500; fuzzCases).
 */
const SEED_EVERY: Record<string, number> = { 'shared/RecursiveSkeletons/RecursiveSkeletons.glb': 4 };

export interface FuzzCase {
  index: number;
  seed: string;
  mutation: string;
  path: string;
  bytes: Uint8Array;
}

/** A file taken apart: JSON (to edit) and the .glb BIN chunk (to edit in place), or .gltf text. */
interface Parts {
  json: Record<string, any>;
  bin?: Uint8Array;
  glb: boolean;
}

const GLB_MAGIC = 0x46546c67;

function split(bytes: Uint8Array): Parts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC) return { json: JSON.parse(new TextDecoder().decode(bytes)), glb: false };
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const binStart = 20 + jsonLength;
  const bin = binStart + 8 <= bytes.byteLength ? bytes.slice(binStart + 8, binStart + 8 + view.getUint32(binStart, true)) : undefined;
  return { json, bin, glb: true };
}

/** JSON text where the strings "__NaN__" and "__Infinity__" become bare (invalid) tokens. */
function jsonText(json: unknown): string {
  return JSON.stringify(json).replace(/"__(NaN|Infinity)__"/g, '$1');
}

function joinParts(parts: Parts): Uint8Array {
  const text = jsonText(parts.json);
  return parts.glb ? toGlb(text, parts.bin) : new TextEncoder().encode(text);
}

/** Hand-built rigs: the minimal skinned model, long clips of each interpolation, a sparse and textured one. */
function handBuiltSeeds(): FuzzSeed[] {
  const at = (name: string) => join(REPO_ROOT, 'test/fuzz-virtual', name); // a folder that does not exist: external uris fail to read
  const textured = skinnedModel();
  const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0);
  textured.json.images = [{ bufferView: textured.builder.addView(png), mimeType: 'image/png' }];
  textured.json.textures = [{ source: 0 }];
  textured.json.materials = [{ pbrMetallicRoughness: { baseColorFactor: [1, 0.5, 0.5, 1], baseColorTexture: { index: 0 } } }];
  textured.json.meshes![0].primitives[0].material = 0;
  const sparse = skinnedModel();
  sparse.json.accessors[sparse.acc.positions].sparse = {
    count: 1, indices: { bufferView: sparse.builder.addView(Uint8Array.of(2, 0, 0, 0)), componentType: 5121 },
    values: { bufferView: sparse.builder.addView(new Uint8Array(Float32Array.of(1, 1.5, 0).buffer)) },
  };
  const rigid = new GltfBuilder();
  const position = rigid.addAccessor('VEC3', Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0));
  const times = rigid.addAccessor('SCALAR', Float32Array.of(0, 0.5, 1));
  const scales = rigid.addAccessor('VEC3', Float32Array.of(1, 1, 1, 2, 2, 2, 1, 1, 1));
  rigid.json.nodes.push({ name: 'prop', mesh: 0, matrix: translationMatrix(1, 2, 3) }, { name: 'holder', children: [0], scale: [1, 1, 1] });
  rigid.json.meshes = [{ primitives: [{ attributes: { POSITION: position } }] }];
  rigid.json.animations = [{ name: 'grow', channels: [{ sampler: 0, target: { node: 1, path: 'scale' } }], samplers: [{ input: times, output: scales, interpolation: 'STEP' }] }];
  const seeds: [string, ReturnType<GltfBuilder['build']>][] = [
    ['built: minimal skinned', skinnedModel().builder.build()],
    ['built: textured', textured.builder.build()],
    ['built: sparse positions', sparse.builder.build()],
    ['built: rigid prop, STEP scale', rigid.build()],
    ['built: 3 s LINEAR clip', longClipModel({ seconds: 3, fps: 30 }).builder.build()],
    ['built: 2 s CUBICSPLINE clip', longClipModel({ seconds: 2, fps: 24, interpolation: 'CUBICSPLINE' }).builder.build()],
    ['built: 2 s STEP clip, keys off the grid', longClipModel({ seconds: 2, fps: 10, interpolation: 'STEP', jitter: 0.2 }).builder.build()],
  ];
  const out = seeds.map(([name, asset]) => ({ name, path: at(`${name.replace(/\W+/g, '-')}.glb`), bytes: assetToGlb(asset) }));
  const text = skinnedModel().builder.build();
  text.json.buffers![0].uri = `data:application/octet-stream;base64,${Buffer.from(text.buffers[0]).toString('base64')}`;
  out.push({ name: 'built: minimal skinned .gltf, data: uri', path: at('minimal.gltf'), bytes: new TextEncoder().encode(JSON.stringify(text.json)) });
  return out;
}

/** Every model under public/models and test/models (the same file once), then the hand-built rigs. */
export function fuzzSeeds(): FuzzSeed[] {
  const seeds: FuzzSeed[] = [];
  const seen = new Set<string>();
  for (const root of [BUNDLED_MODELS, TEST_MODELS]) {
    if (!existsSync(root)) continue;
    for (const dir of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
      for (const file of readdirSync(join(root, dir)).filter((f) => /\.(glb|gltf)$/.test(f))) {
        const path = join(root, dir, file);
        const bytes = new Uint8Array(readFileSync(path));
        const hash = createHash('sha256').update(bytes).digest('hex');
        if (seen.has(hash)) continue;
        seen.add(hash);
        const name = `${root === BUNDLED_MODELS ? 'public' : 'shared'}/${dir}/${file}`;
        seeds.push({ name, path, bytes, ...(SEED_EVERY[name] ? { every: SEED_EVERY[name] } : {}) });
      }
    }
  }
  return [...seeds, ...handBuiltSeeds()];
}

/**
 * Compressed copies of test models, as web teams make them (tools/compress.ts): RiggedFigure
 * through meshopt and Draco, and CesiumMan with its texture at 16 x 16 as KTX2 (UASTC). The
 * runner hands in every decoder the CLI does (tools/node-decoders.ts).
 */
export async function compressedFuzzSeeds(): Promise<FuzzSeed[]> {
  const figure = join(TEST_MODELS, 'RiggedFigure', 'RiggedFigure.glb');
  const man = join(BUNDLED_MODELS, 'CesiumMan', 'CesiumMan.glb');
  const files: [string, string, ArrayBuffer][] = [
    ['RiggedFigure.meshopt.glb', figure, await meshoptCompressed(figure)],
    ['RiggedFigure.draco.glb', figure, await dracoCompressed(figure)],
    ['CesiumMan.ktx2.glb', man, await ktx2Compressed(await smallTextures(man, 16))],
  ];
  return files.map(([name, path, bytes]) => ({ name: `compressed/${name}`, path, bytes: new Uint8Array(bytes) }));
}

/** The file URL a case is loaded from (relative uris resolve in its folder). */
export const baseUrlOf = (c: FuzzCase) => pathToFileURL(c.path).href;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

const EXTREMES: readonly unknown[] = [0, -1, 2 ** 31, 2 ** 32, 2 ** 53, 1e308, -1e308, 0.5, '__NaN__', '__Infinity__', NaN, Infinity];
const WRONG_TYPES: readonly unknown[] = ['x', {}, [], true, null, [1, 2], -1, 1.5, { 0: 0 }];
const HOSTILE_URIS = ['../../../../etc/hostname', '../secret.bin', 'file:///etc/hostname', 'http://example.com/x.bin', '/etc/hostname',
  '%2e%2e/%2e%2e/etc/hostname', '..%2f..%2fetc%2fhostname', '//evil.example/x', 'data:;base64,@@', 'data:no-comma', 'README.md', 'missing.bin', ''];
const FLOAT_EXTREMES = [NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e-45, 0, -1];

/** Every [container, key] holding a value in the JSON (walked with a stack, not recursion). */
function slots(json: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const stack: unknown[] = [json];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) v.forEach((x, i) => { out.push([v, i]); stack.push(x); });
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push([v as Record<string, unknown>, k]); stack.push(x); }
  }
  return out;
}

/** Keys whose values are indices into a top-level array (or lists of them). */
const INDEX_KEYS = new Set(['bufferView', 'buffer', 'input', 'output', 'sampler', 'node', 'mesh', 'skin', 'material', 'source', 'index',
  'indices', 'inverseBindMatrices', 'skeleton', 'scene', 'POSITION', 'NORMAL', 'TEXCOORD_0', 'JOINTS_0', 'WEIGHTS_0', 'children', 'joints', 'nodes']);

/** Float32 element `e`, component `c` of float accessor `a` in the BIN chunk, or undefined when it is not there. */
function floatAt(parts: Parts, a: number, e: number, c: number): number | undefined {
  const acc = parts.json.accessors?.[a];
  const view = acc && parts.json.bufferViews?.[acc.bufferView];
  if (!acc || !view || view.buffer !== 0 || acc.componentType !== 5126 || !parts.bin) return undefined;
  const components = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[acc.type as string] ?? 1;
  const offset = (view.byteOffset ?? 0) + (acc.byteOffset ?? 0) + e * (view.byteStride ?? components * 4) + c * 4;
  return offset + 4 <= parts.bin.byteLength ? offset : undefined;
}

function writeFloat(parts: Parts, a: number, e: number, c: number, value: number): boolean {
  const offset = floatAt(parts, a, e, c);
  if (offset === undefined) return false;
  new DataView(parts.bin!.buffer, parts.bin!.byteOffset).setFloat32(offset, value, true);
  return true;
}

/** Accessors by role: animation inputs and outputs, inverse bind matrices, positions. */
function accessorsOf(json: Record<string, any>, role: 'input' | 'output' | 'ibm' | 'position'): number[] {
  if (role === 'ibm') return (json.skins ?? []).map((s: any) => s.inverseBindMatrices).filter((a: unknown) => a !== undefined);
  if (role === 'position') return (json.meshes ?? []).flatMap((m: any) => m.primitives.map((p: any) => p.attributes.POSITION));
  return (json.animations ?? []).flatMap((an: any) => an.samplers.map((s: any) => s[role]));
}

/** Writes one of `values` into component `c` (one of `components`) of a random element of a random accessor of `role`. */
function pokeFloat(parts: Parts, random: Random, role: Parameters<typeof accessorsOf>[1], components: readonly number[], values: readonly number[], noun: string): string | undefined {
  const accessors = accessorsOf(parts.json, role).filter((a) => a !== undefined);
  if (!accessors.length) return undefined;
  const a = pick(random, accessors);
  const e = Math.floor(random() * parts.json.accessors[a].count);
  const c = pick(random, components);
  const value = pick(random, values);
  return writeFloat(parts, a, e, c, value) ? `accessor ${a} ${noun} ${e} [${c}] = ${value}` : undefined;
}

/** One mutation: edits `parts` (or returns new bytes) and describes itself. */
type Mutation = (parts: Parts, random: Random, seed: FuzzSeed) => string | { bytes: Uint8Array; description: string } | undefined;

const MUTATIONS: Record<string, Mutation> = {
  'truncate at a chunk boundary': (parts, random, seed) => {
    if (!parts.glb) return undefined;
    const view = new DataView(seed.bytes.buffer, seed.bytes.byteOffset, seed.bytes.byteLength);
    const cuts = [0, 4, 8, 12];
    for (let o = 12; o + 8 <= seed.bytes.byteLength; o += 8 + view.getUint32(o, true)) cuts.push(o, o + 4, o + 8);
    const cut = Math.min(pick(random, cuts) + pick(random, [0, 0, 1, 3, -1]), seed.bytes.byteLength - 1);
    return { bytes: seed.bytes.slice(0, Math.max(0, cut)), description: `cut to ${Math.max(0, cut)} bytes` };
  },
  'truncate at random': (_parts, random, seed) => {
    const cut = Math.floor(random() * seed.bytes.byteLength);
    return { bytes: seed.bytes.slice(0, cut), description: `cut to ${cut} of ${seed.bytes.byteLength} bytes` };
  },
  'flip bits in the binary chunk': (parts, random) => {
    if (!parts.bin || parts.bin.byteLength === 0) return undefined;
    const flips = 1 + Math.floor(random() * 16);
    for (let i = 0; i < flips; i++) parts.bin[Math.floor(random() * parts.bin.byteLength)] ^= 1 << Math.floor(random() * 8);
    return `${flips} bits`;
  },
  'flip bits anywhere': (_parts, random, seed) => {
    const bytes = seed.bytes.slice();
    const flips = 1 + Math.floor(random() * 4);
    for (let i = 0; i < flips; i++) bytes[Math.floor(random() * bytes.byteLength)] ^= 1 << Math.floor(random() * 8);
    return { bytes, description: `${flips} bits` };
  },
  'set a number to an extreme': (parts, random) => {
    const numbers = slots(parts.json).filter(([o, k]) => typeof (o as any)[k] === 'number');
    if (!numbers.length) return undefined;
    const [o, k] = pick(random, numbers);
    const value = pick(random, EXTREMES);
    (o as any)[k] = value;
    return `.${String(k)} = ${String(value)}`;
  },
  'delete a field': (parts, random) => {
    const fields = slots(parts.json).filter(([o]) => !Array.isArray(o));
    if (!fields.length) return undefined;
    const [o, k] = pick(random, fields);
    delete (o as any)[k];
    return `delete .${String(k)}`;
  },
  'give a field the wrong type': (parts, random) => {
    const [o, k] = pick(random, slots(parts.json));
    const value = pick(random, WRONG_TYPES);
    (o as any)[k] = structuredClone(value);
    return `.${String(k)} = ${JSON.stringify(value)}`;
  },
  'index out of range': (parts, random) => {
    const candidates = slots(parts.json).filter(([o, k]) => INDEX_KEYS.has(String(k)) || (Array.isArray(o) && typeof o[k as number] === 'number'));
    const numeric = candidates.filter(([o, k]) => typeof (o as any)[k] === 'number');
    if (!numeric.length) return undefined;
    const [o, k] = pick(random, numeric);
    const value = pick(random, [(o as any)[k] + 1000, 65_535, 2 ** 31 - 1, -1, (o as any)[k] + 1]);
    (o as any)[k] = value;
    return `.${String(k)} = ${value}`;
  },
  'key times not increasing or not finite': (parts, random) => {
    const inputs = accessorsOf(parts.json, 'input');
    if (!inputs.length) return undefined;
    const a = pick(random, inputs);
    const count = parts.json.accessors[a].count;
    const e = Math.floor(random() * count);
    const value = pick(random, [NaN, Infinity, -Infinity, -1, 1e30, 0, 'previous']);
    const previous = e > 0 ? floatAt(parts, a, e - 1, 0) : undefined;
    const v = value === 'previous' ? (previous === undefined ? 0 : new DataView(parts.bin!.buffer, parts.bin!.byteOffset).getFloat32(previous, true)) : value as number;
    return writeFloat(parts, a, e, 0, v) ? `accessor ${a} key ${e} = ${v}` : undefined;
  },
  'NaN or huge key values': (parts, random) => pokeFloat(parts, random, 'output', [0, 1, 2], FLOAT_EXTREMES, 'key'),
  'NaN, huge or projective inverse bind matrices': (parts, random) => pokeFloat(parts, random, 'ibm', [0, 5, 12, 3, 7, 11, 15], [...FLOAT_EXTREMES, 0.5], 'matrix'),
  'NaN or huge positions': (parts, random) => pokeFloat(parts, random, 'position', [0, 1, 2], FLOAT_EXTREMES, 'vertex'),
  'accessor count 2^31': (parts, random) => {
    const accessors = parts.json.accessors ?? [];
    if (!accessors.length) return undefined;
    const a = Math.floor(random() * accessors.length);
    accessors[a].count = 2 ** 31;
    const dropView = random() < 0.5;
    if (dropView) delete accessors[a].bufferView;
    return `accessor ${a}${dropView ? ' (no bufferView)' : ''}`;
  },
  'cycle in the node graph': (parts, random) => {
    const nodes = parts.json.nodes ?? [];
    const withChildren = nodes.map((_: unknown, i: number) => i).filter((i: number) => nodes[i].children?.length);
    if (!withChildren.length) return undefined;
    const i: number = pick(random, withChildren);
    let descendant = i;
    for (let steps = Math.floor(random() * 6); steps >= 0 && nodes[descendant].children?.length; steps--) descendant = pick(random, nodes[descendant].children as number[]);
    (nodes[descendant].children ??= []).push(random() < 0.2 ? descendant : i);
    return `node ${descendant} -> node ${i}`;
  },
  'node with two parents': (parts, random) => {
    const nodes = parts.json.nodes ?? [];
    const children = nodes.flatMap((n: any) => n.children ?? []);
    if (!children.length || nodes.length < 2) return undefined;
    const child = pick(random, children) as number;
    const other = Math.floor(random() * nodes.length);
    (nodes[other].children ??= []).push(child);
    return `node ${other} also adopts node ${child}`;
  },
  'required extension or version': (parts, random) => {
    const choice = pick(random, ['ext', 'ext', 'min', 'version']);
    if (choice === 'ext') { parts.json.extensionsRequired = [pick(random, ['EXT_unknown_future', 'KHR_draco_mesh_compression', 'KHR_texture_transform'])]; return `extensionsRequired ${parts.json.extensionsRequired}`; }
    if (choice === 'min') { (parts.json.asset ??= {}).minVersion = pick(random, ['2.1', '3.0', '2.0']); return `minVersion ${parts.json.asset.minVersion}`; }
    (parts.json.asset ??= {}).version = pick(random, ['1.0', '3.0', '2.1', 'two']);
    return `version ${parts.json.asset.version}`;
  },
  'hostile uri': (parts, random) => {
    const owners = [...(parts.json.buffers ?? []), ...(parts.json.images ?? [])];
    if (!owners.length) return undefined;
    const owner = pick(random, owners);
    owner.uri = pick(random, HOSTILE_URIS);
    if (owner.bufferView !== undefined && random() < 0.5) delete owner.bufferView;
    return `uri ${JSON.stringify(owner.uri)}`;
  },
  'damage compressed data': (parts, random) => {
    // A meshopt bufferView, a Draco primitive's bufferView or a KTX2 image's, truncated, corrupted or zeroed (only seeds that have one).
    const j = parts.json;
    const meshopt = (j.bufferViews ?? []).map((v: any) => v.extensions?.EXT_meshopt_compression ?? v.extensions?.KHR_meshopt_compression).filter(Boolean);
    const views = [
      ...(j.meshes ?? []).flatMap((m: any) => m.primitives.map((p: any) => p.extensions?.KHR_draco_mesh_compression?.bufferView)),
      ...(j.images ?? []).filter((i: any) => i.mimeType === 'image/ktx2').map((i: any) => i.bufferView),
    ].filter((v) => typeof v === 'number').map((v: number) => j.bufferViews?.[v]).filter(Boolean);
    const targets: { byteOffset?: number; byteLength: number }[] = [...meshopt, ...views];
    if (!targets.length || !parts.bin) return undefined;
    const target = pick(random, targets);
    const start = target.byteOffset ?? 0;
    const damage = pick(random, ['truncate', 'corrupt', 'zero']);
    if (damage === 'truncate') target.byteLength = Math.floor(target.byteLength * random());
    else {
      const from = start + Math.floor(random() * target.byteLength);
      const to = Math.min(start + target.byteLength, from + 1 + Math.floor(random() * 64));
      for (let b = from; b < to && b < parts.bin.byteLength; b++) parts.bin[b] = damage === 'zero' ? 0 : parts.bin[b] ^ (1 + Math.floor(random() * 255));
    }
    return `${damage} ${target.byteLength} bytes at ${start}`;
  },
  'valid but unusual': (parts, random) => {
    const animations: any[] = parts.json.animations ?? [];
    const choice = pick(random, ['dup', 'position', 'unnamed']);
    if (choice === 'dup' && animations.length) { animations.push(structuredClone(pick(random, animations))); return 'a second animation of the same name'; }
    if (choice === 'unnamed' && animations.length) { delete pick(random, animations).name; return 'an unnamed animation'; }
    const prims: any[] = (parts.json.meshes ?? []).flatMap((m: any) => m.primitives);
    if (!prims.length) return undefined;
    delete pick(random, prims).attributes.POSITION;
    return 'a primitive without POSITION';
  },
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

/**
 * `count` cases from `seed`: seeds in turn, each with a mutation drawn at random (one that
 * cannot apply to a seed, say bit flips in a .gltf without BIN, is redrawn). A seed with `every`
 * N takes its turn in one round of the seeds out of N: in the other rounds its case is still
 * drawn (so every other case is the one it was without `every`) and not yielded, and the count
 * is made up by the cases after.
 */
export function* fuzzCases(seeds: FuzzSeed[], count: number, seed: number): Generator<FuzzCase> {
  const random = seededRandom(seed);
  for (let index = 0, yielded = 0; yielded < count; index++) {
    const source = seeds[index % seeds.length];
    const skipped = Math.floor(index / seeds.length) % (source.every ?? 1) !== 0;
    for (let attempt = 0; ; attempt++) {
      const name = pick(random, MUTATION_NAMES);
      const parts = split(source.bytes);
      const result = MUTATIONS[name](parts, random, source);
      if (result === undefined && attempt < 20) continue;
      if (skipped) break;
      const bytes = result === undefined ? source.bytes : typeof result === 'string' ? joinParts(parts) : result.bytes;
      const description = result === undefined ? 'unchanged' : typeof result === 'string' ? result : result.description;
      yield { index, seed: source.name, mutation: `${name}: ${description}`, path: source.path, bytes };
      yielded++;
      break;
    }
  }
}
