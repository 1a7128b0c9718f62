import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { ModelError } from '../../src/bake/errors';
import { parseGltf } from '../../src/bake/parse';
import { sampleClip } from '../../src/bake/sampler';
import { loadCharacter, type Character } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { Crowd } from '../../src/runtime/crowd';
import { tableBufferStats } from '../../src/runtime/table-buffers';
import { STOCKY } from '../../tools/walker/build';
import { footSlide } from '../helpers/foot-slide';
import { expectNotSame, expectSameNumbers } from '../helpers/exact';
import { arrayBufferOf, toGlb } from '../helpers/gltf-builder';
import { openTestDevice } from '../helpers/gpu';
import { BUNDLED_MODELS } from '../helpers/models';

/**
 * loadClips and LoadOptions.clips (src/character/clips.ts, src/bake/clip-library.ts) on the
 * Walker's parts (tools/make-walker.ts): sharing, the warning and the error, name maps, clip
 * name clashes, retargeting onto the stocky body and its foot sliding.
 */

const WALKER = join(BUNDLED_MODELS, 'Walker');
const file = (name: string) => arrayBufferOf(readFileSync(join(WALKER, name)));
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const device = await openTestDevice();

/** `name`'s JSON changed by `edit`, as .glb bytes. */
async function edited(name: string, edit: (json: Record<string, any>) => void): Promise<ArrayBuffer> {
  const asset = await parseGltf(file(name));
  const json = structuredClone(asset.json) as Record<string, any>;
  edit(json);
  delete json.buffers[0].uri;
  return arrayBufferOf(toGlb(json, asset.buffers[0]));
}

/** A second body with the Walker's skeleton: the same file with another body colour. */
const recoloured = () => edited('WalkerBody.glb', (json) => { json.materials[0].pbrMetallicRoughness.baseColorFactor = [0.3, 0.5, 0.2, 1]; });

/** Model-space z of node `node` at the end of clip `clip` (metres; the walks go forward along +z). */
function sampleZ(character: Character, clip: number, node: number): number {
  const poser = new CpuPoser(character.rig, (c, time, out) => sampleClip(character.rig, c, time, out));
  poser.evaluate({ clipA: clip, timeA: character.clipDurations[clip] * 0.99 });
  return poser.model[node * 16 + 14];
}

function matricesAt(character: Character, clip: string, t: number): Float64Array {
  const poser = new CpuPoser(character.rig, (c, time, out) => sampleClip(character.rig, c, time, out));
  poser.evaluate({ clipA: character.clipIndex(clip), timeA: t });
  return poser.jointMatrices(0);
}

