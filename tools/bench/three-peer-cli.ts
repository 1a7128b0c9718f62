/**
 * Tries the three.js peer benchmark on its own:
 *
 *   NODE_OPTIONS=--max-old-space-size=16000 npx tsx tools/bench/three-peer-cli.ts
 *   node --max-old-space-size=16000 --import tsx tools/bench/three-peer-cli.ts   (same thing)
 *
 * Not `node --max-old-space-size=... node_modules/.bin/tsx ...`: the tsx CLI runs the script in a
 * child process that does not get the flag (the heap limit stays at the default ~4 GB).
 * 100,000 Fox instances need ~8.4 GB of heap, over the default 6 GB budget; add --max-heap-gb 12
 * to run them (about 75 s to build the clones, then ~4 s a frame, on a 2-core EPYC).
 *
 * Options: --model <path> (default public/models/Fox/Fox.glb), --clips A,B (default Walk,Run),
 * --counts 1000,10000,100000, --max-heap-gb <GB> (default 6), --frames <n>, --warmup <n>.
 */
import { parseArgs, numberOption } from '../args';
import { benchThreePeer } from './three-peer';

const options = parseArgs(process.argv.slice(2), ['model', 'clips', 'counts', 'max-heap-gb', 'frames', 'warmup'], []);
const model = options.get('model') ?? 'public/models/Fox/Fox.glb';
const clips = (options.get('clips') ?? 'Walk,Run').split(',');
if (clips.length !== 2) throw new Error('--clips takes two names, e.g. Walk,Run');
const counts = (options.get('counts') ?? '1000,10000,100000').split(',').map(Number);
if (counts.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error('--counts takes positive integers, e.g. 1000,10000');
const maxHeapGB = numberOption(options, 'max-heap-gb');

const rows = await benchThreePeer(model, [clips[0], clips[1]], counts, {
  frames: numberOption(options, 'frames'),
  warmupFrames: numberOption(options, 'warmup'),
  maxHeapBytes: maxHeapGB === undefined ? undefined : maxHeapGB * 1e9,
  log: (line) => console.error(line),
});

console.log(`three.js ${(await import('three')).REVISION} CPU peer, ${model}, clips ${clips.join(' + ')} blended, node ${process.version}`);
console.table(rows.map((r) => ({
  instances: r.instances,
  'ms/frame': Number.isNaN(r.msPerFrame) ? 'n/a' : Number(r.msPerFrame.toFixed(2)),
  'joint matrices/s': Number.isNaN(r.jointMatricesPerSecond) ? 'n/a' : `${(r.jointMatricesPerSecond / 1e6).toFixed(2)} M`,
  note: r.note ?? '',
})));
