import { mat4d, quatd } from 'wgpu-matrix';
import { check, FLOAT32_MAX, ModelError } from './errors';
import type { GltfJson, GltfNode } from './gltf-json';
import { composeTrsAt } from '../math/affine';

/**
 * Parent of every glTF node (-1 for roots), after checking that `children` references exist,
 * that no node has two parents and that the graph has no cycle. Linear in nodes plus children,
 * without recursion: a chain of 100,000 nodes is as cheap as 100,000 roots.
 */
export function gltfParents(json: GltfJson): Int32Array {
  const nodes = json.nodes ?? [];
  const parent = new Int32Array(nodes.length).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    for (const child of nodes[i].children ?? []) {
      check(Number.isInteger(child) && child >= 0 && child < nodes.length,
        `node ${i}: child ${child} does not exist (the file has ${nodes.length} nodes)`);
      check(child !== i, `node ${i}: lists itself as a child`);
      check(parent[child] === -1, `node ${child}: has two parents (nodes ${parent[child]} and ${i})`);
      parent[child] = i;
    }
  }
  // With one parent per node, a node reaches a root by its parent links unless a cycle is on the
  // way. Walk each node's unvisited ancestors once: 0 unvisited, 1 on the current walk, 2 done.
  const state = new Uint8Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    let p = i;
    while (p !== -1 && state[p] === 0) { state[p] = 1; p = parent[p]; }
    if (p !== -1 && state[p] === 1) {
      const cycle = [p];
      for (let q = parent[p]; q !== p; q = parent[q]) cycle.push(q);
      cycle.sort((a, b) => a - b);
      const shown = cycle.length > 8 ? `${cycle.slice(0, 8).join(', ')}, ... (${cycle.length} nodes)` : cycle.join(', ');
      throw new ModelError(`node ${cycle[0]}: its ancestors form a cycle (nodes ${shown})`);
    }
    for (let q = i; q !== p; q = parent[q]) state[q] = 2;
  }
  return parent;
}

/** The node indices of the default scene (json.scene, else scene 0, else every root node). */
export function defaultSceneRoots(json: GltfJson, parent: Int32Array): number[] {
  const nodeCount = json.nodes?.length ?? 0;
  const scenes = json.scenes ?? [];
  if (scenes.length === 0) {
    const roots: number[] = [];
    for (let i = 0; i < parent.length; i++) if (parent[i] === -1) roots.push(i);
    return roots;
  }
  const sceneIndex = json.scene ?? 0;
  check(Number.isInteger(sceneIndex) && sceneIndex >= 0 && sceneIndex < scenes.length,
    `scene ${sceneIndex} (the default scene) does not exist (the file has ${scenes.length})`);
  const roots = scenes[sceneIndex].nodes ?? [];
  for (const root of roots) {
    check(Number.isInteger(root) && root >= 0 && root < nodeCount, `scene ${sceneIndex}: node ${root} does not exist (the file has ${nodeCount} nodes)`);
    check(parent[root] === -1, `scene ${sceneIndex}: node ${root} is listed as a root but is a child of node ${parent[root]}`);
  }
  return roots;
}

/** Every node reachable from `roots`, in ascending index order. */
export function nodesUnder(json: GltfJson, roots: number[]): number[] {
  const nodes = json.nodes ?? [];
  const seen = new Uint8Array(nodes.length);
  const stack = roots.slice();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen[n]) continue;
    seen[n] = 1;
    for (const child of nodes[n].children ?? []) stack.push(child); // no spread: children may be 200,000 long
  }
  const out: number[] = [];
  for (let n = 0; n < nodes.length; n++) if (seen[n]) out.push(n);
  return out;
}

/** Finite and storable as a 32-bit float, as the baked rest pose and the GPU store it. */
const inFloat32Range = (v: number) => Math.abs(v) <= FLOAT32_MAX;

function vector(node: GltfNode, key: 'translation' | 'rotation' | 'scale', length: number, index: number, fallback: number[]): number[] {
  const value = node[key];
  if (value === undefined) return fallback;
  check(Array.isArray(value) && value.length === length && value.every(inFloat32Range),
    `node ${index}: ${key} must be ${length} finite numbers within the 32-bit float range`);
  return value;
}

/**
 * A node's rest translation, rotation and scale. A `matrix` is decomposed; one with shear or a
 * zero scale cannot be a TRS and is rejected, since it would otherwise be drawn wrong.
 */
export function restTrs(node: GltfNode, index: number): { t: number[]; r: number[]; s: number[] } {
  if (node.matrix !== undefined) {
    const m = node.matrix;
    check(Array.isArray(m) && m.length === 16 && m.every(inFloat32Range), `node ${index}: matrix must be 16 finite numbers within the 32-bit float range`);
    check(node.translation === undefined && node.rotation === undefined && node.scale === undefined,
      `node ${index}: has both matrix and translation/rotation/scale`);
    return decomposeMatrix(m, index);
  }
  const t = vector(node, 'translation', 3, index, [0, 0, 0]);
  const r = vector(node, 'rotation', 4, index, [0, 0, 0, 1]);
  const s = vector(node, 'scale', 3, index, [1, 1, 1]);
  const length = Math.hypot(...r);
  check(length > 1e-6, `node ${index}: rotation quaternion has zero length`);
  return { t, r: r.map((v) => v / length), s };
}

function decomposeMatrix(m: number[], index: number): { t: number[]; r: number[]; s: number[] } {
  const t = [m[12], m[13], m[14]];
  const s = [Math.hypot(m[0], m[1], m[2]), Math.hypot(m[4], m[5], m[6]), Math.hypot(m[8], m[9], m[10])];
  check(s.every((v) => v > 1e-12), `node ${index}: matrix has a zero scale axis`);
  check(s.every((v) => v <= FLOAT32_MAX), `node ${index}: matrix scales beyond the 32-bit float range`);
  if (mat4d.determinant(m) < 0) s[0] = -s[0];
  const rotation = mat4d.create();
  for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) rotation[c * 4 + r] = m[c * 4 + r] / s[c];
  const q = quatd.normalize(quatd.fromMat(rotation));
  // Recompose and compare: a matrix with shear has no TRS form.
  const back = new Float64Array(16);
  composeTrsAt(t, 0, q, 0, s, 0, back, 0);
  const scale = Math.max(1, ...m.map(Math.abs));
  for (let i = 0; i < 16; i++) {
    if (Math.abs(back[i] - m[i]) > 1e-5 * scale) {
      throw new ModelError(`node ${index}: matrix has shear or projection, which a translation/rotation/scale cannot represent`);
    }
  }
  return { t, r: Array.from(q), s };
}

/** Node order with every parent before its children, for parents given by index in any order (a clips file's glTF nodes). */
export function parentsFirst(parent: Int32Array): number[] {
  const depth = (n: number) => { let d = 0; for (let p = parent[n]; p >= 0; p = parent[p]) d++; return d; };
  return Array.from(parent, (_, n) => n).sort((a, b) => depth(a) - depth(b));
}