describe('clip libraries', { timeout: 240_000 }, () => {
  it('two bodies of one skeleton share the library\'s baked tables (one copy on the CPU); separately loaded libraries do not', async () => {
    const library = await loadClips(file('WalkerClips.glb'));
    expect(library.clipNames).toContain('WalkForward');
    const a = await loadCharacter(file('WalkerBody.glb'), { clips: [library], lod: false });
    const b = await loadCharacter(await recoloured(), { clips: [library], lod: false });
    expect(a.rig.primitives[0].material.baseColorFactor).not.toEqual(b.rig.primitives[0].material.baseColorFactor);
    expect(a.clipNames).toEqual(library.clipNames);
    expect(b.baked.tracks).toBe(a.baked.tracks);
    expect(b.baked.trackRefs).toBe(a.baked.trackRefs);
    const held = new Set([a, b].flatMap((c) => [c.baked.tracks.buffer, c.baked.trackRefs.buffer]));
    const heldBytes = [...held].reduce((n, buffer) => n + buffer.byteLength, 0);
    expect(heldBytes).toBe(a.baked.tracks.byteLength + a.baked.trackRefs.byteLength);
    console.log(`two bodies sharing ${library.clipNames.length} clips hold ${heldBytes} bytes of tables, ${a.bakedBytes} per body as uploaded`);

    const own = await loadCharacter(await recoloured(), { clips: [await loadClips(file('WalkerClips.glb'))], lod: false });
    expectNotSame(own.baked.tracks, a.baked.tracks);
    expectSameNumbers(Array.from(own.baked.tracks), Array.from(a.baked.tracks));
    // A body with clips of its own bakes its own tables (the library's are copied in).
    const mixed = await loadCharacter(file('Walker.glb'), { clips: [library], lod: false });
    expectNotSame(mixed.baked.tracks, a.baked.tracks);
  });

  it('bodies of one skeleton loaded with the same root motion taken out share their tables; other root-motion options, or none, do not', async () => {
    const library = await loadClips(file('WalkerClips.glb'));
    const inPlace = { rootMotion: { mode: 'in-place' } } as const;
    const a = await loadCharacter(file('WalkerBody.glb'), { clips: [library], lod: false, ...inPlace });
    const b = await loadCharacter(await recoloured(), { clips: [library], lod: false, ...inPlace });
    expect(b.baked.tracks).toBe(a.baked.tracks);
    expect(b.baked.trackRefs).toBe(a.baked.trackRefs);
    // Each keeps its own root motion (the same values: the same clips and rest pose).
    expectNotSame(b.rootMotion, a.rootMotion);
    expectSameNumbers(Array.from(b.rootMotion!.track), Array.from(a.rootMotion!.track));
    // The hips walk on the spot in both: the clips are the in-place ones, not the library's.
    const walk = a.clipIndex('WalkForward');
    const hips = a.rig.nodes.names.indexOf('Hips');
    const track = (c: Character) => sampleZ(c, walk, hips);
    expect(Math.abs(track(a) - track(b))).toBe(0);
    // 'apply' bakes the same tables as 'in-place'; yaw taken out too, only the mean travel, or no root motion at all, bakes others.
    const applied = await loadCharacter(await recoloured(), { clips: [library], lod: false, rootMotion: { mode: 'apply' } });
    expect(applied.baked.tracks).toBe(a.baked.tracks);
    expect(applied.rootMotion!.mode).toBe('apply');
    expect(a.rootMotion!.mode).toBe('in-place');
    const yaw = await loadCharacter(await recoloured(), { clips: [library], lod: false, rootMotion: { mode: 'in-place', yaw: true } });
    const none = await loadCharacter(await recoloured(), { clips: [library], lod: false });
    const mean = await loadCharacter(await recoloured(), { clips: [library], lod: false, rootMotion: { mode: 'in-place', translation: 'mean-velocity' } });
    expectNotSame(mean.baked.tracks, a.baked.tracks); // the hips keep their sway: other tables
    expect(mean.rootMotion!.translation).toBe('mean-velocity');
    expectNotSame(yaw.baked.tracks, a.baked.tracks);
    expectNotSame(none.baked.tracks, a.baked.tracks);
    expect(none.rootMotion).toBeNull();
    expect(track(none)).not.toBeCloseTo(track(a), 2); // the library's walk moves the hips forward
  });

  it.skipIf(!device)('on one device, crowds of two bodies sharing a library hold one table buffer; the last crowd destroyed frees it', async () => {
    const library = await loadClips(file('WalkerClips.glb'));
    const a = await loadCharacter(file('WalkerBody.glb'), { clips: [library], lod: false });
    const b = await loadCharacter(await recoloured(), { clips: [library], lod: false });
    const created: { label?: string; size: number }[] = [];
    const createBuffer = device!.createBuffer.bind(device!);
    device!.createBuffer = (d: GPUBufferDescriptor) => { created.push({ label: d.label, size: d.size }); return createBuffer(d); };
    try {
      const before = tableBufferStats(device!);
      const crowds = [new Crowd(device!, a, FORMATS), new Crowd(device!, b, FORMATS)];
      const tables = created.filter((c) => c.label === 'crowd-skin tables');
      expect(tables).toEqual([{ label: 'crowd-skin tables', size: a.baked.tracks.byteLength }]);
      expect(tableBufferStats(device!).buffers - before.buffers).toBe(1);
      expect(tableBufferStats(device!).bytes - before.bytes).toBe(a.baked.tracks.byteLength);
      // Each body with its own copy: two buffers.
      const own = await loadCharacter(await recoloured(), { clips: [await loadClips(file('WalkerClips.glb'))], lod: false });
      const third = new Crowd(device!, own, FORMATS);
      expect(created.filter((c) => c.label === 'crowd-skin tables')).toHaveLength(2);
      third.destroy();
      crowds[0].destroy();
      expect(tableBufferStats(device!).buffers - before.buffers).toBe(1);
      crowds[1].destroy();
      expect(tableBufferStats(device!).buffers).toBe(before.buffers);
    } finally {
      device!.createBuffer = createBuffer;
    }
  });

  it('clips follow the body\'s own; a clashing name becomes "Idle (2)" with a warning, and its clip is the library\'s', async () => {
    const walker = await loadCharacter(file('Walker.glb'), { clips: [await loadClips(file('WalkerClips.glb'))], lod: false });
    const own = walker.clipNames.length / 2;
    expect(walker.clipNames.slice(0, own)).toEqual(walker.clipNames.slice(own).map((n) => n.replace(/ \(2\)$/, '')));
    expect(walker.clipNames[own]).toBe('Idle (2)');
    expect(walker.warnings).toContain("clip 'Idle' from a clips file: the character already has a clip of that name; this one is named 'Idle (2)'");
    expect(Array.from(matricesAt(walker, 'WalkForward (2)', 0.3))).toEqual(Array.from(matricesAt(walker, 'WalkForward', 0.3)));
  });

  it('one warning names the animated nodes the body lacks and the joints no clip moves; a file matching no node is a ModelError', async () => {
    // Chest renamed: both still humanoids, bound bone to bone; the body's Chest lies between two
    // mapped joints (Spine, Neck), so it takes a share of their turn and is not listed as still.
    const renamed = await edited('WalkerClips.glb', (json) => { json.nodes.find((n: { name: string }) => n.name === 'Chest').name = 'Ribcage'; });
    const body = await loadCharacter(file('WalkerBody.glb'), { clips: [await loadClips(renamed)], lod: false });
    expect(body.warnings.filter((w) => w.startsWith("clips file 'clips0'"))).toEqual(["clips file 'clips0': 1 node(s) its clips animate are not in the body and are ignored (Ribcage)"]);
    // Hands and head renamed as well: the file is no humanoid, so it binds by name as before.
    const partial = await edited('WalkerClips.glb', (json) => {
      for (const n of json.nodes as { name: string }[]) if (/^(Chest|Hand\.L|Hand\.R|Head)$/.test(n.name)) n.name = `x${n.name}`;
    });
    const byName = await loadCharacter(file('WalkerBody.glb'), { clips: [await loadClips(partial)], lod: false });
    expect(byName.warnings.filter((w) => w.startsWith("clips file 'clips0'"))).toEqual(["clips file 'clips0': 1 node(s) its clips animate are not in the body and are ignored (xChest); 4 joint(s) of the body no clip of it moves keep their rest pose (Chest, Head, Hand.L, Hand.R)"]);

    const foreign = await loadClips(await edited('WalkerClips.glb', (json) => { for (const n of json.nodes as { name: string }[]) n.name = `b_${n.name}`; }));
    await expect(loadCharacter(file('WalkerBody.glb'), { clips: [foreign], lod: false })).rejects.toThrow(ModelError);
    await expect(loadCharacter(file('WalkerBody.glb'), { clips: [foreign], lod: false }))
      .rejects.toThrow(/^clips file 'clips0': none of the 14 nodes its clips animate \(b_Hips, b_Spine, .*\) is a node of the body \(Hips, Spine, .*\); a name map/);
    await expect(loadClips(file('WalkerBody.glb'))).rejects.toThrow("clips file 'clips0': has no animations");
  });

  it('LoadOptions.clips takes libraries from loadClips only: a URL, bytes or clipJointNames are refused with the call that replaces them', async () => {
    const body = file('WalkerBody.glb');
    await expect(loadCharacter(body, { clips: ['/clips/walk.glb'] as never })).rejects.toThrow(
      'LoadOptions.clips[0] is a URL, not a library: read clips files with loadClips first (clips: [await loadClips(url)])');
    const library = await loadClips(file('WalkerClips.glb'));
    await expect(loadCharacter(body, { clips: [library, file('WalkerClips.glb')] as never })).rejects.toThrow(/^LoadOptions\.clips\[1\] is bytes, not a library/);
    await expect(loadCharacter(body, { clips: library as never })).rejects.toThrow(/^LoadOptions\.clips must be an array of libraries from loadClips/);
    await expect(loadCharacter(body, { clips: [library], clipJointNames: { stripPrefix: 'x' } } as never)).rejects.toThrow(
      'LoadOptions.clipJointNames is gone: give the name map to loadClips (clips: [await loadClips(url, { jointNames })])');
  });

  it('a name map (stripPrefix) binds the mixamorig: copy to the same matrices as the plain clips, and so does no option (humanoid)', async () => {
    const plain = await loadCharacter(file('WalkerBody.glb'), { clips: [await loadClips(file('WalkerClips.glb'))], lod: false });
    const prefixed = await loadCharacter(file('WalkerBody.glb'), { clips: [await loadClips(file('WalkerClipsMixamo.glb'), { jointNames: { stripPrefix: 'mixamorig:' } })], lod: false });
    const mapped = await loadCharacter(file('WalkerBody.glb'), {
      clips: [await loadClips(file('WalkerClipsMixamo.glb'), { jointNames: { map: Object.fromEntries(plain.rig.nodes.names.map((n) => [`mixamorig:${n}`, n])) } })], lod: false,
    });
    for (const c of [prefixed, mapped]) {
      expect(c.warnings).toEqual(plain.warnings);
      expect(Array.from(matricesAt(c, 'RunLeft', 0.21))).toEqual(Array.from(matricesAt(plain, 'RunLeft', 0.21)));
    }
    // With no name map both are humanoids (the prefix is a namespace): bound bone to bone, the same pose.
    const humanoid = await loadCharacter(file('WalkerBody.glb'), { clips: [await loadClips(file('WalkerClipsMixamo.glb'))], lod: false });
    const expected = matricesAt(plain, 'RunLeft', 0.21);
    matricesAt(humanoid, 'RunLeft', 0.21).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 6));
  });

  it(`retargets onto the stocky body (legs x${STOCKY.legScale}): root scaled by the hip heights, planted feet slide at most 2% of walking speed`, async () => {
    const library = await loadClips(file('WalkerClips.glb'));
    const walker = await loadCharacter(file('WalkerBody.glb'), { clips: [library], lod: false });
    const stocky = await loadCharacter(file('WalkerStocky.glb'), { clips: [library], lod: false });
    const raw = await loadCharacter(file('WalkerStocky.glb'), { clips: [library], retarget: false, lod: false });
    expectNotSame(stocky.baked.tracks, walker.baked.tracks); // other rests: its own tables
    const feet = ['Foot.L', 'Foot.R'];
    const lines: string[] = [];
    for (const clip of ['WalkForward', 'WalkRight', 'RunForward']) {
      const source = footSlide(walker.rig, walker.clipIndex(clip), feet, 'Hips');
      const target = footSlide(stocky.rig, stocky.clipIndex(clip), feet, 'Hips');
      const unscaled = footSlide(raw.rig, raw.clipIndex(clip), feet, 'Hips');
      lines.push(`${clip}: Walker ${source.walkingSpeed.toFixed(3)} m/s, planted feet ${(100 * source.meanShare).toFixed(2)}% mean / ${(100 * source.worstShare).toFixed(2)}% worst; ` +
        `stocky retargeted ${target.walkingSpeed.toFixed(3)} m/s, ${(100 * target.meanShare).toFixed(2)}% / ${(100 * target.worstShare).toFixed(2)}%; ` +
        `stocky unretargeted ${(100 * unscaled.meanShare).toFixed(2)}% / ${(100 * unscaled.worstShare).toFixed(2)}%`);
    }
    console.log(lines.join('\n'));
    for (const clip of ['WalkForward', 'WalkRight', 'RunForward']) {
      const source = footSlide(walker.rig, walker.clipIndex(clip), feet, 'Hips');
      const target = footSlide(stocky.rig, stocky.clipIndex(clip), feet, 'Hips');
      const unscaled = footSlide(raw.rig, raw.clipIndex(clip), feet, 'Hips');
      expect(target.walkingSpeed).toBeCloseTo(source.walkingSpeed * STOCKY.legScale, 6);
      if (clip.startsWith('Walk')) expect(target.meanShare).toBeLessThanOrEqual(0.02);
      expect(target.meanShare).toBeLessThanOrEqual(source.meanShare * 1.05 + 1e-4);
      // Without retargeting the hips travel the Walker's strides on shorter legs: the feet slide.
      expect(unscaled.meanShare).toBeGreaterThan(0.1);
    }
  });
});

describe('clips files are read under the checks and uri policy of characters', () => {
  it('a damaged file, and a .gltf whose buffer leaves its folder, are ModelErrors naming the clips file', async () => {
    const bytes = new Uint8Array(file('WalkerClips.glb'));
    await expect(loadClips(arrayBufferOf(bytes.subarray(0, 1000)))).rejects.toThrow(/^clips file 'clips0': /);
    const gltf = new TextEncoder().encode(JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: '../secret.bin', byteLength: 4 }] }));
    const refused = loadClips(arrayBufferOf(gltf), { baseUrl: 'https://example.com/clips/walk.gltf', readResource: async () => { throw new Error('must not be read'); } });
    await expect(refused).rejects.toThrow(ModelError);
    await expect(loadClips(arrayBufferOf(gltf), { baseUrl: 'https://example.com/clips/walk.gltf' })).rejects.toThrow(/^clips file 'clips0': buffer 0: uri "\.\.\/secret\.bin" .*leave|^clips file 'clips0': buffer 0: .*folder/);
  });
});
