/**
 * Shell completion of `kubectl agd ...`, in the protocol kubectl (1.26 and later) speaks with a
 * plugin's `kubectl_complete-agd` executable, Cobra's `__complete`: kubectl runs it with the words
 * after `agd`, the last being the one being typed (maybe empty), and reads one candidate a line
 * (`value<TAB>description`), then `:<directive>`, a bit set telling the shell what to do besides.
 * The flags come from each command's usage text, so completion cannot fall behind the parser's help.
 */

/** Cobra's ShellCompDirective bits. */
export const DIRECTIVE = { default: 0, noSpace: 2, noFileComp: 4 } as const;

export interface CommandSpec {
  name: string;
  description: string;
  usage: string;
  /** Its words are object names: offered from the cluster. */
  takesNames?: boolean;
}

/** Object names for a command's word being typed, in the namespace -n gave (if any); [] when unreadable. */
export type NameSource = (
  command: string,
  typed: string,
  namespace: string | undefined,
) => Promise<readonly string[]>;

interface Flag {
  long: string;
  short: string | undefined;
  /** The value's placeholder in the usage (PATH, NS, FORMAT, ...), undefined for a boolean flag. */
  value: string | undefined;
  description: string;
}

/** The flags a usage text lists: lines like `  -f, --filename PATH   a file, ...`. */
export function flagsOf(usage: string): Flag[] {
  const flags: Flag[] = [];
  for (const line of usage.split('\n')) {
    const match = /^\s+(?:-(\w), )?--([a-z][a-z-]*)(?: ([A-Z]+))?(?:\s{2,}(.*))?$/.exec(line);
    if (!match) continue;
    const [, short, long = '', value, description = ''] = match;
    flags.push({ long, short, value, description: description.trim() });
  }
  return flags;
}

/** Values offered for a flag's value, by placeholder; a path placeholder leaves it to the shell's files. */
export interface ValueChoices {
  [placeholder: string]: readonly string[];
}

const FILE_PLACEHOLDERS = new Set(['PATH', 'DIR']);

function candidates(values: readonly string[], typed: string): string[] {
  return values.filter((v) => v.startsWith(typed));
}

/** The completion output for `kubectl agd <words>` (the last word being typed). */
export async function complete(
  words: readonly string[],
  commands: readonly CommandSpec[],
  choices: ValueChoices,
  names?: NameSource,
): Promise<string> {
  const out = (lines: string[], directive: number) => `${[...lines, `:${directive}`].join('\n')}\n`;
  const typed = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const command = commands.find((c) => c.name === before[0]);
  if (before.length === 0 || !command) {
    if (before.length > 0) return out([], DIRECTIVE.noFileComp);
    const names = commands.filter((c) => c.name.startsWith(typed)).map((c) => `${c.name}\t${c.description}`);
    return out(names, DIRECTIVE.noFileComp);
  }
  const flags = flagsOf(command.usage);
  const previous = before.at(-1) ?? '';
  const pending = flags.find((f) => f.value && (previous === `--${f.long}` || previous === `-${f.short}`));
  if (pending?.value) {
    if (FILE_PLACEHOLDERS.has(pending.value)) return out([], DIRECTIVE.default);
    return out(candidates(choices[pending.value] ?? [], typed), DIRECTIVE.noFileComp);
  }
  if (typed.startsWith('-')) {
    const lines = flags
      .filter((f) => `--${f.long}`.startsWith(typed))
      .map((f) => `--${f.long}\t${f.description}`);
    return out(lines, DIRECTIVE.noFileComp);
  }
  if (command.takesNames && names) {
    const namespace = before.find(
      (_, i) => i > 0 && (before[i - 1] === '-n' || before[i - 1] === '--namespace'),
    );
    let offered: readonly string[] = [];
    try {
      offered = await names(command.name, typed, namespace);
    } catch {
      // No cluster to ask (no kubeconfig, unreachable, forbidden): nothing to offer.
    }
    return out(candidates(offered, typed), DIRECTIVE.noFileComp);
  }
  return out([], DIRECTIVE.noFileComp);
}
