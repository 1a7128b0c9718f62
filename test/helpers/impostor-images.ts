/**
 * Impostor against mesh at the switch, in Node on SwiftShader (the impostor tests): a character
 * drawn just past the impostor switch as its impostor and as its mesh into a 128 x 128 target
 * whose field of view is a 1080-pixel view's, the two images compared over the character's pixels
 * (the measure), and small characters built or edited for one material feature.
 */
import { expect } from 'vitest';
import { PNG } from 'pngjs';
import { loadCharacter, type Character } from '../../src/character/character';
import { CrowdImpostors } from '../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../src/features/impostors/impostor-atlas';
import { atlasGrid, bakedClips } from '../../src/features/impostors/impostor-box';
import { distanceForPixels, projectionScale } from '../../src/runtime/culling/cull-math';
import { Crowd } from '../../src/runtime/crowd';
import { arrayBufferOf, assetToGlb, GltfBuilder, translationMatrix } from './gltf-builder';
import { lookAt, renderCrowd } from './render';

export const TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
// The field of view that puts the camera as far from the character at the switch as a 1080-pixel
// view with a 0.9 rad field of view does (cot(FOV / 2) x 128 = cot(0.45) x 1080): perspective
// across the character as in a real scene, not as in a 128-pixel view with a wide lens.
export const SIZE = 128;
export const FOV = 2 * Math.atan(Math.tan(0.45) * SIZE / 1080);
/**
 * Two images of one character against the black clear colour, `b` the mesh's: the mean absolute
 * difference (0..255, channels averaged) over the pixels both cover (`inside`: shading), over the
 * pixels either covers (`union`), over the pixels `b` covers (`mesh`: the character's pixels, each
 * with its full difference, background where `a` leaves it), and the fraction of the pixels either
 * covers that only one does (`outline`: shape).
 */
export function compare(a: Uint8Array, b: Uint8Array): { inside: number; outline: number; pixels: number; union: number; mesh: number } {
  let sum = 0, both = 0, one = 0, edge = 0, onMesh = 0, meshPixels = 0;
  for (let i = 0; i < a.length; i += 4) {
    const ca = a[i] + a[i + 1] + a[i + 2] > 0, cb = b[i] + b[i + 1] + b[i + 2] > 0;
    const d = (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2])) / 3;
    if (cb) {
      meshPixels++;
      onMesh += d;
    }
    if (ca && cb) {
      both++;
      sum += d;
    } else if (ca || cb) {
      one++;
      edge += d;
    }
  }
  // union: the mean over every pixel either covers, a pixel only one covers against the black clear colour.
  return { inside: sum / Math.max(both, 1), outline: one / Math.max(both + one, 1), pixels: both + one, union: (sum + edge) / Math.max(both + one, 1), mesh: onMesh / Math.max(meshPixels, 1) };
}

/**
 * The most the impostor may differ from the mesh over the union of their outlines, /255 (a pixel
 * only one draws counts as its full difference: the outline's pixels weigh heavily at a Fox of
 * about 140 pixels): measured UNION_HERE on Dawn's SwiftShader. The measure, over the
 * character's (the mesh's) pixels, is held at 8.
 */
export const UNION_LIMIT = 10;
/** Whether two images of the character match as the impostor must match the mesh at the switch: over the union, and inside alone. */
export function matches(a: Uint8Array, b: Uint8Array): boolean {
  const c = compare(a, b);
  return c.union <= UNION_LIMIT && c.inside <= 8 && c.outline <= 0.1;
}

/**
 * A glTF (the materials test's feature character, edited) loaded with its PNG images decoded:
 * Node has no createImageBitmap (the loader decodes no PNG there), so each is decoded here and
 * handed to the crowd as a decoded (KTX2-path) image uploads its texels.
 */
