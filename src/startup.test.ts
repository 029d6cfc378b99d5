import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from './kube/fake-api-server.test-support.ts';
import { checkApiServer, StartupError } from './startup.ts';

let server: FakeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('checkApiServer', () => {
  it('names a server that never answers as silent, within the check deadline', async () => {
    const held: ServerResponse[] = [];
    server = await startFakeApiServer((_req, res) => held.push(res));
    const err = await checkApiServer(server.access(), 200).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(
      /^cannot reach the Kubernetes API server at .* \(.*no complete answer within 0\.2s\)/,
    );
    expect((err as Error).message).not.toMatch(/reconcile pass/);
  });
});
