import { readFile } from 'node:fs/promises';
import { loadCharacter, type Character } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { Crowd } from '../../src/runtime/crowd';
import { tableBufferStats } from '../../src/runtime/table-buffers';

/** One way of giving two bodies the same clips, measured (benchClipLibrary). */
export interface ClipLibraryRow {
  how: string;
  /** Load + bake of both bodies and their clips, milliseconds. */
  loadMs: number;
  /** Bytes of baked track entries and track references both bodies hold in memory (each array counted once). */
  cpuBytes: number;
  /** Table buffers on the device for a crowd of each body, and their bytes. */
  gpuBuffers: number;
  gpuBytes: number;
}

const bytesOf = async (path: string) => {
  const b = await readFile(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
};

/**
 * Two bodies of the Walker's skeleton (WalkerBody.glb loaded twice, two Characters) with the 19
 * clips of WalkerClips.glb: sharing one ClipLibrary, against each loading the clips file itself
 * (its own copy of the tables). On the CPU, the distinct arrays of tables both hold; on the GPU,
 * the table buffers a crowd of each makes on one device (src/runtime/table-buffers.ts).
 */
export async function benchClipLibrary(device: GPUDevice, folder: string): Promise<ClipLibraryRow[]> {
  const body = await bytesOf(`${folder}/WalkerBody.glb`);
  const clips = await bytesOf(`${folder}/WalkerClips.glb`);
  const measure = async (how: string, load: () => Promise<Character[]>): Promise<ClipLibraryRow> => {
    const t0 = performance.now();
    const bodies = await load();
    const loadMs = performance.now() - t0;
    const arrays = new Set(bodies.flatMap((c) => [c.baked.tracks, c.baked.trackRefs]));
    const before = tableBufferStats(device);
    const crowds = bodies.map((c) => new Crowd(device, c, { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' }));
    const after = tableBufferStats(device);
    for (const crowd of crowds) crowd.destroy();
    return {
      how, loadMs, cpuBytes: [...arrays].reduce((n, a) => n + a.byteLength, 0),
      gpuBuffers: after.buffers - before.buffers, gpuBytes: after.bytes - before.bytes,
    };
  };
  const own = await measure('each body loads the clips file (its own copy)', async () => [
    await loadCharacter(body.slice(0), { clips: [await loadClips(clips.slice(0))], lod: false }),
    await loadCharacter(body.slice(0), { clips: [await loadClips(clips.slice(0))], lod: false }),
  ]);
  const shared = await measure('one loadClips library, shared', async () => {
    const library = await loadClips(clips.slice(0));
    return [await loadCharacter(body.slice(0), { clips: [library], lod: false }), await loadCharacter(body.slice(0), { clips: [library], lod: false })];
  });
  return [own, shared];
}
