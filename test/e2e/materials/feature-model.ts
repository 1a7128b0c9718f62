/**
 * A generated glTF (CC0, built here) whose primitives each use one material feature, for the
 * three.js comparison (test/e2e/materials.test.ts): spheres in a row (a dielectric with COLOR_0, metal with a
 * metallic-roughness texture, emissive with KHR_materials_emissive_strength and an emissive
 * texture on TEXCOORD_1 through KHR_texture_transform's texCoord override, occlusion texture on TEXCOORD_1 (as exporters bake it), KHR_materials_unlit, alphaMode MASK over a texture's alpha moved by
 * KHR_texture_transform, a texture whose sampler clamps u, mirrors v and filters NEAREST, BLEND),
 * then two quads facing away from the camera (doubleSided true: drawn; false: culled), then two
 * spheres with a bumpy normal map (normalTexture.scale 0.8 with TANGENT, 1.3 without). One joint
 * moves it all; one clip of one key. Returned as a data: URL both loaders read.
 */
import { PNG } from 'pngjs';

interface Part { positions: number[]; normals: number[]; uvs: number[]; indices: number[]; tangents: number[] }

function sphere(cx: number, cy: number, r: number): Part {
  const part: Part = { positions: [], normals: [], uvs: [], indices: [], tangents: [] };
  const rings = 16;
  const segments = 24;
  for (let i = 0; i <= rings; i++) {
    const v = i / rings;
    const theta = v * Math.PI;
    for (let j = 0; j <= segments; j++) {
      const u = j / segments;
      const phi = u * 2 * Math.PI;
      const n = [Math.sin(theta) * Math.sin(phi), Math.cos(theta), Math.sin(theta) * Math.cos(phi)];
      part.positions.push(cx + r * n[0], cy + r * n[1], r * n[2]);
      part.normals.push(...n);
      part.uvs.push(u, v);
      // dP/du, and w = -1: cross(N, T) w = dP/dv (glTF's convention, as MikkTSpace writes it).
      part.tangents.push(Math.cos(phi), 0, -Math.sin(phi), -1);
    }
  }
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < segments; j++) {
      const a = i * (segments + 1) + j;
      const b = a + segments + 1;
      part.indices.push(a, b, a + 1, b, b + 1, a + 1);
    }
  }
  return part;
}

/** A quad in the z = 0 plane whose front (counter-clockwise) faces -z: away from a camera on +z. */
function quadFacingAway(cx: number, cy: number, h: number): Part {
  return {
    positions: [cx - h, cy - h, 0, cx + h, cy - h, 0, cx + h, cy + h, 0, cx - h, cy + h, 0],
    normals: [0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, -1],
    uvs: [0, 1, 1, 1, 1, 0, 0, 0],
    indices: [0, 2, 1, 0, 3, 2],
    tangents: [],
  };
}

/**
 * A 32 x 32 tangent-space normal map of a grid of 4 x 4 round bumps (height sin(x) sin(y), slopes
 * up to about 68 degrees): shading that ignores it, or flips its X or Y, differs at every bump.
 */
function bumps(): Buffer {
  const size = 32;
  const png = new PNG({ width: size, height: size });
  const k = (2 * Math.PI * 4) / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const sx = (x + 0.5) * k, sy = (y + 0.5) * k;
      // Height h = sin(sx) sin(sy); normal (-dh/dx, +dh/dy, 1) with +Y towards -v (up the image), glTF's convention.
      const nx = -2.5 * Math.cos(sx) * Math.sin(sy), ny = 2.5 * Math.sin(sx) * Math.cos(sy);
      const len = Math.hypot(nx, ny, 1);
      png.data.set([nx / len, ny / len, 1 / len].map((c) => Math.round((c * 0.5 + 0.5) * 255)).concat(255), (y * size + x) * 4);
    }
  }
  return PNG.sync.write(png);
}

/** An 8 x 8 RGBA PNG: checker of `a` and `b` in 2 x 2 texel cells. */
function checker(a: number[], b: number[]): Buffer {
  const png = new PNG({ width: 8, height: 8 });
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) png.data.set(((x >> 1) + (y >> 1)) % 2 ? b : a, (y * 8 + x) * 4);
  return PNG.sync.write(png);
}

/** Primitive (and material) indices of the normal-mapped spheres: with TANGENT, without. */
export const NORMAL_MAPPED = { tangents: 10, derivatives: 11 } as const;

