import {
  Crowd, CrowdImpostors, CrowdMorph, CrowdPicking, CrowdProps, CrowdRootMotion, defaultControllerConfig, loadCharacter, loadClips, MeshoptSimplifier, parseControllerConfig,
  type AppearanceImage, type Character, type ClipLibrary, type ControllerConfig, type CrowdOptions, type PartialLayers, type ResourceReader,
} from '../src/index';
import { loadVariantImages } from './appearance';
import { demoDecoders } from './decoders';
import { MODELS, type ModelEntry } from './models';
import { Population } from './population';
import { SceneModel, type AnyCrowd } from './scene-model';

/** Where a scene's model came from: a name from MODELS, a URL (then `model` is ''), or a dropped file (then both are '', demo/drop.ts). */
export interface SceneSource {
  model: string;
  url: string;
  /** A dropped file's bytes, the URL its relative uris resolve against and the reader of the files dropped beside it. */
  file?: { bytes: ArrayBuffer; baseUrl: string; readResource: ResourceReader };
}

/** A dropped file's bytes, the URL its relative uris resolve against and the reader of the files dropped beside it (SceneSource.file). */
export type DroppedFile = NonNullable<SceneSource['file']>;

/**
 * What the clips scene binds (demo/scenes/clips-picks.ts): the clip set, read with loadClips and
 * bound to every body, and the body loaded beside the two WalkerBody ones (in place of the last of
 * ModelEntry.beside), each a file of public/models (`url`) or a dropped one (`file`).
 */
export interface ClipsChoice {
  /** The clip set: its name (the panel's) and where it is read from. */
  set: { label: string; url: string; file?: DroppedFile };
  /** The body: its name, where it is read from and its load options. */
  body: { label: string; url: string; file?: DroppedFile; load: ModelEntry['load'] };
  /** LoadOptions.legSolve of every body. */
  legSolve: boolean;
}

/**
 * A body loaded beside a scene's first one (ModelEntry.beside): its character, its own crowd
 * (drawn in the same pass, with the same camera) and where the crowd scene places its instances.
 */
export interface Body<C extends AnyCrowd = Crowd> {
  readonly label: string;
  readonly character: Character;
  readonly crowd: C;
  readonly population: Population;
}

/** Bytes of the baked lookup tables of `bodies` (tables two bodies share count once; the figure BENCHMARKS.md reports). */
export function bodiesBakedBytes(bodies: readonly { character: Character }[]): number {
  const tables = new Set(bodies.map((b) => b.character.baked.tracks));
  let bytes = 0;
  for (const body of bodies) {
    if (!tables.delete(body.character.baked.tracks)) continue;
    bytes += body.character.bakedBytes;
  }
  return bytes;
}

/**
 * One loaded character, its crowd on the device and what the scenes share on that crowd
 * (SceneModel: picking, blend masks, controllers, the appearance control), plus what needs
 * WebGPU: the crowd scene's placement of instances, the props (made on first use), the features
 * the character needs (morph targets and root motion) and bodies loaded beside the first one,
 * drawn in the same render pass.
 */
export class Scene extends SceneModel<Crowd> {
  readonly population: Population;
  private propsValue: CrowdProps | undefined;
  private impostorsValue: CrowdImpostors | undefined;

  /**
   * Every body of the scene, this one's first (label, character, crowd, population), then those
   * loaded beside it. The crowd scene fills them all; the other scenes use the first.
   */
  readonly bodies: readonly Body[];
  /** Every body's crowd, in `bodies` order (what the renderer draws). */
  readonly crowds: readonly Crowd[];

