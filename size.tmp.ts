import { minimalPage, minimalPageSources } from './tools/bench/size';
const root = process.argv[2];
if (process.argv[3] === 'src') { const s = await minimalPageSources(root, { dependencies: true }); console.log(root, 'sources', s.reduce((a, i) => a + i.bytes, 0)); }
else { const p = await minimalPage(root); console.log(root, p.bytes, p.gzipBytes, p.onDemand.bytes, p.onDemand.gzipBytes, p.inputs.slice(0,6).map(i=>i.what+':'+i.bytes).join(' ')); }
