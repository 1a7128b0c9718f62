import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCharacter } from '../../../src/character/character';
import { CrowdAppearance } from '../../../src/features/appearance/crowd-appearance';
import { CrowdPicking } from '../../../src/features/picking/crowd-picking';
import { CrowdProps } from '../../../src/features/props/crowd-props';
import { Crowd } from '../../../src/runtime/crowd';
import type { MeshBuffers } from '../../../src/runtime/mesh-buffers';
import { LIGHT_DIRECTION, vertexEntryPoint, type SkinPass } from '../../../src/runtime/skin-pass';
import { mannequinTexture } from '../../../tools/mannequin/build';
import { bindPositions, jointIndex } from '../../../tools/walker/skeleton';
import { testCharacter } from '../../helpers/character';
import { expectNoGpuError, openTestDevice } from '../../helpers/gpu';
import { BUNDLED_MODELS } from '../../helpers/models';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';

/**
 * CrowdAppearance (src/features/appearance/): per-instance tint, base-colour variant and parts
 * mask, drawn on SwiftShader and read back as pixels, with and without a camera (the cull pass's
 * indirect draws), in the shadow map, and the refusals.
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const SIZE = 64;
const front = () => lookAt([0, 1.1, 3.2], [0, 1, 0], { fovY: 0.8, near: 0.1, far: 100 });
const VARIANTS = [mannequinTexture(1), mannequinTexture(2)];

/** Drawn pixels whose colour is dominated by channel `c` (0 red, 1 green, 2 blue) by more than 40. */
function dominated(pixels: Uint8Array, c: 0 | 1 | 2): number {
  let n = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const others = [0, 1, 2].filter((k) => k !== c).map((k) => pixels[i + k]);
    if (pixels[i + c] > Math.max(...others) + 40) n++;
  }
  return n;
}

async function mannequinCrowd(options: { camera?: boolean; shadows?: boolean } = {}) {
  const character = await testCharacter('Mannequin');
  const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4, lod: false, animationLod: false, ...(options.shadows ? { shadows: { mapSize: 512 } } : {}) });
  const id = crowd.add({ clipA: 'Idle', timeA: 0 });
  crowd.setPlacement(id, 0, 0, 0, 0);
  const view = front();
  if (options.camera) crowd.setCamera(view.viewProjection, view.eye);
  return { crowd, id, view };
}

