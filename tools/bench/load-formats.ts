/**
 * What compression costs at load (issue 38, BENCHMARKS.md "Load time by file format"): each
 * bundled character as its original .glb and as the files web teams make of it (tools/compress.ts:
 * gltf-transform quantize, quantize + meshopt, draco; gltfpack -cc; for textured ones webp and
 * KTX2 ETC1S / UASTC), with the bytes on the wire
 * (the file, and gzipped at level 6 as a server sends it), the milliseconds parseGltf takes
 * (reading and checking the container and JSON, reading buffers, decoding: what compression
 * adds), and the milliseconds loadCharacter then spends baking (tables and bounds: the same work
 * whatever the file's format). Medians over `rounds`, formats interleaved in every round, ratios
 * against the original in the same process.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dracoDecoder } from '../../src/bake/draco-decoder';
import type { Decoders } from '../../src/bake/extensions';
import { MeshoptDecoder } from '../../src/bake/meshopt-decoder';
import { parseGltf } from '../../src/bake/parse';
import { loadCharacter } from '../../src/character/character';
import { decodeImage, draco3dgltf, dracoCompressed, gltfpacked, ktx2Compressed, meshoptCompressed, quantized, webpCompressed } from '../compress';
import { loadKtx2 } from '../node-decoders';

export interface LoadFormatRow {
  model: string;
  format: string;
  bytes: number;
  gzipBytes: number;
  /** Median ms of parseGltf (container, JSON, buffers, decoding). */
  parseMs: number;
  /** Median ms of loadCharacter's bake (timings.bakeMs). */
  bakeMs: number;
  /** Median ms of decoding the file's PNG, JPEG, WebP or AVIF images to RGBA8 (sharp's libvips, standing in for the browser's decoder); 0 without any (KTX2's transcoding is in parseMs). */
  imageMs: number;
}

const FORMATS: { name: string; make: (path: string) => Promise<ArrayBuffer> }[] = [
  { name: 'original', make: async (path) => { const b = readFileSync(path); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer; } },
  { name: 'gltf-transform quantize', make: quantized },
  { name: 'gltf-transform quantize + meshopt', make: meshoptCompressed },
  { name: 'gltfpack -cc', make: (path) => gltfpacked(path, ['-cc']) },
  { name: 'gltf-transform draco', make: dracoCompressed },
];

