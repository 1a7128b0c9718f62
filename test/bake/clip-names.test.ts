import { describe, expect, it } from 'vitest';
import { resolveClip } from '../../src/bake/clip-names';

const clips = ['Survey', 'Walk', 'Run'];

describe('resolveClip: validity', () => {
  it('rejects unknown names, out-of-range and fractional indices, in the caller\'s wording', () => {
    expect(() => resolveClip(clips, 'Jog', { model: 'Fox.glb' })).toThrow(/^no clip "Jog" in Fox.glb \(clips: "Survey", "Walk", "Run"\)$/);
    expect(() => resolveClip(clips, 3)).toThrow(/^no clip 3 \(clips/);
    expect(() => resolveClip(clips, 1.5)).toThrow(/^no clip 1.5/);
    expect(() => resolveClip(clips, -1)).toThrow(/^no clip -1/);
    expect(() => resolveClip(clips, 'Jog', { where: 'config.clips', accepts: 'name', noun: 'named' })).toThrow(/^config\.clips: no clip named "Jog"/);
    expect(() => resolveClip(clips, 1, { where: 'config.clips', accepts: 'name', noun: 'named' })).toThrow(/^config\.clips: no clip named 1/);
    expect(() => resolveClip(clips, 'Dance', { where: '--clip', accepts: 'name or digits', noun: 'named or numbered', quote: 'single' }))
      .toThrow(/^--clip: no clip named or numbered 'Dance' \(clips: 0 'Survey', 1 'Walk', 2 'Run'\)$/);
    expect(() => resolveClip([], 'Walk')).toThrow(/\(clips: none\)/);
  });

  it('says what a clip is named by when given no string or number (never "no clip null")', () => {
    expect(() => resolveClip(clips, null, { where: 'base.clip' })).toThrow(/^base\.clip: a clip is named by its name or index, got null$/);
    expect(() => resolveClip(clips, undefined)).toThrow(/got nothing$/);
    expect(() => resolveClip(clips, { name: 'Walk' }, { accepts: 'name' })).toThrow(/its name \(a string\), got an object$/);
    expect(() => resolveClip(clips, ['Walk'])).toThrow(/got an array$/);
  });
});

describe('resolveClip: behaviour', () => {
  it('names resolve first; indices only where the caller accepts them', () => {
    expect(resolveClip(clips, 'Run')).toBe(2);
    expect(resolveClip(clips, 0)).toBe(0);
    expect(resolveClip(['1', '0'], '0', { accepts: 'name or digits' })).toBe(1); // a name that looks like a number wins
    expect(resolveClip(clips, '2', { accepts: 'name or digits' })).toBe(2);
    expect(() => resolveClip(clips, '2')).toThrow(/no clip "2"/);
  });
});
