import type { RigNodes } from '../bake/rig';

/**
 * A per-joint blend mask as users write it: `{ root: 'Spine' }` is 1 on that joint and every
 * joint below it, 0 elsewhere (the classic upper-body layer); `{ weights: { Head: 1, Neck: 0.5 },
 * default: 0 }` gives named joints their weight and every other node `default` (0 if absent).
 */
export type MaskSpec =
  | {
    /** A joint name: weight 1 on it and every node below it, 0 elsewhere. */
    root: string;
  }
  | {
    /** Joint name -> weight in [0, 1]; names that are not joints of the rig are an error. */
    weights: Record<string, number>;
    /** Weight in [0, 1] of every node not named in `weights` (default 0). */
    default?: number;
  };

/** Rig node index of a joint name; throws naming the joint (and a few that exist) when absent. */
export function nodeByName(nodes: RigNodes, name: string, where: string): number {
  const index = nodes.names.indexOf(name);
  if (index < 0) {
    const some = nodes.names.slice(0, 8).map((n) => `'${n}'`).join(', ');
    throw new RangeError(`${where}: no joint named '${name}' (joints include ${some}${nodes.count > 8 ? ', ...' : ''})`);
  }
  // Several nodes may share a name (RobotExpressive's mesh node 'Torso' hangs beside its joint
  // 'Torso'): the name means the joint when exactly one of them is a joint, else the one that is
  // an ancestor of all the others; otherwise it is ambiguous.
  const all: number[] = [];
  for (let i = index; i >= 0; i = nodes.names.indexOf(name, i + 1)) all.push(i);
  if (all.length === 1) return index;
  const joints = nodes.isJoint ? all.filter((i) => nodes.isJoint[i]) : [];
  if (joints.length === 1) return joints[0];
  const candidates = joints.length > 1 ? joints : all;
  const top = candidates[0];
  for (const other of candidates.slice(1)) {
    let p = other;
    while (p >= 0 && p !== top) p = nodes.parent[p];
    if (p !== top) throw new RangeError(`${where}: more than one node is named '${name}' (nodes ${top} and ${other}, neither below the other)`);
  }
  return top;
}

function checkWeight(value: unknown, what: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new RangeError(`${what} must be a number in [0, 1], got ${typeof value === 'number' ? value : JSON.stringify(value)}`);
  return value;
}

/** The weight of every rig node (parent-first order) under `spec`. */
export function buildMask(nodes: RigNodes, spec: MaskSpec, where = 'mask'): Float32Array {
  const mask = new Float32Array(nodes.count);
  if (spec && typeof spec === 'object' && 'root' in spec) {
    const root = nodeByName(nodes, spec.root, `${where} root`);
    // Parent-first order: a node is below the root exactly when its parent is (or it is the root).
    mask[root] = 1;
    for (let n = root + 1; n < nodes.count; n++) if (nodes.parent[n] >= 0 && mask[nodes.parent[n]] === 1) mask[n] = 1;
    return mask;
  }
  if (!spec || typeof spec !== 'object' || !('weights' in spec) || typeof spec.weights !== 'object' || spec.weights === null) {
    throw new TypeError(`${where} must be {"root": JOINT} or {"weights": {JOINT: w}, "default": d}`);
  }
  mask.fill(spec.default === undefined ? 0 : checkWeight(spec.default, `${where} default`));
  for (const [name, weight] of Object.entries(spec.weights)) {
    mask[nodeByName(nodes, name, `${where} weights`)] = checkWeight(weight, `${where} weight of '${name}'`);
  }
  return mask;
}
