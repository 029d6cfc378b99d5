/** The verbs' usage, checked before the cluster is read: what fails without one. */
import { describe, expect, it } from 'vitest';
import { runVerb, VERBS } from './verbs.ts';

async function verb(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  let read = false;
  const named = VERBS.find((v) => v.name === argv[0]);
  if (!named) throw new Error(`no verb ${argv[0]}`);
  const code = await runVerb(named, {
    argv,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    kubeAccess: () => {
      read = true;
      throw new Error('no kubeconfig');
    },
  });
  return { code, stdout, stderr, read };
}

describe('the verbs refuse bad usage before reading the cluster', () => {
  it.each<[string[], string]>([
    [['status'], 'kubectl-agd status: give the object name (see --help)\n'],
    [['status', 'a', 'b'], 'kubectl-agd status: give one object name (see --help)\n'],
    [['history', 'a', '--all'], "kubectl-agd history: Unknown option '--all'"],
    [['suspend'], 'kubectl-agd suspend: give the object names, or --all (see --help)\n'],
    [['resume', 'a', '--all'], 'kubectl-agd resume: give names or --all, not both (see --help)\n'],
    [['reconcile', 'a', '--timeout', 'soon'], '--timeout "soon": must be a duration such as 30s or 5m, or 0'],
    [['suspend', 'a', '--timeout', '1m'], "Unknown option '--timeout'"],
  ])('%j', async (argv, message) => {
    const result = await verb(...argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it('reads the cluster once the usage is right: its failure is said', async () => {
    const result = await verb('status', 'agent');
    expect(result.read).toBe(true);
    expect(result.stderr).toBe('kubectl-agd status: no kubeconfig\n');
  });

  it.each(VERBS.map((v) => v.name))('%s --help', async (name) => {
    const result = await verb(name, '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: kubectl agd ${name} `));
    expect(result.read).toBe(false);
  });
});
