import type { AttachmentId, Character, InstanceId } from '../../src/index';
import { holdOffset, loadProp, type Hold } from '../held-prop';
import { MODELS } from '../models';
import type { Scene } from '../scene';

/** One spectator in this many waves a flag. */
export const FLAG_EVERY = 5;
/** A flag in the hand: a little taller than the character is high above its hand, leaning forward a little. */
const HAND_HOLD: Hold = { length: 0.7, pitch: Math.PI / 2 - 0.2 };
/** A flag on the head (a model without a hand, the Fox): upright, half a height above it. */
const HEAD_HOLD: Hold = { length: 0.5, pitch: Math.PI / 2 };

/**
 * Whether the spectator of seat `seat` waves a flag: one in FLAG_EVERY, scattered over the bowl
 * by a hash of the seat (every FLAG_EVERY-th seat would stand in lines up the rows).
 */
export function holdsFlag(seat: number): boolean {
  let h = Math.imul(seat ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % FLAG_EVERY === 0;
}

/** The joint a flag is held by on `character` of model `model`: the model's hand (MODELS), else its first joint named like a head; undefined when it has neither. */
export function flagJoint(character: Character, model: string): { joint: string; hold: Hold } | undefined {
  const hand = MODELS[model]?.hand;
  if (hand && character.jointNames.includes(hand)) return { joint: hand, hold: HAND_HOLD };
  const head = character.jointNames.find((name) => /head/i.test(name));
  return head ? { joint: head, hold: HEAD_HOLD } : undefined;
}

/**
 * The stadium's flags (?flags=1): the bundled Flag attached to chosen instances
 * (CrowdProps.attach with `instances`, one spectator in FLAG_EVERY), so that past the switch a
 * holder is the impostor of a look with the flag (the stadium sizes its impostors for two looks:
 * the flag's prop set gets a layer). Attached once the prop has loaded; `hold` names the holders
 * whenever the spectators are seated again; dispose() detaches it.
 */
export class StadiumFlags {
  private id: AttachmentId | undefined;
  private holders: InstanceId[] = [];
  private disposed = false;

  constructor(private readonly scene: Scene, joint: string, hold: Hold, notify: (message: string) => void) {
    loadProp('Flag.glb').then((flag) => {
      if (this.disposed) return;
      this.id = scene.props.attach(flag, { joint, offset: holdOffset(scene.character, joint, hold), instances: this.holders });
    }).catch((error: Error) => notify(`the flags were not loaded: ${error.message}`));
  }

  /** Spectators waving a flag (once it has loaded). */
  get count(): number {
    return this.id === undefined ? 0 : this.holders.length;
  }

  /** Gives a flag to the spectators whose seats holdsFlag picks, of `count` seated with ids `idAt(seat)`. */
  hold(count: number, idAt: (seat: number) => InstanceId): void {
    this.holders = [];
    for (let seat = 0; seat < count; seat++) if (holdsFlag(seat)) this.holders.push(idAt(seat));
    if (this.id !== undefined) this.scene.props.setInstances(this.id, this.holders);
  }

  /** Takes the flags off the crowd (the scene ends). */
  dispose(): void {
    this.disposed = true;
    if (this.id !== undefined) this.scene.props.detach(this.id);
    this.id = undefined;
  }
}
