import { CrowdAppearance, type AppearanceImage, type Character, type Crowd, type GLCrowd } from '../src/index';
import type { Population } from './population';

/** The instances the control spreads looks over: a Population's, or a scene's own (the stadium's spectators). */
export type Spectators = Pick<Population, 'count' | 'idAt' | 'version'>;

/** Tints the control spreads (linear RGB): saturated hues, so that the crowd reads as many people. */
const TINTS: readonly [number, number, number][] = [
  [1, 0.25, 0.2], [0.25, 0.9, 0.3], [0.25, 0.4, 1], [1, 0.85, 0.2], [0.95, 0.3, 0.95], [0.2, 0.9, 0.95], [1, 0.55, 0.15], [0.65, 0.45, 1],
];

/** Part sets of the Mannequin (its parts by name); other characters keep every part. */
const MANNEQUIN_SETS = [['Body', 'HeadBox'], ['Body', 'HeadWide'], ['Body', 'HeadBox', 'Hat'], ['Body', 'HeadWide', 'Hat']];

/**
 * The demo's "appearance" control: a CrowdAppearance on the scene's crowd (made the first time the
 * control is on), which spreads tints, variants and part sets over the crowd scene's instances
 * by their index, and gives them back their plain look when turned off. Re-spread when the
 * population changes (count, respawn) or is another (a scene started again). The ids are the population's: other scenes are left as they are.
 */
export class AppearanceSpread {
  private feature: CrowdAppearance | undefined;
  private sets: number[] = [];
  /** The instances spread over last and their version then: a new scene's spectators count their versions from 0 again. */
  private spreadOver: Spectators | undefined;
  private spreadVersion = -1;
  private on = false;

  constructor(private readonly crowd: Crowd | GLCrowd, readonly character: Character, private readonly variants: readonly AppearanceImage[]) {}

  /** Called every frame: `on` is the control's value. Work only when it or the population changed. */
  sync(on: boolean, population: Spectators): void {
    if (on === this.on && (!on || (population === this.spreadOver && population.version === this.spreadVersion))) return;
    this.on = on;
    if (!on) {
      if (this.feature) for (let i = 0; i < population.count; i++) this.feature.set(population.idAt(i), { tint: [1, 1, 1], variant: 0, parts: this.feature.allParts });
      this.spreadOver = undefined;
      this.spreadVersion = -1;
      return;
    }
    const looks = (this.feature ??= this.make());
    for (let i = 0; i < population.count; i++) {
      const h = Math.imul(i + 1, 2654435761) >>> 0;
      looks.set(population.idAt(i), { tint: TINTS[h % TINTS.length], variant: (h >>> 8) % looks.variantCount, parts: this.sets[(h >>> 16) % this.sets.length] });
    }
    this.spreadOver = population;
    this.spreadVersion = population.version;
  }

  /**
   * How many looks (variant x part set) the spread gives out while on, 1 while off: what the
   * impostors are sized for (CrowdImpostors.sizedForLooks), a layer each, so that far
   * characters keep their variants and parts (the Mannequin: 3 variants x 4 part sets, 12).
   */
  get looksSpread(): number {
    return this.on && this.feature ? this.feature.variantCount * this.sets.length : 1;
  }

  /** The crowd's CrowdAppearance, made now if the control never was on (the steering scene tints its selection with it). */
  looks(): CrowdAppearance {
    return (this.feature ??= this.make());
  }

  private make(): CrowdAppearance {
    const looks = new CrowdAppearance(this.crowd, { variants: this.variants });
    const mannequin = MANNEQUIN_SETS.every((set) => set.every((part) => looks.parts.includes(part)));
    this.sets = mannequin ? MANNEQUIN_SETS.map((set) => looks.partMask(set)) : [looks.allParts];
    return looks;
  }
}

/** Fetches and decodes base-colour variant images (PNG or JPEG URLs) into RGBA8 pixels. */
export async function loadVariantImages(urls: readonly string[], signal: AbortSignal): Promise<AppearanceImage[]> {
  return Promise.all(urls.map(async (url) => {
    const response = await fetch(url, { signal });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
    const bitmap = await createImageBitmap(await response.blob(), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d')!;
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, bitmap.width, bitmap.height);
  }));
}
