/**
 * `crowd-skin inspect MODEL [--json]`: what a model holds, as a user wants to know it before
 * embedding it: clips and their durations, skins and joints (with the hierarchy, for choosing
 * mask roots), drawn primitives and their influences per vertex, the baked table bytes, the
 * rest-pose bounds, what a crowd needs per instance, and the loader's warnings. It loads the
 * model exactly as the browser does (the public loadCharacter), so a file that inspects cleanly
 * loads cleanly. A human report by default; `--json` prints one JSON object (shape: Inspection).
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { JOINT_MATRIX_BYTES } from '../src/runtime/layout';
import { WORKGROUP_BYTES_PER_NODE } from '../src/runtime/pose-pass';
import { loadCharacter, type Character } from '../src/index';
import { rigHumanoid, type ClipLibrary } from '../src/bake/clip-library';
import { HUMAN_BONES, type HumanoidMap } from '../src/bake/humanoid';
import { listOption, parseArgs } from './args';
import { readClipLibrary } from './clip-files';
import { readModelFile } from './node-io';

/** The `--json` output. Times in seconds, sizes in bytes, lengths in model units. */
export interface Inspection {
  file: string;
  fileBytes: number;
  /** `from`: the file the clip came from (the model's, or a --clips file's name). */
  clips: { index: number; name: string; duration: number; channels: number; keys: number; entriesPerTrack: number; from: string }[];
  skins: {
    index: number;
    name: string;
    /** false for a skin the loader made for a mesh attached rigidly to a node. */
    fromFile: boolean;
    /** Joint names in skin order, and the name of each joint's parent node (null at a root). */
    joints: { name: string; parent: string | null }[];
  }[];
  /** Rig nodes (joints, rigidly attached mesh nodes and their ancestors), parent-first. */
  nodes: { name: string; parent: number; joint: boolean }[];
  primitives: {
    node: number; mesh: number; primitive: number; skin: number; vertices: number; triangles: number;
    normals: boolean; uvs: boolean; texture: string | null;
    /** Influences stored per vertex (4 or 8), the most a vertex uses (weight > 0), the mean, and how many vertices use 1, 2, ... */
    influences: { stored: number; max: number; mean: number; histogram: number[] };
  }[];
  baked: { bytes: number; tracks: number; trackBytes: number; trackRefBytes: number; restBytes: number };
  bounds: { min: number[]; max: number[]; size: number[] };
  perInstance: { jointMatrices: number; jointMatrixBytes: number; workgroupBytes: number };
  /**
   * The model's humanoid (docs/retargeting.md): where its map came from (`VRMC_vrm`, `VRM`, or the
   * name convention recognized), each bone's node, and the joints no bone names; null when none is
   * recognized (clips files then bind by node name).
   */
  humanoid: { source: string; bones: { bone: string; node: string }[]; unmapped: string[] } | null;
  /** Per --clips file: its humanoid's source and bone count (null: none, it binds by name), and whether a name map was given. */
  clipFiles: { file: string; humanoid: string | null; bones: number; nameMap: boolean }[];
  warnings: string[];
}

/** A humanoid map as the report shows it. */
function humanoidReport(map: HumanoidMap | undefined, names: readonly string[], joints: readonly number[]): Inspection['humanoid'] {
  if (!map) return null;
  const bones = HUMAN_BONES.flatMap((bone, b) => (map.nodes[b] >= 0 ? [{ bone, node: names[map.nodes[b]] }] : []));
  const mapped = new Set(map.nodes);
  return { source: map.source, bones, unmapped: joints.filter((n) => !mapped.has(n)).map((n) => names[n]) };
}

/** Influence statistics of one primitive: weights above 0 per vertex. */
function influenceStats(prim: Character['rig']['primitives'][number]): Inspection['primitives'][number]['influences'] {
  const histogram = new Array<number>(prim.influences).fill(0);
  let max = 0;
  let total = 0;
  for (let v = 0; v < prim.vertexCount; v++) {
    let used = 0;
    for (let i = 0; i < prim.influences; i++) if (prim.weights[v * prim.influences + i] > 0) used++;
    if (used > 0) histogram[used - 1]++;
    max = Math.max(max, used);
    total += used;
  }
  return { stored: prim.influences, max, mean: prim.vertexCount ? total / prim.vertexCount : 0, histogram };
}

