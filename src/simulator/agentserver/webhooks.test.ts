import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentServerConfig, Simulator } from '../index.ts';
import { call } from '../test-support.ts';
import { deploy, human, startReceiver, startSim } from './test-support.ts';

/** A header template naming an environment variable: `${{ env.NAME }}`. */
const env = (name: string) => `\${{ env.${name} }}`;

let sim: Simulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  sim = await startSim();
  receiver = await startReceiver();
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

/** Webhooks limited to the loopback receiver. */
const toReceiver = (extra: Partial<NonNullable<AgentServerConfig['webhooks']>> = {}): AgentServerConfig => ({
  webhooks: { url: { allowed_domains: ['127.0.0.1'], allowed_ports: [receiver.port] }, ...extra },
});

describe('webhook delivery', () => {
  it('POSTs the Run with kwargs at completion, with headers resolved from LG_WEBHOOK_ variables', async () => {
    const agent = await deploy(
      sim,
      toReceiver({ headers: { Authorization: `Bearer ${env('LG_WEBHOOK_TOKEN')}`, 'X-Static': 'static' } }),
      [
        { name: 'LG_WEBHOOK_TOKEN', value: 'tok-123' },
        { name: 'OTHER', value: 'unused' },
      ],
    );
    const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
    const endpoint = receiver.endpoint();
    const created = await agent.call('POST', `/threads/${thread}/runs`, {
      assistant_id: 'agent',
      input: human('hook me'),
      metadata: { origin: 'test' },
      webhook: `${endpoint.url}?token=abc`,
    });
    expect(created.status).toBe(200);
    const run = created.body as { run_id: string };
    await expect.poll(() => endpoint.received().length).toBe(1);
    const [delivery] = endpoint.received();
    expect(delivery?.url).toMatch(/\?token=abc$/);
    expect(delivery?.headers.authorization).toBe('Bearer tok-123');
    expect(delivery?.headers['x-static']).toBe('static');
    expect(delivery?.body).toMatchObject({
      run_id: run.run_id,
      thread_id: thread,
      status: 'success',
      kwargs: {
        input: human('hook me'),
        config: { configurable: { thread_id: thread, run_id: run.run_id } },
        metadata: { origin: 'test' },
      },
      values: { messages: [{ content: 'hook me' }, { content: 'echo: hook me' }] },
    });
    expect(sim.webhookDeliveries(agent.id)).toMatchObject([
      { run_id: run.run_id, outcome: 'delivered', status: 200 },
    ]);
  });

  it('honours a custom webhooks.env_prefix', async () => {
    const agent = await deploy(
      sim,
      toReceiver({ env_prefix: 'MY_APP_', headers: { 'X-Secret': env('MY_APP_SECRET') } }),
      [{ name: 'MY_APP_SECRET', value: 's3' }],
    );
    const endpoint = receiver.endpoint();
    await agent.call('POST', '/runs/wait', {
      assistant_id: 'agent',
      input: human('x'),
      webhook: endpoint.url,
    });
    await expect.poll(() => endpoint.received().length).toBe(1);
    expect(endpoint.received()[0]?.headers['x-secret']).toBe('s3');
  });

  it.each([
    ['create run', 'POST', '/threads/{thread}/runs'],
    ['wait run', 'POST', '/threads/{thread}/runs/wait'],
    ['stream run', 'POST', '/threads/{thread}/runs/stream'],
    ['wait run stateless', 'POST', '/runs/wait'],
    ['stream run stateless', 'POST', '/runs/stream'],
  ])('%s sends the webhook once', async (_name, method, template) => {
    const agent = await deploy(sim, toReceiver());
    const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
    const endpoint = receiver.endpoint();
    const answer = await agent.call(method, template.replace('{thread}', thread), {
      assistant_id: 'agent',
      input: human('once'),
      webhook: endpoint.url,
    });
    expect(answer.status).toBe(200);
    await expect.poll(() => sim.webhookDeliveries(agent.id).length).toBe(1);
    expect(endpoint.received()).toHaveLength(1);
    expect(endpoint.received()[0]?.body.status).toBe('success');
  });

  it('a failed run is delivered with status error and the error', async () => {
    const agent = await deploy(sim, toReceiver());
    const endpoint = receiver.endpoint();
    await agent.call('POST', '/runs/wait', {
      assistant_id: 'agent',
      input: human('__fail__'),
      webhook: endpoint.url,
    });
    await expect.poll(() => endpoint.received().length).toBe(1);
    expect(endpoint.received()[0]?.body).toMatchObject({
      status: 'error',
      error: { error: 'ValueError', message: 'Simulated graph failure' },
    });
  });

  it('http.disable_webhooks: the run completes and nothing is sent', async () => {
    const agent = await deploy(sim, { ...toReceiver(), http: { disable_webhooks: true } });
    const endpoint = receiver.endpoint();
    const answer = await agent.call('POST', '/runs/wait', {
      assistant_id: 'agent',
      input: human('quiet'),
      webhook: endpoint.url,
    });
    expect(answer.status).toBe(200);
    expect(sim.webhookDeliveries(agent.id)).toMatchObject([{ outcome: 'disabled' }]);
    expect(endpoint.received()).toStrictEqual([]);
  });
});

