#!/usr/bin/env node
/**
 * `crowd-skin <command> [MODEL] [options]`: the package's command-line tool (package.json
 * `bin`, built into dist/cli.js; `npm run pose` and `npm run simulate` run it from source).
 * The commands and their usage: tools/cli-main.ts.
 */
import { main } from './cli-main';

// Exit explicitly: a WebGPU device (pose --backend gpu) can keep Node alive.
main(process.argv.slice(2)).then((code) => process.exit(code));
