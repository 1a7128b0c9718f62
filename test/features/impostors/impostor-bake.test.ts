import { mat4 } from 'wgpu-matrix';
import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { AtlasGrid, boxSphere, DEFAULT_IMPOSTOR_BUDGET, viewBasis, viewFrame } from '../../../src/features/impostors/impostor-atlas';
import { uniformSurface } from '../../../src/features/impostors/impostor-materials';
import { Crowd } from '../../../src/runtime/crowd';
import { readBuffer } from '../../helpers/gpu';
import { gpuSuite } from '../../helpers/gpu-suite';
import { renderCrowd } from '../../helpers/render';

const TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
// Small enough for SwiftShader: 2 frames a clip, 4 azimuths, 1 elevation, the texels of 64 x 64 cells.
const SMALL = { frames: 2, azimuths: 4, elevations: 1, cellSize: 64 };
// The Fox's animation box (min x, y, z, max x, y, z; model units), for the atlas's layout without loading it.
const FOX_BOX = [-40.959, -7.316, -101.998, 37.388, 86.36, 82.866];

describe('impostor atlas options', () => {
  it('refuses each option out of range by name', () => {
    const cases: [object, RegExp][] = [
      [{ frames: 1 }, /impostors\.frames must be an integer in \[2, 64\], got 1/],
      [{ frames: 16.5 }, /impostors\.frames/],
      [{ azimuths: 2 }, /impostors\.azimuths/],
      [{ elevations: 9 }, /impostors\.elevations/],
      [{ maxElevation: 90 }, /impostors\.maxElevation/],
      [{ cellSize: 40 }, /impostors\.cellSize must be a multiple of 16/],
      [{ cellSize: 512 }, /impostors\.cellSize must be an integer in \[16, 256\]/],
      [{ budgetBytes: 1000 }, /impostors\.budgetBytes must be an integer of at least 1 MiB/],
      [{ switchPixels: 0 }, /impostors\.switchPixels/],
      [{ frame: 16 }, /unknown option "frame"/],
      [{ frames: 64, azimuths: 32, elevations: 8, budgetBytes: 1 << 20 }, /impostors\.budgetBytes 1048576 is under the smallest atlas/],
      [{ looks: 0 }, /impostors\.looks must be an integer in \[1, 256\], got 0/],
      [{ looks: 2.5 }, /impostors\.looks/],
      [{ looks: 256 }, /impostors\.budgetBytes 67108864 is under the smallest atlas: 256 looks x 3 clips/],
      [{ partialLayers: 'drop' }, /impostors\.partialLayers must be 'mesh' or 'leave-out', got "drop"/],
    ];
    for (const [options, message] of cases) expect(() => new AtlasGrid(3, FOX_BOX, 8192, options)).toThrow(message);
  });

  it("holds the Fox's three clips in at most 64 MiB with the defaults, and makes cells smaller to fit a budget", () => {
    const fox = new AtlasGrid(3, FOX_BOX, 8192);
    expect(DEFAULT_IMPOSTOR_BUDGET).toBe(64 * 1024 * 1024);
    // 3 clips x 16 frames x 8 x 3 views in at most the texels of 80 x 80 cells, 9 bytes a texel: 63.28 MiB (the packing fills them).
    expect(fox.bytes).toBe(66_355_200);
    expect(fox.bytes).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect([fox.cellSize, fox.frames, fox.views, fox.width, fox.height]).toEqual([80, 16, 24, 4608, 1600]);
    // Over the budget the cell is made as large as fits, a whole number of texels: 16 MiB holds
    // 40-texel cells (15.8 MiB; 41 would be 16.6), 50 MiB 71 (49.8; 72 would be 51.3).
    expect(new AtlasGrid(3, FOX_BOX, 8192, { budgetBytes: 16 * 1024 * 1024 }).cellSize).toBe(40);
    expect(new AtlasGrid(3, FOX_BOX, 8192, { budgetBytes: 50 * 1024 * 1024 }).cellSize).toBe(71);
    // Looks (appearance layers): one at the defaults; sized for 4, 40-texel cells of 15.8 MiB a look, 4 in the budget.
    expect(fox.capacity).toBe(1);
    const four = new AtlasGrid(3, FOX_BOX, 8192, { looks: 4 });
    expect([four.cellSize, four.capacity]).toEqual([40, 4]);
    expect(four.bytes).toBeLessThanOrEqual(15.8 * 1024 * 1024);
    // A budget of 16 layers at the defaults on a device of 5 layers (maxTextureArrayLayers): 5.
    expect(new AtlasGrid(3, FOX_BOX, 8192, { budgetBytes: 1 << 30 }, 5).capacity).toBe(5);
  });

  it("packs each view's rectangle at one density, the cells apart and within the atlas", () => {
    for (const options of [{}, { elevations: 4, cellSize: 64 }, { ...SMALL }]) {
      const g = new AtlasGrid(3, FOX_BOX, 8192, options);
      const painted = new Uint8Array(g.width * g.height);
      let overlaps = 0, texels = 0;
      for (let view = 0; view < g.views; view++) {
        const { right, up } = viewBasis(g.direction(view));
        const [r, u] = viewFrame(FOX_BOX, right, up);
        for (let pose = 0; pose < g.poses; pose++) {
          const [x, y, w, h] = g.cell(pose, view);
          // Texels a model unit along each axis: the grid's density but for rounding to whole texels.
          expect(Math.abs(w - 2 * r * g.density)).toBeLessThanOrEqual(0.5);
          expect(Math.abs(h - 2 * u * g.density)).toBeLessThanOrEqual(0.5);
          expect(x + w <= g.width && y + h <= g.height).toBe(true);
          for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) overlaps += painted[j * g.width + i]++ > 0 ? 1 : 0;
          texels += w * h;
        }
      }
      expect(overlaps).toBe(0);
      // At most the square cells' texels, nearly all of them the cells'.
      expect(g.width * g.height).toBeLessThanOrEqual(g.poses * g.views * g.cellSize ** 2);
      expect(texels / (g.width * g.height)).toBeGreaterThan(0.95);
      const table = g.cellTable();
      const [x, y, w, h] = g.cell(g.poses - 1, g.views - 1);
      expect([table[g.views - 1], table[g.views * (1 + g.poses) - 1]]).toEqual([w | (h << 16), x | (y << 16)]);
      // Then 16 words a pose: for a box without pose boxes, offset 0 and the box's half extents, twice (its box, its plain box).
      expect(table.length).toBe(g.views * (1 + g.poses) + 16 * g.poses);
      const poseWords = new Float32Array(table.buffer, 4 * g.views * (1 + g.poses));
      const half = [0, 1, 2].map((c) => Math.fround((g.box[c + 3] - g.box[c]) / 2));
      for (let pose = 0; pose < g.poses; pose++) expect(Array.from(poseWords.subarray(16 * pose, 16 * pose + 16))).toEqual([0, 0, 0, 0, ...half, 0, 0, 0, 0, 0, ...half, 0]);
    }
    // The Fox's views at one density get 2.9 texels a pixel at the 40-pixel switch (square 80-texel cells: 2.2 to 5.7 by view and axis);
    // 3.3 with its one roughness and metalness left out (7 bytes a texel: 9/7 the texels in at most the same bytes).
    const pixel = (g: AtlasGrid) => (g.density * 2 * boxSphere(FOX_BOX).radius) / g.switchPixels;
    const fox = new AtlasGrid(3, FOX_BOX, 8192);
    expect(pixel(fox)).toBeGreaterThan(2.85);
    const uniform = new AtlasGrid(3, FOX_BOX, 8192, {}, 256, { surface: [0.58, 0] });
    expect(pixel(uniform)).toBeGreaterThan(3.25);
    expect(uniform.texelBytes).toBe(7);
    expect(uniform.bytes).toBeLessThanOrEqual(fox.poses * fox.views * 80 * 80 * 9);
  });

  it("frames each pose's own box: every cell the poses' largest half extents about its pose's centre, so a clip whose root travels does not widen the cells", () => {
    // 2 clips x 4 frames of a 1 x 2 x 1 body walking 3 units along z over each clip (the union 1 x 2 x 4 long), one pose of clip 1 wider in x.
    const poses = new Float64Array(6 * 8);
    for (let p = 0; p < 8; p++) {
      const z = 0.75 * (p % 4), wide = p === 5 ? 0.5 : 0;
      poses.set([-0.5 - wide, 0, z - 0.5, 0.5 + wide, 2, z + 0.5], 6 * p);
    }
    const box = [-1, 0, -0.5, 1, 2, 2.75];
    const g = new AtlasGrid(2, { box, poses }, 8192, { frames: 4, cellSize: 32 });
    const whole = new AtlasGrid(2, box, 8192, { frames: 4, cellSize: 32 });
    expect(g.frameHalf).toEqual([1, 1, 0.5]);
    expect(whole.frameHalf).toEqual([1, 1, 1.625]);
    expect(Array.from(g.poseOffsets.subarray(0, 6))).toEqual([0, 0, -1.125, 0, 0, -0.375]);
    // Each view's cell is the frame box's projection at the grid's density; from the side (azimuth
    // 90: right -z), the walk's 4 units long box gave a cell 3.25x as wide as it is deep here.
    for (const grid of [g, whole]) {
      for (let view = 0; view < grid.views; view++) {
        const { right, up } = viewBasis(grid.direction(view));
        const [r, u] = viewFrame(grid.frameBox, right, up);
        const [, , w, h] = grid.cell(0, view);
        expect(Math.abs(w - 2 * r * grid.density)).toBeLessThanOrEqual(0.5);
        expect(Math.abs(h - 2 * u * grid.density)).toBeLessThanOrEqual(0.5);
      }
    }
    expect(g.density).toBeGreaterThan(1.3 * whole.density);
    // The cell table carries each pose's own box after the cells, its centre less the box's (the
    // offset, impostor.wgsl poseOffset) and its half extents (the quad's, poseBox): pose 5 the wide one.
    const table = g.cellTable();
    const poseWords = new Float32Array(table.buffer, 4 * g.views * (1 + g.poses));
    expect(Array.from(poseWords.subarray(16 * 3, 16 * 3 + 8))).toEqual([0, 0, 1.125, 0, 0.5, 1, 0.5, 0]);
    expect(Array.from(poseWords.subarray(16 * 5 + 4, 16 * 5 + 7))).toEqual([1, 1, 0.5]);
    expect(Array.from(poseWords.subarray(16 * 5 + 8, 16 * 5 + 16)), 'the plain box: the same without plainPoses').toEqual(Array.from(poseWords.subarray(16 * 5, 16 * 5 + 8)));
    // Without pose boxes every pose's is the box.
    const plain = new Float32Array(whole.cellTable().buffer, 4 * whole.views * (1 + whole.poses));
    expect(Array.from(plain.subarray(16 * 7, 16 * 7 + 8))).toEqual([0, 0, 0, 0, 1, 1, 1.625, 0]);
    // Plain pose boxes (a prop of chosen instances left out: each pose 0.5 lower) in words 8 to 15.
    const lower = poses.map((x, i) => (i % 3 === 1 && i % 6 === 4 ? x - 0.5 : x));
    const withPlain = new Float32Array(new AtlasGrid(2, { box, poses, plainPoses: lower }, 8192, { frames: 4, cellSize: 32 }).cellTable().buffer, 4 * g.views * (1 + g.poses));
    expect(Array.from(withPlain.subarray(16 * 3 + 8, 16 * 3 + 16))).toEqual([0, -0.25, 1.125, 0, 0.5, 0.75, 0.5, 0]);
    expect(() => new AtlasGrid(2, { box, poses, plainPoses: lower.subarray(6) }, 8192, { frames: 4 })).toThrow(/7 plain pose boxes for 8 poses/);
    // Poses that stay in place (each its box but a 0.1 wide step along x) are framed by the box: under POSE_FRAMES_GAIN.
    const still = new Float64Array(6 * 8);
    for (let p = 0; p < 8; p++) still.set([-1 + 0.1 * (p % 2), 0, -0.5, 1 - 0.1 * ((p + 1) % 2), 2, 2.75], 6 * p);
    const kept = new AtlasGrid(2, { box, poses: still }, 8192, { frames: 4, cellSize: 32 });
    expect([kept.frameHalf, kept.poseOffsets.every((o) => o === 0), kept.density]).toEqual([whole.frameHalf, true, whole.density]);
    // Pose boxes that are not one a pose inside the box are refused by name.
    expect(() => new AtlasGrid(2, { box, poses: poses.subarray(6) }, 8192, { frames: 4 })).toThrow(/7 pose boxes for 8 poses/);
    expect(() => new AtlasGrid(2, { box: [-1, 0, -0.5, 1, 2, 2], poses }, 8192, { frames: 4 })).toThrow(/pose 3's box is not inside the atlas's box on axis 2/);
  });

  it('leaves roughness and metalness out of the atlas only where every material has the same factors and no texture varies them', () => {
    const fox = { metallicRoughnessImage: undefined, roughnessFactor: 0.58, metallicFactor: 0 };
    expect(uniformSurface([fox])).toEqual([0.58, 0]);
    expect(uniformSurface([fox, { ...fox, roughnessFactor: 0.01 }])).toBeUndefined();
    expect(uniformSurface([fox, { ...fox, metallicFactor: 1 }])).toBeUndefined();
    expect(uniformSurface([{ ...fox, roughnessFactor: 0.01 }])).toEqual([0.0525, 0]); // the bake's clamp
    expect(uniformSurface([fox, { ...fox, metallicRoughnessImage: {} as never }])).toBeUndefined();
    expect(uniformSurface([])).toBeUndefined();
  });
});

