import { describe, expect, it } from 'vitest';
import { DEFAULT_LIGHTS } from '../../demo/lights';
import { DEFAULT_STATE, MAX_INSTANCES, readState } from '../../demo/url-state';

describe('readState: invalid input is reported and replaced by defaults', () => {
  it.each([
    ['?instances=abc', /instances=abc is not an integer/],
    ['?instances=2.5', /instances=2.5 is not an integer/],
    ['?instances=', /instances= is not an integer/],
    ['?blend=x', /blend=x is not a number/],
    ['?mode=swarm', /mode=swarm must be crowd or uniform/],
    ['?model=Dragon', /unknown model "Dragon"/],
    ['?skinning=dq', /skinning=dq must be linear or dual-quaternion/],
  ])('%s', (search, problem) => {
    const { state, problems } = readState(search);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
    expect({ ...state, clipA: '', clipB: '' }).toEqual(DEFAULT_STATE);
  });

  it('clamps numbers to their ranges and says so', () => {
    const { state, problems } = readState(`?instances=${MAX_INSTANCES + 1}&blend=-1&speed=9`);
    expect(state.instances).toBe(MAX_INSTANCES);
    expect(state.blend).toBe(0);
    expect(state.speed).toBe(4);
    expect(problems).toHaveLength(3);
  });
});

describe('readState', () => {
  it('defaults to 1,000 Fox instances in crowd mode', () => {
    const { state, problems } = readState('');
    expect(problems).toEqual([]);
    expect(state).toMatchObject({ model: 'Fox', instances: 1000, mode: 'crowd', paused: false, randomPhases: true });
    // The environment light (the generated sky) is on unless the URL says env=0.
    expect(state.lights.environment).toBe(true);
  });

  it('reads every field', () => {
    const { state, problems } = readState('?model=RobotExpressive&instances=10000&mode=uniform&clipA=Idle&clipB=Dance' +
      '&blend=0.25&speed=2&paused=1&randomPhases=0&variety=0.5&grid=0&modelUrl=/x.glb&culling=0&lod=0&animationLod=0&shadows=0' +
      '&impostors=0&skinning=dual-quaternion&appearance=1&sunI=3&sky=ff0000&env=0&envI=0.5&backend=webgl2');
    expect(problems).toEqual([]);
    expect(state).toEqual({
      model: 'RobotExpressive', modelUrl: '/x.glb', instances: 10000, mode: 'uniform', clipA: 'Idle', clipB: 'Dance',
      blend: 0.25, speed: 2, paused: true, randomPhases: false, variety: 0.5, grid: false,
      culling: false, lod: false, animationLod: false, shadows: false, impostors: false, skinning: 'dual-quaternion',
      appearance: true, lights: { ...DEFAULT_LIGHTS, sunIntensity: 3, sky: '#ff0000', environment: false, environmentIntensity: 0.5 }, backend: 'webgl2',
    });
  });
});
