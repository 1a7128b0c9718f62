/**
 * `npm run bench`: measurements printed as Markdown tables and written to BENCHMARKS.md.
 * Nothing here is asserted: the machines are shared and noisy, so timings are also given as
 * ratios against a baseline measured in the same run.
 *
 * Options: --quick (fewer counts and frames, no three.js 100k), --no-peer (skip three.js),
 * --size-only (the package size alone: its section of BENCHMARKS.md is replaced, the rest kept).
 * --section culling|controllers|million|clip-library|picking|three-shading|appearance|steering|draw|load-formats|gl-cull|webgl2|impostors (only that section, replacing it in the existing BENCHMARKS.md).
 * --against REF[,REF...] (with --section controllers, gl-cull, million, appearance or steering: the sections
 * with a CPU-per-frame figure): the section's CPU-per-frame scenes also measured for a worktree of each REF in
 * this process, frame by frame in alternation, with both and their ratio (tools/bench/against.ts,
 * tools/bench/paired-scenes.ts; docs/testing.md: run it before resolving an issue that touches a per-frame path).
 *
 * Where each part lives: the flags in tools/bench/options.ts; the Markdown and its writing into
 * BENCHMARKS.md in tools/bench/report.ts; the sections' notes and tables in tools/bench/sections/
 * (index.ts names them), their measurements in the other modules of tools/bench/.
 */
import { cpus, totalmem } from 'node:os';
import { formatBytes } from '../src/runtime/limits';
import { openNodeDevice } from './gpu-poser';
import { readBenchOptions } from './bench/options';
import { Report } from './bench/report';
import { benchContext } from './bench/sections/context';
import { controllersSection, pairedSection } from './bench/sections/controllers';
import { coreSections, threePeerSection } from './bench/sections/core';
import { FULL_RUN_SECTIONS, SECTIONS } from './bench/sections/index';
import { packageSizeSection, SIZE_HEADING } from './bench/sections/package-size';
import type { PairedSection } from './bench/paired-scenes';

const { quick, only, against, peer, sizeOnly } = readBenchOptions(process.argv);
const report = new Report();
const { print, table } = report;

// A --section run measures that section alone (the package size needs npm and the build, which a GPU machine may lack).
if (only === undefined) await packageSizeSection(print, table);
if (sizeOnly) {
  // Replace the section in place (or put it before the first section), keeping the other measurements.
  await report.replaceInPlace(SIZE_HEADING, 0);
  console.error('replaced the package size in BENCHMARKS.md');
  process.exit(0);
}

const { device, adapterName } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 });
report.lines.unshift(
  '# Benchmarks',
  '',
  `Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus()[0].model}, ${cpus().length} cores, ${formatBytes(totalmem())} RAM, Node ${process.version}. WebGPU adapter: ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: a CPU emulating a GPU, so GPU times below are CPU figures)' : ''}.`,
  '',
);
const ctx = benchContext(device, adapterName, quick, against, report);

if (only !== undefined) {
  await SECTIONS[only].run(ctx);
  // --against A,B: a paired table per REF, in the order given (the controllers section prints its own).
  if (only !== 'controllers') for (const ref of against) await pairedSection(ctx, only as PairedSection, ref);
  await report.replaceSection(SECTIONS[only].heading, quick);
  console.error(quick ? '(--quick: BENCHMARKS.md not written)' : `wrote the ${only} section of BENCHMARKS.md`);
  device.destroy();
  process.exit(0);
}

const core = await coreSections(ctx);
await controllersSection(ctx);
if (peer) await threePeerSection(ctx, core);
for (const name of FULL_RUN_SECTIONS) await SECTIONS[name].run(ctx);

device.destroy();
// Figures from another machine (a section headed '## On an NVIDIA ...', say) are kept at the end: this run cannot redo them.
await report.writeAll(quick);
console.error(quick ? '(--quick: BENCHMARKS.md not written)' : 'wrote BENCHMARKS.md');
process.exit(0);
