import { describe, expect, it } from 'vitest';
import type { SandboxTemplate } from '../../controlplane/schemas.ts';
import { dnsSubdomain, importedObjectName } from './naming.ts';
import { TemplateSnapshots } from './snapshots.ts';

const t = (name: string, id = name): SandboxTemplate => ({ id, name });

describe('naming', () => {
  it.each([
    ['python-3.12', 'python-3.12'],
    ['My_Template', 'my-template'],
    ['--a..b--', 'a.b'],
    ['***', 'template'],
    ['x'.repeat(300), 'x'.repeat(253)],
  ])('%s -> %s', (input, expected) => {
    expect(dnsSubdomain(input)).toBe(expected);
  });

  it('adds a stable hash when the name is taken', () => {
    const first = importedObjectName('Python', new Set(['python']));
    expect(first).toMatch(/^python-[0-9a-f]{6}$/);
    expect(importedObjectName('Python', new Set(['python']))).toBe(first);
    expect(importedObjectName('Python', new Set(['python', first]))).toBe(`${first}-2`);
  });
});

describe('TemplateSnapshots', () => {
  it('shares a pass in flight and reuses it while fresh', async () => {
    let now = 0;
    let passes = 0;
    const snapshots = new TemplateSnapshots({ now: () => now });
    const list = async () => {
      passes++;
      return [t('a')];
    };
    await Promise.all([snapshots.get('k', 1000, list), snapshots.get('k', 1000, list)]);
    now = 999;
    await snapshots.get('k', 1000, list);
    expect(passes).toBe(1);
    await snapshots.get('other', 1000, list);
    expect(passes).toBe(2);
    now = 1000;
    await snapshots.get('k', 1000, list);
    expect(passes).toBe(3);
    await snapshots.get('k', 0, list);
    expect(passes).toBe(4);
  });

  it('keeps no failed pass', async () => {
    const snapshots = new TemplateSnapshots({ now: () => 0 });
    await expect(snapshots.get('k', 1000, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(snapshots.get('k', 1000, async () => [t('a')])).resolves.toMatchObject({
      templates: [t('a')],
    });
  });

  it("runs a listing under its starter's deadline; each waiter waits until its own deadline at most", async () => {
    const snapshots = new TemplateSnapshots({ now: () => 0 });
    let given: AbortSignal | undefined;
    let finish: (templates: SandboxTemplate[]) => void = () => {};
    const list = (deadline?: AbortSignal) => {
      given = deadline;
      return new Promise<SandboxTemplate[]>((resolve) => {
        finish = resolve;
      });
    };
    const starter = new AbortController();
    const joiner = new AbortController();
    const first = snapshots.get('k', 1000, list, starter.signal);
    const second = snapshots.get('k', 1000, list, joiner.signal);
    expect(given).toBe(starter.signal);
    joiner.abort(new DOMException('deadline', 'TimeoutError'));
    await expect(second).rejects.toThrow(
      'listAllSandboxTemplates: control plane unavailable: the reconcile pass reached its deadline',
    );
    finish([t('a')]);
    await expect(first).resolves.toMatchObject({ templates: [t('a')] });
  });

  it('a waiter whose pass is cancelled (stopping) gets a cancellation, not a deadline', async () => {
    const snapshots = new TemplateSnapshots({ now: () => 0 });
    const stopping = new AbortController();
    const waiting = snapshots.get('k', 1000, () => new Promise(() => {}), stopping.signal);
    stopping.abort(new Error('controller stopping'));
    await expect(waiting).rejects.toThrow('cancelled');
  });
});
