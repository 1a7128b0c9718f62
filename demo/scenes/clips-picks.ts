import type { Character } from '../../src/index';
import type { DroppedModel } from '../drop';
import { CLIP_SETS, CLIPS_BODIES } from '../models';
import type { ClipsChoice, DroppedFile } from '../scene';
import { DEFAULT_SCENE_STATE, type SceneState } from '../scene-state';

/**
 * The clips scene's picks (docs/demo.md): which body stands beside the two WalkerBody ones and
 * which clip set every body is bound to, from the panel's pickers (SceneState.clipsBody, clipSet,
 * legSolve) and from files dropped on the page in that scene (a body, or a file of clips only). A
 * dropped file joins its picker under its file name for the page's life; one refused is forgotten.
 */
export class ClipsPicks {
  private readonly bodies = new Map<string, DroppedFile>();
  private readonly sets = new Map<string, DroppedFile>();

  constructor(private readonly state: SceneState) {}

  /** The body picker's names: CLIPS_BODIES, then the dropped bodies. */
  get bodyNames(): string[] {
    return [...Object.keys(CLIPS_BODIES), ...this.bodies.keys()];
  }

  /** The clip-set picker's names: CLIP_SETS, then the dropped clips files. */
  get setNames(): string[] {
    return [...Object.keys(CLIP_SETS), ...this.sets.keys()];
  }

  /** What loadScene binds for the picks now (an unknown name: the default, as the URL reader does). */
  choice(): ClipsChoice {
    const { clipsBody, clipSet, legSolve } = this.state;
    const bodyFile = this.bodies.get(clipsBody);
    const name = bodyFile || clipsBody in CLIPS_BODIES ? clipsBody : DEFAULT_SCENE_STATE.clipsBody;
    // A dropped body walks in place beside the others, as the Walker's bodies do.
    const body = bodyFile ? { label: name, url: '', file: bodyFile, load: CLIPS_BODIES.WalkerStocky.load } : { label: name, ...CLIPS_BODIES[name] };
    const setFile = this.sets.get(clipSet);
    const setLabel = setFile || clipSet in CLIP_SETS ? clipSet : DEFAULT_SCENE_STATE.clipSet;
    return { set: { label: setLabel, url: CLIP_SETS[setLabel] ?? '', file: setFile }, body, legSolve };
  }

  /** A file dropped in the clips scene becomes the picked clip set (a file of clips only) or body. */
  drop(dropped: DroppedModel): void {
    const file = dropped.source.file;
    if (!file) return;
    if (dropped.clipsOnly) {
      this.sets.set(dropped.name, file);
      this.state.clipSet = dropped.name;
    } else {
      this.bodies.set(dropped.name, file);
      this.state.clipsBody = dropped.name;
    }
  }

  /**
   * The picks could not be bound: back to those of the scene still shown (`shown`, none: the
   * defaults), forgetting a dropped file among the refused picks. False when the picks were
   * those already (what failed was not a pick: nothing to go back to).
   */
  revert(shown: ClipsChoice | undefined): boolean {
    const { clipsBody, clipSet, legSolve } = this.state;
    const back = shown ?? { body: { label: DEFAULT_SCENE_STATE.clipsBody }, set: { label: DEFAULT_SCENE_STATE.clipSet }, legSolve: DEFAULT_SCENE_STATE.legSolve };
    if (clipsBody === back.body.label && clipSet === back.set.label && legSolve === back.legSolve) return false;
    if (clipsBody !== back.body.label) this.bodies.delete(clipsBody);
    if (clipSet !== back.set.label) this.sets.delete(clipSet);
    this.state.clipsBody = back.body.label;
    this.state.clipSet = back.set.label;
    this.state.legSolve = back.legSolve;
    return true;
  }
}

/**
 * One line on how the clip set bound to a body (Character.clipBindings): bone to bone through the
 * humanoid maps found (where each came from, bones mapped, body joints unmapped, the leg solve on
 * or off and why), copied (the same skeleton), or by node name (no humanoid on a side).
 */
export function bindingSummary(character: Character, legSolve: boolean): string {
  const binding = character.clipBindings[character.clipBindings.length - 1];
  if (!binding) return 'no clip set bound';
  const h = binding.humanoid;
  if (!h) return binding.retargeted ? 'bound by node name, retargeted joint by joint (no humanoid on a side)' : 'the clips\' own skeleton: copied by name';
  const legs = h.legs > 0 ? `leg solve on (${h.legs} legs)` : legSolve ? 'leg solve off (legs in proportion)' : 'leg solve off (switched off)';
  return `humanoid ${h.body} <- ${h.file}: ${h.bones} bones mapped, ${h.unmapped.length} unmapped${h.unmapped.length ? ` (${h.unmapped.join(', ')})` : ''}, ` +
    `hips x${binding.rootScale.toFixed(2)}, ${legs}`;
}
