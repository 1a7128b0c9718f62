import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mat4d } from 'wgpu-matrix';
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleLut } from '../../../src/anim/lut';
import { restPose } from '../../../src/bake/sampler';
import { loadCharacter, type Character } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { CrowdProps } from '../../../src/features/props/crowd-props';
import { HANDLE_SPAN } from '../../../src/runtime/instance-ids';
import { INSTANCE } from '../../../src/runtime/layout';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { BUNDLED_MODELS } from '../../helpers/models';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';
import { kernelOf } from '../../helpers/kernel';
import { withFeatures } from '../../helpers/features';

/**
 * Props on joints (Crowd.attach, src/features/props/crowd-props.ts, src/features/props/prop-pass.ts): the prop's world
 * matrix the GPU computes from the joint matrices equals world * model(joint) * offset on the
 * CPU; the prop is drawn, for the chosen instances only, culled with its character; bad input is
 * refused with its name and leaves every attachment as it was.
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const MODELS = ['Fox', 'CesiumMan', 'RobotExpressive', 'Walker'];
/** Joints the prop goes on, per model: a hand (a deep joint), the root-most joint, and the last joint slot. */
const JOINTS: Record<string, string[]> = {
  Fox: ['b_RightHand_08', 'b_Tail03_014'],
  CesiumMan: ['Skeleton_arm_joint_R__3_', 'leg_joint_L_5'],
  RobotExpressive: ['Palm2.R', 'Head', 'Foot.R'],
  Walker: ['Hand.R', 'Foot.L'],
};

let swordLoad: Promise<Character> | undefined;
/** The bundled Sword prop (public/models/Props/Sword.glb, tools/make-props.ts), loaded once. */
function sword(): Promise<Character> {
  const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
  swordLoad ??= loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
  return swordLoad;
}

