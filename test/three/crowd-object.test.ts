/**
 * CrowdObject3D (src/three/crowd-object.ts): three's own Raycaster, intersectObject(s), against a
 * crowd's posed instances, in Node on the test device (the async path runs a crowd frame there).
 */
import { describe, expect, it } from 'vitest';
import { BoxGeometry, Mesh, MeshBasicMaterial, Raycaster, Scene, Vector3 } from 'three/webgpu';
import { mat4 } from 'wgpu-matrix';
import { CrowdObject3D } from '../../src/three/index';
import { Crowd, CrowdPicking } from '../../src/index';
import { figureCharacter } from '../helpers/character';
import { ARM_LENGTH, FIGURE_HALF_DEPTH, SHOULDER } from '../helpers/figure-rig';
import { openTestDevice } from '../helpers/gpu';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
/** A ray from z = 5 towards -z through (x, y). */
const raycaster = (x: number, y: number) => new Raycaster(new Vector3(x, y, 5), new Vector3(0, 0, -1));

describe.skipIf(!device)('CrowdObject3D: three\'s Raycaster hits a crowd\'s posed instances', () => {
  it('returns the instance under a posed arm with its instanceId, sorted among three\'s own meshes, and nothing between the legs', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const object = new CrowdObject3D(crowd);
    const behind = crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, -4]) });
    const posed = crowd.add({ clipA: 'armOut' });
    const wall = new Mesh(new BoxGeometry(10, 10, 0.2), new MeshBasicMaterial());
    wall.position.set(0, 0, -2);
    const scene = new Scene().add(object, wall);
    scene.updateMatrixWorld();

    const x = SHOULDER[0] + ARM_LENGTH * 0.7; // the arm held out; empty air in the bind pose
    const onArm = raycaster(x, SHOULDER[1]).intersectObjects(scene.children);
    expect(onArm.map((i) => [i.object === object ? 'crowd' : 'wall', i.instanceId])).toEqual([['crowd', posed], ['wall', undefined]]); // the wall's front face (FrontSide)
    expect(onArm[0].distance).toBeCloseTo(5 - FIGURE_HALF_DEPTH, 6);
    expect(onArm[0].point.x).toBeCloseTo(x, 6);
    expect(Math.abs(onArm[0].face!.normal.z)).toBeCloseTo(1, 6); // the arm's z = 0.15 face (the test figure winds its boxes inward)
    expect(typeof onArm[0].faceIndex).toBe('number');

    // Between the legs (inside both figures' boxes): the wall only. Beside the gap: both figures, nearest first.
    expect(raycaster(0, 0.5).intersectObject(scene, true).map((i) => i.object)).toEqual([wall]);
    const leg = raycaster(0.25, 0.5).intersectObject(scene, true);
    expect(leg.filter((i) => i.object === object).map((i) => i.instanceId)).toEqual([posed, behind]);
    expect(leg[0].instanceId).toBe(posed);
    const torso = raycaster(0, 1.5);
    torso.far = 100;
    scene.remove(wall);
    expect(torso.intersectObject(scene, true).map((i) => i.instanceId)).toEqual([posed, behind]);
    torso.near = 6;
    expect(torso.intersectObject(scene, true).map((i) => i.instanceId)).toEqual([behind]);
    crowd.destroy();
  });

  it('raycastAsync answers from the GPU a frame later, agreeing with the synchronous CPU answer', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    expect(() => new CrowdObject3D(crowd)).toThrow(/has a CrowdPicking already/);
    const object = new CrowdObject3D(crowd, { picking });
    const id = crowd.add({ clipA: 'armOut' });
    const ray = raycaster(SHOULDER[0] + ARM_LENGTH * 0.7, SHOULDER[1]);
    const cpu = ray.intersectObject(object);
    const gpu = object.raycastAsync(ray);
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    crowd.update(0);
    const answer = await gpu;
    expect(answer?.instanceId).toBe(id);
    expect(answer!.object).toBe(object);
    expect(answer!.distance).toBeCloseTo(cpu[0].distance, 3);
    crowd.destroy();
  });

  it('refuses to raycast when moved: the crowd is drawn in world space, not under the object', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const object = new CrowdObject3D(crowd);
    crowd.add({ clipA: 'rest' });
    object.position.x = 1;
    expect(() => raycaster(0, 1.5).intersectObject(object)).toThrow(/must stay at the origin/);
    object.position.x = 0;
    expect(raycaster(0, 1.5).intersectObject(object)).toHaveLength(1);
    crowd.destroy();
  });
});
