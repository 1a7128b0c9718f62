import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENE_STATE, GL_STADIUM_INSTANCES, glInstances, readSceneState, SCENE_DEFAULTS, writeSceneParams } from '../../demo/scene-state';
import { readState } from '../../demo/url-state';

function read(search: string) {
  const { state, problems } = readState(search);
  const scene = readSceneState(search, state, problems);
  return { state, scene, problems };
}

describe('readSceneState: invalid input is reported and replaced by defaults', () => {
  it.each([
    ['?scene=ballet', /scene=ballet must be crowd, layers, locomotion/],
    ['?scene=layers&layerWeight=x', /layerWeight=x is not a number/],
    ['?scene=layers&additiveWeight=', /additiveWeight= is not a number/],
    ['?scene=clips&clipsBody=Robot', /clipsBody=Robot must be one of WalkerStocky, WalkerVRoid, .*; showing WalkerStocky$/],
    ['?scene=clips&clipSet=x.glb', /clipSet=x\.glb must be one of WalkerClips\.glb, WalkerClipsMixamo\.glb, .*; showing WalkerClips\.glb$/],
    ['?scene=stadium&view=roof', /view=roof must be bowl or front/],
    ['?scene=stadium&flags=yes', /flags=yes must be 1 or 0/],
  ])('%s', (search, problem) => {
    const { problems } = read(search);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('clamps weights to [0, 1] and says so', () => {
    const { scene, problems } = read('?scene=layers&layerWeight=2&additiveWeight=-1');
    expect(scene.layerWeight).toBe(1);
    expect(scene.additiveWeight).toBe(0);
    expect(problems).toHaveLength(2);
  });
});

describe('readSceneState', () => {
  it('defaults to the crowd scene and leaves the crowd settings alone', () => {
    const { state, scene, problems } = read('');
    expect(problems).toEqual([]);
    expect(scene).toEqual(DEFAULT_SCENE_STATE);
    expect(state).toMatchObject({ model: 'Fox', instances: 1000 });
  });

  it('gives each scene its own model and instance count unless the URL names them', () => {
    expect(read('?scene=locomotion').state).toMatchObject(SCENE_DEFAULTS.locomotion);
    expect(read('?scene=layers').state).toMatchObject(SCENE_DEFAULTS.layers);
    expect(read('?scene=clips').state).toMatchObject({ model: 'WalkerBody', instances: 200 });
    expect(read('?scene=stadium').state).toMatchObject({ model: 'Fox', instances: 1_000_000 });
    expect(read('?scene=stadium&instances=20000').state.instances).toBe(20_000);
    expect(read('?scene=locomotion&model=Fox&instances=7').state).toMatchObject({ model: 'Fox', instances: 7 });
    expect(read('?scene=locomotion&modelUrl=/x.glb').state.model).toBe('Fox');
  });

  it('seats the stadium on WebGL 2 at the 10k stress test where it was given its WebGPU million, and as asked otherwise', () => {
    const gl = (search: string) => { const { state, scene } = read(search); return glInstances(scene.scene, state.instances); };
    expect(GL_STADIUM_INSTANCES).toBe(10_000);
    expect([gl('?scene=stadium'), gl('?scene=stadium&instances=1000000')]).toEqual([10_000, 10_000]);
    expect([gl('?scene=stadium&instances=20000'), gl('?scene=stadium&instances=500')]).toEqual([20_000, 500]);
    // Another scene given a million keeps it (the crowd scene's 1M preset).
    expect(gl('?scene=crowd&instances=1000000')).toBe(1_000_000);
  });

  it('reads every field', () => {
    const { scene, problems } = read('?scene=layers&layerClip=Survey&layerJoint=b_Neck_04&layerWeight=0.25&additiveWeight=0.75');
    expect(problems).toEqual([]);
    expect(scene).toEqual({ ...DEFAULT_SCENE_STATE, scene: 'layers', layerClip: 'Survey', layerJoint: 'b_Neck_04', layerWeight: 0.25, additiveWeight: 0.75 });
    const clips = read('?scene=clips&clipsBody=WalkerVRoid&clipSet=WalkerClipsMixamo.glb&legSolve=0');
    expect(clips.problems).toEqual([]);
    expect(clips.scene).toMatchObject({ scene: 'clips', clipsBody: 'WalkerVRoid', clipSet: 'WalkerClipsMixamo.glb', legSolve: false });
  });

  it('round-trips through writeSceneParams', () => {
    const written = { ...DEFAULT_SCENE_STATE, scene: 'layers', layerClip: 'Run', layerJoint: 'b_Head_05', layerWeight: 0.5, additiveWeight: 0.125 } as const;
    const params = new URLSearchParams();
    writeSceneParams(params, written);
    expect(read(`?${params}`).scene).toEqual(written);
    const clips = { ...DEFAULT_SCENE_STATE, scene: 'clips', clipsBody: 'WalkerLegs', clipSet: 'Mannequin.glb', legSolve: false } as const;
    const clipsParams = new URLSearchParams();
    writeSceneParams(clipsParams, clips);
    expect(read(`?${clipsParams}`).scene).toEqual(clips);
    // A dropped file's name is not in the URL (a reload cannot have the file): the defaults stand.
    const dropped = new URLSearchParams();
    writeSceneParams(dropped, { ...clips, clipsBody: 'avatar.vrm', clipSet: 'moves.glb', legSolve: true });
    expect(dropped.toString()).toBe('scene=clips');
  });

  it('reads and writes the stadium\'s view and flags, in the stadium only and when not the default', () => {
    expect(read('?scene=stadium&view=front').scene.view).toBe('front');
    expect([read('?scene=stadium&flags=1').scene.flags, read('?scene=stadium&flags=0').scene.flags, read('?scene=stadium').scene.flags]).toEqual([true, false, false]);
    const params = new URLSearchParams();
    writeSceneParams(params, { ...DEFAULT_SCENE_STATE, scene: 'stadium', view: 'front', flags: true });
    expect(params.toString()).toBe('scene=stadium&view=front&flags=1');
    for (const state of [{ scene: 'stadium', view: 'bowl' }, { scene: 'crowd', view: 'front', flags: true }] as const) {
      const other = new URLSearchParams();
      writeSceneParams(other, { ...DEFAULT_SCENE_STATE, ...state });
      expect(other.toString()).toBe(`scene=${state.scene}`);
    }
  });

  it('writes only the scene outside the layers scene', () => {
    const params = new URLSearchParams();
    writeSceneParams(params, { ...DEFAULT_SCENE_STATE, scene: 'locomotion', layerClip: 'Run' });
    expect(params.toString()).toBe('scene=locomotion');
  });
});