export async function loadDecoded(json: unknown): Promise<Character> {
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  const character = await loadCharacter(bytes.buffer as ArrayBuffer);
  for (const p of character.rig.primitives) {
    const m = p.material;
    for (const image of [m.baseColorImage, m.normalImage, m.occlusionImage, m.emissiveImage]) {
      if (!image || image.ktx2) continue;
      const png = PNG.sync.read(Buffer.from(image.bytes));
      const rgba = new Uint8Array(png.data);
      image.ktx2 = {
        width: png.width, height: png.height, rgba: [rgba], blocks: () => undefined, uploadGL: () => undefined,
        upload: (d: GPUDevice, format: GPUTextureFormat, label: string) => {
          const levels = Math.floor(Math.log2(Math.max(png.width, png.height))) + 1;
          const texture = d.createTexture({ label, size: [png.width, png.height], format, mipLevelCount: levels, usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT });
          d.queue.writeTexture({ texture }, rgba, { bytesPerRow: png.width * 4 }, [png.width, png.height]);
          return { texture, bytes: rgba.length, needsMipmaps: true };
        },
      };
    }
  }
  return character;
}

/** drawFacing's atlas: small enough for SwiftShader, cells large enough for the quads' details. */
export const FACING = { frames: 2, azimuths: 4, elevations: 1, cellSize: 128 };

/**
 * `character` drawn just past the switch seen from view 0 (azimuth 0, +z), FACING's atlas, `samples`
 * a pixel (1 or 4): as impostors, then (`mesh`) as meshes; with `mesh` 'only', as meshes alone
 * from the same camera, no atlas baked (a made-up violation's reference).
 */
export async function drawFacing(device: GPUDevice, character: Character, mesh: boolean | 'only', samples = 1): Promise<Uint8Array[]> {
  const crowd = new Crowd(device, character, { ...TARGETS, sampleCount: samples });
  // The camera from the atlas's box and switch, as CrowdImpostors lays them out (impostor-box.ts atlasGrid).
  const grid = atlasGrid(crowd, FACING, bakedClips(character, undefined), []);
  const impostors = mesh === 'only' ? undefined : new CrowdImpostors(crowd, FACING);
  crowd.add();
  const { centre, radius } = boxSphere(grid.box);
  const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: FOV });
  const d = 1.02 * distanceForPixels(2 * radius, grid.switchPixels, projectionScale(probe.viewProjection), SIZE);
  const eye: [number, number, number] = [centre[0], centre[1], centre[2] + d];
  const { viewProjection } = lookAt(eye, centre, { fovY: FOV, near: d / 4, far: 4 * d });
  const images: Uint8Array[] = [];
  for (const on of mesh === 'only' ? [false] : mesh ? [true, false] : [true]) {
    if (impostors) impostors.enabled = on;
    crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
    crowd.update(0);
    images.push(await renderCrowd(device, crowd, viewProjection, SIZE, samples));
    if (on) expect((await crowd.readCullStats()).perLevel.at(-1)).toBe(1);
  }
  crowd.destroy();
  return images;
}

/** A quad of a quads character: its corners (x0, y0) to (x1, y1) at depth z, facing +z, and its material's index. */
export type Quad = [x0: number, y0: number, x1: number, y1: number, z: number, material: number];

/** A character of quads facing +z (one joint, a clip that holds it still) with `materials` (glTF JSON). */
export async function quadsCharacter(quads: Quad[], materials: object[], extensions: string[] = []): Promise<Character> {
  const b = new GltfBuilder();
  const primitive = ([x0, y0, x1, y1, z, material]: Quad) => ({
    attributes: {
      POSITION: b.addAccessor('VEC3', Float32Array.of(x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z)),
      JOINTS_0: b.addAccessor('VEC4', new Uint8Array(16)),
      WEIGHTS_0: b.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)),
    },
    indices: b.addAccessor('SCALAR', Uint16Array.of(0, 1, 2, 0, 2, 3)), material,
  });
  b.json.nodes.push({ name: 'root' }, { name: 'body', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 1] }];
  b.json.meshes = [{ primitives: quads.map(primitive) }];
  b.json.materials = materials;
  b.json.extensionsUsed = ['KHR_materials_unlit', ...extensions];
  b.json.skins = [{ joints: [0], inverseBindMatrices: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0))) }];
  b.json.animations = [{
    name: 'still', channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
    samplers: [{ input: b.addAccessor('SCALAR', Float32Array.of(0, 1)), output: b.addAccessor('VEC4', Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1)), interpolation: 'LINEAR' }],
  }];
  return loadCharacter(arrayBufferOf(assetToGlb(b.build())));
}
