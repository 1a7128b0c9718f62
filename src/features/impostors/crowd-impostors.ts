import type { Crowd } from '../../runtime/crowd';
import type { CrowdTargetFormats } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel, DrawShadow, EncodedFrame, FeatureStage, PickMeshList } from '../../runtime/feature';
import { CULL_ARGS, MESH_ONLY_PROP } from '../../runtime/layout';
import { checkPartialLayers, type AtlasGrid } from './impostor-atlas';
import { atlasLayers, atlasTextureList, ImpostorBake, type ImpostorTextures } from './impostor-bake';
import { atlasGrid, bakedClips, heldInAtlas, propsGrid } from './impostor-box';
import { ImpostorCoverage } from './impostor-coverage';
import { ImpostorLooks, type ImpostorLook, type ImpostorLookStats } from './impostor-looks';
import { ImpostorPass, type ImpostorInputs } from './impostor-pass';
import { marchDistance } from './impostor-layout';
import { BandMeshes } from './band-meshes';
import { ImpostorRoute, levelAtSwitch, type ImpostorDraws } from './impostor-route';
import { ImpostorShown } from './impostor-shown';
import type { ImpostorAtlasInfo, ImpostorOptions, PartialLayers } from './types';
import type { HeldProp, HeldProps } from '../../runtime/held-props';

export type { ImpostorAtlasInfo, ImpostorOptions, PartialLayers } from './types';
export type { ImpostorLook, ImpostorLookStats } from './impostor-looks';

/**
 * The far crowd as animated impostors, a crowd feature: `new CrowdImpostors(crowd, options)`
 * (docs/impostors.md). At first use (the first update after it is made, or bake()) it bakes an
 * atlas on the GPU from the crowd's own pose pass and skin shader: every clip at `frames` times
 * over its cycle, seen from `azimuths` x `elevations` directions, base colour and surface
 * (normal, roughness, metalness) per texel. Options are checked by name before anything is made.
 * Over 400 lines: the feature's one object, what an application holds (its options and their
 * setters, the layout, looks, bake, draw, pick and restore); the work is in the files beside it.
 */
export class CrowdImpostors implements CrowdFeature {
  readonly featureName = 'impostors';
  /** @internal The cell layout of the atlas (made again when the clips change). */
  grid: AtlasGrid;
  private readonly kernel: CrowdKernel;
  private textures: ImpostorTextures | undefined;
  private layers = 0; // of `textures`
  private looksInUse!: ImpostorLooks;
  /** What the draw's looks table was last written for (ImpostorPass.setLooks): the textures, the stand-in layer, the varied parts (-1: no appearance). */
  private table: ImpostorTextures | undefined;
  private tableStandIn = -1;
  private tableVaried = -1;
  private bakeMs = 0;
  private bakedLevel = 0; // the mesh LOD level the atlas shows (switchLevel() when it was baked)
  private pass!: ImpostorPass;
  /** The covered rectangles of the atlas's cells, found after each bake (the march steps within them). */
  private coverage!: ImpostorCoverage;
  private shown!: ImpostorShown; // the shown pass: which layered instances an impostor shows, and as which two clips
  /** The cull pass's impostor list of the frame being drawn (EncodedFrame.impostors), else undefined. */
  private frameList: ImpostorDraws | undefined;
  /** The far instances' route through the kernel's cull pass (the switch measures `size`). */
  private route!: ImpostorRoute;
  /** Model units the switch measures: the diameter of the sphere around what each cell frames (AtlasGrid.frameRadius: the atlas's box, or each pose's frame, AtlasGrid.frameHalf). */
  private size = 0;
  private clipList!: readonly number[]; // in the atlas's order
  /** The props feature and the props every instance, and chosen ones, held when the atlas was laid out (their vertices widen the box; the bake draws them). */
  private layoutProps: HeldProps | undefined;
  /** heldInAtlas(layoutProps) at the layout: every instance's props, then `layoutChosen` of chosen instances'. */
  private layoutHeld: readonly HeldProp[] = [];
  private layoutChosen = 0;
  private layoutVersion = 0;
  /** Whether holders of props of chosen instances were marked meshes (ImpostorLooks.markHolders). */
  private marked = false;
  /** The options it was made with, `looks` and `partialLayers` as last set (a new clip list lays the atlas out again with them). */
  private options: ImpostorOptions;
  /** The band's meshes, through the crowd's skin pass. */
  private readonly bandMeshes = new BandMeshes();
  private readonly targets: CrowdTargetFormats;
  private on = true;
  private readonly inputs = { instances: undefined as unknown as GPUBuffer, list: undefined as unknown as GPUBuffer, listOffset: 0, looks: undefined as GPUBuffer | undefined, atlas: undefined as unknown as ImpostorTextures, environment: undefined as GPUTextureView | undefined, covered: undefined as unknown as GPUBuffer, fractions: undefined as unknown as GPUBuffer, counters: undefined as unknown as GPUBuffer, shown: undefined as unknown as GPUBuffer, propSets: undefined as GPUBuffer | undefined };