describe('webhook URL rules', () => {
  // Delivery is disabled here, so an accepted URL sends nothing anywhere: only validation is observed.
  const quiet = (url: NonNullable<NonNullable<AgentServerConfig['webhooks']>['url']>): AgentServerConfig => ({
    webhooks: { url },
    http: { disable_webhooks: true },
  });

  it.each([
    ['allowed_domains', { allowed_domains: ['*.example.com'] }, 'https://example.com/h', true],
    ['allowed_domains', { allowed_domains: ['*.example.com'] }, 'https://evil.test/h', true],
    ['allowed_domains', { allowed_domains: ['*.example.com'] }, 'https://example.com.evil.test/h', true],
    ['allowed_domains', { allowed_domains: ['*.example.com'] }, 'https://a.b.example.com/h', false],
    ['allowed_domains', { allowed_domains: ['hooks.example.com'] }, 'https://HOOKS.example.com/h', false],
    ['allowed_domains', { allowed_domains: ['hooks.example.com'] }, 'https://x.hooks.example.com/h', true],
    ['require_https', { require_https: true }, 'http://hooks.example.com/h', true],
    ['require_https', { require_https: true }, 'https://hooks.example.com/h', false],
    ['allowed_ports', { allowed_ports: [8443] }, 'https://hooks.example.com/h', true],
    ['allowed_ports', { allowed_ports: [8443] }, 'https://hooks.example.com:8443/h', false],
    ['allowed_ports', { allowed_ports: [443] }, 'https://hooks.example.com/h', false],
    ['allowed_ports', { allowed_ports: [443] }, 'http://hooks.example.com/h', true],
    ['allowed_ports', { allowed_ports: [80] }, 'http://hooks.example.com/h', false],
    ['allowed_ports', { allowed_ports: [80] }, 'http://hooks.example.com:8080/h', true],
    ['disable_loopback', { disable_loopback: true }, '/internal/hook', true],
    ['disable_loopback', {}, '/internal/hook', false],
    ['max_url_length', { max_url_length: 30 }, 'https://hooks.example.com/a-long-path', true],
    ['max_url_length', { max_url_length: 30 }, 'https://hooks.example.com/', false],
    ['max_url_length', {}, `https://hooks.example.com/${'x'.repeat(4096)}`, true],
  ])('%s %j on %s: refused=%s', async (rule, policy, url, refused) => {
    const agent = await deploy(sim, quiet(policy));
    const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
    const answer = await agent.call('POST', `/threads/${thread}/runs`, {
      assistant_id: 'agent',
      input: human('x'),
      webhook: url,
    });
    if (refused) {
      expect(answer.status).toBe(422);
      expect((answer.body as { detail: string }).detail).toContain(`webhooks.url.${rule}`);
      // A refused webhook creates no run.
      expect((await agent.call('GET', `/threads/${thread}/runs`)).body).toStrictEqual([]);
    } else {
      expect(answer.status).toBe(200);
    }
  });

  it('without a webhooks section no URL rule applies', async () => {
    const agent = await deploy(sim, { http: { disable_webhooks: true } });
    const answer = await agent.call('POST', '/runs/wait', {
      assistant_id: 'agent',
      webhook: `http://anything.test:1234/${'x'.repeat(5000)}`,
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['thread cron', '/threads/{thread}/runs/crons'],
    ['cron', '/runs/crons'],
    ['wait', '/runs/wait'],
    ['stream', '/runs/stream'],
  ])('the %s operation applies the rules too', async (_name, template) => {
    const agent = await deploy(sim, quiet({ require_https: true }));
    const thread = ((await agent.call('POST', '/threads', {})).body as { thread_id: string }).thread_id;
    const answer = await agent.call('POST', template.replace('{thread}', thread), {
      assistant_id: 'agent',
      schedule: '* * * * *',
      webhook: 'http://hooks.example.com/h',
    });
    expect(answer.status).toBe(422);
  });
});

describe('header templates at startup', () => {
  it('a template naming a missing variable blocks the start: every request is 503 until it is set', async () => {
    const agent = await deploy(sim, { webhooks: { headers: { 'X-Token': env('LG_WEBHOOK_MISSING') } } }, [
      { name: 'LG_WEBHOOK_OTHER', value: 'secret-other' },
    ]);
    for (const [method, path] of [
      ['GET', '/ok'],
      ['POST', '/threads'],
    ] as const) {
      const answer = await agent.call(method, path, method === 'POST' ? {} : undefined);
      expect(answer.status).toBe(503);
      const detail = (answer.body as { detail: string }).detail;
      expect(detail).toContain('LG_WEBHOOK_MISSING');
      expect(detail).toContain('not set');
      expect(detail).not.toContain('secret-other');
    }
    expect(sim.agentServer(agent.id)?.startupError()).toContain('LG_WEBHOOK_MISSING');

    const patched = await call(sim, 'PATCH', `/v2/deployments/${agent.id}`, {
      body: { secrets: [{ name: 'LG_WEBHOOK_MISSING', value: 'now-set' }] },
    });
    expect(patched.status).toBe(200);
    await expect.poll(async () => (await agent.call('GET', '/ok')).status).toBe(200);
  });

  it('a template naming a variable outside the prefix blocks the start, without showing its value', async () => {
    const agent = await deploy(sim, { webhooks: { headers: { 'X-Token': `Bearer ${env('API_TOKEN')}` } } }, [
      { name: 'API_TOKEN', value: 'do-not-show' },
    ]);
    const answer = await agent.call('GET', '/ok');
    expect(answer.status).toBe(503);
    const detail = (answer.body as { detail: string }).detail;
    expect(detail).toContain('API_TOKEN');
    expect(detail).toContain('LG_WEBHOOK_');
    expect(detail).not.toContain('do-not-show');
  });
});

describe('configuration through the admin API', () => {
  const admin = (method: string, path: string, body?: unknown) =>
    call(sim, method, `/_simulator${path}`, { auth: false, ...(body === undefined ? {} : { body }) });

  it('PUT replaces a deployment agent server configuration (by id or name), GET shows it', async () => {
    const agent = await deploy(sim);
    expect(
      (await agent.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('x') })).body,
    ).not.toHaveProperty('__error__');
    expect((await admin('PUT', `/agent-servers/${agent.id}`, { graph: { fail: true } })).status).toBe(204);
    const failed = await agent.call('POST', '/runs/wait', { assistant_id: 'agent', input: human('x') });
    expect(failed.body).toHaveProperty('__error__');
    expect((await admin('GET', `/agent-servers/${agent.id}`)).body).toMatchObject({
      config: { graph: { fail: true } },
      webhook_deliveries: [],
    });
    expect((await admin('PUT', `/agent-servers/${agent.id}`, { graph: { fail: 'yes' } })).status).toBe(422);
    expect((await admin('PUT', `/agent-servers/${agent.id}`, { unknown: 1 })).status).toBe(422);
    expect((await admin('GET', '/agent-servers/never-heard-of')).status).toBe(404);
  });
});
