/**
 * The Markdown that `npm run bench` prints and writes to BENCHMARKS.md (tools/bench.ts): the
 * lines printed so far, and the three ways a run writes them into the file: the package size
 * replaced in place (--size-only), one section replaced or appended (--section), or the whole
 * file (a full run, keeping figures from another machine at its end).
 */
import { readFile, writeFile } from 'node:fs/promises';

/** The file the tables go to, relative to the working directory (the repository root under npm run). */
const FILE = 'BENCHMARKS.md';

/** Milliseconds as the tables give them: 3 decimals under 1 ms, else 1; 'n/a' when not finite. */
export const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(v < 1 ? 3 : 1) : 'n/a');

/**
 * `previous` (a BENCHMARKS.md) with the section headed by the line `heading` (up to the next '## '
 * heading) replaced by `section`, or `section` appended when it has none. The heading is matched
 * as a whole line: '## X' is also the tail of a lent machine's '### X', which a substring match
 * found first, and replaced with every subsection after it (2026-12-04, the impostors section).
 */
export function mergeSection(previous: string, heading: string, section: string): string {
  let start = previous.indexOf(`\n${heading}\n`);
  if (start >= 0) start += 1;
  else if (previous.startsWith(`${heading}\n`)) start = 0;
  else return `${previous.trimEnd()}\n\n${section}`;
  const next = previous.indexOf('\n## ', start + heading.length);
  return previous.slice(0, start) + section + (next < 0 ? '' : previous.slice(next));
}

/** The run's Markdown, line by line: each line printed to stdout as it comes and kept for the file. */
export class Report {
  /** Every line printed so far (the file's text once joined with '\n'). */
  readonly lines: string[] = [];

  /** Prints `line` (empty: a blank line) and keeps it. */
  readonly print = (line = ''): void => {
    console.log(line);
    this.lines.push(line);
  };

  /** Prints a Markdown table: `header`, then one row per entry of `rows`, then a blank line. */
  readonly table = (header: string[], rows: (string | number)[][]): void => {
    this.print(`| ${header.join(' | ')} |`);
    this.print(`|${header.map(() => '---').join('|')}|`);
    for (const row of rows) this.print(`| ${row.join(' | ')} |`);
    this.print();
  };

  /**
   * Replaces the section headed `heading` in BENCHMARKS.md with the lines from `from` on (or puts
   * them before the file's first section when it has none, at its end when it has no section).
   */
  async replaceInPlace(heading: string, from: number): Promise<void> {
    const lines = (await readFile(FILE, 'utf8')).split('\n');
    const section = this.lines.slice(from);
    let start = lines.indexOf(heading);
    let end = start;
    if (start < 0) start = end = lines.findIndex((l) => l.startsWith('## '));
    else do end++; while (end < lines.length && !lines[end].startsWith('## '));
    lines.splice(start < 0 ? lines.length : start, end - start, ...section);
    await writeFile(FILE, lines.join('\n'));
  }

  /**
   * The section headed `heading` (the printed lines from that heading on) in place of the same
   * section of BENCHMARKS.md, up to the next '## ' heading, or appended when the file has none;
   * written unless `dryRun` (--quick).
   */
  async replaceSection(heading: string, dryRun: boolean): Promise<void> {
    const previous = await readFile(FILE, 'utf8').catch(() => '');
    const merged = mergeSection(previous, heading, this.lines.slice(this.lines.indexOf(heading)).join('\n'));
    if (!dryRun) await writeFile(FILE, merged);
  }

  /**
   * The whole file: the printed lines, then the file's figures from another machine (from a
   * section headed '## On an ...', say, to the end), which this run cannot redo; written unless
   * `dryRun` (--quick).
   */
  async writeAll(dryRun: boolean): Promise<void> {
    const LENT_HEADING = '\n## On an ';
    const previousFile = await readFile(FILE, 'utf8').catch(() => '');
    const lent = previousFile.includes(LENT_HEADING) ? previousFile.slice(previousFile.indexOf(LENT_HEADING)) : '';
    if (!dryRun) await writeFile(FILE, this.lines.join('\n').trimEnd() + '\n' + lent);
  }
}
