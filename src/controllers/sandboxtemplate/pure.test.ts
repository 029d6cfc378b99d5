import { describe, expect, it } from 'vitest';
import { BudgetExceededError } from '../../controlplane/errors.ts';
import type { SandboxTemplate } from '../../controlplane/template-schemas.ts';
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

  describe("a namespace's budget (issue 32)", () => {
    /** A listing of `n` templates of about 100 bytes each, that stops where a walk would at `maxBytes`. */
    const listing =
      (n: number, seen: (number | undefined)[] = []) =>
      async (maxBytes?: number) => {
        seen.push(maxBytes);
        const templates = Array.from({ length: n }, (_, i) => t(`template-${i}-${'x'.repeat(60)}`));
        if (maxBytes !== undefined && JSON.stringify(templates).length > maxBytes) {
          throw new BudgetExceededError(
            'listAllSandboxTemplates',
            `the listing's pages passed ${maxBytes} bytes`,
          );
        }
        return templates;
      };

    it('a listing for a namespace reads only what it has left, and one past it waits naming the setting', async () => {
      let now = 0;
      const snapshots = new TemplateSnapshots({
        now: () => now,
        namespaceBudgetBytes: 2_000,
        retainMs: 60_000,
      });
      const seen: (number | undefined)[] = [];
      const first = await snapshots.get('key-1', 1000, listing(12, seen), 'attacker');
      expect(first.bytes).toBeGreaterThan(1_000);
      // The next identity of that namespace may read what is left, and no more.
      const err = await snapshots.get('key-2', 1000, listing(12, seen), 'attacker').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BudgetExceededError);
      expect((err as Error).message).toMatch(
        /namespace attacker would pass its 2000 bytes \(--namespace-template-budget\)/,
      );
      expect(seen[1]).toBe(2_000 - first.bytes);
      // Another namespace, and the controller's own credentials, have budgets of their own.
      await snapshots.get('key-2', 1000, listing(12), 'team');
      await snapshots.get('key-3', 1000, listing(12));
      // A snapshot another namespace took is charged to this one when it reads it, too.
      await expect(snapshots.get('key-2', 1000, listing(12), 'attacker')).rejects.toThrow(
        /namespace-template-budget/,
      );
      // Once the first snapshot is dropped (unused), its bytes are free again.
      now = 120_000;
      await snapshots.get('key-2', 1000, listing(12), 'attacker');
    });
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
    const list = (_maxBytes?: number, deadline?: AbortSignal) => {
      given = deadline;
      return new Promise<SandboxTemplate[]>((resolve) => {
        finish = resolve;
      });
    };
    const starter = new AbortController();
    const joiner = new AbortController();
    const first = snapshots.get('k', 1000, list, undefined, starter.signal);
    const second = snapshots.get('k', 1000, list, undefined, joiner.signal);
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
    const waiting = snapshots.get('k', 1000, () => new Promise(() => {}), undefined, stopping.signal);
    stopping.abort(new Error('controller stopping'));
    await expect(waiting).rejects.toThrow('cancelled');
  });
});
