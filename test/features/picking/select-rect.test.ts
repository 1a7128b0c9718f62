import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mat4, vec4 } from 'wgpu-matrix';
import type { Character } from '../../../src/character/character';
import { CrowdPicking } from '../../../src/features/picking/crowd-picking';
import { SELECT_PARAMS } from '../../../src/features/picking/picking-wgsl';
import type { ScreenRect } from '../../../src/features/picking/ray';
import { Crowd } from '../../../src/runtime/crowd';
import { figureCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { seededRandom } from '../../helpers/prng';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/**
 * The CPU reference of selectRect: the ids whose rest-pose bounds centre, through their world
 * transform (getTransform) and `viewProjection`, lies in front of the camera and inside `rect`
 * (pixels of a width x height viewport), in float64.
 */
function selectOnCpu(crowd: Crowd, ids: number[], character: Character, viewProjection: Float32Array, width: number, height: number, rect: ScreenRect): number[] {
  const { min, max } = character.bounds;
  const centre = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2, 1];
  const xs = [(2 * rect.x0) / width - 1, (2 * rect.x1) / width - 1].sort((a, b) => a - b);
  const ys = [1 - (2 * rect.y0) / height, 1 - (2 * rect.y1) / height].sort((a, b) => a - b);
  return ids.filter((id) => {
    const world = vec4.transformMat4(centre, crowd.getTransform(id), new Float64Array(4));
    const clip = vec4.transformMat4(world, viewProjection, new Float64Array(4));
    if (clip[3] <= 0 || clip[2] < 0 || clip[2] > clip[3]) return false;
    const x = clip[0] / clip[3], y = clip[1] / clip[3];
    return x >= xs[0] && x <= xs[1] && y >= ys[0] && y <= ys[1];
  });
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('select.wgsl Params', () => {
  it('SELECT_PARAMS matches the struct in the shader, field by field', () => {
    const source = readFileSync(new URL('../../../shaders/picking/select.wgsl', import.meta.url), 'utf8').replace(/\/\/.*$/gm, '');
    const fields = [...(/struct Params \{([^}]*)\}/.exec(source)?.[1] ?? '').matchAll(/(\w+)\s*:\s*(\w+)/g)].map((m) => [m[1], m[2]]);
    expect(fields).toEqual([['viewProjection', 'mat4x4f'], ['centre', 'vec4f'], ['rect', 'vec4f'], ['count', 'u32'], ['dispatchWidth', 'u32']]);
    expect(SELECT_PARAMS).toEqual({
      viewProjection: 0,
      centre: 64, //          0 + 64 (mat4x4f)
      rect: 80, //           64 + 16 (vec4f)
      count: 96, //          80 + 16 (vec4f)
      dispatchWidth: 100, // 96 + 4 (u32)
      size: 112, //         104 rounded up to the struct's alignment, 16
    });
  });
});

describe.skipIf(!device)('CrowdPicking.selectRect', () => {
  it('selects the same instances as the CPU reference, for rectangles of every size, corners in any order; a removed instance is not reported', async () => {
    const character = await figureCharacter();
    const crowd = new Crowd(device!, character, FORMATS);
    const picking = new CrowdPicking(crowd);
    const random = seededRandom(22);
    let ids: number[] = [];
    for (let i = 0; i < 400; i++) {
      const id = crowd.add({ clipA: 'rest' });
      crowd.setPlacement(id, (random() - 0.5) * 60, 0, (random() - 0.5) * 60, random() * 6.28, 0.5 + random());
      ids.push(id);
    }
    for (const id of ids.filter((_, i) => i % 7 === 3)) crowd.remove(id);
    ids = ids.filter((_, i) => i % 7 !== 3);
    const width = 640, height = 400;
    const projection = mat4.perspective(1.0, width / height, 0.5, 200);
    const viewProjection = Float32Array.from(mat4.multiply(projection, mat4.lookAt([0, 25, 45], [0, 0, 0], [0, 1, 0])));
    const camera = { viewProjection, width, height };
    const rects: ScreenRect[] = [
      { x0: 0, y0: 0, x1: width, y1: height },
      { x0: 500, y0: 350, x1: 100, y1: 80 },
      ...Array.from({ length: 6 }, () => ({ x0: random() * width, y0: random() * height, x1: random() * width, y1: random() * height })),
      { x0: 10, y0: 10, x1: 11, y1: 11 },
    ];
    const requests = rects.map((rect) => picking.selectRect(rect, camera));
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    crowd.update(0);
    const answers = await Promise.all(requests);
    const counts = rects.map((rect) => selectOnCpu(crowd, ids, character, viewProjection, width, height, rect).length);
    expect(answers.map((a) => a.length)).toEqual(counts);
    rects.forEach((rect, i) => expect(sorted(answers[i]), `rect ${i}`).toEqual(sorted(selectOnCpu(crowd, ids, character, viewProjection, width, height, rect))));
    expect(counts[0]).toBeGreaterThan(100); // most of the crowd is in view
    expect(counts[0]).toBeLessThan(ids.length); // and some is not
    expect(new Set(counts).size).toBeGreaterThan(4);
    // Removed between the frame and the answer: not reported.
    const late = picking.selectRect(rects[0], camera);
    crowd.update(0);
    const again = device!.createCommandEncoder();
    crowd.encode(again);
    device!.queue.submit([again.finish()]);
    const gone = answers[0][0];
    crowd.remove(gone);
    crowd.update(0);
    const lateIds = await late;
    expect(lateIds).not.toContain(gone);
    expect(lateIds.length).toBe(counts[0] - 1);
    crowd.destroy();
  });
});
