// `node --import ./tools/register.mjs tools/x.ts`: TypeScript through tsx, plus `?raw` imports.
import { register } from 'node:module';
import 'tsx';

register('./raw-loader.mjs', import.meta.url);
