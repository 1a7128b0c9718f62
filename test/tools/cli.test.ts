import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { modelPath, REPO_ROOT } from '../helpers/models';

/**
 * The `crowd-skin` dispatcher (tools/cli.ts): usage, version, unknown commands, and the model
 * given first standing for `--model`. The commands themselves: inspect/pose/simulate.test.ts.
 */
describe.concurrent('crowd-skin CLI', () => {
  it('--help prints the usage of every command (exit 0); no command prints it and exits 1', async ({ expect }) => {
    const [help, none] = await Promise.all([runCli('--help'), runCli()]);
    expect(help.code).toBe(0);
    for (const command of ['inspect MODEL [--clips FILE ...] [--json]', 'pose MODEL', 'simulate MODEL [--clips FILE ...] --script FILE.json']) expect(help.stdout).toContain(command);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe(help.stdout);
  });

  it('--version prints the package version', async ({ expect }) => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = await runCli('--version');
    expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown command exits 1 listing the commands', async ({ expect }) => {
    const run = await runCli('animate', modelPath('Fox'));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("crowd-skin: unknown command 'animate' (commands: inspect, pose, simulate; --help for usage)\n");
  });

  it('a model given first is --model: the same dump either way; both at once is refused', async ({ expect }) => {
    const fox = modelPath('Fox');
    const [positional, option, both] = await Promise.all([
      runCli('pose', fox, '--clip', 'Run', '--time', '0.25'),
      runCli('pose', '--model', fox, '--clip', 'Run', '--time', '0.25'),
      runCli('pose', fox, '--model', fox, '--clip', 'Run'),
    ]);
    expect(positional.code, positional.stderr).toBe(0);
    expect(positional.stdout).toBe(option.stdout);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/^pose: option --model is given twice/);
  });
});
