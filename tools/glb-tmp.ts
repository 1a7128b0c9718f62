import { characterFromFile } from '/work/wt-gl-crowd/tools/bench/ours';
import { benchGLCull } from '/work/wt-gl-crowd/tools/bench/gl-cull';
const c = await characterFromFile('public/models/Fox/Fox.glb');
for (const v of ['inside', 'above'] as const) console.log(JSON.stringify(benchGLCull(c, 10000, v, 7)));
