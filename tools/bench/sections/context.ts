/**
 * What every section of `npm run bench` runs with (tools/bench/sections/): the device, the run's
 * flags, the report to print into, and the models measured.
 */
import type { Character } from '../../../src/character/character';
import { characterFromFile } from '../ours';
import type { Report } from '../report';

/** The bundled models the full run loads and bakes: name, path from the repository root. */
export const MODELS: [string, string][] = [
  ['Fox', 'public/models/Fox/Fox.glb'],
  ['CesiumMan', 'public/models/CesiumMan/CesiumMan.glb'],
  ['RobotExpressive', 'public/models/RobotExpressive/RobotExpressive.glb'],
];
/** The model of the crowd sections (the Fox). */
export const CROWD_MODEL = MODELS[0];

/** The run a section belongs to. */
export interface BenchContext {
  /** The WebGPU device of the run (Dawn for Node, tools/gpu-poser.ts). */
  readonly device: GPUDevice;
  /** The adapter's name, as the tables' notes give it (SwiftShader's says the GPU times are CPU figures). */
  readonly adapterName: string;
  /** --quick: fewer counts and frames. */
  readonly quick: boolean;
  /** --against's refs, in the order given (empty without the flag). */
  readonly against: readonly string[];
  /** Report.print and Report.table of the run. */
  readonly print: Report['print'];
  readonly table: Report['table'];
  /** The crowd model's Character (CROWD_MODEL), loaded at the first call and shared by the sections after it. */
  fox(): Promise<Character>;
}

/** A BenchContext over `device` whose fox() loads CROWD_MODEL once. */
export function benchContext(device: GPUDevice, adapterName: string, quick: boolean, against: readonly string[], report: Report): BenchContext {
  let fox: Promise<Character> | undefined;
  return { device, adapterName, quick, against, print: report.print, table: report.table, fox: () => (fox ??= characterFromFile(CROWD_MODEL[1])) };
}
