import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitCrdsEstablished } from './crds-established.ts';

/** A stand-in kubectl that answers from a list, one answer a call, and logs its arguments. */
function fakeKubectl(answers: { code: number; stderr: string }[]): { path: string; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-kubectl-'));
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  const cases = answers
    .map((a, i) => `  ${i}) echo ${JSON.stringify(a.stderr)} >&2; exit ${a.code};;`)
    .join('\n');
  const script = `#!/bin/sh
n=$(wc -l < ${log})
echo "$*" >> ${log}
case $n in
${cases}
  *) exit 0;;
esac
`;
  const path = join(dir, 'kubectl');
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(log, 'utf8').trim().split('\n') };
}

const notFilled = {
  code: 1,
  stderr: '.status.conditions accessor error: <nil> is of the type <nil>, expected []interface{}',
};

describe('waitCrdsEstablished', () => {
  it.each([
    { name: 'established at once', answers: [{ code: 0, stderr: '' }], calls: 1 },
    { name: 'conditions not filled twice, then established', answers: [notFilled, notFilled], calls: 3 },
  ])('$name', async ({ answers, calls }) => {
    const kubectl = fakeKubectl(answers);
    await waitCrdsEstablished(kubectl.path, ['crd/a'], { kubectlArgs: ['--kubeconfig', 'k'] });
    expect(kubectl.calls()).toHaveLength(calls);
    expect(kubectl.calls()[0]).toMatch(
      /^--kubeconfig k wait --for=condition=Established --timeout=\d+s crd\/a$/,
    );
  });

  it('any other failure is thrown at once, with kubectl’s message', async () => {
    const kubectl = fakeKubectl([{ code: 1, stderr: 'error: timed out waiting for the condition' }]);
    await expect(waitCrdsEstablished(kubectl.path, ['crd/a'])).rejects.toThrow(/timed out waiting/);
    expect(kubectl.calls()).toHaveLength(1);
  });
});