  constructor(
    label: string, source: SceneSource, character: Character, crowd: Crowd, picking: CrowdPicking,
    /** The model's controller config, or one derived from its clip names. */
    controllerConfig: ControllerConfig,
    /** Why the model's controller config file was not used, if it was not. */
    configProblem = '',
    /** Bodies loaded beside this one (ModelEntry.beside), each with its own crowd; the Scene owns their crowds. */
    beside: readonly Omit<Body, 'population'>[] = [],
    /** The clip library every body's clips come from (ModelEntry.clips), if the model has one. */
    readonly library?: ClipLibrary,
    /** Base-colour variant images of the first body for the appearance control (ModelEntry.variants). */
    variants: readonly AppearanceImage[] = [],
    /** The clips scene's clip set and body, when it bound them (SceneLoadOptions.clips). */
    readonly clipsChoice?: ClipsChoice,
  ) {
    super(label, source, character, crowd, picking, controllerConfig, configProblem, variants);
    this.population = new Population(crowd, character);
    this.bodies = [
      { label, character, crowd, population: this.population },
      ...beside.map((b) => ({ ...b, population: new Population(b.crowd, b.character) })),
    ];
    this.crowds = this.bodies.map((b) => b.crowd);
  }

  /** Bytes of the baked lookup tables of every body (the same figure BENCHMARKS.md reports; tables two bodies share count once). */
  get bakedBytes(): number {
    return bodiesBakedBytes(this.bodies);
  }

  /** Draw calls of every crowd (Crowd.drawCallCount summed). */
  get drawCallCount(): number {
    let calls = 0;
    for (const crowd of this.crowds) calls += crowd.drawCallCount;
    return calls;
  }

  /** GPU bytes of every crowd (Crowd.gpuBytes summed; a table buffer two crowds share is counted by each). */
  get gpuBytes(): number {
    let bytes = 0;
    for (const crowd of this.crowds) bytes += crowd.gpuBytes;
    return bytes;
  }

  /** Props on the crowd's joints (the held sword). */
  get props(): CrowdProps {
    this.propsValue ??= new CrowdProps(this.crowd);
    return this.propsValue;
  }

  /** The first body's impostors, once a scene asked for them (useImpostors). */
  get impostors(): CrowdImpostors | undefined {
    return this.impostorsValue;
  }

  /**
   * Draws the first body's far instances as impostors, or not (every frame; work only on a
   * change). The first `true` makes its CrowdImpostors (defaults: docs/impostors.md, baking
   * `clips`, every clip when undefined), whose atlas is baked in the crowd's next update; later
   * calls switch it (CrowdImpostors.enabled) and, while on, give it other clips or another
   * number of looks (a new layout, baked at the next update: a scene that plays other clips on
   * the same crowd, or gives props to chosen instances), and the scene's partial layers policy.
   */
  useImpostors(on: boolean, clips?: readonly number[], looks = 1, partialLayers: PartialLayers = 'mesh'): void {
    if (!on && !this.impostorsValue) return;
    const wanted = clips ?? this.allClips;
    const impostors = (this.impostorsValue ??= new CrowdImpostors(this.crowd, { clips: wanted, looks, partialLayers }));
    if (impostors.enabled !== on) impostors.enabled = on;
    if (!on) return;
    if (!sameList(impostors.clips, wanted)) impostors.clips = wanted;
    impostors.sizedForLooks = looks;
    if (impostors.partialLayers !== partialLayers) impostors.partialLayers = partialLayers;
  }

  /** Every clip of the first body's character (the impostors' default). */
  private get allClips(): readonly number[] {
    return (this.everyClip ??= Array.from(this.character.clipDurations, (_, c) => c));
  }

  private everyClip: number[] | undefined;

  destroy(): void {
    for (const crowd of this.crowds) crowd.destroy();
  }
}

export interface SceneLoadOptions {
  crowd: CrowdOptions;
  /** The clips scene's picks: for a model with `beside`, the clip set in place of its `clips` and the body in place of its last `beside`. */
  clips?: ClipsChoice;
  onProgress: (loaded: number, total: number) => void;
  signal: AbortSignal;
}