/**
 * The character as a data: URL; `only`: the indices of the primitives to keep (all by default),
 * so one feature can fill the picture (the comparison frames the character's bounds).
 */
export function featureModelUrl(only?: number[]): string {
  const r = 0.4;
  const parts: Part[] = [
    sphere(0, 2, r), sphere(1, 2, r), sphere(2, 2, r), sphere(3, 2, r),
    sphere(0, 1, r), sphere(1, 1, r), sphere(2, 1, r), sphere(3, 1, r),
    quadFacingAway(0, 0, r), quadFacingAway(1, 0, r),
    sphere(2, 0, r), sphere(3, 0, r),
  ];
  const images = [
    checker([255, 40, 255, 255], [255, 230, 20, 255]), // metallic-roughness: B metal, G rough
    checker([255, 255, 255, 255], [40, 40, 40, 255]), // occlusion (R) and emissive colour
    checker([200, 120, 60, 255], [60, 120, 200, 40]), // base colour with alpha for MASK
    bumps(), // normal map
  ];
  const chunks: Buffer[] = [];
  const bufferViews: object[] = [];
  const accessors: object[] = [];
  let offset = 0;
  const view = (data: Buffer, target?: number): number => {
    const padded = Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4)]);
    bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: data.length, ...(target ? { target } : {}) });
    chunks.push(padded);
    offset += padded.length;
    return bufferViews.length - 1;
  };
  const accessor = (values: number[], type: string, componentType: number, minmax = false): number => {
    const data = componentType === 5126 ? Buffer.from(new Float32Array(values).buffer) : componentType === 5125 ? Buffer.from(new Uint32Array(values).buffer) : Buffer.from(new Uint8Array(values).buffer);
    const width = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[type]!;
    const count = values.length / width;
    const extra: Record<string, number[]> = {};
    if (minmax) {
      extra.min = Array.from({ length: width }, (_, k) => Math.min(...values.filter((_, i) => i % width === k)));
      extra.max = Array.from({ length: width }, (_, k) => Math.max(...values.filter((_, i) => i % width === k)));
    }
    accessors.push({ bufferView: view(data, type === 'MAT4' || type === 'SCALAR' && componentType === 5126 ? undefined : componentType === 5125 ? 34963 : 34962), componentType, count, type, ...extra });
    return accessors.length - 1;
  };
  const primitives = parts.map((p, m) => {
    const n = p.positions.length / 3;
    return {
      attributes: {
        POSITION: accessor(p.positions, 'VEC3', 5126, true), NORMAL: accessor(p.normals, 'VEC3', 5126), TEXCOORD_0: accessor(p.uvs, 'VEC2', 5126),
        // TEXCOORD_1 on the emissive and occlusion spheres: (v, u) x 3, unlike TEXCOORD_0.
        // TANGENT on the first normal-mapped sphere; the second has none (three.js and crowd-skin derive the frame).
        ...(m === NORMAL_MAPPED.tangents ? { TANGENT: accessor(p.tangents, 'VEC4', 5126) } : {}),
        ...(m === 2 || m === 3 ? { TEXCOORD_1: accessor(p.uvs.map((_, i) => 3 * p.uvs[i ^ 1]), 'VEC2', 5126) } : {}),
        // COLOR_0 on the dielectric sphere only: a gradient from white at the top to blue below.
        ...(m === 0 ? { COLOR_0: accessor(Array.from({ length: n * 3 }, (_, i) => (i % 3 === 2 ? 1 : 0.5 + 0.5 * p.normals[i - (i % 3) + 1])), 'VEC3', 5126) } : {}),
        JOINTS_0: accessor(Array.from({ length: n * 4 }, () => 0), 'VEC4', 5121), WEIGHTS_0: accessor(Array.from({ length: n * 4 }, (_, i) => (i % 4 === 0 ? 1 : 0)), 'VEC4', 5126),
      },
      indices: accessor(p.indices, 'SCALAR', 5125), material: m,
    };
  });
  const imageViews = images.map((png) => view(png));
  const inverseBind = accessor([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 'MAT4', 5126);
  const times = accessor([0], 'SCALAR', 5126, true);
  const rotation = accessor([0, 0, 0, 1], 'VEC4', 5126);
  const buffer = Buffer.concat(chunks);
  const materials = [
    { name: 'dielectric', pbrMetallicRoughness: { baseColorFactor: [0.8, 0.15, 0.1, 1], metallicFactor: 0, roughnessFactor: 0.3 } },
    { name: 'metal-rough-texture', pbrMetallicRoughness: { baseColorFactor: [0.95, 0.8, 0.5, 1], metallicFactor: 1, roughnessFactor: 1, metallicRoughnessTexture: { index: 0 } } },
    { name: 'emissive', pbrMetallicRoughness: { baseColorFactor: [0.1, 0.1, 0.1, 1], metallicFactor: 0 }, emissiveFactor: [0.2, 0.5, 1],
      // texCoord 0, overridden to TEXCOORD_1 by KHR_texture_transform.
      emissiveTexture: { index: 1, extensions: { KHR_texture_transform: { texCoord: 1, offset: [0.25, 0] } } },
      extensions: { KHR_materials_emissive_strength: { emissiveStrength: 1.5 } } },
    { name: 'occlusion', pbrMetallicRoughness: { baseColorFactor: [0.9, 0.9, 0.9, 1], metallicFactor: 0, roughnessFactor: 0.7 }, occlusionTexture: { index: 1, strength: 0.8, texCoord: 1 } },
    { name: 'unlit', pbrMetallicRoughness: { baseColorFactor: [0.2, 0.7, 0.3, 1] }, extensions: { KHR_materials_unlit: {} } },
    { name: 'mask', pbrMetallicRoughness: { baseColorTexture: { index: 2, extensions: { KHR_texture_transform: { offset: [0.1, 0.2], rotation: 0.5, scale: [2, 1.5] } } }, metallicFactor: 0 },
      alphaMode: 'MASK', alphaCutoff: 0.5 },
    // UVs moved to [-0.5, 1.5] so the file's sampler decides what lies outside [0, 1]: clamped in u,
    // mirrored in v, nearest texels, no mipmaps (sampler 1).
    { name: 'sampler', pbrMetallicRoughness: { baseColorTexture: { index: 3, extensions: { KHR_texture_transform: { offset: [-0.5, -0.5], scale: [2, 2] } } }, metallicFactor: 0 } },
    { name: 'blend', pbrMetallicRoughness: { baseColorFactor: [0.3, 0.4, 0.9, 0.5], metallicFactor: 0, roughnessFactor: 0.5 }, alphaMode: 'BLEND' },
    { name: 'double-sided', pbrMetallicRoughness: { baseColorFactor: [0.9, 0.9, 0.2, 1], metallicFactor: 0 }, doubleSided: true },
    { name: 'single-sided', pbrMetallicRoughness: { baseColorFactor: [0.9, 0.2, 0.9, 1], metallicFactor: 0 } },
    { name: 'normal-tangents', pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 0.35 }, normalTexture: { index: 4, scale: 0.8 } },
    { name: 'normal-derivatives', pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 0.35 }, normalTexture: { index: 4, scale: 1.3 } },
  ];
  const gltf = {
    asset: { version: '2.0', generator: 'crowd-skin test/e2e/materials/feature-model.ts (CC0)' },
    extensionsUsed: ['KHR_materials_emissive_strength', 'KHR_materials_unlit', 'KHR_texture_transform'],
    scene: 0, scenes: [{ nodes: [0, 1] }],
    nodes: [{ name: 'root' }, { name: 'features', mesh: 0, skin: 0 }],
    skins: [{ joints: [0], inverseBindMatrices: inverseBind }],
    meshes: [{ primitives: only ? primitives.filter((_, m) => only.includes(m)) : primitives }],
    materials,
    samplers: [{ magFilter: 9729, minFilter: 9987, wrapS: 10497, wrapT: 10497 }, { magFilter: 9728, minFilter: 9728, wrapS: 33071, wrapT: 33648 }],
    textures: [...[0, 1, 2].map((i) => ({ source: i, sampler: 0 })), { source: 2, sampler: 1 }, { source: 3, sampler: 0 }],
    images: imageViews.map((bufferView) => ({ bufferView, mimeType: 'image/png' })),
    animations: [{ name: 'still', samplers: [{ input: times, output: rotation, interpolation: 'STEP' }], channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }] }],
    buffers: [{ byteLength: buffer.length, uri: `data:application/octet-stream;base64,${buffer.toString('base64')}` }],
    bufferViews, accessors,
  };
  return `data:model/gltf+json;base64,${Buffer.from(JSON.stringify(gltf)).toString('base64')}`;
}
