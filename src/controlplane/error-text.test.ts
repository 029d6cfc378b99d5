/**
 * What a control plane says in an error (detail, a 422's msg and loc) reaches conditions, events and logs
 * cleaned: no control characters, no terminal escapes, no line breaks, bounded. Over real HTTP, through
 * the client and the outcome a reconcile turns into a condition.
 */

import { describe, expect, it } from 'vitest';
import { startFixedServer } from '../../test/support/hostile-server.ts';
import { deploymentAnswer } from '../simulator/test-support.ts';
import { ControlPlaneClient } from './client.ts';
import { MalformedResponseError, outcomeOfControlPlaneError } from './errors.ts';

// A hyperlink escape, a colour, a cursor-up, a forged log line, a bidi override, NUL and BEL.
const HOSTILE =
  '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b[31mred\u001b[0m\u001b[1A\n' +
  'level=info msg="all good"\r\u202Egnp.exe\u0000\u0007';
// Anything a terminal or a log reader would act on: C0/C1 controls, DEL, format characters, line separators.
const UNSAFE = /[\p{C}\p{Zl}\p{Zp}]/u;

const BODIES: [string, number, unknown][] = [
  ['a 400 detail', 400, { detail: HOSTILE }],
  ['a 404 detail', 404, { detail: HOSTILE }],
  ['a 403 detail', 403, { detail: HOSTILE }],
  ['a 503 detail', 503, { detail: HOSTILE }],
  ['a 422 msg and loc', 422, { detail: [{ loc: ['body', HOSTILE, 3], msg: HOSTILE, type: HOSTILE }] }],
  ['a long 400 detail', 400, { detail: `${HOSTILE}${'x'.repeat(100_000)}` }],
  [
    'a 422 with many issues',
    422,
    {
      detail: Array.from({ length: 500 }, () => ({
        loc: ['body', 'x'.repeat(300)],
        msg: 'y'.repeat(400),
        type: 't',
      })),
    },
  ],
];

describe('control-plane error text reaching a condition', () => {
  it.each(BODIES)('%s is cleaned and bounded', async (_case, status, body) => {
    const server = await startFixedServer(status, body);
    try {
      const client = new ControlPlaneClient({
        credentials: { baseUrl: server.url, apiKey: 'k-test-error-text' },
        getRetries: 0,
      });
      const err = await client.getDeployment('d1').catch((e: unknown) => e as Error);
      const outcome = outcomeOfControlPlaneError(err);
      const message = outcome && 'message' in outcome ? outcome.message : '';
      expect(message).not.toBe('');
      expect(message).toBe(err.message);
      expect(message).not.toMatch(UNSAFE);
      expect(message.length).toBeLessThanOrEqual(1200);
      // Cleaned, not dropped: what the server said is still there to read.
      expect(message).toMatch(/click|x{50}/);
    } finally {
      await server.close();
    }
  });
});

it('a deployment id with a terminal escape is a malformed answer, never quoted into a condition', async () => {
  const server = await startFixedServer(200, deploymentAnswer('d1\u001b[2J', { name: 'app' }));
  try {
    const client = new ControlPlaneClient({
      credentials: { baseUrl: server.url, apiKey: 'k-test' },
      getRetries: 0,
    });
    const err = await client.getDeployment('d1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).issues).toContainEqual({ path: 'id', code: 'invalid_format' });
    expect((err as Error).message).not.toMatch(UNSAFE);
  } finally {
    await server.close();
  }
});
