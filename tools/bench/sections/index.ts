/**
 * The sections of `npm run bench` by the name `--section NAME` takes (tools/bench/options.ts):
 * each one's heading in BENCHMARKS.md (the section a --section run replaces) and its runner; and
 * the order the full run prints them in after its own (tools/bench/sections/core.ts).
 */
import { LOAD_FORMATS_HEADING, loadFormatsSection } from '../load-formats';
import type { SectionName } from '../options';
import type { BenchContext } from './context';
import { CONTROLLERS_HEADING, controllersSection } from './controllers';
import { APPEARANCE_HEADING, appearanceSection, CLIP_LIBRARY_HEADING, clipLibrarySection, STEERING_HEADING, steeringSection, THREE_SHADING_HEADING, threeShadingSection } from './features';
import { CULLING_HEADING, cullingSection, DRAW_HEADING, drawSection, IMPOSTORS_HEADING, impostorsSection, MILLION_HEADING, millionSection, PICKING_HEADING, pickingSection } from './frame';
import { GL_CULL_HEADING, glCullSection, WEBGL2_HEADING, webgl2Section } from './webgl2';

/** A section: the heading it starts with, and what prints it (heading, notes, tables) into the context's report. */
export interface Section {
  readonly heading: string;
  run(ctx: BenchContext): Promise<void>;
}

/** Every section `--section` runs, by name. */
export const SECTIONS: Readonly<Record<SectionName, Section>> = {
  culling: { heading: CULLING_HEADING, run: cullingSection },
  controllers: { heading: CONTROLLERS_HEADING, run: controllersSection },
  million: { heading: MILLION_HEADING, run: millionSection },
  'clip-library': { heading: CLIP_LIBRARY_HEADING, run: clipLibrarySection },
  picking: { heading: PICKING_HEADING, run: pickingSection },
  'three-shading': { heading: THREE_SHADING_HEADING, run: threeShadingSection },
  appearance: { heading: APPEARANCE_HEADING, run: appearanceSection },
  steering: { heading: STEERING_HEADING, run: steeringSection },
  draw: { heading: DRAW_HEADING, run: drawSection },
  'load-formats': { heading: LOAD_FORMATS_HEADING, run: (ctx) => loadFormatsSection(ctx.print, ctx.table, ctx.quick) },
  'gl-cull': { heading: GL_CULL_HEADING, run: glCullSection },
  webgl2: { heading: WEBGL2_HEADING, run: webgl2Section },
  impostors: { heading: IMPOSTORS_HEADING, run: impostorsSection },
};

/**
 * The sections the full run prints after its own sections, the controllers and three.js's, in
 * this order. The impostors section is not among them: only --section impostors runs it.
 */
export const FULL_RUN_SECTIONS: readonly SectionName[] = ['culling', 'million', 'clip-library', 'picking', 'three-shading', 'appearance', 'steering', 'draw', 'load-formats', 'gl-cull', 'webgl2'];
