import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { bake } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import { ModelError } from '../../src/bake/errors';
import { parseGltf } from '../../src/bake/parse';
import type { Rig } from '../../src/bake/rig';
import { restPose, sampleClip } from '../../src/bake/sampler';
import { modelFolderReader } from '../../tools/node-io';
import { nodeDecoders } from '../../tools/node-decoders';
import { AllocationLimit, startAllocationWatch } from './allocations';

/**
 * One fuzz case through the real loader, in this process: parseGltf (with the Node tools'
 * folder-bound reader and decoders) -> buildRig -> bake, then for a valid load the CPU pose of every clip at
 * a few times, with the exact sampler and with the baked tables. The outcome is one of:
 * - named: a ModelError whose message names a place in the file (NAMED_PLACE), in words
 *   (never "undefined", never a bare "null");
 * - valid: loaded, with every baked table value and every posed joint matrix finite;
 * - other: anything else (another error class, a message that names no place or says
 *   undefined, a non-finite table or matrix, an allocation above the limit).
 */
export type OutcomeKind = 'named' | 'valid' | 'other';

export interface Outcome {
  kind: OutcomeKind;
  /** The error message, what failed, or a summary of the valid load. */
  message: string;
  /** Milliseconds the case took. */
  ms: number;
}

/** How a loader message must begin: the place in the file, in the words the loader uses. */
export const NAMED_PLACE = new RegExp('^(' + [
  'the file', 'the \\.glb', 'not a glTF', 'glTF version', 'asset', "the model's",
  '(buffer|bufferView|accessor|node|mesh|skin|scene|material|texture|image|animation) \\d+',
  "animation '", "clip '", "additive clip '",
  '(accessors|bufferViews|buffers|nodes|meshes|skins|animations|scenes|materials|textures|images|extensionsRequired|extensionsUsed|scene)\\b',
].join('|') + ')');

/** Words that mean the loader printed a missing value instead of naming it. */
const STAND_INS = /\bundefined\b|(?<!JSON )\bnull\b|\[object Object\]/;

function poseEverything(rig: Rig, sampler: (clip: number, t: number, out: ReturnType<typeof restPose>) => unknown): string | undefined {
  const poser = new CpuPoser(rig, (clip, t, out) => { sampler(clip, t, out); return out; });
  const clips = Math.max(rig.clips.length, 1);
  for (let c = 0; c < clips; c++) {
    const d = rig.clips[c]?.duration ?? 0;
    for (const t of [0, d / 3, d * 0.77, d, -0.4]) {
      poser.evaluate({ clipA: c, timeA: t });
      for (let s = 0; s < rig.skins.length; s++) {
        const m = poser.jointMatrices(s);
        const bad = m.findIndex((v) => !Number.isFinite(v));
        if (bad >= 0) return `clip ${c} at ${t} s: skin ${s} joint ${Math.floor(bad / 16)} matrix is not finite (${m[bad]})`;
      }
    }
  }
  return undefined;
}

async function load(bytes: Uint8Array, path: string, baseUrl: string): Promise<Omit<Outcome, 'ms'>> {
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // Every decoder the CLI hands in (meshopt always, Draco and KTX2 for files that use them), so compressed seeds are decoded.
  const rig = buildRig(await parseGltf(data, { baseUrl, readResource: modelFolderReader(path), decoders: await nodeDecoders(data) }));
  const baked = bake(rig);
  for (const [name, table] of [['tracks', baked.tracks], ['rest', baked.rest], ['clipDurations', baked.clipDurations]] as const) {
    const bad = table.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) return { kind: 'other', message: `baked ${name}[${bad}] is ${table[bad]}` };
  }
  const lut = rig.clips.length ? (c: number, t: number, out: any) => sampleLut(baked, c, t, out) : (_c: number, _t: number, out: any) => restPose(rig.nodes, out);
  const exact = rig.clips.length ? (c: number, t: number, out: any) => sampleClip(rig, c, t, out) : lut;
  const problem = poseEverything(rig, lut) ?? poseEverything(rig, exact);
  if (problem) return { kind: 'other', message: problem };
  return { kind: 'valid', message: `${rig.nodes.count} nodes, ${rig.clips.length} clips, ${rig.primitives.length} primitives, ${rig.warnings.length} warnings` };
}

/** Classifies what `load` threw. */
export function classifyError(error: unknown): Omit<Outcome, 'ms'> {
  if (error instanceof AllocationLimit) return { kind: 'other', message: error.message };
  if (!(error instanceof ModelError)) return { kind: 'other', message: `${(error as Error)?.name ?? typeof error}: ${(error as Error)?.message ?? String(error)}` };
  if (STAND_INS.test(error.message)) return { kind: 'other', message: `says a stand-in for a value: ${error.message}` };
  if (!NAMED_PLACE.test(error.message)) return { kind: 'other', message: `names no place: ${error.message}` };
  return { kind: 'named', message: error.message };
}

/**
 * Runs one case. `allocationLimit` (bytes) turns any larger typed-array allocation into an
 * 'other' outcome before the memory is taken; it patches the global typed-array classes while
 * it runs, so use it in a worker of its own (test/helpers/fuzz-worker.mjs does).
 */
export async function runCase(bytes: Uint8Array, path: string, baseUrl: string, allocationLimit = Infinity): Promise<Outcome> {
  const start = performance.now();
  const watch = startAllocationWatch(allocationLimit);
  try {
    return { ...(await load(bytes, path, baseUrl)), ms: performance.now() - start };
  } catch (error) {
    return { ...classifyError(error), ms: performance.now() - start };
  } finally {
    watch.stop();
  }
}