/**
 * Downloads, bakes and uploads a character, and fetches its controller config where MODELS
 * names one. A model with `clips` reads those files once with loadClips and binds the one
 * library to its body and to each body it lists `beside` (each loaded with its own crowd).
 * Throws with a readable reason when a file is missing or not a usable glTF, or when creating
 * the GPU objects raises a validation or out-of-memory error (caught with error scopes, so a
 * bad model never reaches the frame loop; crowds made before the failure are destroyed). A bad
 * controller config is not fatal: the scene gets a config derived from the clip names and says
 * why in `configProblem`.
 */
export async function loadScene(device: GPUDevice, label: string, source: SceneSource, options: SceneLoadOptions): Promise<Scene> {
  const entry = MODELS[source.model];
  const { character, beside: besideCharacters, library, choice } = await loadBodies(label, source, options);
  const { config, problem } = await loadControllerConfig(entry?.controllerUrl, character.clipNames, options.signal);
  const variants = await loadVariantImages(entry?.variants ?? [], options.signal);
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const crowds: Crowd[] = [];
  let picking: CrowdPicking | undefined;
  let thrown: unknown;
  try {
    for (const c of [character, ...besideCharacters.map((b) => b.character)]) crowds.push(makeCrowd(device, c, options.crowd));
    picking = new CrowdPicking(crowds[0]);
  } catch (error) {
    thrown = error;
  }
  // Both pops are issued before awaiting, so no other work lands in these scopes.
  const [memory, validation] = await Promise.all([device.popErrorScope(), device.popErrorScope()]);
  const gpuError = memory ?? validation;
  if (thrown || gpuError || !picking) {
    for (const crowd of crowds) crowd.destroy();
    if (thrown) throw thrown;
    throw new Error(`the GPU rejected the model's buffers or pipelines: ${gpuError?.message ?? 'unknown error'}`);
  }
  const besideBodies = besideCharacters.map((b, i) => ({ ...b, crowd: crowds[i + 1] }));
  return new Scene(label, source, character, crowds[0], picking, config, problem, besideBodies, library, variants, choice);
}

/** What loadBodies read: the first body, those beside it (labels told apart), the clip library bound to all, the clips scene's picks. */
export interface LoadedBodies {
  character: Character;
  beside: { label: string; character: Character }[];
  library?: ClipLibrary;
  choice?: ClipsChoice;
}

/**
 * Reads the characters of a scene, on either backend (loadScene; the WebGL 2 demo's clips scene,
 * demo/gl-clips.ts): the model's character and those it lists `beside` (the clips scene's body
 * in place of the last), each bound to the one clip library (ModelEntry.clips, or the clips
 * scene's clip set). Throws naming the body or clip set that cannot load or bind.
 */