  /** Installs impostors on `crowd`; a RangeError or TypeError naming the option that is wrong (nothing is installed then). */
  constructor(crowd: Crowd, options: ImpostorOptions = {}) {
    const clips = bakedClips(crowd.character, typeof options === 'object' && options !== null ? (options as ImpostorOptions).clips : undefined);
    // Checked before anything is installed; laid out again with the props the instances hold, if any.
    this.grid = atlasGrid(crowd, options, clips, []);
    this.options = options;
    this.targets = crowd.targetFormats;
    this.kernel = crowd.install(this);
    const props = this.kernel.feature<HeldProps>('props');
    this.setLayout(heldInAtlas(props, this.grid.capacity).length > 0 ? propsGrid(this.kernel, options, clips, props) : this.grid, clips);
  }

  /**
   * The clips the atlas holds, in its order (character clip indices; ImpostorOptions.clips).
   * Setting them (names or indices, each once: refused by name as the option is, nothing changed
   * then) lays the atlas out again (box, cells, switch) and bakes it at the next update.
   */
  get clips(): readonly number[] {
    return this.clipList;
  }

  /** Bakes these clips from the next update (names or indices, each once; the same list changes nothing). */
  set clips(clips: readonly (string | number)[]) {
    const resolved = bakedClips(this.kernel.character, clips);
    if (resolved.length === this.clipList.length && resolved.every((c, i) => c === this.clipList[i])) return;
    this.layOutAgain(resolved);
  }

  /**
   * The looks the atlas is sized for (ImpostorOptions.looks). Setting it (refused by name as the
   * option is, nothing changed then) lays the atlas out again (cells, switch) and bakes it at the
   * next update: a crowd whose props of chosen instances need a second look, say.
   */
  get sizedForLooks(): number {
    return this.options.looks ?? 1;
  }

  /** Sizes the atlas for this many looks from the next update (see the getter). */
  set sizedForLooks(looks: number) {
    if (looks === this.sizedForLooks) return;
    this.layOutAgain(this.clipList, { ...this.options, looks });
  }

  /** Lays the atlas out again for `clips`, `options` and the props the instances hold now (baked at the next update); a refused option changes nothing. */
  private layOutAgain(clips: readonly number[], options = this.options): void {
    const grid = propsGrid(this.kernel, { ...options, clips }, clips, this.kernel.feature<HeldProps>('props'));
    this.options = options;
    this.pass.destroy();
    this.coverage.destroy();
    this.shown.destroy();
    this.freeTextures();
    this.table = undefined;
    this.setLayout(grid, clips);
  }

