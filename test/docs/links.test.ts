/**
 * Every relative link in README.md and docs/ resolves: the file or folder exists (relative to the
 * markdown file), and an anchor names a heading of the target markdown file (GitHub's slugs).
 * Links into src/ and shaders/ count too, so a source file moved without its docs fails here.
 * Links in code (fenced blocks, `spans`) and absolute URLs (http:, mailto:, ...) are not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `markdown` without fenced code blocks and inline code spans (links there are examples, not links). */
function withoutCode(markdown: string): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opening) fence = opening;
    else if (fence !== undefined && line.trim().startsWith(fence)) fence = undefined;
    else if (fence === undefined) { lines.push(line.replace(/(`+)[^`]*?\1/g, '')); continue; }
    lines.push('');
  }
  return lines.join('\n');
}

/** GitHub's anchor of a heading: its text lowercased, punctuation other than - and _ dropped, each space a '-'. */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/<[^>]+>/g, '') // HTML tags
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** The anchors of a markdown file: every heading's slug (repeats get -1, -2, ... as on GitHub) and every HTML id or name. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opening) { fence = opening; continue; }
    if (fence !== undefined) { if (line.trim().startsWith(fence)) fence = undefined; continue; }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  }
  return anchors;
}

/** The link targets of `markdown`: inline `[text](target)`, images, and reference definitions `[label]: target`. */
export function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const targets: string[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(target);
  for (const [, target] of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(target);
  return targets;
}

/**
 * The relative links of `markdown` (the text of the file at `file`) that do not resolve, each as
 * "target: why". `read` gives the text of another markdown file (for its anchors).
 */
export function brokenLinks(markdown: string, file: string, read = (path: string) => readFileSync(path, 'utf8'), exists: (path: string) => boolean = existsSync): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, https:, mailto:, ...
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const path = pathPart === '' ? file : pathPart.startsWith('/') ? join(REPO_ROOT, pathPart) : join(dirname(file), pathPart);
    if (!exists(path)) {
      broken.push(`${target}: ${relative(REPO_ROOT, path) || path} does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (/\.md$/i.test(path)) {
      if (!anchorsOf(read(path)).has(anchor)) broken.push(`${target}: no heading "#${anchor}" in ${relative(REPO_ROOT, path) || path}`);
    } else if (!/^L\d+(-L\d+)?$/.test(anchor)) {
      broken.push(`${target}: an anchor into a file that is not markdown (only #L12 or #L12-L20 lines)`);
    }
  }
  return broken;
}

/** README.md and every markdown file under docs/. */
function documentation(): string[] {
  const files = [join(REPO_ROOT, 'README.md')];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(REPO_ROOT, 'docs'));
  return files;
}

describe('documentation links', () => {
  it('the checker catches a missing file, a missing anchor and a missing source file, and passes good links', () => {
    const file = join(REPO_ROOT, 'docs', 'synthetic.md');
    const markdown = [
      '# A page',
      '## Second heading: `code`, and (punctuation)!',
      'Good: [readme](../README.md), [a folder](../src/), [own anchor](#a-page), [heading](#second-heading-code-and-punctuation),',
      '[web](https://example.com/x.md), [mail](mailto:a@b.c), [readme heading](../README.md#the-two-commands).',
      'Broken: [gone](missing-page.md), [bad anchor](#no-such-heading), [source](../src/no-such-folder/file.ts),',
      '[bad anchor elsewhere](../README.md#no-such-heading).',
      '```md',
      '[in a code block](not-checked.md)',
      '```',
      'In a span: `[not a link](not-checked-either.md)`.',
      '[ref]: ./also-missing.md',
    ].join('\n');
    const read = (path: string) => (path === file ? markdown : '# crowd-skin\n## The two commands\n');
    const exists = (path: string) => path === file || existsSync(path);
    expect(brokenLinks(markdown, file, read, exists)).toEqual([
      'missing-page.md: docs/missing-page.md does not exist',
      '#no-such-heading: no heading "#no-such-heading" in docs/synthetic.md',
      '../src/no-such-folder/file.ts: src/no-such-folder/file.ts does not exist',
      '../README.md#no-such-heading: no heading "#no-such-heading" in README.md',
      './also-missing.md: docs/also-missing.md does not exist',
    ]);
  });

  it('slugs headings as GitHub does', () => {
    expect(headingSlug('In a three.js scene: `crowd-skin/three`')).toBe('in-a-threejs-scene-crowd-skinthree');
    expect(headingSlug("Root motion applied (`mode: 'apply'`)")).toBe('root-motion-applied-mode-apply');
    expect(headingSlug('GPU-driven controllers: CPU cost per event')).toBe('gpu-driven-controllers-cpu-cost-per-event');
    expect([...anchorsOf('# A\n## Notes\n## Notes\n```\n# not a heading\n```\n<a id="here"></a>')]).toEqual(['a', 'notes', 'notes-1', 'here']);
  });

  it('README.md has at most 250 lines', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  for (const file of documentation()) {
    it(`every relative link in ${relative(REPO_ROOT, file)} resolves`, () => {
      expect(brokenLinks(readFileSync(file, 'utf8'), file)).toEqual([]);
    });
  }
});
