import { describe, expect, it } from 'vitest';
import { complete, flagsOf } from './complete.ts';

const USAGE = `Usage: x plan [options]

Options:
  -f, --filename PATH          a file
  -o, --output FORMAT          text or json
      --no-cluster             offline
  -n, --namespace NS           namespace
  -h, --help                   this text
`;
const COMMANDS = [
  { name: 'plan', description: 'plan it', usage: USAGE },
  { name: 'version', description: 'versions', usage: 'Options:\n  -h, --help   this text\n' },
];
const run = (...words: string[]) => complete(words, COMMANDS, { FORMAT: ['text', 'json'] });
const NAMED = [...COMMANDS, { name: 'status', description: 'follow', usage: USAGE, takesNames: true }];
/** The names a cluster would offer, by namespace; it records what it was asked. */
const asked: [string, string, string | undefined][] = [];
const names = async (command: string, typed: string, namespace: string | undefined) => {
  asked.push([command, typed, namespace]);
  if (namespace === 'down') throw new Error('unreachable');
  return namespace === 'team-b' ? ['beta'] : ['agent-a', 'agent-b', 'other'];
};

describe('flagsOf', () => {
  it('reads each flag, its short form and whether it takes a value', () => {
    expect(flagsOf(USAGE).map((f) => [f.short, f.long, f.value])).toEqual([
      ['f', 'filename', 'PATH'],
      ['o', 'output', 'FORMAT'],
      [undefined, 'no-cluster', undefined],
      ['n', 'namespace', 'NS'],
      ['h', 'help', undefined],
    ]);
  });
});

describe('complete (Cobra __complete output)', () => {
  it.each<[string, string[], string]>([
    ['the commands', [''], 'plan\tplan it\nversion\tversions\n:4\n'],
    ['a command by its start', ['ve'], 'version\tversions\n:4\n'],
    ['an unknown command: nothing', ['nope', ''], ':4\n'],
    ['the flags of a command', ['plan', '--n'], '--no-cluster\toffline\n--namespace\tnamespace\n:4\n'],
    ['an output format after -o', ['plan', '-o', 'j'], 'json\n:4\n'],
    ['an output format after --output', ['plan', '--output', ''], 'text\njson\n:4\n'],
    ["a file after -f: the shell's file completion", ['plan', '-f', 'ex'], ':0\n'],
    ['a value without choices: nothing', ['plan', '-n', ''], ':4\n'],
    ['a word that is no flag: nothing', ['plan', 'x'], ':4\n'],
  ])('%s', async (_, words, expected) => {
    expect(await run(...words)).toBe(expected);
  });

  it.each<[string, string[], string]>([
    ['object names by their start', ['status', 'agent-'], 'agent-a\nagent-b\n:4\n'],
    ["names of -n's namespace", ['status', '-n', 'team-b', ''], 'beta\n:4\n'],
    ['a cluster that does not answer: nothing', ['status', '-n', 'down', ''], ':4\n'],
    ['flags still complete', ['status', '--na'], '--namespace\tnamespace\n:4\n'],
    ['no names for a command that takes none', ['plan', 'a'], ':4\n'],
  ])('names: %s', async (_, words, expected) => {
    expect(await complete(words, NAMED, {}, names)).toBe(expected);
  });

  it('a name source that throws at once (no kubeconfig): nothing', async () => {
    const throwing = () => {
      throw new Error('no kubeconfig');
    };
    expect(await complete(['status', ''], NAMED, {}, throwing)).toBe(':4\n');
  });

  it('asks for names with the word typed and the namespace', async () => {
    asked.length = 0;
    await complete(['status', '-n', 'team-b', 'sbt/'], NAMED, {}, names);
    expect(asked).toEqual([['status', 'sbt/', 'team-b']]);
  });
});
