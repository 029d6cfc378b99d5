import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { Agent, ProxyAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultKubeAccess, KubeAccess, kubeAccessFromFile } from './access.ts';
import type { ExecConfig } from './kubeconfig.ts';
import type { KubeTarget } from './target.ts';

const UA = 'agent-deployment-operator';
const V1 = 'client.authentication.k8s.io/v1';
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

let dir: string;
let files = 0;
const fresh = (name: string) => join(dir, `${++files}-${name}`);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agd-access-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Every KubeAccess a test makes, closed after it. */
const opened: KubeAccess[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

function access(auth: KubeTarget['auth'], more: Partial<KubeTarget> = {}, now?: () => number): KubeAccess {
  const target: KubeTarget = {
    source: 'test',
    server: 'https://k.example.com:6443',
    tls: { insecure: false },
    auth,
    ...more,
  };
  const a = new KubeAccess(target, { env: ENV, ...(now ? { now } : {}) });
  opened.push(a);
  return a;
}

const headersOf = async (a: KubeAccess) => (await a.connection()).headers;

/** A clock the test moves. */
function clock(start = Date.UTC(2030, 0, 1)) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('KubeAccess: headers', () => {
  it.each<[string, KubeTarget['auth'], Record<string, string>]>([
    ['no credentials', {}, { 'user-agent': UA }],
    ['a token', { token: 'tok-1' }, { 'user-agent': UA, authorization: 'Bearer tok-1' }],
    [
      'basic auth',
      { basic: { username: 'ann', password: 'p:ss wörd' } },
      { 'user-agent': UA, authorization: `Basic ${Buffer.from('ann:p:ss wörd').toString('base64')}` },
    ],
  ])('with %s', async (_case, auth, want) => {
    expect(await headersOf(access(auth))).toEqual(want);
  });

  it('sends basic auth as base64 of user:password', async () => {
    const { authorization } = await headersOf(access({ basic: { username: 'admin', password: 'secret' } }));
    expect(authorization).toBe('Basic YWRtaW46c2VjcmV0');
  });

  it.each<[string, NonNullable<KubeTarget['impersonate']>, Record<string, string | string[]>]>([
    ['a user', { user: 'jane', groups: [], extra: {} }, { 'impersonate-user': 'jane' }],
    ['a uid', { uid: 'uid-7', groups: [], extra: {} }, { 'impersonate-uid': 'uid-7' }],
    [
      'groups, as one header of several values',
      { user: 'jane', groups: ['system:masters', 'devs'], extra: {} },
      { 'impersonate-user': 'jane', 'impersonate-group': ['system:masters', 'devs'] },
    ],
    [
      'extra fields, the key percent-encoded',
      {
        user: 'jane',
        groups: [],
        extra: { 'example.com/scopes': ['read', 'write'], reason: ['on call'], 'a b%c': ['x'] },
      },
      {
        'impersonate-user': 'jane',
        'impersonate-extra-example.com%2Fscopes': ['read', 'write'],
        'impersonate-extra-reason': ['on call'],
        'impersonate-extra-a%20b%25c': ['x'],
      },
    ],
  ])('impersonating with %s', async (_case, impersonate, want) => {
    expect(await headersOf(access({ token: 't' }, { impersonate }))).toEqual({
      'user-agent': UA,
      authorization: 'Bearer t',
      ...want,
    });
  });
});

describe('KubeAccess: a token file', () => {
  it('is read again only once a minute has passed', async () => {
    const path = fresh('token');
    await writeFile(path, '  first\n');
    const c = clock();
    const a = access({ tokenFile: path }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer first');
    await writeFile(path, 'second\n');
    c.t += 59_999;
    expect((await headersOf(a)).authorization).toBe('Bearer first');
    c.t += 1;
    expect((await headersOf(a)).authorization).toBe('Bearer second');
    await writeFile(path, 'third\n');
    c.t += 30_000;
    expect((await headersOf(a)).authorization).toBe('Bearer second');
    c.t += 30_000;
    expect((await headersOf(a)).authorization).toBe('Bearer third');
  });

  it('keeps the token read last when the file cannot be read again', async () => {
    const path = fresh('token');
    await writeFile(path, 'good\n');
    const c = clock();
    const a = access({ tokenFile: path }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer good');
    await rm(path);
    c.t += 60_000;
    expect((await headersOf(a)).authorization).toBe('Bearer good');
    c.t += 600_000;
    expect((await headersOf(a)).authorization).toBe('Bearer good');
    // Once the file is back, its new token is taken.
    await writeFile(path, 'rotated\n');
    expect((await headersOf(a)).authorization).toBe('Bearer rotated');
  });

  it('wins over an inline token, which stands in only while the file cannot be read', async () => {
    const path = fresh('token');
    const c = clock();
    const a = access({ token: 'inline', tokenFile: path }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer inline');
    await writeFile(path, 'from-file\n');
    expect((await headersOf(a)).authorization).toBe('Bearer from-file');
    await rm(path);
    c.t += 60_000;
    // Read once: the file's last token, not the inline one.
    expect((await headersOf(a)).authorization).toBe('Bearer from-file');
  });

  it('is read again at once after a refusal', async () => {
    const path = fresh('token');
    await writeFile(path, 'before\n');
    const c = clock();
    const a = access({ tokenFile: path }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer before');
    await writeFile(path, 'after\n');
    expect((await headersOf(a)).authorization).toBe('Bearer before');
    a.refused();
    expect((await headersOf(a)).authorization).toBe('Bearer after');
  });

  it.each<[string, boolean]>([
    ['that never existed', false],
    ['gone after a refusal', true],
  ])('fails naming a file %s', async (_case, readFirst) => {
    const path = fresh('token');
    const a = access({ tokenFile: path });
    if (readFirst) {
      await writeFile(path, 'once\n');
      expect((await headersOf(a)).authorization).toBe('Bearer once');
      await rm(path);
      a.refused();
    }
    await expect(a.connection()).rejects.toThrow(`cannot read the token file ${path} (ENOENT)`);
  });
});

describe('KubeAccess: an empty token file', () => {
  it.each<[string, string]>([
    ['nothing', ''],
    ['only white space', ' \n\t\n'],
  ])('holding %s is an error naming the file, not a request without credentials', async (_case, content) => {
    const path = fresh('token');
    await writeFile(path, content);
    await expect(access({ tokenFile: path }).connection()).rejects.toThrow(
      new Error(`the token file ${path} is empty`),
    );
  });

  it('gives way to the inline token beside it, as a file that cannot be read does', async () => {
    const path = fresh('token');
    await writeFile(path, '');
    expect((await headersOf(access({ token: 'inline', tokenFile: path }))).authorization).toBe(
      'Bearer inline',
    );
  });

  it('keeps the token read last when the file is emptied (a rotation caught halfway)', async () => {
    const path = fresh('token');
    await writeFile(path, 'good\n');
    const c = clock();
    const a = access({ tokenFile: path }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer good');
    await writeFile(path, '');
    c.t += 60_000;
    expect((await headersOf(a)).authorization).toBe('Bearer good');
  });
});

describe('KubeAccess: an exec plugin', () => {
  /**
   * A plugin that logs each run to $LOG and answers token run-N (N: the run's number), with
   * $EXPIRY as its expirationTimestamp when set, after a pause long enough for callers to pile up.
   */
  let counting: string;
  beforeAll(async () => {
    counting = join(dir, 'counting-plugin.sh');
    await writeFile(
      counting,
      `#!/bin/sh
echo run >> "$LOG"
n=$(wc -l < "$LOG" | tr -d ' ')
if [ -n "$FAIL_RUN" ] && [ "$n" = "$FAIL_RUN" ]; then echo "run $n fails" >&2; exit 1; fi
if [ -n "$EXPIRY" ]; then exp=",\\"expirationTimestamp\\":\\"$EXPIRY\\""; else exp=""; fi
if [ -n "$CERT" ]; then
  cred="\\"clientCertificateData\\":\\"CERT-$n\\",\\"clientKeyData\\":\\"KEY-$n\\""
else
  cred="\\"token\\":\\"run-$n\\""
fi
sleep 0.05
printf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{%s%s}}' "$cred" "$exp"
`,
    );
    await chmod(counting, 0o755);
  });

  const exec = (log: string, env: Record<string, string> = {}): ExecConfig => ({
    command: counting,
    apiVersion: V1,
    env: [{ name: 'LOG', value: log }, ...Object.entries(env).map(([name, value]) => ({ name, value }))],
  });
  const runs = async (log: string) => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;

  it('runs once for concurrent requests', async () => {
    const log = fresh('log');
    const a = access({ exec: exec(log) });
    const all = await Promise.all(Array.from({ length: 5 }, () => a.connection()));
    expect(all.map((c) => c.headers.authorization)).toEqual(Array(5).fill('Bearer run-1'));
    expect(await runs(log)).toBe(1);
    // Without an expiry the credential is kept.
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    expect(await runs(log)).toBe(1);
  });

  it('runs again ten seconds before the credential expires', async () => {
    const log = fresh('log');
    const expiry = '2030-01-01T01:00:00Z';
    const expiresAt = Date.parse(expiry);
    const c = clock(expiresAt - 3_600_000);
    const a = access({ exec: exec(log, { EXPIRY: expiry }) }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    c.t = expiresAt - 10_001;
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    expect(await runs(log)).toBe(1);
    c.t = expiresAt - 10_000;
    expect((await headersOf(a)).authorization).toBe('Bearer run-2');
    expect(await runs(log)).toBe(2);
  });

  it('runs again on every request once the plugin answers an expired credential', async () => {
    const log = fresh('log');
    const c = clock(Date.parse('2030-06-01T00:00:00Z'));
    const a = access({ exec: exec(log, { EXPIRY: '2030-01-01T00:00:00Z' }) }, {}, c.now);
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    expect((await headersOf(a)).authorization).toBe('Bearer run-2');
  });

  it('runs again after a refusal', async () => {
    const log = fresh('log');
    const a = access({ exec: exec(log) });
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    expect((await headersOf(a)).authorization).toBe('Bearer run-1');
    a.refused();
    const again = await Promise.all([a.connection(), a.connection()]);
    expect(again.map((c) => c.headers.authorization)).toEqual(['Bearer run-2', 'Bearer run-2']);
    expect(await runs(log)).toBe(2);
  });

  it('tries again after the plugin failed', async () => {
    const log = fresh('log');
    const a = access({ exec: exec(log, { FAIL_RUN: '1' }) });
    await expect(a.connection()).rejects.toThrow(`exec plugin ${counting}: exit code 1: run 1 fails`);
    expect((await headersOf(a)).authorization).toBe('Bearer run-2');
  });

  it('uses a client certificate it answers, with a new pool when the certificate changes', async () => {
    const log = fresh('log');
    const a = access({ exec: exec(log, { CERT: '1' }) });
    const first = await a.connection();
    expect(first.headers).toEqual({ 'user-agent': UA });
    expect((await a.connection()).dispatcher).toBe(first.dispatcher);
    a.refused();
    const second = await a.connection();
    expect(await runs(log)).toBe(2);
    expect(second.dispatcher).not.toBe(first.dispatcher);
    expect(second.dispatcher).toBeInstanceOf(Agent);
  });
});

describe('KubeAccess: the connection pool', () => {
  it.each<[string, Partial<KubeTarget>, typeof Agent | typeof ProxyAgent]>([
    ['direct', {}, Agent],
    ['through a proxy', { proxyUrl: 'http://proxy.example.com:3128' }, ProxyAgent],
    [
      'with a static client certificate',
      { tls: { insecure: true, cert: Buffer.from('CERT'), key: Buffer.from('KEY'), serverName: 'kube' } },
      Agent,
    ],
  ])('is one dispatcher for every request, %s', async (_case, more, kind) => {
    const a = access({ token: 't' }, more);
    const first = await a.connection();
    const second = await a.connection();
    const third = await a.connection();
    expect(first.dispatcher).toBeInstanceOf(kind);
    expect(second.dispatcher).toBe(first.dispatcher);
    expect(third.dispatcher).toBe(first.dispatcher);
  });

  it('is a new dispatcher after close()', async () => {
    const a = access({ token: 't' });
    const first = (await a.connection()).dispatcher;
    await a.close();
    const second = (await a.connection()).dispatcher;
    expect(second).not.toBe(first);
    expect(second).toBeInstanceOf(Agent);
  });

  it('gives ownConnection a dispatcher of its own', async () => {
    const a = access({ token: 'own' });
    const shared = await a.connection();
    const own = await a.ownConnection();
    try {
      expect(own.dispatcher).not.toBe(shared.dispatcher);
      expect(own.headers).toEqual({ 'user-agent': UA, authorization: 'Bearer own' });
    } finally {
      own.close();
    }
  });
});

describe('KubeAccess from a kubeconfig', () => {
  const kubeconfig = yaml.dump({
    'current-context': 'dev',
    clusters: [{ name: 'c', cluster: { server: 'https://file.example.com:6443/' } }],
    users: [{ name: 'u', user: { token: 'file-token', as: 'jane' } }],
    contexts: [
      { name: 'dev', context: { cluster: 'c', user: 'u', namespace: 'team-a' } },
      { name: 'other', context: { cluster: 'c', namespace: 'team-b' } },
    ],
  });

  it.each<[string, string | undefined, string, Record<string, string>]>([
    [
      'its current context',
      undefined,
      'team-a',
      { 'user-agent': UA, authorization: 'Bearer file-token', 'impersonate-user': 'jane' },
    ],
    ['a named context', 'other', 'team-b', { 'user-agent': UA }],
  ])('kubeAccessFromFile: %s', async (_case, context, namespace, headers) => {
    const path = fresh('config');
    await writeFile(path, kubeconfig);
    const a = kubeAccessFromFile(path, context);
    opened.push(a);
    expect([a.server, a.namespace, a.source]).toEqual([
      'https://file.example.com:6443',
      namespace,
      `${path} (context ${context ?? 'dev'})`,
    ]);
    expect(await headersOf(a)).toEqual(headers);
  });

  it('runs an exec plugin named relative to the kubeconfig from the kubeconfig’s directory', async () => {
    const home = join(dir, `${++files}-home`);
    await mkdir(join(home, 'bin'), { recursive: true });
    const plugin = join(home, 'bin', 'plugin.sh');
    await writeFile(
      plugin,
      `#!/bin/sh\nprintf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"from-relative"}}'\n`,
    );
    await chmod(plugin, 0o755);
    const path = join(home, 'config');
    await writeFile(
      path,
      yaml.dump({
        'current-context': 'dev',
        clusters: [{ name: 'c', cluster: { server: 'https://file.example.com:6443' } }],
        users: [{ name: 'u', user: { exec: { command: './bin/plugin.sh', apiVersion: V1 } } }],
        contexts: [{ name: 'dev', context: { cluster: 'c', user: 'u' } }],
      }),
    );
    expect(process.cwd()).not.toBe(home);
    const a = kubeAccessFromFile(path);
    opened.push(a);
    expect((await headersOf(a)).authorization).toBe('Bearer from-relative');
  });

  it('defaultKubeAccess reads KUBECONFIG from the environment given', async () => {
    const path = fresh('config');
    await writeFile(path, kubeconfig);
    const a = defaultKubeAccess({ ...ENV, KUBECONFIG: path });
    opened.push(a);
    expect([a.server, a.namespace]).toEqual(['https://file.example.com:6443', 'team-a']);
    expect((await headersOf(a)).authorization).toBe('Bearer file-token');
  });
});
