import { check, describeValue, ModelError } from './errors';
import { checkRequiredExtensions, type Decoders } from './extensions';
import type { GltfJson } from './gltf-json';

/**
 * The first check of every glTF document: each field the loader reads has the JSON type the
 * glTF 2.0 schema gives it, and every field the schema requires is there. After this, the rest
 * of the loader may trust types (an index is a non-negative integer, a list is an array) and
 * checks only meaning: ranges, counts, values. Messages name the object and field in the words
 * the other loader errors use ("accessor 3: count must be a non-negative integer, but it is
 * "abc""). Fields the loader never reads (extras, extensions, cameras...) are not checked.
 *
 * Also refused here, as the spec asks: a major version other than 2, an asset.minVersion above
 * 2.0, and any extension in extensionsRequired that the loader cannot read with the decoders
 * handed in (all of them named at once: extensions.ts).
 */

/** A non-negative safe integer (indices, counts, byte offsets and lengths). */
type Leaf = 'index' | 'integer' | 'number' | 'string' | 'boolean';

interface ObjectRule {
  fields: Record<string, Rule>;
  required: readonly string[];
}

/** A list; `label` names its elements in messages ("primitive 2"), else they read as field[2]. */
interface ListRule {
  list: Rule;
  label?: string;
}

/** An object whose every value follows one rule (mesh attributes: name -> accessor index). */
interface MapRule {
  map: Rule;
}

type Rule = Leaf | ObjectRule | ListRule | MapRule;

const obj = (fields: Record<string, Rule>, required: readonly string[] = []): ObjectRule => ({ fields, required });
const list = (rule: Rule, label?: string): ListRule => ({ list: rule, label });

const TEXTURE_INFO = obj({ index: 'index', texCoord: 'index' }, ['index']);

const GLTF = obj({
  asset: obj({ version: 'string', minVersion: 'string', generator: 'string' }, ['version']),
  extensionsUsed: list('string'),
  extensionsRequired: list('string'),
  scene: 'index',
  scenes: list(obj({ name: 'string', nodes: list('index') }), 'scene'),
  nodes: list(obj({
    name: 'string', children: list('index'), mesh: 'index', skin: 'index',
    matrix: list('number'), translation: list('number'), rotation: list('number'), scale: list('number'), weights: list('number'),
  }), 'node'),
  meshes: list(obj({
    name: 'string',
    primitives: list(obj({
      attributes: { map: 'index' }, indices: 'index', material: 'index', mode: 'index', targets: list({ map: 'index' }),
    }, ['attributes']), 'primitive'),
    weights: list('number'),
  }, ['primitives']), 'mesh'),
  skins: list(obj({ name: 'string', joints: list('index'), inverseBindMatrices: 'index', skeleton: 'index' }, ['joints']), 'skin'),
  animations: list(obj({
    name: 'string',
    channels: list(obj({ sampler: 'index', target: obj({ node: 'index', path: 'string' }, ['path']) }, ['sampler', 'target']), 'channel'),
    samplers: list(obj({ input: 'index', output: 'index', interpolation: 'string' }, ['input', 'output']), 'sampler'),
  }, ['channels', 'samplers']), 'animation'),
  accessors: list(obj({
    bufferView: 'index', byteOffset: 'index', componentType: 'integer', normalized: 'boolean', count: 'index', type: 'string',
    sparse: obj({
      count: 'index',
      indices: obj({ bufferView: 'index', byteOffset: 'index', componentType: 'integer' }, ['bufferView', 'componentType']),
      values: obj({ bufferView: 'index', byteOffset: 'index' }, ['bufferView']),
    }, ['count', 'indices', 'values']),
  }, ['componentType', 'count', 'type']), 'accessor'),
  bufferViews: list(obj({ buffer: 'index', byteOffset: 'index', byteLength: 'index', byteStride: 'index' }, ['buffer', 'byteLength']), 'bufferView'),
  buffers: list(obj({ uri: 'string', byteLength: 'index' }, ['byteLength']), 'buffer'),
  materials: list(obj({ name: 'string', pbrMetallicRoughness: obj({ baseColorFactor: list('number'), baseColorTexture: TEXTURE_INFO }) }), 'material'),
  textures: list(obj({ source: 'index', sampler: 'index' }), 'texture'),
  images: list(obj({ uri: 'string', mimeType: 'string', bufferView: 'index' }), 'image'),
}, ['asset']);

