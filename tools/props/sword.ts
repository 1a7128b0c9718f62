import { buildBoxPropGlb, type BoxMaterial, type PropBox } from './boxes';

/**
 * The Sword: a static prop for CrowdProps.attach, built from boxes by code (licence-free by
 * construction, CC0). One mesh node without a skin or clips, in three primitives (steel blade,
 * gold guard and pommel, leather grip). Prop space: the grip's centre is the origin, the blade
 * points along +y, the guard spans x, the flat of the blade faces z; 1 unit long from pommel to
 * tip (y in [-0.2, 0.8]). Deterministic: the same code writes the same bytes.
 */

/** Linear base colours. */
export const SWORD_MATERIALS: readonly BoxMaterial[] = [
  { name: 'Steel', color: [0.9, 0.92, 0.95, 1], metallic: 0.8, roughness: 0.4 },
  { name: 'Gold', color: [0.85, 0.6, 0.12, 1], metallic: 0.8, roughness: 0.4 },
  { name: 'Leather', color: [0.3, 0.15, 0.06, 1], metallic: 0, roughness: 0.4 },
];

/** Boxes: centre and full size in prop units, material index. */
export const SWORD_BOXES: readonly PropBox[] = [
  { centre: [0, 0.44, 0], size: [0.1, 0.72, 0.025], material: 0 }, // blade
  { centre: [0, 0.78, 0], size: [0.06, 0.04, 0.02], material: 0 }, // tip
  { centre: [0, 0.07, 0], size: [0.28, 0.045, 0.07], material: 1 }, // guard
  { centre: [0, -0.17, 0], size: [0.075, 0.06, 0.075], material: 1 }, // pommel
  { centre: [0, -0.05, 0], size: [0.045, 0.19, 0.045], material: 2 }, // grip
];

/** The Sword as .glb bytes. */
export function buildSwordGlb(): Promise<Uint8Array> {
  return buildBoxPropGlb('Sword', SWORD_MATERIALS, SWORD_BOXES);
}