  /**
   * The props the instances hold changed (CrowdProps attach, detach, setInstances; the feature
   * installed): the atlas is laid out again (their reach widens the box) and baked, before the
   * frame is drawn. A change that leaves the same props (another selection's) changes nothing here
   * (the looks count each slot's prop set again).
   */
  private followProps(): void {
    const props = this.kernel.feature<HeldProps>('props');
    const version = props?.heldVersion ?? 0;
    if (props === this.layoutProps && version === this.layoutVersion) return;
    const held = heldInAtlas(props, this.grid.capacity);
    const same = held.length === this.layoutHeld.length && held.every((h, i) => h.local === this.layoutHeld[i].local) &&
      held.length - (props?.heldByAll.length ?? 0) === this.layoutChosen;
    if (!same) return this.layOutAgain(this.clipList);
    this.layoutProps = props;
    this.layoutVersion = version;
  }

  /** Makes what follows the atlas's layout: the looks' count, the draw pass, the covered rectangles, the switch's size and the route (installed when on). */
  private setLayout(grid: AtlasGrid, clips: readonly number[]): void {
    const { character, device } = this.kernel;
    const parts = character.rig.primitives.length;
    const props = this.kernel.feature<HeldProps>('props');
    this.layoutProps = props;
    this.layoutHeld = heldInAtlas(props, grid.capacity);
    this.layoutChosen = this.layoutHeld.length - (props?.heldByAll.length ?? 0);
    this.layoutVersion = props?.heldVersion ?? 0;
    this.grid = grid;
    this.clipList = clips;
    this.looksInUse = new ImpostorLooks(grid.capacity, parts >= 32 ? 0xffffffff : 2 ** parts - 1);
    this.pass = new ImpostorPass(device, grid, clips, character.clipDurations.length, this.targets, this.kernel.store.listStride);
    this.coverage = new ImpostorCoverage(device, grid);
    this.size = 2 * grid.frameRadius;
    this.route = new ImpostorRoute(this.kernel, this.size, grid.switchPixels, grid.band, clips, grid.dotPixels);
    this.shown = new ImpostorShown(device, this.route.clipBits, this.partialLayers === 'leave-out');
    if (this.on) this.kernel.routeFar(this.route);
  }

  /** What a stack with partial layers (masked, or additive weighing anything) is past the switch: 'mesh' or 'leave-out' (ImpostorOptions.partialLayers). */
  get partialLayers(): PartialLayers {
    return this.options.partialLayers ?? 'mesh';
  }

  /** Sets the policy from the next update (a RangeError naming it for anything but 'mesh' or 'leave-out', nothing changed then); the atlas stays as it is. */
  set partialLayers(policy: PartialLayers) {
    this.options = { ...this.options, partialLayers: checkPartialLayers(policy) };
    this.shown.leaveOut = policy === 'leave-out';
  }

  /** Whether far instances are drawn as impostors (default true); false draws every instance as a mesh again (for comparison). */
  get enabled(): boolean {
    return this.on;
  }

  /** Turns impostors on or off (a TypeError for anything but a boolean). */
  set enabled(on: boolean) {
    if (typeof on !== 'boolean') throw new TypeError(`impostors.enabled must be true or false, got ${String(on)}`);
    this.on = on;
    this.kernel.routeFar(on ? this.route : undefined);
  }

  /** Instances whose frame's sphere (what a cell frames: the atlas's box, or a pose's frame) spans at most this many pixels on the crowd's viewport are drawn as impostors (ImpostorOptions.switchPixels). */
  get switchPixels(): number {
    return this.grid.switchPixels;
  }

  /** The band's width, a fraction of the switch distance (ImpostorOptions.band; 0: a hard cut). */
  get band(): number {
    return this.grid.band;
  }

  /** Impostors whose bounding sphere spans at most this many pixels on the crowd's viewport are drawn as dots, a point each (ImpostorOptions.dotPixels; 0: none). */
  get dotPixels(): number {
    return this.grid.dotPixels;
  }