function diagonal(c: Character): number {
  const { min, max } = c.bounds;
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** A column-major affine transform: rotation `angle` about unit `axis`, uniform `scale`, then translation `t`. */
function transform(axis: [number, number, number], angle: number, scale: number, t: [number, number, number]): Float64Array {
  const m = mat4d.axisRotation(axis, angle, new Float64Array(16));
  mat4d.scale(m, [scale, scale, scale], m);
  m[12] = t[0]; m[13] = t[1]; m[14] = t[2];
  return m;
}

/** update(0), then one frame drawn into a 128 x 128 target (test/helpers/render.ts). */
function draw(crowd: Crowd, viewProjection: Float32Array): Promise<Uint8Array> {
  crowd.update(0);
  return renderCrowd(device!, crowd, viewProjection, 128);
}

/** Writes a 128 x 128 rgba picture to test-results/props/<name>.png, for a person to look at. */
function save(name: string, pixels: Uint8Array): void {
  const png = new PNG({ width: 128, height: 128 });
  png.data.set(pixels);
  mkdirSync('test-results/props', { recursive: true });
  writeFileSync(`test-results/props/${name}.png`, PNG.sync.write(png));
}

/** The rig node of the first joint slot named `joint`. */
function nodeOf(character: Character, joint: string): number {
  const slot = character.jointNames.indexOf(joint);
  let skin = 0;
  while (skin + 1 < character.rig.skins.length && character.gpu.skinSlotOffset[skin + 1] <= slot) skin++;
  return character.rig.skins[skin].joints[slot - character.gpu.skinSlotOffset[skin]];
}

/** One frame's compute work, submitted and finished. */
async function encodeFrame(crowd: Crowd): Promise<void> {
  crowd.update(0);
  const encoder = device!.createCommandEncoder();
  crowd.encode(encoder);
  device!.queue.submit([encoder.finish()]);
  await device!.queue.onSubmittedWorkDone();
}

describe.skipIf(!device)('Crowd.attach: props on joints', () => {
  it('places the prop at world * model(joint) * offset on every bundled model (GPU vs CPU reference)', async () => {
    const prop = await sword();
    const report: string[] = [];
    for (const name of MODELS) {
      const character = await testCharacter(name);
      const d = diagonal(character);
      const crowd = withFeatures(new Crowd(device!, character, { ...FORMATS, capacity: 4 }));
      const poser = new CpuPoser(character.rig, (clip, t, out) => sampleLut(character.baked, clip, t, out));
      const clips = character.clipNames.length;
      const instances = Array.from({ length: 6 }, (_, i) => {
        const world = transform([0.3, 0.9, -0.3].map((v) => v / Math.hypot(0.3, 0.9, 0.3)) as [number, number, number], 0.7 * i, 0.5 + 0.3 * i, [d * i, 0.1 * d, -0.5 * d * i]);
        const clipA = i % clips;
        const clipB = (i + 1) % clips;
        const state = { clipA, clipB, timeA: 0.17 * i, timeB: 0.31 * i, blend: (i % 3) / 3, speedA: 0, speedB: 0 };
        return { id: crowd.add({ ...state, transform: world }), world, state };
      });
      crowd.remove(instances[2].id); // a slot moves: the records follow the instance
      instances.splice(2, 1);
      // The sword 0.3 diagonals long whatever the joint's own scale (RobotExpressive's joints are scaled by 100).
      const rest = new CpuPoser(character.rig, (_c, _t, out) => restPose(character.rig.nodes, out)).evaluate({ clipA: 0, timeA: 0 });
      const attached = JOINTS[name].map((joint) => {
        const node = nodeOf(character, joint);
        const k = 1 / Math.hypot(rest[node * 16], rest[node * 16 + 1], rest[node * 16 + 2]);
        const offset = transform([0, 0, 1], 0.4, 0.3 * d * k, [0.01 * d * k, -0.02 * d * k, 0.03 * d * k]);
        return { joint, node, offset, id: crowd.attach(prop, { joint, offset }) };
      });
      await encodeFrame(crowd);
      let worstPosition = 0;
      let worstLinear = 0;
      const { min, max } = prop.bounds;
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => [k & 1 ? max[0] : min[0], k & 2 ? max[1] : min[1], k & 4 ? max[2] : min[2], 1]);
      for (const { node, offset, id } of attached) {
        const records = new Float32Array(await readBuffer(device!, crowd.attachmentRecords(id)));
        for (const { id: instance, world, state } of instances) {
          const model = poser.evaluate(state).subarray(node * 16, node * 16 + 16);
          const want = mat4d.multiply(mat4d.multiply(world, model, new Float64Array(16)), offset, new Float64Array(16));
          const at = (kernelOf(crowd).store.slot(instance) * INSTANCE.size) / 4;
          const got = records.subarray(at + INSTANCE.world / 4, at + INSTANCE.world / 4 + 16);
          // Where the prop's bounding-box corners land, against the instance's size (world scale x the model's diagonal).
          const scale = Math.hypot(world[0], world[1], world[2]);
          for (const p of corners) {
            let error = 0;
            for (let r = 0; r < 3; r++) {
              let g = 0, w = 0;
              for (let c = 0; c < 4; c++) { g += got[c * 4 + r] * p[c]; w += want[c * 4 + r] * p[c]; }
              error = Math.hypot(error, g - w);
            }
            worstPosition = Math.max(worstPosition, error / (scale * d));
          }
          let largest = 0;
          for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) largest = Math.max(largest, Math.abs(want[c * 4 + r]));
          for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) worstLinear = Math.max(worstLinear, Math.abs(got[c * 4 + r] - want[c * 4 + r]) / largest);
          expect([got[3], got[7], got[11], got[15]]).toEqual([0, 0, 0, 1]);
        }
      }
      report.push(`${name}: corners ${worstPosition.toExponential(2)} of the diagonal, 3x3 ${worstLinear.toExponential(2)}`);
      expect(worstPosition, name).toBeLessThan(1e-5);
      expect(worstLinear, name).toBeLessThan(1e-5);
      crowd.destroy();
    }
    console.log(`prop transforms, worst GPU error against world * model * offset:\n  ${report.join('\n  ')}`);
  });

  it('draws the prop for every instance or the chosen ones, culled with its character, in one draw per prop primitive', async () => {
    const walker = await testCharacter('Walker');
    const prop = await sword();
    const crowd = withFeatures(new Crowd(device!, walker, { ...FORMATS, capacity: 2 }));
    const a = crowd.add({ clipA: 'Idle', speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -0.6, 0, 0, 1] });
    const b = crowd.add({ clipA: 'Idle', speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.6, 0, 0, 1] });
    const { viewProjection, eye } = lookAt([0, 1, 4], [0, 1, 0], { near: 0.1, far: 100 });
    const render = () => draw(crowd, viewProjection);
    const bare = drawnPixels(await render());
    // A big sword held up and out from the right hand (the Walker's right is -x; it faces the camera).
    const offset = transform([0, 0, 1], 0.5, 1.2, [0, -0.08, 0]);
    const drawsBefore = crowd.drawCallCount;
    const id = crowd.attach(prop, { joint: 'Hand.R', offset: Array.from(offset) });
    expect(crowd.drawCallCount).toBe(drawsBefore + prop.rig.primitives.length);
    const bothPicture = await render();
    save('two-walkers-with-swords', bothPicture);
    const both = drawnPixels(bothPicture);
    crowd.setAttachmentInstances(id, [a]);
    const one = drawnPixels(await render());
    crowd.setAttachmentInstances(id, []);
    const none = drawnPixels(await render());
    crowd.setAttachmentInstances(id, [b, a]);
    const again = drawnPixels(await render());
    console.log(`prop pixels: none ${bare}, both ${both}, one ${one}, empty selection ${none}, both again ${again}`);
    expect(both - bare).toBeGreaterThan(120);
    expect(one - bare).toBeGreaterThan(60);
    expect(both - one).toBeGreaterThan(60);
    expect(none).toBe(bare);
    expect(again).toBe(both);
    // A removed instance leaves the selection: its handle, reused by the next add (under a new id), does not get the prop.
    crowd.remove(a);
    const reused = crowd.add({ clipA: 'Idle', speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -0.6, 0, 0, 1] });
    expect(reused).toBe(a + HANDLE_SPAN);
    const afterReuse = await render();
    expect(drawnPixels(afterReuse)).toBeLessThan(both - 60);
    crowd.setAttachmentInstances(id, [b]);
    expect(differingPixels(await render(), afterReuse)).toBe(0);

    // With a camera (culling, LOD at any level) the picture is the same.
    crowd.setAttachmentInstances(id, undefined);
    const unculled = await render();
    crowd.setCamera(viewProjection, eye);
    expect(differingPixels(await render(), unculled)).toBe(0);
    // Every instance at LOD level 2: the prop is drawn from that level's list too.
    crowd.forceLodLevel(2);
    const level2 = drawnPixels(await render());
    crowd.setAttachmentInstances(id, []);
    const level2Bare = drawnPixels(await render());
    console.log(`LOD level 2: ${level2Bare} pixels without the props, ${level2} with`);
    expect(level2 - level2Bare).toBeGreaterThan(120);
    crowd.destroy();
  });

  it('culls the prop with its character: a prop in view on a character out of view is not drawn', async () => {
    const walker = await testCharacter('Walker');
    const prop = await sword();
    const crowd = withFeatures(new Crowd(device!, walker, { ...FORMATS, capacity: 2 }));
    // The character stands 6 m to the left of the view; its prop is placed 6 m to its right, in view.
    crowd.add({ clipA: 'Idle', speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -6, 0, 0, 1] });
    crowd.attach(prop, { joint: 'Hips', offset: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 6, 0, 0, 1] });
    const { viewProjection, eye } = lookAt([0, 1, 3], [0, 1, 0], { near: 0.1, far: 100 });
    const unculled = drawnPixels(await draw(crowd, viewProjection));
    crowd.setCamera(viewProjection, eye);
    const culled = drawnPixels(await draw(crowd, viewProjection));
    crowd.culling = false; // the camera stays (LOD), culling off: drawn again
    const notCulled = drawnPixels(await draw(crowd, viewProjection));
    console.log(`culling: prop pixels without a camera ${unculled}, culled ${culled}, culling off ${notCulled}`);
    expect(unculled).toBeGreaterThan(100);
    expect(culled).toBe(0);
    expect(notCulled).toBe(unculled);
    crowd.destroy();
  });

  it('takes a skinned Character as a prop (drawn in its rest pose), and survives restore onto a new device', async () => {
    const walker = await testCharacter('Walker');
    const fox = await testCharacter('Fox');
    const crowd = withFeatures(new Crowd(device!, walker, { ...FORMATS, capacity: 2 }));
    crowd.add({ clipA: 'Idle', speedA: 0 });
    const { viewProjection } = lookAt([0, 1, 4], [0, 1, 0], { near: 0.1, far: 100 });
    const bare = drawnPixels(await draw(crowd, viewProjection));
    // A fox (about 160 units long) shrunk to 0.8 m, sitting on the walker's head, turned to show its side.
    const s = 0.005;
    crowd.attach(fox, { joint: 'Head', offset: [0, 0, -s, 0, 0, s, 0, 0, s, 0, 0, 0, 0, 0.2, 0, 1] });
    const withFox = await draw(crowd, viewProjection);
    save('walker-with-fox-hat', withFox);
    expect(drawnPixels(withFox) - bare).toBeGreaterThan(100);
    const other = (await openTestDevice())!;
    crowd.restore(other);
    crowd.update(0);
    const restored = await renderCrowd(other, crowd, viewProjection, 128);
    expect(differingPixels(restored, withFox)).toBe(0);
    crowd.destroy();
    other.destroy();
  });

  it("lights the props with the crowd's lights as setLights changes them: sun, hemisphere and environment", async () => {
    const walker = await testCharacter('Walker');
    const prop = await sword();
    // A red sun from the camera's left, a blue sky, and a green-and-magenta environment: far from the defaults on every term.
    const image = { width: 16, height: 8, data: new Float32Array(16 * 8 * 4).map((_, i) => (i % 4 === 3 ? 1 : (i >> 2) % 16 < 8 ? [0.1, 0.9, 0.1][i % 4] : [0.8, 0.1, 0.7][i % 4])) };
    const lights = {
      sun: { direction: [0.8, -0.5, -0.3] as [number, number, number], color: [1, 0.25, 0.15] as [number, number, number], intensity: 2.5 },
      hemisphere: { sky: [0.1, 0.2, 0.9] as [number, number, number], ground: [0.3, 0.2, 0.05] as [number, number, number], intensity: 0.7 },
      environment: { image, intensity: 0.8 },
    };
    const { viewProjection } = lookAt([0, 1, 4], [0, 1, 0], { near: 0.1, far: 100 });
    const holding = (options: object, withSword = true) => {
      const crowd = new Crowd(device!, walker, { ...FORMATS, capacity: 1, ...options });
      crowd.add({ clipA: 'Idle', speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] });
      if (withSword) new CrowdProps(crowd).attach(prop, { joint: 'Hand.R', offset: Array.from(transform([0, 0, 1], 0.5, 1.2, [0, -0.08, 0])) });
      return crowd;
    };
    const made = holding({ lights });
    const moved = holding({});
    const before = await draw(moved, viewProjection);
    moved.setLights(lights);
    const reference = await draw(made, viewProjection);
    const after = await draw(moved, viewProjection);
    const changed = differingPixels(before, after);
    console.log(`setLights with props: ${changed} pixels changed; against a crowd made with those lights ${differingPixels(reference, after)} differ`);
    expect(changed, 'the lights changed nothing (the test would prove nothing)').toBeGreaterThan(300);
    // The sword too: the crowd made with the lights and the one given them later draw the same picture, to the bit.
    expect(differingPixels(reference, after), "the props kept the lights the crowd was made with").toBe(0);
    // The environment reaches the sword (else the check above would not see it): the sword's pixels (where the
    // picture differs from the Walker's alone) change when the environment is left out.
    const bare = await draw(holding({ lights }, false), viewProjection);
    const dark = await draw(holding({ lights: { ...lights, environment: false } }), viewProjection);
    let blade = 0, lit = 0;
    for (let i = 0; i < bare.length; i += 4) {
      if (bare[i] === reference[i] && bare[i + 1] === reference[i + 1] && bare[i + 2] === reference[i + 2]) continue;
      blade++;
      if (Math.abs(dark[i] - reference[i]) + Math.abs(dark[i + 1] - reference[i + 1]) + Math.abs(dark[i + 2] - reference[i + 2]) > 3) lit++;
    }
    console.log(`the sword's ${blade} pixels: ${lit} of them lit by the environment`);
    expect(lit, 'the environment does not light the sword').toBeGreaterThan(blade / 2);
    // Restored onto a new device, the props keep the lights last set.
    const other = await openTestDevice();
    moved.restore(other!);
    made.restore(other!);
    const draw2 = (crowd: Crowd) => {
      crowd.update(0);
      return renderCrowd(other!, crowd, viewProjection, 128);
    };
    expect(differingPixels(await draw2(made), await draw2(moved)), 'after restore the props lost the lights last set').toBe(0);
    made.destroy();
    moved.destroy();
  });

  it('refuses a bad prop, joint, offset or instance with a message naming it, and keeps what was set', async () => {
    const walker = await testCharacter('Walker');
    const prop = await sword();
    const crowd = withFeatures(new Crowd(device!, walker, { ...FORMATS, capacity: 2 }));
    const a = crowd.add({ clipA: 'Idle', speedA: 0 });
    const id = crowd.attach(prop, { joint: 'Hand.R', offset: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.1, 0, 1] });
    await encodeFrame(crowd);
    const before = new Float32Array(await readBuffer(device!, crowd.attachmentRecords(id)));
    const { viewProjection } = lookAt([0, 1, 3], [0, 1, 0], { near: 0.1, far: 100 });
    const picture = await draw(crowd, viewProjection);

    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    expect(() => crowd.attach(prop, { joint: 'Hnad.R' })).toThrow(/no joint named "Hnad\.R" in model \(joints: "Hips", "Spine", .*"Hand\.R"/);
    expect(() => crowd.attach(prop, { joint: 7 as never })).toThrow(/joint must be a joint name \(a string\), got number/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', offset: identity.slice(0, 12) })).toThrow(/offset must be 16 finite numbers \(a column-major 4x4\), got 12 numbers/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', offset: identity.map((v, i) => (i === 13 ? NaN : v)) })).toThrow(/offset\[13\] must be a finite number, got NaN/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', offset: identity.map((v, i) => (i === 0 ? Infinity : v)) })).toThrow(/offset\[0\] must be a finite number, got Infinity/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', offset: identity.map((v, i) => (i === 3 ? 0.5 : v)) })).toThrow(/offset must be affine: .* got 0\.5, 0, 0, 1/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', offset: 'eye' as never })).toThrow(/offset must be 16 finite numbers .* got string/);
    expect(() => crowd.attach(prop, { joint: 'Hand.R', instances: [a, 99] })).toThrow(/instances\[1\]: instance 99 does not exist/);
    expect(() => crowd.attach({ name: 'box' } as never, { joint: 'Hand.R' })).toThrow(/prop must be a Character/);
    expect(() => crowd.setAttachmentInstances(id, [42])).toThrow(/instances\[0\]: instance 42 does not exist/);
    expect(() => crowd.setAttachmentInstances(id + 5, [a])).toThrow(/attachment \d+ does not exist/);
    expect(() => crowd.detach(id + 5)).toThrow(/attachment \d+ does not exist/);

    expect(crowd.attachments).toEqual([id]);
    await encodeFrame(crowd);
    const after = new Float32Array(await readBuffer(device!, crowd.attachmentRecords(id)));
    const at = (kernelOf(crowd).store.slot(a) * INSTANCE.size) / 4;
    expect(after.subarray(at, at + 16)).toEqual(before.subarray(at, at + 16));
    expect(differingPixels(await draw(crowd, viewProjection), picture)).toBe(0);
    crowd.detach(id);
    expect(crowd.attachments).toEqual([]);
    expect(() => crowd.detach(id)).toThrow(/attachment \d+ does not exist \(detached, or never attached\)/);
    crowd.destroy();
  });
});
