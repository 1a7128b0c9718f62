import { buildBoxPropGlb, type BoxMaterial, type PropBox } from './boxes';

/**
 * The Flag: a static prop for CrowdProps.attach, built from boxes by code (licence-free by
 * construction, CC0): a pole and a banner of two stripes, in three primitives (pole, red and
 * white cloth). Prop space: the pole's foot, where a hand grips it, is the origin, the pole points
 * along +y, the banner flies towards +x, its faces face z; 1 unit from the pole's foot to its top
 * (y in [0, 1]), the banner 0.55 wide. Deterministic: the same code writes the same bytes.
 */

/** Linear base colours. */
export const FLAG_MATERIALS: readonly BoxMaterial[] = [
  { name: 'Pole', color: [0.55, 0.55, 0.58, 1], metallic: 0.6, roughness: 0.45 },
  { name: 'Red', color: [0.75, 0.04, 0.04, 1], metallic: 0, roughness: 0.8 },
  { name: 'White', color: [0.9, 0.9, 0.88, 1], metallic: 0, roughness: 0.8 },
];

/** Boxes: centre and full size in prop units, material index. */
export const FLAG_BOXES: readonly PropBox[] = [
  { centre: [0, 0.485, 0], size: [0.03, 0.97, 0.03], material: 0 }, // pole
  { centre: [0, 0.985, 0], size: [0.05, 0.03, 0.05], material: 0 }, // knob
  { centre: [0.29, 0.885, 0], size: [0.55, 0.15, 0.012], material: 1 }, // top stripe
  { centre: [0.29, 0.735, 0], size: [0.55, 0.15, 0.012], material: 2 }, // bottom stripe
];

/** The Flag as .glb bytes. */
export function buildFlagGlb(): Promise<Uint8Array> {
  return buildBoxPropGlb('Flag', FLAG_MATERIALS, FLAG_BOXES);
}