  /** Draw calls draw() records (all indirect): the impostors, with dots theirs, and with a band its impostors and one per mesh primitive for its meshes; none while not enabled. */
  get drawCount(): number {
    if (!this.on) return 0;
    return (this.grid.band > 0 ? 2 + this.kernel.draws.mesh.primitives.length : 1) + Number(this.grid.dotPixels > 0);
  }

  /** The atlas's layout and size (fixed at construction and when the clips or sizedForLooks are set; the textures are made at the bake). */
  get atlas(): ImpostorAtlasInfo {
    const g = this.grid;
    return { frames: g.frames, azimuths: g.azimuths, elevations: g.elevations, cellSize: g.cellSize, density: g.density, box: Array.from(g.box), frameHalf: [...g.frameHalf], width: g.width, height: g.height, lookBytes: g.bytes, looks: g.capacity, layers: this.layers, bytes: g.bytes * Math.max(1, this.layers) };
  }

  /**
   * The looks (CrowdAppearance's (variant, parts) with CrowdProps' sets of props of chosen instances,
   * a layer each) against the live instances, as of the last update: layers baked, the capacity, looks
   * in use, instances drawn as the stand-in (theirs has no layer), holders kept meshes instead.
   */
  get looks(): ImpostorLookStats {
    return this.looksInUse.stats();
  }

  /**
   * What the impostors do not show as the crowd's meshes do, as of the last update ([] when
   * nothing): instances whose look (CrowdAppearance variant and parts) is past the atlas's layers,
   * drawn as the most used look. The atlas never goes stale silently: a look coming into use is
   * baked at the next update (before its frame is drawn); the clips, materials and variant images
   * are fixed at load; the props (CrowdProps), a new skinning method (Crowd.skinning) or device
   * (restore) lay it out or bake it again at the next update.
   */
  get stale(): string[] {
    return this.looksInUse.stale();
  }

  /** Whether the atlas has been baked. */
  get baked(): boolean {
    return this.textures !== undefined;
  }

  /** CPU milliseconds the last bake took to make and record its work (its GPU time: await bake()). */
  get bakeMilliseconds(): number {
    return this.bakeMs;
  }

  /** Bytes of the atlas once baked (one layer's bytes a look baked), of its cells' covered rectangles and fractions, of the shown records (36 bytes a layer stack record), and with dots of the list of those that light a sample (4 bytes a slot of the crowd's lists, 256 more) (Crowd.gpuBytes adds them). */
  get gpuBytes(): number {
    return (this.textures ? this.grid.bytes * this.layers : 0) + this.coverage.bytes + this.shown.bytes + this.pass.bytes;
  }

  /** @internal The atlas textures, baked now if they were not. */
  get atlasTextures(): ImpostorTextures {
    return this.textures ?? this.prepareAtlas(true);
  }

  /** Bakes the atlas now (again, every layer, when it was baked) for the looks in use, and resolves when the GPU has done it. */
  async bake(): Promise<void> {
    this.prepareAtlas(true);
    await this.kernel.device.queue.onSubmittedWorkDone();
  }

  /** Bakes the atlas at the first update, then the looks that came into use, all of it when the switch's mesh level changed (Crowd.lod, forceLodLevel). */
  prepare(): void {
    this.prepareAtlas(false);
  }

  /** Counts the looks when the appearance changed; bakes the atlas when it is not, all of it (`all`, or the switch's level changed) or the looks it lacks. */
  private prepareAtlas(all: boolean): ImpostorTextures {
    this.followProps();
    const looks = this.looksInUse;
    const appearance = this.kernel.draws.appearance;
    const store = this.kernel.store;
    const holders = this.layoutProps && this.layoutProps.heldByChosen.length > 0 ? this.layoutProps : undefined;
    const target = looks.update(appearance, store.count, holders);
    if (this.textures && this.switchLevel() !== this.bakedLevel) all = true;
    const textures = target || all || !this.textures ? this.bakeNow(target ?? looks.baked, all) : this.textures;
    // A holder of props of chosen instances whose look has no layer stays a mesh (drawn as the stand-in it would lose or gain a prop).
    if (looks.recounted && (holders || this.marked)) {
      this.marked = holders !== undefined;
      looks.markHolders(appearance, store.count, holders, (slot, meshOnly) => store.setMeshOnly(store.handleAtSlot(slot), MESH_ONLY_PROP, meshOnly));
    }
    // The draw's table: after a bake, or when the stand-in or the varied parts changed (counts moved, appearance installed).
    const varied = appearance ? appearance.variedPrimitives : -1;
    if (this.table !== textures || this.tableStandIn !== looks.standIn || this.tableVaried !== varied) {
      this.pass.setLooks(looks.baked, looks.standIn, Math.max(0, varied), appearance ? 0 : looks.allParts);
      this.table = textures;
      this.tableStandIn = looks.standIn;
      this.tableVaried = varied;
    }
    return textures;
  }

