/**
 * `npm run bench`'s flags (tools/bench.ts says what each does), read from the command line and
 * refused with the reason when they do not go together. Flags it does not know are ignored.
 */
import { PAIRED_SECTIONS } from './paired-scenes';

/** The sections `--section NAME` runs alone (tools/bench/sections/index.ts runs each). */
export const SECTION_NAMES = ['culling', 'controllers', 'million', 'clip-library', 'picking', 'three-shading', 'appearance', 'steering', 'draw', 'load-formats', 'gl-cull', 'webgl2', 'impostors'] as const;
/** A name `--section` takes. */
export type SectionName = (typeof SECTION_NAMES)[number];

/** The sections with a CPU-per-frame figure, which `--against` pairs (controllers: against.ts; the others: paired-scenes.ts). */
export const PAIRABLE: readonly string[] = ['controllers', ...PAIRED_SECTIONS];

/** What a run was asked for. */
export interface BenchOptions {
  /** --quick: fewer counts and frames, no three.js 100k, and BENCHMARKS.md not written. */
  readonly quick: boolean;
  /** --section NAME: that section alone, replacing it in the existing BENCHMARKS.md; undefined: the full run. */
  readonly only: SectionName | undefined;
  /** --against REF[,REF...]: the refs, in the order given (empty without the flag). */
  readonly against: readonly string[];
  /** false with --no-peer: skip three.js's mixers. */
  readonly peer: boolean;
  /** --size-only: the package size alone (its section of BENCHMARKS.md replaced, the rest kept). */
  readonly sizeOnly: boolean;
}

/** Reads `argv` (process.argv); throws naming the flag when --section names no section, --against no ref, or --against a section it cannot pair. */
export function readBenchOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const sectionArg = argv.indexOf('--section');
  const only = sectionArg >= 0 ? argv[sectionArg + 1] : undefined;
  if (only !== undefined && !(SECTION_NAMES as readonly string[]).includes(only)) throw new Error(`--section must be ${SECTION_NAMES.slice(0, -1).join(', ')} or ${SECTION_NAMES.at(-1)}, got ${only}`);
  const againstArg = argv.indexOf('--against');
  const against = againstArg >= 0 ? argv[againstArg + 1] : undefined;
  if (againstArg >= 0 && (against === undefined || against.startsWith('--'))) throw new Error('--against needs a commit, branch or tag: --against REF');
  if (against !== undefined && !PAIRABLE.includes(only ?? '')) throw new Error(`--against works with --section ${PAIRABLE.join(', ')} (the sections with a CPU-per-frame figure), got ${only === undefined ? 'no --section' : `--section ${only}`}`);
  return { quick, only: only as SectionName | undefined, against: against?.split(',') ?? [], peer: !argv.includes('--no-peer'), sizeOnly: argv.includes('--size-only') };
}