/** Everything `inspect` reports about a loaded character. */
export function inspectCharacter(file: string, fileBytes: number, character: Character, library?: ClipLibrary): Inspection {
  const { rig, baked, gpu, bounds } = character;
  // The model's clips, then each clips file's, in order (LoadOptions.clips).
  const from = library?.files.flatMap((f) => f.clips.map(() => f.name)) ?? [];
  const own = baked.clipNames.length - from.length;
  const nodeName = (n: number) => (n >= 0 ? rig.nodes.names[n] : null);
  return {
    file, fileBytes,
    clips: baked.clipNames.map((name, c) => {
      const clip = rig.clips[c];
      return {
        index: c, name, duration: baked.clipDurations[c],
        channels: clip ? clip.channels.length : 0,
        keys: clip ? clip.channels.reduce((n, ch) => n + ch.times.length, 0) : 0,
        entriesPerTrack: baked.clipEntries[c],
        from: c < own ? file : from[c - own],
      };
    }),
    skins: rig.skins.map((skin, index) => ({
      index, name: skin.name, fromFile: skin.gltfSkin >= 0,
      joints: Array.from(skin.joints, (node, j) => ({ name: skin.jointNames[j], parent: nodeName(rig.nodes.parent[node]) })),
    })),
    nodes: rig.nodes.names.map((name, n) => ({ name, parent: rig.nodes.parent[n], joint: rig.nodes.isJoint[n] === 1 })),
    primitives: rig.primitives.map((p) => ({
      node: p.gltfNode, mesh: p.gltfMesh, primitive: p.primitiveIndex, skin: p.skin, vertices: p.vertexCount,
      triangles: Math.floor((p.indices?.length ?? p.vertexCount) / 3),
      normals: !!p.normals, uvs: !!p.uvs, texture: p.material.baseColorImage?.mimeType ?? null,
      influences: influenceStats(p),
    })),
    baked: {
      bytes: baked.tracks.byteLength + baked.trackRefs.byteLength + baked.rest.byteLength,
      tracks: baked.trackCount, trackBytes: baked.tracks.byteLength, trackRefBytes: baked.trackRefs.byteLength, restBytes: baked.rest.byteLength,
    },
    bounds: { min: [...bounds.min], max: [...bounds.max], size: bounds.max.map((v, i) => v - bounds.min[i]) },
    perInstance: {
      jointMatrices: gpu.slotCount, jointMatrixBytes: gpu.slotCount * JOINT_MATRIX_BYTES,
      workgroupBytes: gpu.nodeCount * WORKGROUP_BYTES_PER_NODE,
    },
    humanoid: humanoidReport(rigHumanoid(rig), rig.nodes.names, rig.nodes.names.flatMap((_, n) => (rig.nodes.isJoint[n] ? [n] : []))),
    clipFiles: (library?.files ?? []).map((f) => ({
      file: f.name, humanoid: f.humanoid?.source ?? null, bones: f.humanoid ? f.humanoid.nodes.filter((n) => n >= 0).length : 0, nameMap: f.named,
    })),
    warnings: [...character.warnings],
  };
}

/** Left-aligned text columns, two spaces apart, indented by two. */
function table(header: string[], rows: (string | number)[][]): string[] {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  return cells.map((r) => '  ' + r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd());
}

function bytes(n: number): string {
  const unit = n >= 1 << 20 ? ` (${(n / (1 << 20)).toFixed(1)} MiB)` : n >= 1 << 10 ? ` (${(n / (1 << 10)).toFixed(1)} KiB)` : '';
  return `${n.toLocaleString('en')} bytes${unit}`;
}

const num = (v: number) => Number(v.toPrecision(4)).toString();
const vec = (v: number[]) => `[${v.map(num).join(', ')}]`;

