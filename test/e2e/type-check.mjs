// The install test's type-check of an app (test/e2e/stranger.ts typeCheck), as a child process:
// `node type-check.mjs <app folder>`, the app's tsconfig.json naming the examples' files and the
// installed crowd-skin's entry declarations. Every file that is the app's own (outside
// node_modules) or belongs to crowd-skin and the packages it depends on, transitively (its
// installed package.json's dependencies, resolved as Node does), is checked in full
// (skipLibCheck off for them); the declarations of the app's other packages (three, React and
// their types: the peers crowd-skin/three and crowd-skin/react compile against) are read for the
// types they give, but their own bodies are not checked: that is their packages' affair, and it
// was 12 of the 19 s of CPU the three-and-React app's check took. Exits 1 listing the errors.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';

const dir = resolve(process.argv[2]);
// The repo's TypeScript (this file lives in test/e2e/ of the repo).
const ts = createRequire(import.meta.url)('typescript');

const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, {
  ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
});
if (config.errors.length > 0) fail(config.errors);

/** crowd-skin's folder and its dependencies', transitively, as Node resolves them from the app. */
function packageClosure() {
  const folders = new Set();
  const visit = (name, from) => {
    for (let at = from; ; at = dirname(at)) {
      const folder = join(at, 'node_modules', name);
      if (existsSync(join(folder, 'package.json'))) {
        if (folders.has(folder)) return;
        folders.add(folder);
        const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
        for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep, folder);
        return;
      }
      if (dirname(at) === at) throw new Error(`${name} (needed from ${from}) is not installed`);
    }
  };
  visit('crowd-skin', dir);
  return [...folders];
}
const ours = packageClosure();
const checked = (file) => {
  const path = resolve(file);
  if (!path.includes(`${sep}node_modules${sep}`)) return path.startsWith(dir + sep);
  return ours.some((folder) => path.startsWith(folder + sep) && !path.slice(folder.length + 1).includes(`node_modules${sep}`));
};

const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
const files = program.getSourceFiles().filter((f) => checked(f.fileName));
for (const root of config.fileNames) {
  if (!files.some((f) => resolve(f.fileName) === resolve(root))) throw new Error(`${root} is a root of the type-check but not among the files it checks`);
}
const diagnostics = [
  ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSyntacticDiagnostics(),
  ...files.flatMap((f) => program.getSemanticDiagnostics(f)),
];
if (diagnostics.length > 0) fail(diagnostics);
console.log(`${files.length} of ${program.getSourceFiles().length} files checked (crowd-skin and ${ours.length - 1} packages it depends on, and the app's own)`);

function fail(list) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
  console.error(ts.formatDiagnostics(list, host));
  process.exit(1);
}
