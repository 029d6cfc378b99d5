import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KubeconfigError,
  kubeconfigPaths,
  loadKubeconfigFiles,
  mergeKubeconfigs,
  parseKubeconfig,
} from './kubeconfig.ts';
import { defaultTarget, inClusterTarget, targetOf } from './target.ts';

type Doc = Record<string, unknown>;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agd-kubeconfig-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A fresh directory under the test's temp dir. */
let dirs = 0;
async function subdir(): Promise<string> {
  const path = join(dir, `d${++dirs}`);
  await mkdir(path, { recursive: true });
  return path;
}

/** One context "dev" on cluster "c" as user "u", with the given user and cluster fields. */
function kubeconfig(user: Doc = {}, cluster: Doc = {}, top: Doc = {}): Doc {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'dev',
    clusters: [{ name: 'c', cluster: { server: 'https://k.example.com:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'dev', context: { cluster: 'c', user: 'u', namespace: 'team-a' } }],
    ...top,
  };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (doc: Doc | string) => (typeof doc === 'string' ? doc : yaml.dump(doc, { skipInvalid: true }));

/** The error a call throws, failing the test when it does not throw one. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('targetOf: one file', () => {
  it('reads server, namespace, TLS settings and a token', () => {
    const path = join(dir, 'plain');
    const target = targetOf(
      parseKubeconfig(
        text(
          kubeconfig(
            { token: 'tok-1' },
            {
              server: 'https://k.example.com:6443//',
              'insecure-skip-tls-verify': true,
              'tls-server-name': 'kubernetes.default',
              'proxy-url': 'http://proxy.example.com:3128',
            },
          ),
        ),
        path,
      ),
    );
    expect(target).toEqual({
      source: `${path} (context dev)`,
      server: 'https://k.example.com:6443',
      namespace: 'team-a',
      tls: {
        ca: undefined,
        cert: undefined,
        key: undefined,
        insecure: true,
        serverName: 'kubernetes.default',
      },
      proxyUrl: 'http://proxy.example.com:3128',
      auth: { token: 'tok-1' },
    });
  });

  it.each<[string, string, string]>([
    ['no trailing slash', 'https://k.example.com', 'https://k.example.com'],
    ['one trailing slash', 'https://k.example.com/', 'https://k.example.com'],
    ['a path with a trailing slash', 'https://k.example.com/proxy/', 'https://k.example.com/proxy'],
    ['plain http', 'http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
  ])('server with %s', (_case, server, want) => {
    expect(targetOf(parseKubeconfig(text(kubeconfig({}, { server })), join(dir, 'x'))).server).toBe(want);
  });

  it.each<[string, Doc, Record<string, unknown>]>([
    ['a token', { token: 't' }, { token: 't' }],
    ['a token file', { tokenFile: '/abs/token' }, { tokenFile: '/abs/token' }],
    ['basic auth', { username: 'ann', password: 'pw' }, { basic: { username: 'ann', password: 'pw' } }],
    [
      'an exec plugin',
      { exec: { command: 'plugin', apiVersion: 'client.authentication.k8s.io/v1', args: ['get'] } },
      { exec: { command: 'plugin', apiVersion: 'client.authentication.k8s.io/v1', args: ['get'] } },
    ],
    ['nothing', {}, {}],
  ])('auth from %s', (_case, user, want) => {
    expect(targetOf(parseKubeconfig(text(kubeconfig(user)), join(dir, 'x'))).auth).toEqual(want);
  });

  it('keeps both a token and a token file (the file wins, the token stands in while it cannot be read)', () => {
    const target = targetOf(
      parseKubeconfig(text(kubeconfig({ token: 't', tokenFile: '/abs/token' })), join(dir, 'x')),
    );
    expect(target.auth).toEqual({ token: 't', tokenFile: '/abs/token' });
  });

  it('tells an exec plugin with provideClusterInfo about the cluster, and no other', () => {
    const exec = { command: 'p', apiVersion: 'client.authentication.k8s.io/v1' };
    const cluster = { 'certificate-authority-data': b64('CA'), 'tls-server-name': 'k.internal' };
    const told = targetOf(
      parseKubeconfig(
        text(kubeconfig({ exec: { ...exec, provideClusterInfo: true } }, cluster)),
        join(dir, 'x'),
      ),
    );
    expect(told.execCluster).toEqual({
      server: 'https://k.example.com:6443',
      'tls-server-name': 'k.internal',
      'certificate-authority-data': b64('CA'),
    });
    const silent = targetOf(parseKubeconfig(text(kubeconfig({ exec }, cluster)), join(dir, 'x')));
    expect(silent.execCluster).toBeUndefined();
  });

  it('allows a context without a user', () => {
    const doc = kubeconfig();
    doc.contexts = [{ name: 'dev', context: { cluster: 'c' } }];
    const target = targetOf(parseKubeconfig(text(doc), join(dir, 'x')));
    expect(target.auth).toEqual({});
    expect(target.namespace).toBeUndefined();
  });

  it('names a missing context as the context asked for, not as current-context', () => {
    const err = thrown(() => targetOf(parseKubeconfig(text(kubeconfig()), '/k'), 'prod'));
    expect(err.message).toBe('/k: context "prod" names no entry of contexts');
  });

  it('takes a context other than current-context when named', () => {
    const doc = kubeconfig();
    doc.clusters = [
      { name: 'c', cluster: { server: 'https://one.example.com' } },
      { name: 'c2', cluster: { server: 'https://two.example.com' } },
    ];
    doc.contexts = [
      { name: 'dev', context: { cluster: 'c', user: 'u' } },
      { name: 'prod', context: { cluster: 'c2', user: 'u', namespace: 'prod-ns' } },
    ];
    const target = targetOf(parseKubeconfig(text(doc), join(dir, 'x')), 'prod');
    expect([target.server, target.namespace, target.source]).toEqual([
      'https://two.example.com',
      'prod-ns',
      `${join(dir, 'x')} (context prod)`,
    ]);
  });

  it.each<[string, Doc, Record<string, unknown> | undefined]>([
    ['no impersonation', {}, undefined],
    ['a user', { as: 'jane' }, { user: 'jane', groups: [], extra: {} }],
    ['a uid', { 'as-uid': 'uid-1' }, { uid: 'uid-1', groups: [], extra: {} }],
    ['groups alone', { 'as-groups': ['g1', 'g2'] }, { groups: ['g1', 'g2'], extra: {} }],
    [
      'every field',
      {
        as: 'jane',
        'as-uid': 'uid-1',
        'as-groups': ['g1'],
        'as-user-extra': { 'example.com/scopes': ['a', 'b'] },
      },
      { user: 'jane', uid: 'uid-1', groups: ['g1'], extra: { 'example.com/scopes': ['a', 'b'] } },
    ],
  ])('impersonation: %s', (_case, user, want) => {
    const target = targetOf(parseKubeconfig(text(kubeconfig({ token: 't', ...user })), join(dir, 'x')));
    expect(target.impersonate).toEqual(want);
  });
});

describe('targetOf: files the kubeconfig names', () => {
  it('resolves relative paths against the kubeconfig file’s directory', async () => {
    const home = await subdir();
    await mkdir(join(home, 'certs'));
    await writeFile(join(home, 'certs', 'ca.crt'), 'CA-PEM');
    await writeFile(join(home, 'certs', 'client.crt'), 'CERT-PEM');
    await writeFile(join(home, 'certs', 'client.key'), 'KEY-PEM');
    const path = join(home, 'config');
    await writeFile(
      path,
      text(
        kubeconfig(
          {
            'client-certificate': 'certs/client.crt',
            'client-key': './certs/client.key',
            tokenFile: 'certs/token',
          },
          { 'certificate-authority': 'certs/ca.crt' },
        ),
      ),
    );
    // The process's working directory is elsewhere: only the file's own directory can resolve these.
    expect(process.cwd()).not.toBe(home);
    const target = targetOf(loadKubeconfigFiles([path]));
    expect(target.tls.ca?.toString()).toBe('CA-PEM');
    expect(target.tls.cert?.toString()).toBe('CERT-PEM');
    expect(target.tls.key?.toString()).toBe('KEY-PEM');
    expect(target.auth).toEqual({ tokenFile: join(home, 'certs', 'token') });
  });

  it.each<[string, string, (home: string) => string]>([
    ['a path relative to the file (with a separator)', 'bin/plugin', (home) => join(home, 'bin', 'plugin')],
    ['a ./ path', './plugin', (home) => join(home, 'plugin')],
    ['a ../ path', '../tools/plugin', (home) => join(home, '..', 'tools', 'plugin')],
    ['an absolute path', '/usr/local/bin/plugin', () => '/usr/local/bin/plugin'],
    [
      'a bare name (looked up on PATH when it runs)',
      'gke-gcloud-auth-plugin',
      () => 'gke-gcloud-auth-plugin',
    ],
  ])('resolves an exec command as kubectl does: %s', async (_case, command, want) => {
    const home = await subdir();
    const exec = { command, apiVersion: 'client.authentication.k8s.io/v1' };
    const target = targetOf(parseKubeconfig(text(kubeconfig({ exec })), join(home, 'config')));
    expect(target.auth.exec?.command).toBe(want(home));
  });

  it('keeps absolute paths as they are', async () => {
    const elsewhere = await subdir();
    const home = await subdir();
    await writeFile(join(elsewhere, 'ca.crt'), 'ABS-CA');
    const target = targetOf(
      parseKubeconfig(
        text(
          kubeconfig(
            { tokenFile: join(elsewhere, 'token') },
            { 'certificate-authority': join(elsewhere, 'ca.crt') },
          ),
        ),
        join(home, 'config'),
      ),
    );
    expect(target.tls.ca?.toString()).toBe('ABS-CA');
    expect(target.auth.tokenFile).toBe(join(elsewhere, 'token'));
  });

  it('resolves against the file’s directory when the file is named relative to the working directory', async () => {
    const home = await subdir();
    await writeFile(join(home, 'ca.crt'), 'REL-CA');
    const path = relative(process.cwd(), join(home, 'config'));
    expect(isAbsolute(path)).toBe(false);
    const target = targetOf(
      parseKubeconfig(text(kubeconfig({}, { 'certificate-authority': 'ca.crt' })), path),
    );
    expect(target.tls.ca?.toString()).toBe('REL-CA');
  });

  it.each<[string, Doc, Doc, { ca: string; cert: string; key: string }]>([
    [
      'data alone',
      { 'client-certificate-data': b64('CERT-DATA'), 'client-key-data': b64('KEY-DATA') },
      { 'certificate-authority-data': b64('CA-DATA') },
      { ca: 'CA-DATA', cert: 'CERT-DATA', key: 'KEY-DATA' },
    ],
    [
      'data and a path to a file that does not exist',
      {
        'client-certificate-data': b64('CERT-DATA'),
        'client-certificate': 'missing.crt',
        'client-key-data': b64('KEY-DATA'),
        'client-key': 'missing.key',
      },
      { 'certificate-authority-data': b64('CA-DATA'), 'certificate-authority': 'missing-ca.crt' },
      { ca: 'CA-DATA', cert: 'CERT-DATA', key: 'KEY-DATA' },
    ],
    [
      'data and a path to a file that exists',
      {
        'client-certificate-data': b64('CERT-DATA'),
        'client-certificate': 'client.crt',
        'client-key-data': b64('KEY-DATA'),
        'client-key': 'client.key',
      },
      { 'certificate-authority-data': b64('CA-DATA'), 'certificate-authority': 'ca.crt' },
      { ca: 'CA-DATA', cert: 'CERT-DATA', key: 'KEY-DATA' },
    ],
    [
      'paths alone',
      { 'client-certificate': 'client.crt', 'client-key': 'client.key' },
      { 'certificate-authority': 'ca.crt' },
      { ca: 'CA-FILE', cert: 'CERT-FILE', key: 'KEY-FILE' },
    ],
  ])('TLS material from %s: -data wins', async (_case, user, cluster, want) => {
    const home = await subdir();
    await writeFile(join(home, 'ca.crt'), 'CA-FILE');
    await writeFile(join(home, 'client.crt'), 'CERT-FILE');
    await writeFile(join(home, 'client.key'), 'KEY-FILE');
    const target = targetOf(parseKubeconfig(text(kubeconfig(user, cluster)), join(home, 'config')));
    expect({
      ca: target.tls.ca?.toString(),
      cert: target.tls.cert?.toString(),
      key: target.tls.key?.toString(),
    }).toEqual(want);
  });

  it.each<[string, Doc, Doc, string]>([
    ['certificate-authority', {}, { 'certificate-authority': 'nope-ca.crt' }, 'clusters[name=c].cluster'],
    [
      'client-certificate',
      { 'client-certificate': 'nope.crt', 'client-key-data': b64('k') },
      {},
      'users[name=u].user',
    ],
    [
      'client-key',
      { 'client-certificate-data': b64('c'), 'client-key': 'nope.key' },
      {},
      'users[name=u].user',
    ],
  ])('a %s file that cannot be read is refused by field and path', async (field, user, cluster, owner) => {
    const home = await subdir();
    const path = join(home, 'config');
    const err = thrown(() => targetOf(parseKubeconfig(text(kubeconfig(user, cluster)), path)));
    expect(err).toBeInstanceOf(KubeconfigError);
    const file = join(
      home,
      field === 'certificate-authority' ? 'nope-ca.crt' : `nope.${field === 'client-key' ? 'key' : 'crt'}`,
    );
    expect(err.message).toBe(`${path}: ${owner}.${field}: cannot read ${file} (ENOENT)`);
  });
});

describe('mergeKubeconfigs: the first file to set a value wins', () => {
  const first: Doc = {
    clusters: [{ name: 'shared', cluster: { server: 'https://first.example.com' } }],
    users: [{ name: 'shared', user: { token: 'first-token' } }],
    contexts: [
      { name: 'ctx-a', context: { cluster: 'shared', user: 'shared', namespace: 'first-ns' } },
      { name: 'ctx-only-first', context: { cluster: 'shared', user: 'shared', namespace: 'only-first' } },
    ],
  };
  const second: Doc = {
    'current-context': 'ctx-a',
    clusters: [
      { name: 'shared', cluster: { server: 'https://second.example.com' } },
      { name: 'only-second', cluster: { server: 'https://only-second.example.com' } },
    ],
    users: [
      { name: 'shared', user: { token: 'second-token' } },
      { name: 'only-second', user: { token: 'only-second-token' } },
    ],
    contexts: [
      { name: 'ctx-a', context: { cluster: 'only-second', user: 'only-second', namespace: 'second-ns' } },
      { name: 'ctx-b', context: { cluster: 'only-second', user: 'shared', namespace: 'b-ns' } },
    ],
  };
  const withCurrent = (doc: Doc, current: string) => ({ ...doc, 'current-context': current });

  it.each<[string, Doc[], string | undefined, [string, string, string | undefined, string | undefined]]>([
    [
      'current-context from the only file setting it; entries from the first file naming them',
      [first, second],
      undefined,
      ['ctx-a', 'https://first.example.com', 'first-token', 'first-ns'],
    ],
    [
      'the first file’s current-context wins',
      [withCurrent(first, 'ctx-only-first'), second],
      undefined,
      ['ctx-only-first', 'https://first.example.com', 'first-token', 'only-first'],
    ],
    [
      'the order reversed',
      [second, withCurrent(first, 'ctx-only-first')],
      undefined,
      ['ctx-a', 'https://only-second.example.com', 'only-second-token', 'second-ns'],
    ],
    [
      'a context from the second file using a user the first defines',
      [first, second],
      'ctx-b',
      ['ctx-b', 'https://only-second.example.com', 'first-token', 'b-ns'],
    ],
    [
      'an empty current-context does not win',
      [withCurrent(first, ''), second],
      undefined,
      ['ctx-a', 'https://first.example.com', 'first-token', 'first-ns'],
    ],
  ])('%s', (_case, docs, context, [wantContext, server, token, namespace]) => {
    const files = docs.map((doc, i) => parseKubeconfig(text(doc), join(dir, `merge-${i}`)));
    const merged = mergeKubeconfigs(files);
    expect(merged.path).toBe(docs.map((_, i) => join(dir, `merge-${i}`)).join(':'));
    const target = targetOf(merged, context);
    expect([target.source, target.server, target.auth.token, target.namespace]).toEqual([
      `${merged.path} (context ${wantContext})`,
      server,
      token,
      namespace,
    ]);
  });

  it('the first entry of a name within one file wins too', () => {
    const doc = kubeconfig({ token: 'one' });
    doc.users = [
      { name: 'u', user: { token: 'one' } },
      { name: 'u', user: { token: 'two' } },
    ];
    expect(targetOf(parseKubeconfig(text(doc), join(dir, 'x'))).auth).toEqual({ token: 'one' });
  });

  it('resolves each file’s relative paths against its own directory', async () => {
    const a = await subdir();
    const b = await subdir();
    await writeFile(join(a, 'client.crt'), 'A-CERT');
    await writeFile(join(a, 'client.key'), 'A-KEY');
    await writeFile(join(b, 'ca.crt'), 'B-CA');
    await writeFile(join(b, 'client.crt'), 'B-CERT');
    await writeFile(
      join(a, 'config'),
      text({
        users: [{ name: 'u', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } }],
      }),
    );
    await writeFile(
      join(b, 'config'),
      text({
        'current-context': 'dev',
        clusters: [
          { name: 'c', cluster: { server: 'https://k.example.com', 'certificate-authority': 'ca.crt' } },
        ],
        users: [{ name: 'u', user: { 'client-certificate': 'client.crt' } }],
        contexts: [{ name: 'dev', context: { cluster: 'c', user: 'u' } }],
      }),
    );
    const target = targetOf(loadKubeconfigFiles([join(a, 'config'), join(b, 'config')]));
    expect([target.tls.ca?.toString(), target.tls.cert?.toString(), target.tls.key?.toString()]).toEqual([
      'B-CA',
      'A-CERT',
      'A-KEY',
    ]);
  });
});

describe('refusals name the file and the field', () => {
  const PATH = '/configs/team/kubeconfig';
  it.each<[string, Doc | string, string | RegExp]>([
    [
      'PEM pasted into a -data field',
      kubeconfig(
        {},
        { 'certificate-authority-data': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' },
      ),
      `${PATH}: clusters[name=c].cluster.certificate-authority-data: not base64 (base64-encode the PEM, or name a PEM file in the field without -data)`,
    ],
    [
      'an exec plugin that must be interactive',
      kubeconfig({
        exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' },
      }),
      `${PATH}: users[name=u].user.exec.interactiveMode: Always needs a terminal, which a controller does not have; use IfAvailable or Never`,
    ],
    [
      'an auth provider, suggesting exec',
      kubeconfig({ 'auth-provider': { name: 'oidc', config: {} } }),
      /^\/configs\/team\/kubeconfig: users\[name=u\]\.user\.auth-provider: auth providers .* not supported; use an exec credential plugin \(users\[\]\.user\.exec/,
    ],
    [
      'a token with an exec plugin',
      kubeconfig({ token: 't', exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1' } }),
      `${PATH}: users[name=u].user: sets token and exec; keep one way to authenticate`,
    ],
    [
      'a token file with basic auth',
      kubeconfig({ tokenFile: '/t', username: 'a', password: 'b' }),
      `${PATH}: users[name=u].user: sets tokenFile and username/password; keep one way to authenticate`,
    ],
    [
      'a token, a token file and an exec plugin',
      kubeconfig({
        token: 't',
        tokenFile: '/t',
        exec: { command: 'p', apiVersion: 'client.authentication.k8s.io/v1' },
      }),
      `${PATH}: users[name=u].user: sets token and tokenFile and exec; keep one way to authenticate`,
    ],
    [
      'a username without a password',
      kubeconfig({ username: 'ann' }),
      `${PATH}: users[name=u].user: username and password go together`,
    ],
    [
      'a password without a username',
      kubeconfig({ password: 'pw' }),
      `${PATH}: users[name=u].user: username and password go together`,
    ],
    [
      'a client certificate without a key',
      kubeconfig({ 'client-certificate-data': b64('CERT') }),
      `${PATH}: users[name=u].user: client-certificate and client-key go together`,
    ],
    [
      'a client key without a certificate',
      kubeconfig({ 'client-key-data': b64('KEY') }),
      `${PATH}: users[name=u].user: client-certificate and client-key go together`,
    ],
    [
      'a server that is not a URL',
      kubeconfig({}, { server: 'not a url' }),
      `${PATH}: clusters[name=c].cluster.server: "not a url" is not a URL`,
    ],
    [
      'a server without a scheme',
      kubeconfig({}, { server: 'k.example.com:6443' }),
      `${PATH}: clusters[name=c].cluster.server: must be an https:// (or http://) URL`,
    ],
    [
      'an ftp server',
      kubeconfig({}, { server: 'ftp://k.example.com' }),
      `${PATH}: clusters[name=c].cluster.server: must be an https:// (or http://) URL`,
    ],
    [
      'a CA with insecure-skip-tls-verify (client-go refuses the pair)',
      kubeconfig({}, { 'certificate-authority-data': b64('CA'), 'insecure-skip-tls-verify': true }),
      `${PATH}: clusters[name=c].cluster: certificate-authority-data together with insecure-skip-tls-verify: true is not allowed (a CA to verify against, and no verification); drop one`,
    ],
    [
      'a CA file with insecure-skip-tls-verify',
      kubeconfig({}, { 'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': true }),
      `${PATH}: clusters[name=c].cluster: certificate-authority together with insecure-skip-tls-verify: true is not allowed (a CA to verify against, and no verification); drop one`,
    ],
    [
      'a socks proxy',
      kubeconfig({}, { 'proxy-url': 'socks5://proxy.example.com:1080' }),
      `${PATH}: clusters[name=c].cluster.proxy-url: only http:// and https:// proxies are supported`,
    ],
    [
      'a proxy that is not a URL',
      kubeconfig({}, { 'proxy-url': 'proxy.example.com' }),
      `${PATH}: clusters[name=c].cluster.proxy-url: only http:// and https:// proxies are supported`,
    ],
    [
      'no current-context',
      kubeconfig({}, {}, { 'current-context': undefined }),
      `${PATH}: no current-context: set one (kubectl config use-context NAME) or name a context`,
    ],
    [
      'an empty current-context',
      kubeconfig({}, {}, { 'current-context': '' }),
      /^\/configs\/team\/kubeconfig: no current-context/,
    ],
    [
      'a current-context naming nothing',
      kubeconfig({}, {}, { 'current-context': 'gone' }),
      `${PATH}: current-context "gone" names no entry of contexts`,
    ],
    [
      'a context naming a missing cluster',
      kubeconfig({}, {}, { contexts: [{ name: 'dev', context: { cluster: 'nope', user: 'u' } }] }),
      `${PATH}: contexts[name=dev].context.cluster "nope" names no entry of clusters`,
    ],
    [
      'a context naming a missing user',
      kubeconfig({}, {}, { contexts: [{ name: 'dev', context: { cluster: 'c', user: 'nope' } }] }),
      `${PATH}: contexts[name=dev].context.user "nope" names no entry of users`,
    ],
    ['a file that is not YAML', 'clusters: [unclosed\n  - {', /^\/configs\/team\/kubeconfig: not YAML \(/],
    ['a file that is a YAML scalar', 'just words', /^\/configs\/team\/kubeconfig: \(top level\): /],
    [
      'a cluster without a server',
      kubeconfig({}, {}, { clusters: [{ name: 'c', cluster: { 'insecure-skip-tls-verify': true } }] }),
      /^\/configs\/team\/kubeconfig: clusters\[name=c\]\.cluster\.server: /,
    ],
    [
      'a cluster entry without a name',
      kubeconfig({}, {}, { clusters: [{ cluster: { server: 'https://x' } }] }),
      /^\/configs\/team\/kubeconfig: clusters\[0\]\.name: /,
    ],
    [
      'an exec plugin without a command',
      kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1' } }),
      /^\/configs\/team\/kubeconfig: users\[name=u\]\.user\.exec\.command: /,
    ],
    [
      'a token that is not a string',
      kubeconfig({ token: ['a'] }),
      /^\/configs\/team\/kubeconfig: users\[name=u\]\.user\.token: /,
    ],
    [
      'a context without a cluster',
      kubeconfig({}, {}, { contexts: [{ name: 'dev', context: { user: 'u' } }] }),
      /^\/configs\/team\/kubeconfig: contexts\[name=dev\]\.context\.cluster: /,
    ],
  ])('%s', (_case, doc, message) => {
    const err = thrown(() => targetOf(parseKubeconfig(text(doc), PATH)));
    expect(err).toBeInstanceOf(KubeconfigError);
    expect(err.name).toBe('KubeconfigError');
    if (typeof message === 'string') expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
  });

  it('names every file of a merge in a refusal after merging', () => {
    const a = parseKubeconfig(text({ 'current-context': 'gone' }), '/a/config');
    const b = parseKubeconfig(text(kubeconfig()), '/b/config');
    expect(() => targetOf(mergeKubeconfigs([a, b]))).toThrow(
      '/a/config:/b/config: current-context "gone" names no entry of contexts',
    );
  });

  it('refuses a file that does not exist, naming it', () => {
    const path = join(dir, 'does-not-exist');
    expect(() => loadKubeconfigFiles([path])).toThrow(new KubeconfigError(`${path}: cannot read (ENOENT)`));
  });

  it('reads an empty file as an empty kubeconfig', () => {
    expect(() => targetOf(parseKubeconfig('', '/empty'))).toThrow(/^\/empty: no current-context/);
  });
});

describe('kubeconfigPaths', () => {
  it.each<[string, string | undefined, string[]]>([
    ['unset', undefined, []],
    ['empty', '', []],
    ['one file', '/a', ['/a']],
    ['a list', '/a:/b:/c', ['/a', '/b', '/c']],
    ['empty entries skipped', ':/a::/b:', ['/a', '/b']],
  ])('%s', (_case, value, want) => {
    expect(kubeconfigPaths(value === undefined ? {} : { KUBECONFIG: value })).toEqual(want);
  });
});

describe('inClusterTarget', () => {
  let sa: string;
  beforeAll(async () => {
    sa = await subdir();
    await writeFile(join(sa, 'token'), 'sa-token\n');
    await writeFile(join(sa, 'ca.crt'), 'SA-CA');
    await writeFile(join(sa, 'namespace'), 'operator-ns\n');
  });

  it.each<[string, string, string, string]>([
    ['an IPv4 host', '10.96.0.1', '443', 'https://10.96.0.1:443'],
    ['an IPv6 host, in brackets', 'fd00:10:96::1', '443', 'https://[fd00:10:96::1]:443'],
    ['a name and another port', 'kubernetes.default.svc', '6443', 'https://kubernetes.default.svc:6443'],
  ])('reads the service account with %s', (_case, host, port, server) => {
    expect(inClusterTarget({ KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port }, sa)).toEqual({
      source: 'in-cluster service account',
      server,
      namespace: 'operator-ns',
      tls: { ca: Buffer.from('SA-CA'), insecure: false },
      auth: { tokenFile: join(sa, 'token') },
    });
  });

  it('leaves the namespace out when the file is missing', async () => {
    const noNamespace = await subdir();
    await writeFile(join(noNamespace, 'token'), 't');
    await writeFile(join(noNamespace, 'ca.crt'), 'CA');
    const target = inClusterTarget(
      { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      noNamespace,
    );
    expect(target?.server).toBe('https://10.0.0.1:443');
    expect(target?.namespace).toBeUndefined();
  });

  it.each<[string, NodeJS.ProcessEnv, 'sa' | 'empty' | 'no-ca']>([
    ['without a host', { KUBERNETES_SERVICE_PORT: '443' }, 'sa'],
    ['without a port', { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, 'sa'],
    ['without either', {}, 'sa'],
    [
      'without a token file',
      { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      'empty',
    ],
    ['without a CA', { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, 'no-ca'],
  ])('is undefined %s', async (_case, env, which) => {
    let where = sa;
    if (which === 'empty') where = await subdir();
    if (which === 'no-ca') {
      where = await subdir();
      await writeFile(join(where, 'token'), 't');
    }
    expect(inClusterTarget(env, where)).toBeUndefined();
  });
});

describe('defaultTarget', () => {
  let home: string;
  let listedA: string;
  let listedB: string;
  beforeAll(async () => {
    home = await subdir();
    await mkdir(join(home, '.kube'));
    await writeFile(
      join(home, '.kube', 'config'),
      text(kubeconfig({ token: 'home-token' }, { server: 'https://home.example.com' })),
    );
    listedA = join(await subdir(), 'a.yaml');
    listedB = join(await subdir(), 'b.yaml');
    await writeFile(listedA, text({ users: [{ name: 'u', user: { token: 'listed-a-token' } }] }));
    await writeFile(
      listedB,
      text(kubeconfig({ token: 'listed-b-token' }, { server: 'https://listed.example.com' })),
    );
  });

  it('reads the files KUBECONFIG lists before ~/.kube/config, merged in order', () => {
    const target = defaultTarget({ KUBECONFIG: `${listedA}::${listedB}` }, home);
    expect([target.source, target.server, target.auth.token]).toEqual([
      `${listedA}:${listedB} (context dev)`,
      'https://listed.example.com',
      'listed-a-token',
    ]);
  });

  it('skips listed files that do not exist, as kubectl does', () => {
    const missing = join(home, 'missing.yaml');
    const target = defaultTarget({ KUBECONFIG: `${missing}:${listedA}:${missing}-2:${listedB}` }, home);
    expect([target.source, target.server, target.auth.token]).toEqual([
      `${listedA}:${listedB} (context dev)`,
      'https://listed.example.com',
      'listed-a-token',
    ]);
  });

  it('refuses a list none of whose files exists, naming them, rather than falling back', () => {
    const missing = join(home, 'missing.yaml');
    expect(() => defaultTarget({ KUBECONFIG: `${missing}:${missing}-2` }, home)).toThrow(
      new KubeconfigError(`KUBECONFIG: none of its files exists (${missing}, ${missing}-2)`),
    );
  });

  it('refuses a listed file that exists but cannot be read', async () => {
    const unreadable = await subdir();
    expect(() => defaultTarget({ KUBECONFIG: `${unreadable}:${listedB}` }, home)).toThrow(
      new KubeconfigError(`${unreadable}: cannot read (EISDIR)`),
    );
  });

  it.each<[string, NodeJS.ProcessEnv]>([
    ['KUBECONFIG unset', {}],
    ['KUBECONFIG empty', { KUBECONFIG: '' }],
    ['KUBECONFIG only colons', { KUBECONFIG: '::' }],
  ])('reads <home>/.kube/config with %s', (_case, env) => {
    const target = defaultTarget(env, home);
    expect([target.source, target.server, target.auth.token]).toEqual([
      `${join(home, '.kube', 'config')} (context dev)`,
      'https://home.example.com',
      'home-token',
    ]);
  });

  it('says what it looked for when there is nothing', async () => {
    const emptyHome = await subdir();
    expect(() => defaultTarget({ PATH: '/usr/bin' }, emptyHome)).toThrow(
      new KubeconfigError(
        'no kubeconfig: KUBECONFIG is not set, ~/.kube/config does not exist, and this is not a pod with a service account',
      ),
    );
  });
});
