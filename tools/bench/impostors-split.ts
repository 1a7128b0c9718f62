/**
 * Where the impostor frame's GPU time goes (issue 40, on a lent GPU): the impostors section's
 * frames (tools/bench/impostors.ts) with the cull and palette passes, and the render pass, timed
 * apart by timestamp-query: 10,000 Fox meshes, and a million Foxes in view as impostors with dots
 * (the default) and without (dotPixels 0), on the section's 640 x 360 target and on 1280 x 720;
 * medians of 3 frames.
 *
 *   node --import ./tools/register.mjs tools/bench/impostors-split.ts [label]
 */
import { openNodeDevice } from '../gpu-poser';
import { benchImpostorFrame } from './impostors';
import { characterFromFile } from './ours';
import { CROWD_MODEL } from './sections/context';

const label = process.argv[2] ?? 'this tree';
const { device, adapterName } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 });
const character = await characterFromFile(CROWD_MODEL[1]);
const count = Number(process.env.SPLIT_COUNT ?? 1_000_000);
const rows: [string, number, 'meshes' | 'impostors', number, number, number | undefined][] = [
  ['10,000 meshes', 10_000, 'meshes', 640, 360, undefined],
  [`${count} impostors (dots)`, count, 'impostors', 640, 360, undefined],
  [`${count} impostors, no dots`, count, 'impostors', 640, 360, 0],
  [`${count} impostors (dots)`, count, 'impostors', 1280, 720, undefined],
  [`${count} impostors, no dots`, count, 'impostors', 1280, 720, 0],
];
console.log(`${label} on ${adapterName}`);
console.log('| frame | target | visible | as impostors | dots | vertices | cull + palette GPU ms | draw GPU ms | frame GPU ms |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [name, n, how, width, height, dotPixels] of rows) {
  const r = await benchImpostorFrame(device, character, n, how, 3, undefined, { width, height, dotPixels });
  console.log(`| ${name} | ${width} x ${height} | ${r.visible} | ${r.impostors} | ${r.dots} | ${r.vertices} | ${r.cullMs.toFixed(3)} | ${r.drawMs.toFixed(3)} | ${r.gpuMs.toFixed(3)} |`);
}
process.exit(0);