  /**
   * Before the cull pass, the shown pass over the layered instances; after the pose pass, keeps the
   * frame's impostor list for draw() and lists the dots that light a sample (ImpostorPass.listDots).
   */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage === 'before-pose' && this.on) this.shown.encode(encoder, this.kernel.store);
    if (stage !== 'after-pose') return;
    const list = (this.frameList = frame.routed && this.route.draws(frame.routed));
    if (!list || !this.on || this.grid.dotPixels === 0) return;
    // The listing reads the draw's uniforms: written here with the cull's camera for a frame whose
    // draw is submitted apart (crowd-skin/three's drawFeatures), and again by draw() before its submit.
    this.updatePass(this.route.viewProjection, undefined);
    this.pass.listDots(encoder, this.fillInputs(list), list.dotArgsOffset, this.kernel.store.listStride);
  }

  /** Draws the frame's impostors (when the cull pass listed any) into the crowd's render pass. */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void {
    const list = this.frameList;
    if (!list || !this.on) return;
    const kernel = this.kernel;
    const inputs = this.fillInputs(list);
    this.updatePass(viewProjection, shadow);
    this.pass.draw(pass, inputs, shadow?.view, list.args, list.argsOffset);
    this.pass.drawDots(pass, inputs, shadow?.view);
    if (this.grid.band > 0) {
      // The band: its meshes, then its impostors, each keeping the pixels its fade leaves to it.
      this.bandMeshes.draw(pass, kernel.draws, kernel.device, list);
      // The band's props (those every instance holds: the atlas has them), faded as the meshes.
      this.layoutProps?.drawBand(pass, kernel.draws.skin.camera, list.args, list.bandListOffset, list.bandListBytes);
      this.pass.drawBand(pass, inputs, shadow?.view, list.bandListOffset, list.bandListBytes, list.bandArgsOffset);
    }
  }

  /**
   * CrowdFeature.drawPick: what this frame routed past the mesh lists, into CrowdPicking's pick
   * pass, so that what is hit is what was drawn: the band's instances as meshes (posed: a band
   * instance is drawn both ways), the far ones by their impostors (impostor.wgsl `pick`: the
   * pixels the draw covers, at the quad's depth). Before, neither was hit: a click on a far
   * character found nothing, or the one behind it.
   */
  drawPick(pass: GPURenderPassEncoder, camera: GPUBuffer, frame: EncodedFrame, meshes: PickMeshList): void {
    if (!frame.routed || !this.on || !this.textures) return;
    const list = this.route.draws(frame.routed);
    if (this.grid.band > 0) {
      const meshArgs = list.bandArgsOffset + CULL_ARGS.impostorWords * 4;
      meshes(list.args, list.bandListOffset, list.bandListBytes, list.args, (primitive) => meshArgs + primitive * CULL_ARGS.drawWords * 4);
    }
    this.pass.pick(pass, this.fillInputs(list), camera, list.args, list.argsOffset, list.dotArgsOffset);
  }

  /** The draw's uniforms: the camera, the lights and shadow, the clock, the march's distance and the viewport's pixels a unit. */
  private updatePass(viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void {
    const kernel = this.kernel;
    this.pass.update(viewProjection, kernel.draws.skin.lights, shadow, kernel.clock, marchDistance(this.route.switchDistance, this.grid.switchPixels), this.route.pixelsAtUnit);
  }

  /** The draw's inputs for the frame's lists (`list`, ImpostorRoute.draws): one object, refilled. */
  private fillInputs(list: ImpostorDraws): ImpostorInputs {
    const kernel = this.kernel;
    const inputs = this.inputs;
    inputs.instances = kernel.store.instanceBuffer;
    inputs.list = list.args;
    inputs.listOffset = list.listOffset;
    inputs.looks = kernel.draws.appearance?.buffer;
    inputs.atlas = this.atlasTextures;
    inputs.environment = kernel.draws.skin.environmentView;
    inputs.covered = this.coverage.buffer;
    inputs.fractions = this.coverage.fractions;
    inputs.counters = list.counters;
    inputs.shown = this.shown.records;
    inputs.propSets = this.layoutProps?.propSets.buffer;
    return inputs;
  }

  /** The skinning method changed (or a feature re-made the passes): the atlas is baked again at the next update. */
  passesCreated(): void {
    if (this.kernel) this.freeTextures();
  }

  /** restore(device): the pass is re-made and the atlas baked again on the new device at the next update. */
  restore(device: GPUDevice): void {
    this.textures = undefined;
    this.table = undefined;
    this.pass = new ImpostorPass(device, this.grid, this.clips, this.kernel.character.clipDurations.length, this.targets, this.kernel.store.listStride);
    this.coverage = new ImpostorCoverage(device, this.grid);
    this.shown = new ImpostorShown(device, this.route.clipBits, this.partialLayers === 'leave-out');
  }

  destroy(): void {
    this.kernel.routeFar(undefined);
    this.pass.destroy();
    this.coverage.destroy();
    this.shown.destroy();
    this.freeTextures();
  }

  /** Makes the atlas for `looks` (a layer each, in order): a look the old atlas holds copied from its layer unless `all`, the others baked. */
  private bakeNow(looks: readonly ImpostorLook[], all: boolean): ImpostorTextures {
    const start = performance.now();
    const device = this.kernel.device;
    const g = this.grid;
    const encoder = device.createCommandEncoder({ label: 'CrowdImpostors.bake' });
    const { made, layers } = atlasLayers(device, encoder, g, looks, all ? undefined : this.textures, (look) => this.looksInUse.layerOf(look));
    const appearance = this.kernel.draws.appearance;
    const variants = appearance && { view: appearance.variants, varied: appearance.variedPrimitives };
    // Kept layers were baked at bakedLevel (a new switch level bakes `all`).
    this.bakedLevel = this.switchLevel();
    const bake = layers.length > 0 ? new ImpostorBake(device, this.kernel.character, g, this.clips, this.kernel.skinning, this.bakedLevel, variants, this.kernel.feature('morph'), this.layoutProps) : undefined;
    try {
      bake?.encode(encoder, made, layers);
      // Every layer's covered rectangles, the copied layers' too (a rectangle holds what any layer covers).
      this.coverage.encode(encoder, made);
      device.queue.submit([encoder.finish()]);
    } finally {
      bake?.destroy();
    }
    this.freeTextures();
    this.textures = made;
    this.layers = looks.length;
    this.looksInUse.baked = [...looks];
    this.bakeMs = performance.now() - start;
    return made;
  }

  /** The mesh LOD level the crowd draws just before the switch now (levelAtSwitch of its LOD settings). */
  private switchLevel(): number {
    return levelAtSwitch(this.kernel.character.lods?.errors ?? [0], this.kernel.lodSettings, this.size, this.grid.switchPixels);
  }

  private freeTextures(): void {
    if (this.textures) for (const texture of atlasTextureList(this.textures)) texture.destroy();
    this.textures = undefined;
    this.layers = 0;
  }
}
