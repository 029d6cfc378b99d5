import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { prettyLogs } from './pretty-logs.ts';

async function prettify(input: string): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const stream = prettyLogs(out, false);
  await new Promise<void>((done) => stream.end(input, done));
  await new Promise((r) => setImmediate(r));
  return Buffer.concat(chunks).toString();
}

describe('prettyLogs', () => {
  it('turns each JSON line into one readable line: time, level, message, fields', async () => {
    const text = await prettify(
      `${JSON.stringify({
        level: 'warn',
        time: Date.UTC(2026, 0, 1, 12, 0, 0),
        app: 'agent-deployment-operator',
        controller: 'agentdeployment',
        key: 'team-a/research-agent',
        msg: 'reconcile failed',
        error: 'HTTP 503',
      })}\n`,
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.000\] WARN: reconcile failed \{"controller":"agentdeployment","key":"team-a\/research-agent","error":"HTTP 503"\}$/,
    );
    expect(text).not.toContain('agent-deployment-operator');
  });

  it('passes a line that is not JSON through as it is', async () => {
    expect(await prettify('agent-deployment-operator: configuration error: ...\n')).toBe(
      'agent-deployment-operator: configuration error: ...\n',
    );
  });
});
