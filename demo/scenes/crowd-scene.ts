import type { StateKey } from '../controls';
import type { PopulationSettings } from '../population';
import type { ClipLibrary } from '../../src/index';
import type { Population } from '../population';
import type { Body, ClipsChoice } from '../scene';
import type { AnyCrowd } from '../scene-model';
import { spiralHalfSide } from '../spiral';
import { formatBytes } from '../stats';
import type { DemoState } from '../url-state';
import type { SceneActivity } from './activity';
import { bindingSummary } from './clips-picks';

/** Past this many instances the crowd scene draws its far characters as impostors (the 1M preset does; the 100k preset stays all meshes, to compare). */
export const IMPOSTORS_ABOVE = 100_000;

/** Cells (of the first body's spacing) between the blocks of two bodies side by side. */
const BODY_GAP_CELLS = 2;

/**
 * What the crowd and clips scenes place and describe: the WebGPU demo's Scene, or the WebGL 2
 * demo's clips bodies (demo/gl-clips.ts), each body with its own crowd of either backend.
 */
export interface BodiesScene {
  /** Every body, the first one's first (its population is `population`). */
  readonly bodies: readonly Body<AnyCrowd>[];
  readonly population: Population;
  /** The clip library every body is bound to, if any. */
  readonly library?: ClipLibrary;
  /** The clips scene's picks, when it bound them. */
  readonly clipsChoice?: ClipsChoice;
  /** Bytes of every body's baked tables (a copy two bodies share counts once). */
  readonly bakedBytes: number;
}

/**
 * The crowd scene (the demo's original one): instances on a square spiral, each with its own
 * clips, phase, blend and speed (crowd mode) or the panel's (uniform mode). See Population.
 * A scene of several bodies (Scene.bodies: the clips scene's WalkerBody, a second WalkerBody and
 * WalkerStocky, one clip library) splits the count between them and puts their blocks side by side along x,
 * centred on the origin; the overlay then lists each body and what the library shares.
 */
export class CrowdActivity implements SceneActivity {
  private respawnNeeded = false;
  private uniformChanged = false;
  private newPhases = false;
  private readonly bodies: readonly Body<AnyCrowd>[];

  constructor(private readonly scene: BodiesScene, private readonly state: DemoState, readonly kind: 'crowd' | 'clips' = 'crowd') {
    this.bodies = scene.bodies;
  }

  get count(): number {
    let count = 0;
    for (const body of this.bodies) count += body.population.count;
    return count;
  }

  get cellSize(): readonly [number, number] {
    return this.scene.population.spacing;
  }

  /** The crowd scene (one body) past IMPOSTORS_ABOVE instances draws its far characters as impostors. */
  get impostors(): boolean {
    return this.kind === 'crowd' && this.count > IMPOSTORS_ABOVE;
  }

  get height(): number {
    return Math.max(...this.bodies.map((b) => b.population.height));
  }

  setCount(count: number): void {
    if (this.bodies.length === 1) {
      this.scene.population.setCount(count, this.settings(this.bodies[0]));
      return;
    }
    // Each block's place depends on the counts of the blocks before it: place them all again.
    for (const body of this.bodies) body.population.setCount(0, this.settings(body));
    this.placeBlocks(count);
    this.bodies.forEach((body, i) => body.population.setCount(this.share(count, i), this.settings(body)));
  }

  settingChanged(key: StateKey): boolean {
    switch (key) {
      case 'mode':
      case 'variety':
        this.respawnNeeded = true;
        break;
      case 'clipA':
      case 'clipB':
        if (this.state.mode === 'crowd') this.respawnNeeded = true;
        else this.uniformChanged = true;
        break;
      case 'blend':
        this.uniformChanged = true;
        break;
      case 'randomPhases':
        this.uniformChanged = true;
        this.newPhases = this.state.randomPhases;
        break;
      default:
        return false;
    }
    return true;
  }

  apply(): void {
    try {
      for (const body of this.bodies) {
        const settings = this.settings(body);
        if (this.respawnNeeded) body.population.respawn(settings);
        else if (this.uniformChanged && settings.mode === 'uniform') body.population.applyUniform(settings, this.newPhases);
      }
    } finally {
      this.respawnNeeded = this.uniformChanged = this.newPhases = false;
    }
  }

  update(): void {
    // Clips advance on the GPU; nothing changes per frame.
  }

  extent(out: Float32Array): void {
    let halfX = 0;
    let halfZ = 0;
    for (const { population } of this.bodies) {
      const halfSide = spiralHalfSide(population.count);
      halfX = Math.max(halfX, Math.abs(population.origin[0]) + halfSide * population.spacing[0]);
      halfZ = Math.max(halfZ, halfSide * population.spacing[1]);
    }
    out[0] = halfX;
    out[1] = halfZ;
    out[2] = 0;
  }

  follow(): boolean {
    return false;
  }

