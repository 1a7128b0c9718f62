/**
 * tools/bench/report.ts mergeSection: `npm run bench -- --section X` replaces its own section of
 * BENCHMARKS.md and nothing else, even where a lent machine's subsection bears the same title.
 */
import { describe, expect, it } from 'vitest';
import { mergeSection } from '../../tools/bench/report';

const FILE = [
  '# Benchmarks', '', '## A', 'a old', '',
  '## On an NVIDIA H200', '', '### B', 'b on the GPU', '', '### C', 'c on the GPU', '',
  '## B', 'b old', '', '## D', 'd', '',
].join('\n');

describe('mergeSection', () => {
  it('replaces the section headed by the whole line, not a lent machine\'s ### of the same title', () => {
    const merged = mergeSection(FILE, '## B', '## B\nb new\n');
    expect(merged).toContain('### B\nb on the GPU\n\n### C\nc on the GPU');
    expect(merged).toContain('## B\nb new\n\n## D\nd');
    expect(merged).not.toContain('b old');
    // The substring match that did this once: '## B' found inside '### B', up to the next '## '.
    const substring = FILE.slice(0, FILE.indexOf('## B')) + '## B\nb new\n' + FILE.slice(FILE.indexOf('\n## ', FILE.indexOf('## B') + 4));
    expect(substring).not.toContain('c on the GPU');
    expect(merged).not.toBe(substring);
  });

  it('replaces a section at the start of the file or at its end, and appends one it lacks', () => {
    expect(mergeSection('## A\na old\n\n## B\nb', '## A', '## A\na new\n')).toBe('## A\na new\n\n## B\nb');
    expect(mergeSection(FILE, '## D', '## D\nd new')).toBe(`${FILE.slice(0, FILE.indexOf('## D'))}## D\nd new`);
    expect(mergeSection(FILE, '## E', '## E\ne')).toBe(`${FILE.trimEnd()}\n\n## E\ne`);
  });
});
