import { it } from 'vitest';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../../src/runtime/culling/cull-math';
import { Crowd } from '../../../src/runtime/crowd';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { lookAt, renderCrowd } from '../../helpers/render';

const TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const SIZE = 128;
const FOV = 2 * Math.atan(Math.tan(0.45) * SIZE / 1080);
function compare(a: Uint8Array, b: Uint8Array) {
  let sum = 0, both = 0, one = 0, edge = 0, onlyA = 0, onlyB = 0;
  for (let i = 0; i < a.length; i += 4) {
    const ca = a[i] + a[i + 1] + a[i + 2] > 0, cb = b[i] + b[i + 1] + b[i + 2] > 0;
    const d = (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2])) / 3;
    if (ca && cb) { both++; sum += d; } else if (ca || cb) { one++; edge += d; if (ca) onlyA++; else onlyB++; }
  }
  return `inside ${(sum / both).toFixed(2)} union ${((sum + edge) / (both + one)).toFixed(2)} outline ${(100 * one / (both + one)).toFixed(1)}% (imp only ${onlyA}, mesh only ${onlyB}) of ${both + one}`;
}
it('scratch', async () => {
  const device = (await openTestDevice())!;
  const fox = await testCharacter('Fox');
  const configs = JSON.parse(process.env.CONFIGS ?? '[{}]');
  for (const cfg of configs) {
    const crowd = new Crowd(device, fox, { ...TARGETS, ...(cfg.crowd ?? {}) });
    const impostors = new CrowdImpostors(crowd, { frames: 4, azimuths: 4, elevations: 1, cellSize: 128, ...(cfg.imp ?? {}) });
    const duration = fox.clipDurations[1];
    crowd.add({ clipA: cfg.clip ?? 1, timeA: duration * (cfg.t ?? 0.25), speedA: 1 });
    const { centre, radius } = boxSphere(fox.animationBounds.box);
    const az = cfg.az ?? Math.PI / 2;
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
    const switchAt = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE);
    const d = switchAt * (cfg.at ?? 1.02);
    const eye: [number, number, number] = [centre[0] + Math.sin(az) * d, centre[1] + (cfg.up ?? 0) * d, centre[2] + Math.cos(az) * d];
    const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
    const out: Uint8Array[] = [];
    for (const on of [true, false]) {
      impostors.enabled = on;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      out.push(await renderCrowd(device, crowd, viewProjection, SIZE));
    }
    console.log(JSON.stringify(cfg), compare(out[0], out[1]));
    crowd.destroy();
  }
}, 900_000);