describe.skipIf(!device)('CrowdAppearance: validity (a refused call changes nothing)', () => {
  it('names the parts, and refuses bad tints, variants, masks, part names, options and stale ids', async () => {
    const { crowd, id } = await mannequinCrowd();
    expect(() => new CrowdAppearance(crowd, { variants: [VARIANTS[0], { width: 2, height: 2, data: new Uint8Array(16) }] }))
      .toThrow(/^variants\[1\] is 2 x 2, variants\[0\] is 64 x 64: every variant needs the same size \(one texture array\)$/);
    expect(() => new CrowdAppearance(crowd, { variants: [{ width: 4, height: 4, data: new Uint8Array(10) }] })).toThrow(/variants\[0\] must be \{ width, height, data \} with width x height x 4 bytes/);
    expect(() => new CrowdAppearance(crowd, { variantParts: ['Cape'] })).toThrow(/^no part "Cape" \(parts: 0 Body, 1 HeadBox, 2 HeadWide, 3 Hat\)$/);
    expect(crowd.hasFeature('appearance')).toBe(false);
    const looks = new CrowdAppearance(crowd, { variants: VARIANTS });
    expect(looks.parts).toEqual(['Body', 'HeadBox', 'HeadWide', 'Hat']);
    expect(looks.allParts).toBe(0b1111);
    expect(looks.variantCount).toBe(3);
    looks.set(id, { tint: [0.5, 1, 2], variant: 1, parts: looks.partMask(['Body', 'Hat']) });
    crowd.update(0);
    const refusals: [() => void, RegExp][] = [
      [() => looks.setTint(id, -1, 0, 0), /^tint red must be a finite number >= 0 \(linear\), got -1$/],
      [() => looks.setTint(id, 1, NaN, 0), /^tint green must be a finite number >= 0/],
      [() => looks.set(id, { tint: [1, 1] as never }), /^tint must have 3 numbers/],
      [() => looks.set(id, { tint: [1, 1, 1], variant: 3 }), /^variant must be an integer in \[0, 3\) \(0: the materials' own base colour; 2 variant images\), got 3$/],
      [() => looks.setVariant(id, 0.5), /variant must be an integer/],
      [() => looks.setParts(id, 16), /^parts must be an integer mask in \[0, 15\] \(bit p: part p of 4: Body, HeadBox, HeadWide, Hat\), got 16$/],
      [() => looks.set(id, { variant: 0, parts: -1 }), /parts must be an integer mask/],
      [() => looks.partMask([4]), /^no part 4 \(parts: 0 Body/],
      [() => looks.set(id, null as never), /appearance must be an object/],
      [() => looks.setTint(99, 1, 1, 1), /instance 99 does not exist/],
    ];
    for (const [call, message] of refusals) {
      expect(call).toThrow(message);
      expect([Array.from(looks.getTint(id)), looks.getVariant(id), looks.getParts(id)], String(message)).toEqual([[0.5, 1, 2], 1, 0b1001]);
    }
    crowd.update(0);
    expect(crowd.uploadedBytes).toBe(0);
    expect(() => new CrowdAppearance(crowd)).toThrow(/already has the "appearance" feature/);
    crowd.destroy();
  });

  it('a crowd without it pays nothing: the plain entry points, no group 3, no records', async () => {
    const { crowd } = await mannequinCrowd({ shadows: true });
    const skin = crowd['passes'].skin as SkinPass;
    const mesh = crowd['passes'].mesh as MeshBuffers;
    expect(skin.appearance).toBeUndefined();
    expect(mesh.primitives.map((p) => vertexEntryPoint(p))).toEqual(['vertex4', 'vertex4', 'vertex4', 'vertex4']);
    const bytes = crowd.gpuBytes;
    const draws = crowd.drawCallCount;
    new CrowdAppearance(crowd);
    expect((crowd['passes'].skin as SkinPass).appearance).toBeDefined();
    expect(crowd.gpuBytes - bytes).toBe(4 * 32);
    expect(crowd.drawCallCount).toBe(draws);
    crowd.destroy();
  });
});

describe.skipIf(!device)('CrowdAppearance: drawn', () => {
  for (const camera of [false, true]) {
    it(`${camera ? 'with a camera (cull pass, indirect draws)' : 'without a camera'}: tint, variant and parts change the pixels as set`, async () => {
      const { crowd, id, view } = await mannequinCrowd({ camera });
      const looks = new CrowdAppearance(crowd, { variants: VARIANTS });
      crowd.update(0);
      const plain = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
      const drawn = drawnPixels(plain);
      expect(drawn).toBeGreaterThan(200);
      // Untinted, the own (white in Node) texture: the body is grey; heads have their colours.
      expect(dominated(plain, 0)).toBeLessThan(drawn / 2);

      looks.setTint(id, 1, 0, 0);
      crowd.update(0);
      const red = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
      expect(drawnPixels(red)).toBe(drawn);
      let notRed = 0;
      // Green and blue come only from the dielectric's white specular (F0 0.04, rising towards grazing
      // angles; sRGB-encoded, so dark pixels read as much as [70, 25, 25]): never half of red.
      for (let i = 0; i < red.length; i += 4) if (Math.max(red[i + 1], red[i + 2]) > red[i] * 0.5 + 4) notRed++;
      expect(notRed).toBe(0);
      expect(dominated(red, 0)).toBeGreaterThan(drawn * 0.9);

      looks.set(id, { tint: [1, 1, 1], variant: 2 });
      crowd.update(0);
      const striped = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
      // Variant 2: blue and yellow stripes on the body (blue-dominated texels appear; none before).
      // Few: each box face carries the whole 64-texel image in a few pixels here, so its mip levels
      // (VariantTextures) blend the stripes on most faces, as the material's own texture's do.
      expect(dominated(plain, 2)).toBe(0);
      expect(dominated(striped, 2)).toBeGreaterThan(drawn / 40);
      looks.setVariant(id, 1);
      crowd.update(0);
      expect(dominated(await renderCrowd(device!, crowd, view.viewProjection, SIZE), 0)).toBeGreaterThan(drawn / 10);

      // Parts: the body alone draws fewer pixels, the wide head and no hat others, nothing draws nothing.
      looks.set(id, { variant: 0, parts: looks.partMask(['Body']) });
      crowd.update(0);
      const body = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
      expect(drawnPixels(body)).toBeLessThan(drawn - 20);
      looks.setParts(id, looks.partMask(['Body', 'HeadWide']));
      crowd.update(0);
      const wide = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
      expect(dominated(wide, 1)).toBeGreaterThan(10);
      looks.setParts(id, looks.partMask(['Body', 'HeadBox']));
      crowd.update(0);
      expect(dominated(await renderCrowd(device!, crowd, view.viewProjection, SIZE), 1)).toBe(0);
      expect(differingPixels(wide, body)).toBeGreaterThan(10);
      looks.setParts(id, 0);
      crowd.update(0);
      expect(drawnPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE))).toBe(0);
      looks.setParts(id, looks.allParts);
      crowd.update(0);
      expect(differingPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE), plain)).toBe(0);
      crowd.destroy();
    });
  }

  it('every mesh LOD level: part p is part p (the mask hides the same part at each level)', async () => {
    const character = await testCharacter('Mannequin');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4, animationLod: false });
    const levels = (crowd['passes'].mesh as MeshBuffers).levels;
    expect(levels).toBeGreaterThan(1);
    const looks = new CrowdAppearance(crowd);
    const id = crowd.add({ clipA: 'Idle' });
    const view = front();
    crowd.setCamera(view.viewProjection, view.eye);
    for (let level = 0; level < levels; level++) {
      crowd.forceLodLevel(level);
      looks.setParts(id, looks.allParts);
      crowd.update(0);
      const all = drawnPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE));
      looks.setParts(id, looks.partMask(['Body']));
      crowd.update(0);
      const body = drawnPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE));
      looks.setParts(id, 0);
      crowd.update(0);
      const none = drawnPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE));
      expect([level, all > body + 20, body > 100, none]).toEqual([level, true, true, 0]);
    }
    crowd.destroy();
  });

  it('props still draw beside it (their own pipelines: neither masked nor tinted), with no GPU error', async () => {
    const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
    const sword = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    const { crowd, id, view } = await mannequinCrowd({ camera: true, shadows: true });
    const looks = new CrowdAppearance(crowd);
    looks.set(id, { tint: [0, 0, 1], parts: 0 });
    crowd.update(0);
    expect(drawnPixels(await renderCrowd(device!, crowd, view.viewProjection, SIZE))).toBe(0);
    const props = new CrowdProps(crowd);
    props.attach(sword, { joint: 'Hand.R' });
    crowd.update(0);
    const pixels = await expectNoGpuError(device!, () => renderCrowd(device!, crowd, view.viewProjection, SIZE));
    // Only the sword is drawn, in its own colours (not the instance's blue tint).
    expect(drawnPixels(await pixels)).toBeGreaterThan(5);
    expect(dominated(await pixels, 2)).toBe(0);
    crowd.destroy();
  });

  it('picking does not hit a hidden part (the pick pass runs the same vertex test)', async () => {
    const { crowd, id } = await mannequinCrowd();
    const picking = new CrowdPicking(crowd);
    const looks = new CrowdAppearance(crowd); // made after picking: picking re-makes its pipelines on the new passes
    // Through the hat's crown, above the heads.
    const ray = { origin: [0, bindPositions()[jointIndex('Head')][1] + 0.33, 5], direction: [0, 0, -1] };
    const answer = async (parts: number) => {
      looks.setParts(id, parts);
      const request = picking.pick(ray);
      crowd.update(0);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      crowd.update(0);
      return (await request)?.id ?? null;
    };
    expect(await answer(looks.allParts)).toBe(id);
    expect(await answer(looks.partMask(['Body', 'HeadBox', 'HeadWide']))).toBeNull();
    expect(await answer(looks.partMask(['Hat']))).toBe(id);
    crowd.destroy();
  });

  it('instances keep their own appearance through removal (slots move) and growth', async () => {
    const character = await testCharacter('Mannequin');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 2, lod: false, animationLod: false });
    const looks = new CrowdAppearance(crowd);
    const a = crowd.add({ clipA: 'Idle' });
    const b = crowd.add({ clipA: 'Idle' });
    crowd.setPlacement(a, -0.6, 0, 0, 0);
    crowd.setPlacement(b, 0.6, 0, 0, 0);
    looks.setTint(b, 0, 0, 1);
    crowd.remove(a); // b moves into slot 0
    const c = crowd.add({ clipA: 'Idle' });
    const d = crowd.add({ clipA: 'Idle' }); // growth
    crowd.setPlacement(c, -0.6, 0, 0, 0);
    crowd.setPlacement(d, 100, 0, 0, 0);
    expect(Array.from(looks.getTint(b))).toEqual([0, 0, 1]);
    expect(Array.from(looks.getTint(c))).toEqual([1, 1, 1]);
    expect(looks.getParts(d)).toBe(looks.allParts);
    crowd.update(0);
    const view = lookAt([0, 1.1, 4.5], [0, 1, 0], { fovY: 0.8, near: 0.1, far: 100 });
    const pixels = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
    // b (blue, right half of the image), c (untinted, left half).
    let blueRight = 0, blueLeft = 0;
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        const i = (y * SIZE + x) * 4;
        const blue = pixels[i + 2] > Math.max(pixels[i], pixels[i + 1]) + 40; // blue-tinted (specular adds a little white)
        if (blue && x >= SIZE / 2) blueRight++;
        if (blue && x < SIZE / 2) blueLeft++;
      }
    }
    expect(blueRight).toBeGreaterThan(30);
    expect(blueLeft).toBe(0);
    crowd.destroy();
  });

  it('a device restore brings tints, variants and parts along (the same pixels on the new device)', async () => {
    const { crowd, id, view } = await mannequinCrowd({ camera: true });
    const looks = new CrowdAppearance(crowd, { variants: VARIANTS });
    looks.set(id, { tint: [1, 0.5, 0.25], variant: 2, parts: looks.partMask(['Body', 'HeadWide', 'Hat']) });
    crowd.update(0);
    const before = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
    const second = (await openTestDevice())!;
    crowd.restore(second);
    crowd.update(0);
    const after = await renderCrowd(second, crowd, view.viewProjection, SIZE);
    expect(drawnPixels(after)).toBeGreaterThan(100);
    expect(differingPixels(before, after)).toBe(0);
    crowd.destroy();
  });

  it('a hidden part casts no shadow: a caster with every part hidden leaves the shading as without it', async () => {
    const character = await testCharacter('Mannequin');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4, lod: false, animationLod: false, shadows: { mapSize: 512 } });
    const looks = new CrowdAppearance(crowd);
    const small = crowd.add({ clipA: 'Idle' });
    crowd.setPlacement(small, 0, 0, 0, 0);
    // A big mannequin up the light's direction, out of the camera's view, shadowing the small one.
    const big = crowd.add({ clipA: 'Idle' });
    const up = 8;
    crowd.setPlacement(big, -LIGHT_DIRECTION[0] * up, 0.5 - LIGHT_DIRECTION[1] * up, -LIGHT_DIRECTION[2] * up - 0.5, 0, 3);
    const view = front();
    crowd.setCamera(view.viewProjection, view.eye);
    crowd.update(0);
    const sum = (p: Uint8Array) => { let s = 0; for (let i = 0; i < p.length; i += 4) s += p[i] + p[i + 1] + p[i + 2]; return s; };
    const shadowed = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
    looks.setParts(big, 0);
    crowd.update(0);
    const hidden = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
    crowd.setPlacement(big, 1000, 0, 0, 0);
    crowd.update(0);
    const away = await renderCrowd(device!, crowd, view.viewProjection, SIZE);
    expect(sum(shadowed)).toBeLessThan(sum(away) * 0.95);
    expect(differingPixels(hidden, away)).toBe(0);
    crowd.destroy();
  });
});
