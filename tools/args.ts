/** Separates the values of a repeatable option in parseArgs' map (listOption splits them). */
const REPEAT_SEPARATOR = '\0';

/**
 * Command-line options in `--name value` or `--name=value` form (the second form lets a value
 * start with '-', as in `--time=-0.43`). Flags listed in `flags` take no value; options listed
 * in `repeatable` (also in `known`) may be given more than once (read them with listOption).
 */
export function parseArgs(argv: string[], known: readonly string[], flags: readonly string[], repeatable: readonly string[] = []): Map<string, string> {
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}' (options start with --)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!known.includes(name) && !flags.includes(name)) throw new Error(`unknown option --${name} (known: ${[...known, ...flags].map((k) => '--' + k).join(' ')})`);
    if (options.has(name) && !repeatable.includes(name)) throw new Error(`option --${name} is given twice`);
    if (flags.includes(name)) {
      if (eq >= 0) throw new Error(`option --${name} takes no value`);
      options.set(name, 'true');
    } else {
      if (eq < 0 && i + 1 >= argv.length) throw new Error(`option --${name} needs a value`);
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      options.set(name, options.has(name) ? `${options.get(name)}${REPEAT_SEPARATOR}${value}` : value);
    }
  }
  return options;
}

/** A finite number option, or `fallback` when absent. */
export function numberOption(options: Map<string, string>, name: string, fallback?: number): number | undefined {
  const raw = options.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new Error(`--${name} must be a number, got '${raw}'`);
  return value;
}

/** Every value of a repeatable option, in command-line order (none when absent). */
export function listOption(options: Map<string, string>, name: string): string[] {
  const raw = options.get(name);
  return raw === undefined ? [] : raw.split(REPEAT_SEPARATOR);
}
