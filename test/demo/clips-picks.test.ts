import { describe, expect, it } from 'vitest';
import type { Character, ClipBinding } from '../../src/index';
import type { DroppedModel } from '../../demo/drop';
import { CLIP_SETS, CLIPS_BODIES } from '../../demo/models';
import { DEFAULT_SCENE_STATE, type SceneState } from '../../demo/scene-state';
import { bindingSummary, ClipsPicks } from '../../demo/scenes/clips-picks';

/**
 * The clips scene's picks (demo/scenes/clips-picks.ts), in Node: what loadScene is asked to bind
 * for the panel's pickers and for dropped files, what a refusal puts back, and the line the panel
 * shows per body. The page itself runs in test/e2e/demo-features.test.ts.
 */

const dropped = (name: string, clipsOnly: boolean): DroppedModel => ({
  name, clipsOnly, source: { model: '', url: '', file: { bytes: new ArrayBuffer(8), baseUrl: `http://x/${name}`, readResource: () => Promise.reject(new Error('none')) } },
});
const withBindings = (...clipBindings: ClipBinding[]) => ({ clipBindings }) as unknown as Character;
const humanoid = (h: Partial<NonNullable<ClipBinding['humanoid']>>, rootScale = 1): ClipBinding => ({
  file: 'x.glb', remap: new Int32Array(0), retargeted: true, rootScale, humanoid: { body: 'VRMC_vrm', file: 'Mixamo', bones: 17, unmapped: [], legs: 0, ...h },
});

describe('ClipsPicks', () => {
  it('binds the pickers\' body and clip set from public/models, the default for a name it does not know', () => {
    const state: SceneState = { ...DEFAULT_SCENE_STATE, scene: 'clips', clipsBody: 'WalkerLegs', clipSet: 'WalkerClipsMixamo.glb', legSolve: false };
    const picks = new ClipsPicks(state);
    expect(picks.choice()).toEqual({
      body: { label: 'WalkerLegs', ...CLIPS_BODIES.WalkerLegs }, set: { label: 'WalkerClipsMixamo.glb', url: CLIP_SETS['WalkerClipsMixamo.glb'], file: undefined }, legSolve: false,
    });
    state.clipsBody = 'gone.vrm';
    state.clipSet = 'gone.glb';
    expect([picks.choice().body.label, picks.choice().set.label]).toEqual(['WalkerStocky', 'WalkerClips.glb']);
  });

  it('a dropped body or clips file becomes the pick and joins its picker; a refused one is forgotten and the shown picks come back', () => {
    const state: SceneState = { ...DEFAULT_SCENE_STATE, scene: 'clips' };
    const picks = new ClipsPicks(state);
    const shown = picks.choice();
    picks.drop(dropped('avatar.vrm', false));
    expect(state.clipsBody).toBe('avatar.vrm');
    expect(picks.bodyNames).toEqual([...Object.keys(CLIPS_BODIES), 'avatar.vrm']);
    expect(picks.choice().body).toMatchObject({ label: 'avatar.vrm', url: '', file: { baseUrl: 'http://x/avatar.vrm' }, load: { rootMotion: { mode: 'in-place' } } });
    picks.drop(dropped('moves.glb', true));
    expect(state.clipSet).toBe('moves.glb');
    expect(picks.setNames).toEqual([...Object.keys(CLIP_SETS), 'moves.glb']);
    expect(picks.choice().set).toMatchObject({ label: 'moves.glb', file: { baseUrl: 'http://x/moves.glb' } });
    // Both refused: back to what the scene shows, the two files out of the pickers.
    expect(picks.revert(shown)).toBe(true);
    expect([state.clipsBody, state.clipSet, picks.bodyNames.includes('avatar.vrm'), picks.setNames.includes('moves.glb')]).toEqual(['WalkerStocky', 'WalkerClips.glb', false, false]);
    // Nothing picked differs from the scene shown: nothing to go back to.
    expect(picks.revert(shown)).toBe(false);
  });
});

describe('bindingSummary: the panel\'s line on how the clip set bound to a body', () => {
  it.each([
    [withBindings(humanoid({})), true, 'humanoid VRMC_vrm <- Mixamo: 17 bones mapped, 0 unmapped, hips x1.00, leg solve off (legs in proportion)'],
    [withBindings(humanoid({ body: 'crowd-skin', unmapped: ['Spine.001'] })), true, 'humanoid crowd-skin <- Mixamo: 17 bones mapped, 1 unmapped (Spine.001), hips x1.00, leg solve off (legs in proportion)'],
    [withBindings(humanoid({ legs: 2 }, 0.8)), true, 'humanoid VRMC_vrm <- Mixamo: 17 bones mapped, 0 unmapped, hips x0.80, leg solve on (2 legs)'],
    [withBindings(humanoid({})), false, 'humanoid VRMC_vrm <- Mixamo: 17 bones mapped, 0 unmapped, hips x1.00, leg solve off (switched off)'],
    [withBindings({ file: 'x.glb', remap: new Int32Array(0), retargeted: false, rootScale: 1 }), true, 'the clips\' own skeleton: copied by name'],
    [withBindings({ file: 'x.glb', remap: new Int32Array(0), retargeted: true, rootScale: 1 }), true, 'bound by node name, retargeted joint by joint (no humanoid on a side)'],
    [withBindings(), true, 'no clip set bound'],
  ])('%#', (character, legSolve, line) => {
    expect(bindingSummary(character, legSolve)).toBe(line);
  });
});
