import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const BASE = { CONTROL_PLANE_URL: 'https://api.example.com' };

describe('loadConfig: credential scoping and the agent-server allow-list', () => {
  it('defaults to every namespace and exactly the control plane host', () => {
    const config = loadConfig([], BASE);
    expect(config.defaultCredentialsNamespaces).toEqual([]);
    expect(config.defaultCredentialsNamespaceSelector).toBe('');
    expect(config.agentServerHosts.entries).toEqual(['https://api.example.com']);
    expect(config.allowedControlPlanes.entries).toEqual(['https://api.example.com']);
  });

  it.each<[string, Record<string, string>, string[]]>([
    [
      'set by variable',
      {
        AGENT_SERVER_ALLOWED_HOSTS: '*.agents.example.net, 10.0.0.5:8443, http://127.0.0.1:8080',
        AGENT_SERVER_WILDCARD_HOSTS_ACKNOWLEDGED: 'true',
      },
      ['https://*.agents.example.net', 'https://10.0.0.5:8443', 'http://127.0.0.1:8080'],
    ],
    ['empty: derived', { AGENT_SERVER_ALLOWED_HOSTS: '' }, ['https://api.example.com']],
  ])('allowed hosts %s', (_case, env, entries) => {
    expect(loadConfig([], { ...BASE, ...env }).agentServerHosts.entries).toEqual(entries);
  });

  it.each<[string, string[], RegExp | undefined]>([
    [
      'a wildcard, unacknowledged: refused, naming the setting',
      [],
      /--agent-server-wildcard-hosts-acknowledged=true/,
    ],
    ['a wildcard acknowledged by flag', ['--agent-server-wildcard-hosts-acknowledged=true'], undefined],
  ])('hole 1 (issue 52): %s', (_case, argv, refusal) => {
    const env = { ...BASE, AGENT_SERVER_ALLOWED_HOSTS: 'agents.example.com, *.agents.example.net' };
    if (refusal) {
      expect(() => loadConfig(argv, env)).toThrow(ConfigError);
      expect(() => loadConfig(argv, env)).toThrow(refusal);
      expect(() => loadConfig(argv, env)).toThrow(/https:\/\/\*\.agents\.example\.net is a wildcard/);
    } else {
      expect(loadConfig(argv, env).agentServerHosts.wildcards).toEqual(['https://*.agents.example.net']);
    }
  });

  it('allows no internal address to namespace credentials by default; the setting names some', () => {
    expect(loadConfig([], BASE).agentServerInternalAddresses.refusalOf('169.254.169.254')).toBe('link-local');
    const set = loadConfig([], { ...BASE, AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES: '10.0.0.0/8,agents.svc' });
    expect(set.agentServerInternalAddresses.allowed).toEqual(['10.0.0.0/8', 'agents.svc']);
    expect(set.agentServerInternalAddresses.refusalOf('10.1.2.3')).toBeUndefined();
  });

  it('allows no analysis provider URL by default; the setting lists prefixes', () => {
    expect(loadConfig([], BASE).analysisUrls.refusal('https://m.example.com/x')).toContain(
      '--analysis-allowed-urls (ANALYSIS_ALLOWED_URLS), which is empty',
    );
    const set = loadConfig(
      ['--analysis-allowed-urls=https://m.example.com/api, http://prometheus.monitoring.svc:9090'],
      BASE,
    );
    expect(set.analysisUrls.entries).toEqual([
      'https://m.example.com/api',
      'http://prometheus.monitoring.svc:9090',
    ]);
    expect(set.analysisUrls.refusal('https://m.example.com/api/rate')).toBeUndefined();
  });

  it('reads the namespace list and selector', () => {
    const config = loadConfig(
      [
        '--default-credentials-namespaces=team-a, team-b',
        '--default-credentials-namespace-selector=tier=platform',
      ],
      BASE,
    );
    expect(config.defaultCredentialsNamespaces).toEqual(['team-a', 'team-b']);
    expect(config.defaultCredentialsNamespaceSelector).toBe('tier=platform');
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'a path in an allowed host',
      { AGENT_SERVER_ALLOWED_HOSTS: 'https://a.example.com/x' },
      /--agent-server-allowed-hosts: "https:\/\/a.example.com\/x" is not an allowed-host entry/,
    ],
    [
      'a control-plane URL that is not one',
      { ALLOWED_CONTROL_PLANE_URLS: 'cp.example.com' },
      /--allowed-control-plane-urls: "cp.example.com" is not an allowed control-plane URL/,
    ],
    ['a bare wildcard', { AGENT_SERVER_ALLOWED_HOSTS: '*' }, /--agent-server-allowed-hosts: "\*"/],
    [
      'an internal-address entry that is no address, range or host',
      { AGENT_SERVER_ALLOWED_INTERNAL_ADDRESSES: '10.0.0.0/8, 10.0.0.0/40' },
      /--agent-server-allowed-internal-addresses: "10.0.0.0\/40" is not an address/,
    ],
    [
      'an analysis URL that is not one',
      { ANALYSIS_ALLOWED_URLS: 'm.example.com' },
      /--analysis-allowed-urls: "m.example.com" is not an allowed analysis URL/,
    ],
    [
      'a bad selector',
      { DEFAULT_CREDENTIALS_NAMESPACE_SELECTOR: 'tier=a b' },
      /--default-credentials-namespace-selector: "tier=a b": write key=value/,
    ],
  ])('refuses %s, naming the flag', (_case, env, message) => {
    expect(() => loadConfig([], { ...BASE, ...env })).toThrow(ConfigError);
    expect(() => loadConfig([], { ...BASE, ...env })).toThrow(message);
  });
});

