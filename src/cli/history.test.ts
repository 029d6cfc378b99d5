import { describe, expect, it } from 'vitest';
import { formatHistory } from './history.ts';
import type { VerbObject } from './objects.ts';

const WHAT = 'AgentDeployment team-a/agent';

describe('formatHistory', () => {
  it('a table, newest first, with the active and last good revisions marked', () => {
    const obj: VerbObject = {
      metadata: { name: 'agent' },
      status: {
        activeRevisionId: 'r-3',
        lastGoodRevision: 'r-3',
        history: [
          {
            id: 'r-4',
            image: 'registry.example.com/agent:4',
            trigger: 'Spec',
            status: 'BUILDING',
            createdAt: '2026-06-15T10:04:00Z',
          },
          {
            id: 'r-3',
            image: 'registry.example.com/agent:2',
            trigger: 'Revert',
            redeployOf: 'r-2',
            outcome: 'Deployed',
            verification: 'Succeeded',
            createdAt: '2026-06-15T10:03:00Z',
          },
          {
            id: 'r-1',
            repoRef: 'main',
            repoCommitSha: '0123456789abcdef0123',
            graphConfigPath: 'langgraph.json',
            trigger: 'Spec',
            outcome: 'RolledBack',
            pruned: true,
          },
        ],
      },
    };
    expect(formatHistory(obj, WHAT)).toBe(
      [
        'ID   CONFIGURATION                                   TRIGGER  OUTCOME                                WHEN',
        'r-4  registry.example.com/agent:4                    Spec     InProgress (BUILDING)                  2026-06-15T10:04:00Z',
        'r-3  registry.example.com/agent:2 (redeploy of r-2)  Revert   Deployed, verified, active, last good  2026-06-15T10:03:00Z',
        'r-1  main 0123456789ab langgraph.json                Spec     RolledBack, pruned                     -',
        '',
      ].join('\n'),
    );
  });

  it('cleans every string the platform wrote: no escape or line break reaches the terminal', () => {
    const obj: VerbObject = {
      metadata: { name: 'agent' },
      status: {
        history: [{ id: 'r\u001b[2J', image: 'img\nforged row', trigger: 'Spec', status: 'DE\u202ePLOYING' }],
      },
    };
    const text = formatHistory(obj, WHAT);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(text).toContain('img forged row');
  });

  it('no history yet', () => {
    expect(formatHistory({ metadata: { name: 'agent' }, status: {} }, WHAT)).toBe(
      'No revisions recorded for AgentDeployment team-a/agent yet.\n',
    );
  });
});