describe('impostor bake (GPU)', () => {
  let device: GPUDevice | undefined;
  let fox: Character;
  gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });

  /** The atlas textures read back: 4 bytes a texel each (an RG8 texture's in the first two), rows top to bottom. */
  async function readAtlas(d: GPUDevice, impostors: CrowdImpostors): Promise<{ albedo: Uint8Array; surface: Uint8Array }> {
    const { width, height } = impostors.atlas;
    const read = async (texture: GPUTexture, texelBytes: number) => {
      const row = Math.ceil((width * texelBytes) / 256) * 256;
      const buffer = d.createBuffer({ size: row * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
      const encoder = d.createCommandEncoder();
      encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: row }, [width, height]);
      d.queue.submit([encoder.finish()]);
      const bytes = new Uint8Array(await readBuffer(d, buffer));
      buffer.destroy();
      const out = new Uint8Array(width * height * 4);
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let c = 0; c < texelBytes; c++) out[(y * width + x) * 4 + c] = bytes[y * row + x * texelBytes + c];
      return out;
    };
    const { albedo, surface } = impostors.atlasTextures;
    return { albedo: await read(albedo, 4), surface: await read(surface, surface.format === 'rg8unorm' ? 2 : 4) };
  }

  /** Coverage of the cell at texel (x, y), w x h texels, at `size` x `size` points across it: per point, whether its texel is at least half covered (the bake's alpha is the fraction covered, 4 samples). */
  function cellCoverage(albedo: Uint8Array, width: number, [x, y, w, h]: number[], size: number): Uint8Array {
    const out = new Uint8Array(size * size);
    for (let j = 0; j < size; j++) for (let i = 0; i < size; i++) {
      const tx = x + Math.floor(((i + 0.5) * w) / size), ty = y + Math.floor(((j + 0.5) * h) / size);
      out[j * size + i] = Number(albedo[(ty * width + tx) * 4 + 3] >= 128);
    }
    return out;
  }

  /** Coverage of the crowd's own draw of the Fox at clip `clip`, time `time`, from the model-space direction `d`, framed as a cell is (the projection of `box`, the atlas's). */
  async function meshCoverage(d: GPUDevice, clip: number, time: number, direction: ArrayLike<number>, size: number, box: ArrayLike<number>): Promise<Uint8Array> {
    const crowd = new Crowd(d, fox, TARGETS);
    crowd.add({ clipA: clip, timeA: time, speedA: 0 });
    crowd.update(0);
    const { centre, radius } = boxSphere(box);
    const eye = centre.map((c, i) => c + direction[i] * 2 * radius);
    // The cell's rectangle: the box's projection on the view's axes (viewFrame).
    const { right, up } = viewBasis(direction);
    const [w, h] = viewFrame(box, right, up);
    const viewProjection = Float32Array.from(mat4.multiply(mat4.ortho(-w, w, -h, h, 0, 4 * radius), mat4.lookAt(eye, centre, [0, 1, 0])));
    const pixels = await renderCrowd(d, crowd, viewProjection, size);
    crowd.destroy();
    const out = new Uint8Array(size * size);
    for (let i = 0; i < out.length; i++) out[i] = Number(pixels[i * 4] + pixels[i * 4 + 1] + pixels[i * 4 + 2] > 0);
    return out;
  }

  /** Intersection over union of two coverage masks. */
  function overlap(a: Uint8Array, b: Uint8Array): number {
    let both = 0, either = 0;
    for (let i = 0; i < a.length; i++) { both += a[i] & b[i]; either += a[i] | b[i]; }
    return both / either;
  }

  it('bakes every (clip, frame, view) cell as the crowd draws that pose from that direction; a wrong view or frame does not match', async (context) => {
    if (!device) return context.skip();
    // LOD off: the atlas shows level 0 (the level drawn at the switch), as meshCoverage draws it.
    const crowd = new Crowd(device, fox, { ...TARGETS, lod: false });
    const impostors = new CrowdImpostors(crowd, SMALL);
    expect(impostors.baked).toBe(false);
    expect(crowd.gpuBytes).toBe(crowd.gpuBytes); // before the bake: no atlas counted
    const before = crowd.gpuBytes;
    crowd.update(0); // first use bakes
    expect(impostors.baked).toBe(true);
    expect(crowd.gpuBytes - before).toBe(impostors.atlas.bytes);
    const { albedo, surface } = await readAtlas(device, impostors);
    const g = impostors.grid;
    // The Fox has one roughness and metalness: the surface texture holds the normal alone, 7 bytes a texel, in the bytes of 64-texel square cells at 9.
    expect([g.surface, g.texelBytes, impostors.atlasTextures.surface.format]).toEqual([[0.58, 0], 7, 'rg8unorm']);
    expect(g.bytes).toBeLessThanOrEqual(g.poses * g.views * 64 * 64 * 9);
    // Clip 1 (Walk), frame 1 (half its cycle), view 1 (azimuth 90 degrees: from +x).
    const pose = 1 * g.frames + 1, view = 1;
    const time = 0.5 * fox.clipDurations[1];
    const cell = g.cell(pose, view);
    const baked = cellCoverage(albedo, g.width, cell, 64);
    // The pose's cells frame the poses' largest half extents about its own centre (AtlasGrid.frameHalf, poseOffsets).
    const { centre: boxCentre } = boxSphere(g.box);
    const frame = g.frameBox.map((x, i) => x + boxCentre[i % 3] + g.poseOffsets[3 * pose + (i % 3)]);
    const drawn = await meshCoverage(device, 1, time, g.direction(view), 64, frame);
    expect(drawn.reduce((a, b) => a + b, 0)).toBeGreaterThan(200);
    expect(overlap(baked, drawn)).toBeGreaterThan(0.9);
    // Made-up violations: the next view's cell, and the same view at the other frame, do not match the mesh.
    expect(overlap(cellCoverage(albedo, g.width, g.cell(pose, 2), 64), drawn)).toBeLessThan(0.8);
    expect(overlap(cellCoverage(albedo, g.width, g.cell(pose - 1, view), 64), drawn)).toBeLessThan(0.9);
    // Normals face the camera of their view (camera axes, octahedral): most fully covered texels have n.z > 0.
    let facing = 0, covered = 0;
    const [cx, cy, cw, ch] = cell;
    for (let y = cy; y < cy + ch; y++) for (let x = cx; x < cx + cw; x++) {
      const i = (y * g.width + x) * 4;
      if (albedo[i + 3] < 255) continue; // partly covered: premultiplied by its coverage
      covered++;
      const n = decodeOctahedral(surface[i] / 255, surface[i + 1] / 255);
      if (n[2] > 0) facing++;
    }
    expect(facing / covered).toBeGreaterThan(0.95);
    // The covered rectangles (impostor-coverage.ts) are each cell's covered texels' bounds, as
    // read back; made-up violations (one a texel short, one empty where the cell covers) are caught.
    const rectBuffer = (impostors as unknown as { coverage: { buffer: GPUBuffer } }).coverage.buffer;
    const rects = new Uint32Array(await readBuffer(device, rectBuffer));
    const expected = coveredRects(albedo, g);
    expect(rects.length).toBe(2 * g.poses * g.views);
    expect(expected.filter((r, i) => i % 2 === 1 && r !== 0).length).toBeGreaterThan(g.poses * g.views * 0.9);
    expect([...rects]).toEqual([...expected]);
    // The atlas's box (impostorBox) frames the character: every cell's covered texels a texel
    // clear of its edges, nothing cut (made-up violation: the box without its margin touches them).
    let touching = 0;
    for (let p = 0; p < g.poses; p++) for (let v = 0; v < g.views; v++) {
      const [, , w, h] = g.cell(p, v);
      const i = 2 * (p * g.views + v);
      const [x0, y0, x1, y1] = [rects[i] & 0xffff, rects[i] >>> 16, rects[i + 1] & 0xffff, rects[i + 1] >>> 16];
      if (x0 > x1) continue; // nothing covered
      if (x0 < 1 || y0 < 1 || x1 > w - 2 || y1 > h - 2) touching++;
    }
    expect(touching).toBe(0);
    const short = Uint32Array.from(rects);
    short[2 * (pose * g.views + view) + 1] -= 1; // max x one texel short
    expect([...short]).not.toEqual([...expected]);
    const none = Uint32Array.from(rects);
    none.set([0xffff | (0xffff << 16), 0], 2 * (pose * g.views + view));
    expect([...none]).not.toEqual([...expected]);
    // The covered fractions (a dot's area) are each cell's mean coverage between its corner
    // texels' centres, as read back (the trapezoid rule); only the one layer baked is written.
    const fractions = new Float32Array(await readBuffer(device, (impostors as unknown as { coverage: { fractions: GPUBuffer } }).coverage.fractions));
    const meanCoverage = cellFractions(albedo, g);
    expect(fractions.length).toBe(g.poses * g.views * g.capacity);
    expect(meanCoverage[pose * g.views + view]).toBeGreaterThan(0.2); // the Walk from the side fills a fifth of its rectangle at least
    for (let i = 0; i < meanCoverage.length; i++) expect(Math.abs(fractions[i] - meanCoverage[i])).toBeLessThan(1e-6);
    // Made-up violation: the rectangle's plain mean (every texel alike) is another number.
    const [cx0, cy0, w, h] = g.cell(pose, view);
    let plain = 0;
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) plain += albedo[((cy0 + j) * g.width + cx0 + i) * 4 + 3] / 255;
    expect(Math.abs(plain / (w * h) - fractions[pose * g.views + view])).toBeGreaterThan(1e-3);
    crowd.destroy();
    expect(crowd.gpuBytes).toBeGreaterThanOrEqual(0);
  }, 120_000);
});