const load = (env: Record<string, string>) => loadConfig([], env);

describe('loadConfig: deadlines and leader election timings', () => {
  it('has defaults below one another', () => {
    const c = load({});
    expect(c.leaderElectionLeaseDuration).toBe(15_000);
    expect(c.leaderElectionRenewDeadline).toBe(10_000);
    expect(c.leaderElectionRetryPeriod).toBe(2_000);
    expect(c.controlPlaneTimeout).toBe(30_000);
  });

  it('has shorter Lease timings of its own under --sharding=auto, each given value winning', () => {
    const timings = (env: Record<string, string>, argv: string[] = []) => {
      const c = loadConfig(argv, env);
      return [c.leaderElectionLeaseDuration, c.leaderElectionRenewDeadline, c.leaderElectionRetryPeriod];
    };
    const table: [Record<string, string>, string[], number[]][] = [
      [{ SHARDING: 'auto' }, [], [6_000, 4_000, 1_000]],
      [{}, ['--sharding=auto'], [6_000, 4_000, 1_000]],
      [{ SHARDING: 'off' }, [], [15_000, 10_000, 2_000]],
      // An empty variable (the chart's value left empty) is not a value: the mode's default holds.
      [{ SHARDING: 'auto', LEADER_ELECTION_LEASE_DURATION: '' }, [], [6_000, 4_000, 1_000]],
      [{ SHARDING: 'auto', LEADER_ELECTION_LEASE_DURATION: '15s' }, [], [15_000, 4_000, 1_000]],
      [{ SHARDING: 'auto' }, ['--leader-election-renew-deadline=5s'], [6_000, 5_000, 1_000]],
      [
        {
          SHARDING: 'auto',
          LEADER_ELECTION_LEASE_DURATION: '15s',
          LEADER_ELECTION_RENEW_DEADLINE: '10s',
          LEADER_ELECTION_RETRY_PERIOD: '2s',
        },
        [],
        [15_000, 10_000, 2_000],
      ],
    ];
    for (const [env, argv, expected] of table)
      expect(timings(env, argv), JSON.stringify([env, argv])).toEqual(expected);
  });

  it("refuses a renew deadline given alone under --sharding=auto when it reaches the mode's lease duration", () => {
    expect(() => load({ SHARDING: 'auto', LEADER_ELECTION_RENEW_DEADLINE: '10s' })).toThrow(
      '--leader-election-renew-deadline must be below --leader-election-lease-duration',
    );
  });

  it('takes timings from flags', () => {
    const c = loadConfig(
      [
        '--leader-election-lease-duration=30s',
        '--leader-election-renew-deadline=20s',
        '--leader-election-retry-period=4s',
        '--control-plane-timeout=10s',
      ],
      {},
    );
    expect([
      c.leaderElectionLeaseDuration,
      c.leaderElectionRenewDeadline,
      c.leaderElectionRetryPeriod,
    ]).toEqual([30_000, 20_000, 4_000]);
    expect(c.controlPlaneTimeout).toBe(10_000);
  });

  it.each([
    [
      { LEADER_ELECTION_RENEW_DEADLINE: '15s' },
      '--leader-election-renew-deadline must be below --leader-election-lease-duration',
    ],
    [
      { LEADER_ELECTION_RETRY_PERIOD: '10s' },
      '--leader-election-retry-period must be below --leader-election-renew-deadline',
    ],
    [{ LEADER_ELECTION_LEASE_DURATION: '1s' }, '--leader-election-lease-duration must be at least 2s'],
    [{ LEADER_ELECTION_RETRY_PERIOD: 'often' }, '--leader-election-retry-period: "often" is not a duration'],
    [{ CONTROL_PLANE_TIMEOUT: '500ms' }, '--control-plane-timeout must be between 1s and 10m'],
    [{ CONTROL_PLANE_TIMEOUT: '1h' }, '--control-plane-timeout must be between 1s and 10m'],
    [{ CONTROL_PLANE_URL: 'https://cp.example.test/#1' }, '--control-plane-url must not have a fragment'],
    [{ CONTROL_PLANE_URL: 'https://cp.example.test/?a=1' }, '--control-plane-url must not have a query'],
    [
      { CONTROL_PLANE_URL: 'https://u:p@cp.example.test/' },
      '--control-plane-url must not have a user name or password',
    ],
  ])('refuses %j naming the flag and the rule', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });
});