/** The human report: sections of aligned tables. */
export function formatInspection(r: Inspection): string {
  const out: string[] = [];
  out.push(`${r.file}: ${bytes(r.fileBytes)}`, '');
  out.push(`clips (${r.clips.length})`);
  out.push(...(r.clips.length === 0 ? ['  none: the model has no animations'] : table(
    ['#', 'name', 'duration s', 'channels', 'keys', 'entries/track', 'from'],
    r.clips.map((c) => [c.index, c.name, c.duration.toFixed(3), c.channels, c.keys, c.entriesPerTrack, c.from]))));
  out.push('', `skins (${r.skins.length})`);
  out.push(...table(['#', 'name', 'joints', 'from'], r.skins.map((s) => [s.index, s.name || '(unnamed)', s.joints.length, s.fromFile ? 'file' : 'rigid mesh node'])));
  out.push('', `nodes (${r.nodes.length}, parent-first; * marks a joint)`);
  const depth: number[] = [];
  r.nodes.forEach((n, i) => {
    depth[i] = n.parent < 0 ? 0 : depth[n.parent] + 1;
    out.push(`  ${'  '.repeat(depth[i])}${n.joint ? '* ' : '  '}${n.name}`);
  });
  out.push('', `primitives (${r.primitives.length})`);
  out.push(...table(
    ['node', 'mesh', 'prim', 'skin', 'vertices', 'triangles', 'influences stored/max/mean', 'vertices using 1, 2, ... influences', 'normals', 'uvs', 'texture'],
    r.primitives.map((p) => [p.node, p.mesh, p.primitive, p.skin, p.vertices, p.triangles,
      `${p.influences.stored}/${p.influences.max}/${p.influences.mean.toFixed(2)}`, p.influences.histogram.join(' '),
      p.normals ? 'yes' : 'no', p.uvs ? 'yes' : 'no', p.texture ?? '-'])));
  out.push('', 'baked tables');
  out.push(`  ${bytes(r.baked.bytes)}: ${r.baked.tracks} tracks ${bytes(r.baked.trackBytes)}, track refs ${bytes(r.baked.trackRefBytes)}, rest pose ${bytes(r.baked.restBytes)}`);
  out.push('', 'rest-pose bounds (model units)');
  out.push(`  min ${vec(r.bounds.min)}  max ${vec(r.bounds.max)}  size ${vec(r.bounds.size)}`);
  out.push('', 'per instance in a crowd');
  out.push(`  ${r.perInstance.jointMatrices} joint matrices: ${bytes(r.perInstance.jointMatrixBytes)} of joint buffer; pose pass workgroup memory ${bytes(r.perInstance.workgroupBytes)}`);
  out.push('', r.humanoid ? `humanoid (${r.humanoid.source}; ${r.humanoid.bones.length} bones): clips files with a humanoid bind bone to bone` : 'humanoid');
  out.push(...(r.humanoid ? table(['bone', 'node'], r.humanoid.bones.map((b) => [b.bone, b.node])) : ['  none recognized: clips files bind by node name']));
  if (r.humanoid) out.push(`  unmapped joints (${r.humanoid.unmapped.length}): ${r.humanoid.unmapped.join(', ') || 'none'}`);
  for (const f of r.clipFiles) {
    out.push(`  clips file ${f.file}: ${f.nameMap ? 'a name map was given, binds by node name' : f.humanoid ? `humanoid (${f.humanoid}; ${f.bones} bones)` : 'no humanoid recognized, binds by node name'}`);
  }
  out.push('', `warnings (${r.warnings.length})`);
  out.push(...(r.warnings.length === 0 ? ['  none'] : r.warnings.map((w) => `  ${w}`)));
  return out.join('\n') + '\n';
}

/** `inspect [--model] PATH [--json]`: prints the report to stdout. */
export async function inspect(argv: string[]): Promise<void> {
  const options = parseArgs(argv, ['model', 'clips'], ['json'], ['clips']);
  const path = options.get('model');
  if (!path) throw new Error('a model path is required: crowd-skin inspect MODEL.glb [--clips FILE ...] [--json]');
  const library = await readClipLibrary(listOption(options, 'clips'));
  const fileBytes = (await stat(path).catch((e: Error) => { throw new Error(`cannot read ${path}: ${e.message}`); })).size;
  const { data, ...resources } = await readModelFile(path);
  const character = await loadCharacter(data, { ...resources, ...(library ? { clips: [library] } : {}) });
  const report = inspectCharacter(basename(path), fileBytes, character, library);
  const text = options.has('json') ? JSON.stringify(report) + '\n' : formatInspection(report);
  await new Promise<void>((done) => process.stdout.write(text, () => done()));
}