/** Each cell's covered rectangle as coverage.wgsl writes it, from the atlas read back: its texels of alpha > 0, min x | min y << 16, max x | max y << 16 from the cell's corner (0xffff | 0xffff << 16, 0 where none). */
function coveredRects(albedo: Uint8Array, g: AtlasGrid): Uint32Array {
  const out = new Uint32Array(2 * g.poses * g.views);
  for (let pose = 0; pose < g.poses; pose++) for (let view = 0; view < g.views; view++) {
    const [x, y, w, h] = g.cell(pose, view);
    let x0 = 0xffff, y0 = 0xffff, x1 = 0, y1 = 0;
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) {
      if (albedo[((y + j) * g.width + x + i) * 4 + 3] === 0) continue;
      x0 = Math.min(x0, i); y0 = Math.min(y0, j); x1 = Math.max(x1, i); y1 = Math.max(y1, j);
    }
    out.set([(x0 | (y0 << 16)) >>> 0, (x1 | (y1 << 16)) >>> 0], 2 * (pose * g.views + view));
  }
  return out;
}

/** Each cell's covered fraction as coverage.wgsl writes it, from the atlas read back: alpha weighted 1/2 on edge texels, 1/4 on corners, over (w - 1) (h - 1). */
function cellFractions(albedo: Uint8Array, g: AtlasGrid): Float64Array {
  const out = new Float64Array(g.poses * g.views);
  for (let pose = 0; pose < g.poses; pose++) for (let view = 0; view < g.views; view++) {
    const [x, y, w, h] = g.cell(pose, view);
    let sum = 0;
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) {
      const weight = (i === 0 || i === w - 1 ? 0.5 : 1) * (j === 0 || j === h - 1 ? 0.5 : 1);
      sum += weight * albedo[((y + j) * g.width + x + i) * 4 + 3] / 255;
    }
    out[pose * g.views + view] = sum / ((w - 1) * (h - 1));
  }
  return out;
}

function decodeOctahedral(u: number, v: number): number[] {
  const x = u * 2 - 1, y = v * 2 - 1;
  let n = [x, y, 1 - Math.abs(x) - Math.abs(y)];
  if (n[2] < 0) n = [(1 - Math.abs(n[1])) * Math.sign(n[0] || 1), (1 - Math.abs(n[0])) * Math.sign(n[1] || 1), n[2]];
  const l = Math.hypot(n[0], n[1], n[2]);
  return n.map((c) => c / l);
}