export async function loadBodies(label: string, source: SceneSource, options: Pick<SceneLoadOptions, 'clips' | 'onProgress' | 'signal'>): Promise<LoadedBodies> {
  const entry = MODELS[source.model];
  // Compressed files (meshopt, Draco, KTX2) load too, by ?modelUrl= or dropped: the decoders are handed in (demo/decoders.ts).
  const decoders = demoDecoders;
  const choice = entry?.beside ? options.clips : undefined;
  const signal = options.signal;
  const library = choice ? await readClipSet(choice, signal)
    : entry?.clips ? await loadClips(entry.clips, { signal, decoders }) : undefined;
  // Mesh LOD levels for every model: the simplifier is handed in (the library ships it only to pages that do).
  const load = (from: string | DroppedFile, load: ModelEntry['load'], onProgress?: SceneLoadOptions['onProgress']) =>
    loadCharacter(typeof from === 'string' ? from : from.bytes, {
      ...load, lod: { simplifier: MeshoptSimplifier }, decoders, clips: library ? [library] : undefined, legSolve: choice?.legSolve, onProgress, signal,
      ...(typeof from === 'string' ? {} : { baseUrl: from.baseUrl, readResource: from.readResource }),
    });
  const character = source.file
    ? await loadCharacter(source.file.bytes, { lod: { simplifier: MeshoptSimplifier }, decoders, baseUrl: source.file.baseUrl, readResource: source.file.readResource })
    : await bound(choice, label, () => load(source.url, entry?.load, options.onProgress));
  const besideCharacters: { label: string; character: Character }[] = [];
  const beside = (entry?.beside ?? []).map((name) => ({ name, from: MODELS[name]?.url as string | DroppedFile | undefined, load: MODELS[name]?.load }));
  if (choice) beside.splice(-1, 1, { name: choice.body.label, from: choice.body.file ?? choice.body.url, load: choice.body.load });
  for (const { name, from, load: loadOptions } of beside) {
    if (!from) throw new Error(`MODELS.${source.model}.beside names "${name}", which is not a model of the demo`);
    // A model loaded a second time (the first body again: its own Character and crowd) is told apart as "WalkerBody #2".
    const loaded = [label, ...besideCharacters.map((b) => b.label)].filter((l) => l === name || l.startsWith(`${name} #`)).length;
    besideCharacters.push({ label: loaded > 0 ? `${name} #${loaded + 1}` : name, character: await bound(choice, name, () => load(from, loadOptions)) });
  }
  return { character, beside: besideCharacters, library, choice };
}

/** The clips scene's clip set, read with loadClips; a file that is no clips file is refused, naming it. */
async function readClipSet(choice: ClipsChoice, signal: AbortSignal): Promise<ClipLibrary> {
  const { set } = choice;
  try {
    return await loadClips(set.file ? set.file.bytes : set.url, { signal, decoders: demoDecoders, ...(set.file && { baseUrl: set.file.baseUrl, readResource: set.file.readResource }) });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Error(`the clip set ${set.label} cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Loads a body of the clips scene, naming the body, and the clip set when it is the clips file
 * that cannot bind (its ModelErrors start "clips file '...'"); `choice` undefined: any other scene, as is.
 */
async function bound(choice: ClipsChoice | undefined, body: string, load: () => Promise<Character>): Promise<Character> {
  if (!choice) return load();
  try {
    return await load();
  } catch (error) {
    const { name, message } = error as Error;
    if (name === 'AbortError') throw error;
    throw new Error(message.startsWith('clips file \'') ? `the clip set ${choice.set.label} cannot bind to ${body}: ${message}` : `${body}: ${message}`);
  }
}

/** A crowd of `character` with the features the character needs (morph targets, root motion). */
function makeCrowd(device: GPUDevice, character: Character, options: CrowdOptions): Crowd {
  const crowd = new Crowd(device, character, options);
  if (character.morphTargets.length > 0) new CrowdMorph(crowd);
  if (character.rootMotion?.mode === 'apply') new CrowdRootMotion(crowd);
  return crowd;
}

/** The controller config at `url` (MODELS' controllerUrl), or one derived from the clip names, with why the file was not used. */
export async function loadControllerConfig(url: string | undefined, clipNames: readonly string[], signal: AbortSignal): Promise<{ config: ControllerConfig; problem: string }> {
  if (url) {
    try {
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      return { config: parseControllerConfig(await response.json(), clipNames, url.split('/').pop()), problem: '' };
    } catch (error) {
      if (signal.aborted) throw error;
      return { config: derivedConfig(clipNames), problem: `${url}: ${(error as Error).message}; using a config derived from the clip names` };
    }
  }
  return { config: derivedConfig(clipNames), problem: '' };
}

/** A config from the clip names; an empty one (no locomotion, no actions) for names it cannot take. */
function derivedConfig(clipNames: readonly string[]): ControllerConfig {
  try {
    return defaultControllerConfig(clipNames);
  } catch {
    return parseControllerConfig({}, clipNames);
  }
}

/** Whether two lists hold the same numbers in the same order (no allocation: checked every frame). */
function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