const LEAF_WORDS: Record<Leaf, string> = {
  index: 'a non-negative integer',
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
};

function leafOk(rule: Leaf, v: unknown): boolean {
  switch (rule) {
    case 'index': return Number.isSafeInteger(v) && (v as number) >= 0;
    case 'integer': return Number.isSafeInteger(v);
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'string': return typeof v === 'string';
    default: return typeof v === 'boolean';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `owner` is the object in words ("accessor 3", "mesh 0 primitive 1", or '' at the top) and
 * `field` the path inside it ("sparse.indices.bufferView"). The rule tree is a few levels deep,
 * so recursion here is bounded by the rules, never by the file.
 */
function checkValue(rule: Rule, v: unknown, owner: string, field: string): void {
  const place = owner ? `${owner}: ${field}` : field;
  if (typeof rule === 'string') {
    check(leafOk(rule, v), () => `${place} must be ${LEAF_WORDS[rule]}, but it is ${describeValue(v)}`);
  } else if ('list' in rule) {
    check(Array.isArray(v), () => `${place} must be an array, but it is ${describeValue(v)}`);
    for (let i = 0; i < v.length; i++) {
      if (rule.label) checkValue(rule.list, v[i], `${owner ? `${owner} ` : ''}${rule.label} ${i}`, '');
      else checkValue(rule.list, v[i], owner, `${field}[${i}]`);
    }
  } else if ('map' in rule) {
    check(isObject(v), () => `${place} must be an object, but it is ${describeValue(v)}`);
    for (const key of Object.keys(v)) checkValue(rule.map, v[key], owner, `${field}.${key}`);
  } else {
    // An element of a labelled list is named by its owner alone ("accessor 3 must be an object").
    check(isObject(v), () => `${field ? place : owner} must be an object, but it is ${describeValue(v)}`);
    const prefix = field ? `${field}.` : '';
    for (const key of rule.required) {
      check(v[key] !== undefined, () => `${owner ? `${owner}: ` : ''}${prefix}${key} is missing (glTF requires it)`);
    }
    for (const key of Object.keys(rule.fields)) {
      if (v[key] !== undefined) checkValue(rule.fields[key], v[key], owner, `${prefix}${key}`);
    }
  }
}

/**
 * Checks the document's shape, version and required extensions (see above; `decoders`: those
 * handed in, which bring the compressed-file extensions, extensions.ts); throws a ModelError.
 */
export function checkGltfJson(json: unknown, decoders: Decoders = {}): asserts json is GltfJson {
  check(isObject(json), () => `not a glTF file: its JSON is ${describeValue(json)}, not an object`);
  check(isObject(json.asset), () => `not a glTF 2.0 file: it has no asset object (glTF requires asset.version); asset is ${describeValue(json.asset)}`);
  checkValue(GLTF, json, '', '');
  const asset = json.asset as { version: string; minVersion?: string };
  const version = parseVersion(asset.version, 'asset.version');
  check(version[0] === 2, `glTF version ${asset.version} is not supported (only 2.x)`);
  if (asset.minVersion !== undefined) {
    const min = parseVersion(asset.minVersion, 'asset.minVersion');
    check(min[0] < 2 || (min[0] === 2 && min[1] === 0),
      `the file needs glTF ${asset.minVersion} or later (asset.minVersion); this loader reads glTF 2.0`);
  }
  checkRequiredExtensions((json.extensionsRequired ?? []) as string[], decoders);
}

function parseVersion(text: string, field: string): [number, number] {
  const match = /^(\d+)\.(\d+)$/.exec(text);
  if (!match) throw new ModelError(`${field} is ${describeValue(text)}, not a version of the form "2.0"`);
  return [Number(match[1]), Number(match[2])];
}
