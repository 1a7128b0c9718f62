/**
 * `pose --backend webgl2`: the real WebGL 2 pose pass (src/webgl2/gl-pose-pass.ts,
 * shaders/webgl2/pose*.glsl) in headless Chromium, from Node. The page (tools/gl-poser-page.ts)
 * is bundled from the sources with esbuild and served to the browser from memory, with the rig's
 * packed arrays as one binary; no server, no network. Needs playwright-core and esbuild (devDependencies
 * here) and a Chromium: CROWD_SKIN_CHROMIUM, else /usr/bin/chromium (Debian's, with SwiftShader).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BakedModel } from '../src/bake/bake';
import type { Rig } from '../src/bake/rig';
import { packRigData, type RigData } from '../src/bake/rig-data';
import type { GpuPoseRequest } from './gpu-poser';

/** What the page is told besides /rig.bin: the rig's scalars, where each array lies in the binary, the requests. */
export interface GlPoseHeader {
  rig: Omit<RigData, 'skinSlotOffset' | 'tracks' | 'records' | 'trackRefs' | 'nodes' | 'slots'>;
  parts: Record<'skinSlotOffset' | 'tracks' | 'records' | 'trackRefs' | 'nodes' | 'slots' | 'masks', [offset: number, bytes: number]>;
  clipDurations: number[];
  maskCount: number;
  requests: GpuPoseRequest[];
  clock: number;
}

/** Chromium flags: headless, no network, WebGL 2 on SwiftShader (a GPU driver is not needed). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--use-angle=swiftshader'];
const ORIGIN = 'http://crowd-skin.invalid';

/** The page's entry: beside this file when run from the sources, else the repository in the working directory. */
function pageEntry(): string {
  const here = fileURLToPath(new URL('./gl-poser-page.ts', import.meta.url));
  const candidates = [here, resolve(process.cwd(), 'tools/gl-poser-page.ts')];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error('--backend webgl2 runs from the crowd-skin repository (npm run pose -- --backend webgl2): it bundles src/webgl2 for the browser from the sources');
  return found;
}

/**
 * Runs the WebGL 2 pose pass on `requests` (one instance each, posed at `options.clock`, default
 * 0) in headless Chromium; returns every instance's joint matrices as column-major 4x4s, 16 floats
 * per slot, slots in RigData order: the shape gpuJointMatrices returns.
 */
export async function glJointMatrices(rig: Rig, baked: BakedModel, requests: GpuPoseRequest[], options: { masks?: Float32Array[]; clock?: number } = {}): Promise<Float32Array> {
  const [{ chromium }, { build }] = await Promise.all([import('playwright-core'), import('esbuild')]).catch((e: unknown) => {
    throw new Error(`--backend webgl2 needs the playwright-core and esbuild packages (npm install playwright-core esbuild): ${(e as Error).message}`);
  });
  const data = packRigData(rig, baked);
  const masks = options.masks ?? [];
  const arrays = {
    skinSlotOffset: data.skinSlotOffset, tracks: data.tracks, records: data.records, trackRefs: data.trackRefs,
    nodes: new Uint8Array(data.nodes), slots: new Uint8Array(data.slots), masks: Float32Array.from(masks.flatMap((m) => Array.from(m))),
  };
  const parts = {} as GlPoseHeader['parts'];
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    parts[name as keyof typeof parts] = [offset, array.byteLength];
    offset += Math.ceil(array.byteLength / 4) * 4;
  }
  const bin = Buffer.alloc(offset);
  for (const [name, array] of Object.entries(arrays)) bin.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), parts[name as keyof typeof parts][0]);
  const { skinSlotOffset: _s, tracks: _t, records: _r, trackRefs: _f, nodes: _n, slots: _l, ...scalars } = data;
  const header: GlPoseHeader = { rig: scalars, parts, clipDurations: Array.from(baked.clipDurations), maskCount: masks.length, requests, clock: options.clock ?? 0 };

  const bundle = await build({
    entryPoints: [pageEntry()], bundle: true, write: false, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'error',
    plugins: [{
      name: 'raw-text',
      setup(b) {
        b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: resolve(a.resolveDir, a.path.slice(0, -'?raw'.length)), namespace: 'raw' }));
        b.onLoad({ filter: /.*/, namespace: 'raw' }, async (a) => ({ contents: `export default ${JSON.stringify(await readFile(a.path, 'utf8'))};`, loader: 'js' }));
      },
    }],
  });
  const browser = await chromium.launch({ executablePath: process.env.CROWD_SKIN_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><canvas id="gl" width="1" height="1"></canvas><script type="module" src="/page.js"></script>' });
      if (path === '/page.js') return route.fulfill({ contentType: 'text/javascript', body: bundle.outputFiles[0].text });
      if (path === '/rig.bin') return route.fulfill({ contentType: 'application/octet-stream', body: bin });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => document.body?.dataset.ready === '1', undefined, { timeout: 60_000 }).catch(() => {
      throw new Error(`the WebGL 2 pose page did not start${errors.length ? `: ${errors.join('; ')}` : ''}`);
    });
    const rows = await page.evaluate((h) => (window as unknown as { glPose(h: GlPoseHeader): Promise<number[]> }).glPose(h), header);
    const out = new Float32Array(requests.length * data.slotCount * 16);
    for (let m = 0; m < requests.length * data.slotCount; m++) {
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[m * 16 + c * 4 + r] = rows[m * 12 + r * 4 + c];
      out[m * 16 + 15] = 1;
    }
    return out;
  } finally {
    await browser.close();
  }
}
