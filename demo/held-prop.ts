import { mat4, quat } from 'wgpu-matrix';
import { loadCharacter, type AttachmentId, type Character } from '../src/index';
import type { Scene } from './scene';

/** How a prop is held (holdOffset): its length in character heights (each bundled prop is 1 unit long along its +y) and the radians its +y points up from forward (+z, the way characters face). */
export interface Hold {
  length: number;
  pitch: number;
}

/** The locomotion scene's sword: blade forward and up. */
const SWORD_HOLD: Hold = { length: 0.45, pitch: 0.8 };
/** Where the grip sits: this far past the hand joint, in lengths of the bone that ends at it (into the palm). */
const GRIP_ALONG_BONE = 0.2;

const propLoads = new Map<string, Promise<Character>>();

/** A bundled prop of public/models/Props/ (made by tools/make-props.ts), loaded once per page (a static mesh: no LOD levels needed). */
export function loadProp(file: 'Sword.glb' | 'Flag.glb'): Promise<Character> {
  let load = propLoads.get(file);
  if (!load) {
    load = loadCharacter(`${import.meta.env.BASE_URL}models/Props/${file}`, { lod: false });
    load.catch(() => propLoads.delete(file)); // a failed load may be tried again
    propLoads.set(file, load);
  }
  return load;
}

/**
 * A sword in every character's hand (CrowdProps.attach): attached once the prop has loaded, detached
 * by dispose(). The offset is made so that in the character's rest pose the grip sits in the
 * palm and the blade points forward and a little up; from there it follows the hand joint.
 */
export class HeldProp {
  private id: AttachmentId | undefined;
  private disposed = false;

  /** `joint`: the hand joint, a name of the character's jointNames. */
  constructor(private readonly scene: Scene, readonly joint: string, notify: (message: string) => void) {
    loadProp('Sword.glb').then((prop) => {
      if (this.disposed) return;
      this.id = scene.props.attach(prop, { joint, offset: holdOffset(scene.character, joint, SWORD_HOLD) });
    }).catch((error: Error) => notify(`the held prop was not loaded: ${error.message}`));
  }

  /** Whether the prop is attached (it loads asynchronously). */
  get attached(): boolean {
    return this.id !== undefined;
  }

  /** Takes the prop off the crowd (the scene ends). */
  dispose(): void {
    this.disposed = true;
    if (this.id !== undefined) this.scene.props.detach(this.id);
    this.id = undefined;
  }
}

/**
 * The offset (joint space -> prop placement) that puts the prop, in the rest pose, at the grip
 * point past `joint`, `hold.length` character heights long, its +y `hold.pitch` above forward:
 * inverse(rest model matrix of the joint) x the wanted placement in model space.
 */
export function holdOffset(character: Character, joint: string, hold: Hold): Float32Array {
  const { nodes, skins } = character.rig;
  // The node of the first joint slot of that name: the one CrowdProps.attach follows.
  const slot = character.jointNames.indexOf(joint);
  if (slot < 0) throw new RangeError(`no joint named ${JSON.stringify(joint)} in ${character.name}`);
  const node = skins.flatMap((skin) => Array.from(skin.joints))[slot];
  const model = restModel(character, node);
  const parent = nodes.parent[node];
  const hand = [model[12], model[13], model[14]];
  const from = parent >= 0 ? restModel(character, parent) : mat4.identity();
  const grip = hand.map((h, c) => h + GRIP_ALONG_BONE * (h - from[12 + c]));
  const height = Math.max(character.bounds.max[1] - character.bounds.min[1], 1e-6);
  const placement = mat4.translation(grip);
  mat4.rotateX(placement, Math.PI / 2 - hold.pitch, placement); // +y (the blade, the pole) towards +z, hold.pitch above it
  mat4.uniformScale(placement, hold.length * height, placement);
  return mat4.multiply(mat4.inverse(model), placement) as Float32Array;
}

/** Model matrix of rig node `node` in the rest pose. */
function restModel(character: Character, node: number): Float32Array {
  const { parent, restTranslation: t, restRotation: r, restScale: s } = character.rig.nodes;
  const chain: number[] = [];
  for (let n = node; n >= 0; n = parent[n]) chain.unshift(n);
  const m = mat4.identity();
  for (const n of chain) {
    const local = mat4.fromQuat(quat.create(r[n * 4], r[n * 4 + 1], r[n * 4 + 2], r[n * 4 + 3]));
    local.set([t[n * 3], t[n * 3 + 1], t[n * 3 + 2]], 12);
    mat4.scale(local, [s[n * 3], s[n * 3 + 1], s[n * 3 + 2]], local);
    mat4.multiply(m, local, m);
  }
  return m as Float32Array;
}