/** Texture formats, for characters with textures: the original's images through gltf-transform webp (quality 80) and etc1s / uastc (ktx2-encoder, mip chains). */
const TEXTURE_FORMATS: { name: string; make: (path: string) => Promise<ArrayBuffer> }[] = [
  { name: 'gltf-transform webp', make: async (path) => webpCompressed(await FORMATS[0].make(path), 80) },
  { name: 'KTX2 ETC1S (gltf-transform etc1s)', make: async (path) => ktx2Compressed(await FORMATS[0].make(path), 'etc1s') },
  { name: 'KTX2 UASTC (gltf-transform uastc)', make: async (path) => ktx2Compressed(await FORMATS[0].make(path), 'uastc') },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The rows for the characters at `paths` (public/models/<name>/<name>.glb). */
export async function benchLoadFormats(paths: readonly string[], rounds: number): Promise<LoadFormatRow[]> {
  const decoders: Decoders = { meshopt: MeshoptDecoder, draco: dracoDecoder(await (await draco3dgltf()).createDecoderModule()), ktx2: await loadKtx2() };
  const rows: LoadFormatRow[] = [];
  for (const path of paths) {
    const model = path.split('/').pop()!.replace(/\.glb$/, '');
    const textured = ((await parseGltf(await FORMATS[0].make(path))).json.images ?? []).length > 0;
    const formats = [...FORMATS, ...(textured ? TEXTURE_FORMATS : [])];
    const files: ArrayBuffer[] = [];
    for (const f of formats) files.push(await f.make(path)); // one at a time: the KTX2 encoder is single-threaded and memory-hungry
    const parse: number[][] = files.map(() => []);
    const bake: number[][] = files.map(() => []);
    const image: number[][] = files.map(() => []);
    for (let round = 0; round < rounds + 1; round++) {
      for (const [i, file] of files.entries()) {
        const t0 = performance.now();
        const asset = await parseGltf(file.slice(0), { decoders });
        const t1 = performance.now();
        for (const img of asset.images) if (img && !img.ktx2) await decodeImage(img.bytes);
        const t2 = performance.now();
        const character = await loadCharacter(file.slice(0), { decoders, lod: false });
        if (round > 0) { parse[i].push(t1 - t0); image[i].push(t2 - t1); bake[i].push(character.timings.bakeMs); } // round 0 warms up
      }
    }
    files.forEach((file, i) => rows.push({
      model, format: formats[i].name, bytes: file.byteLength, gzipBytes: gzipSync(new Uint8Array(file), { level: 6 }).byteLength,
      parseMs: median(parse[i]), bakeMs: median(bake[i]), imageMs: median(image[i]),
    }));
  }
  return rows;
}

/** The section's heading in BENCHMARKS.md. */
export const LOAD_FORMATS_HEADING = '## Load time by file format: what compression costs at load';

/** Prints the section (heading, method, table) through the run's `print` and `table` (tools/bench/report.ts, Report). */
export async function loadFormatsSection(print: (line?: string) => void, table: (header: string[], rows: (string | number)[][]) => void, quick: boolean): Promise<void> {
  print(LOAD_FORMATS_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} (tools/bench/load-formats.ts) on ${cpus()[0].model}, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} when it started (bake ms, a ~100 ms task, moves by tens of percent between identical bakes on a loaded machine; parse ms is the column that shows what the decoders cost). Each bundled character as its original .glb and as the files gltf-transform and gltfpack make of it with their defaults (tools/compress.ts; docs/loading.md, "Compressed files"). Bytes: the file, and gzipped (level 6, as a server sends it). Parse ms: parseGltf, which reads and checks the container and JSON, reads the buffers and runs the decoders handed in (meshoptimizer's WebAssembly, Draco's from npm draco3dgltf): what the format costs at load. Bake ms: loadCharacter's tables and bounds (Character.timings.bakeMs), the same work whatever the format, unless the tool rewrote the clips (gltfpack resamples them at 30 Hz). Medians over ${quick ? 2 : 7} rounds after one warm-up, formats interleaved within each round; x original: ratio to the original's in the same run. A Draco file of Fox is its original: gltf-transform's Draco writer leaves non-indexed primitives, which are all Fox has, uncompressed. Textured characters also as WebP (gltf-transform webp, quality 80) and KTX2 (ETC1S and UASTC with mip chains, ktx2-encoder, Basis Universal's encoder): for KTX2, parse ms includes transcoding every level to RGBA8 (Basis Universal's transcoder from npm three); image decode ms: the PNG, JPEG or WebP images decoded to RGBA8 by sharp (libvips), standing in for the browser's image decoder, which the browser runs off the main thread.`);
  print();
  const rows = await benchLoadFormats(['Fox', 'CesiumMan', 'RobotExpressive'].map((m) => `public/models/${m}/${m}.glb`), quick ? 2 : 7);
  const ms = (v: number) => v.toFixed(2);
  table(['model', 'format', 'bytes', 'gzipped bytes', 'parse ms', 'x original', 'image decode ms', 'bake ms', 'x original'], rows.map((r) => {
    const base = rows.find((o) => o.model === r.model && o.format === 'original')!;
    return [r.model, r.format, r.bytes.toLocaleString('en'), r.gzipBytes.toLocaleString('en'), ms(r.parseMs), (r.parseMs / base.parseMs).toFixed(2), ms(r.imageMs), ms(r.bakeMs), (r.bakeMs / base.bakeMs).toFixed(2)];
  }));
}
