/**
 * The impostor draw of several source trees against each other in one process (docs/impostors.md,
 * Measured): the impostors section's million Foxes in view (tools/bench/impostors.ts, every one an
 * impostor) and its 2,500 Foxes inside the band (band 0.25), each tree's own CrowdImpostors,
 * the trees taken in turn (the order reversed every other round); per tree the median GPU ms and
 * process CPU ms, and the median of the rounds' ratios to the first tree (on a shared machine two
 * runs of one frame differ by a quarter; the paired ratios are what stays put). Each tree is a
 * checkout of this repository (a git worktree, or `git archive <commit> | tar -x -C <dir>`, with
 * node_modules linked) whose tools/bench/impostors.ts has benchImpostorFrame.
 *
 *   node --import ./tools/register.mjs tools/bench/impostors-ab.ts <rounds> <tree> <tree> ...
 *
 * IMPOSTORS_AB=band measures the band alone, IMPOSTORS_AB=million the million alone,
 * IMPOSTORS_AB=near the bench's 4-sample row (100 Foxes just past the switch, 4 samples),
 * IMPOSTORS_AB=quads the million with dots off (dotPixels 0: every one a quad), IMPOSTORS_AB=shadows
 * the million with the sun's shadows on (trees whose benchImpostorFrame takes view.shadows),
 * IMPOSTORS_AB=travelling the near row with 100 Mannequins as its file has them (root motion in the
 * clips: the cells frame each pose), walking and running (trees whose benchImpostorFrame takes
 * view.spacing and view.clips).
 */
import { openNodeDevice } from '../gpu-poser';
import { characterFromFile } from './ours';
import { CROWD_MODEL } from './sections/context';

const rounds = Number(process.argv[2]);
const trees = process.argv.slice(3);
if (!(rounds >= 1) || trees.length < 2) throw new Error('usage: impostors-ab.ts <rounds> <tree> <tree> ...');
const which = process.env.IMPOSTORS_AB ?? 'both';
if (!['both', 'band', 'million', 'quads', 'shadows', 'near', 'travelling'].includes(which)) throw new Error(`IMPOSTORS_AB must be band, million, quads, shadows, near, travelling or both, got ${which}`);
const names = trees.map((t) => t.split('/').pop()!);
const { device } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 });
const character = await characterFromFile(which === 'travelling' ? 'public/models/Mannequin/Mannequin.glb' : CROWD_MODEL[1]);
const benches = await Promise.all(trees.map(async (tree) => (await import(`${tree}/tools/bench/impostors.ts`)).benchImpostorFrame));
const med = (v: number[]) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const cases: [string, number, number | undefined][] = [];
if (which === 'both' || which === 'million') cases.push(['a million in view', 1_000_000, undefined]);
if (which === 'quads') cases.push(['a million in view as quads (dots off)', 1_000_000, undefined]);
if (which === 'shadows') cases.push(['a million in view with shadows', 1_000_000, undefined]);
if (which === 'both' || which === 'band') cases.push(['2,500 in the band', 2_500, 0.25]);
// The bench's 4-sample table: 100 Foxes just past the switch, every march step.
if (which === 'near') cases.push(['100 just past the switch at 4 samples', 100, undefined]);
if (which === 'travelling') cases.push(['100 Mannequins walking and running just past the switch at 4 samples', 100, undefined]);
for (const [label, count, band] of cases) {
  const gpu: number[][] = names.map(() => []), work: number[][] = names.map(() => []);
  const gpuRatio: number[][] = names.map(() => []), workRatio: number[][] = names.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...benches.keys()].reverse() : [...benches.keys()];
    const g: number[] = [], w: number[] = [];
    for (const i of order) {
      // The Mannequin (metres, about 1.8 tall): 2.5 m apart, its walk (1) and run (2) in turn.
      const view = which === 'near' ? { samples: 4, switchAt: 0.95 } : which === 'travelling' ? { samples: 4, switchAt: 0.95, spacing: 2.5, clips: [1, 2] } : which === 'quads' ? { dotPixels: 0 } : which === 'shadows' ? { shadows: true } : {};
      const row = await benches[i](device, character, count, 'impostors', count > 100_000 ? 1 : 3, band, view);
      g[i] = row.gpuMs; w[i] = row.workMs;
      console.error(`${label}, round ${round}, ${names[i]}: GPU ${row.gpuMs.toFixed(0)} ms, process CPU ${row.workMs.toFixed(0)} ms`);
    }
    g.forEach((v, i) => { gpu[i].push(v); work[i].push(w[i]); gpuRatio[i].push(v / g[0]); workRatio[i].push(w[i] / w[0]); });
  }
  console.log(`${label} (${rounds} rounds): ` + names.map((n, i) => `${n} GPU ${med(gpu[i]).toFixed(0)} ms (x ${med(gpuRatio[i]).toFixed(2)}), process CPU ${med(work[i]).toFixed(0)} ms (x ${med(workRatio[i]).toFixed(2)})`).join('; '));
}
process.exit(0);
