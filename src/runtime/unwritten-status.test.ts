import { describe, expect, it } from 'vitest';
import { UnwrittenStatus } from './unwritten-status.ts';

type Obj = { metadata: { name: string; namespace: string; uid: string }; status?: { applied?: string } };
const obj = (uid = 'u1', applied = 'old'): Obj => ({
  metadata: { name: 'a', namespace: 'ns', uid },
  status: { applied },
});
const failing = async () => {
  throw new Error('status write refused');
};

describe('UnwrittenStatus', () => {
  it('after a failed write the next read sees what the pass applied; the write is still computed against the stored status', async () => {
    const unwritten = new UnwrittenStatus<Obj>();
    await expect(unwritten.write(obj(), { applied: 'new' }, failing)).rejects.toThrow('refused');
    const shown = unwritten.overlay(obj()) as Obj;
    expect(shown.status).toEqual({ applied: 'new' });
    let writtenOver: Obj | undefined;
    await unwritten.write(shown, { applied: 'new' }, async (stored) => {
      writtenOver = stored;
    });
    expect(writtenOver?.status).toEqual({ applied: 'old' });
    // Written: the stored status is the truth again.
    expect(unwritten.overlay(obj())?.status).toEqual({ applied: 'old' });
    expect(unwritten.size).toBe(0);
  });

  it('shows what the pass meant to change over the status stored now, not the status it read', async () => {
    // The write was refused because someone changed the object meanwhile (409): their change stays
    // visible, with what the pass applied on top.
    const unwritten = new UnwrittenStatus<Obj>();
    const read = { ...obj(), status: { applied: 'old', mark: 'kept' } } as Obj;
    await expect(
      unwritten.write(read, { applied: 'new', mark: 'kept' } as Obj['status'], failing),
    ).rejects.toThrow();
    const now = { ...obj(), status: { applied: 'old', mark: 'kept', pending: 'theirs' } } as Obj;
    expect(unwritten.overlay(now)?.status).toEqual({ applied: 'new', mark: 'kept', pending: 'theirs' });
  });

  it.each([
    ['another object of the same name', (u: UnwrittenStatus<Obj>) => u.overlay(obj('u2'))],
    ['the object deleted', (u: UnwrittenStatus<Obj>) => u.forget('ns/a')],
  ])('forgets on %s', async (_, act) => {
    const unwritten = new UnwrittenStatus<Obj>();
    await unwritten.write(obj(), { applied: 'new' }, failing).catch(() => undefined);
    act(unwritten);
    expect(unwritten.size).toBe(0);
    expect(unwritten.overlay(obj())?.status).toEqual({ applied: 'old' });
  });
});