  /**
   * With several bodies: each body's instances, tables and instances drawn (its crowd's cull
   * counts), and the clip library they are bound to, all read from the loaded objects; in the
   * clips scene also how the clip set bound to each body (Character.clipBindings).
   */
  describe(lines: string[], data: DOMStringMap): void {
    if (this.bodies.length === 1) return;
    const { library } = this.scene;
    if (library) {
      const bound = this.bodies.filter((b) => b.character.clipBindings.length > 0).length;
      lines.push(`clip library ${library.name}: ${library.clipNames.length} clips, read once, bound to ${bound} bodies`);
      data.libraryClips = String(library.clipNames.length);
      data.libraryBodies = String(bound);
    }
    const copies = new Map<Float32Array, string[]>();
    let ownCopies = 0;
    for (const body of this.bodies) {
      const { character, crowd, population, label } = body;
      const drawn = crowd.cullStats?.visible ?? crowd.count;
      lines.push(`  ${label}: ${population.count.toLocaleString('en-US')} instances, ${drawn.toLocaleString('en-US')} drawn, tables ${formatBytes(character.bakedBytes)}`);
      const choice = this.scene.clipsChoice;
      if (choice) lines.push(`    ${bindingSummary(character, choice.legSolve)}`);
      const tracks = character.baked.tracks;
      copies.set(tracks, [...(copies.get(tracks) ?? []), label]);
      ownCopies += character.bakedBytes;
    }
    const held = this.scene.bakedBytes;
    const shared = [...copies.values()].filter((labels) => labels.length > 1).map((labels) => labels.join(' + '));
    lines.push(`tables held ${formatBytes(held)} in ${copies.size} cop${copies.size === 1 ? 'y' : 'ies'} (${formatBytes(ownCopies)} if each body baked its own)`,
      shared.length > 0 ? `  one copy shared by ${shared.join('; ')}`
        : '  none shared (a retargeted body bakes its own)');
    data.bodies = this.bodies.map((b) => b.label).join(',');
    data.bodyInstances = this.bodies.map((b) => b.population.count).join(',');
    data.bodyDrawn = this.bodies.map((b) => b.crowd.cullStats?.visible ?? b.crowd.count).join(',');
    data.bodyTables = this.bodies.map((b) => b.character.bakedBytes).join(',');
    data.tableCopies = String(copies.size);
    // The clips scene: per body, the maps bound through ('VRMC_vrm<crowd-skin', or 'copied' / 'name'), bones mapped, joints unmapped, legs solved.
    const bindings = this.bodies.map((b) => b.character.clipBindings[b.character.clipBindings.length - 1]);
    data.bodyMaps = bindings.map((k) => (k?.humanoid ? `${k.humanoid.body}<${k.humanoid.file}` : k?.retargeted ? 'name' : 'copied')).join(',');
    data.bodyMapped = bindings.map((k) => k?.humanoid?.bones ?? 0).join(',');
    data.bodyUnmapped = bindings.map((k) => k?.humanoid?.unmapped.length ?? 0).join(',');
    data.bodyLegs = bindings.map((k) => k?.humanoid?.legs ?? 0).join(',');
    data.clipSet = this.scene.clipsChoice?.set.label ?? '';
    data.tablesHeld = String(held);
    data.tablesEachOwn = String(ownCopies);
  }

  dispose(clearCrowd: boolean): void {
    if (clearCrowd) for (const body of this.bodies) body.population.setCount(0, this.settings(body));
  }

  /** Instances of body `i` when `count` are split between the bodies (the first ones get one more). */
  private share(count: number, i: number): number {
    const n = this.bodies.length;
    return Math.floor(count / n) + (i < count % n ? 1 : 0);
  }

  /** Sets each body's spiral centre so that the blocks of `count` split instances sit side by side along x, centred on 0. */
  private placeBlocks(count: number): void {
    const gap = BODY_GAP_CELLS * this.scene.population.spacing[0];
    const halves = this.bodies.map((b, i) => (spiralHalfSide(this.share(count, i)) + 0.5) * b.population.spacing[0]);
    let x = -(halves.reduce((sum, h) => sum + 2 * h, 0) + gap * (halves.length - 1)) / 2;
    this.bodies.forEach((body, i) => {
      body.population.origin[0] = x + halves[i];
      body.population.origin[1] = 0;
      x += 2 * halves[i] + gap;
    });
  }

  private settings(body: Body<AnyCrowd>): PopulationSettings {
    const { character } = body;
    const { mode, blend, randomPhases, variety } = this.state;
    // A body beside the first one may lack a clip the panel names: it plays its first clip then.
    const clip = (name: string) => (this.bodies.length === 1 ? character.clipIndex(name) : Math.max(0, character.clipNames.indexOf(name)));
    return { mode, blend, randomPhases, variety, clipA: clip(this.state.clipA), clipB: clip(this.state.clipB) };
  }
}
