import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { archiveName, krewManifest, krewProblems } from './krew.ts';

const SHA = 'a'.repeat(64);
const linux = { os: 'linux', arch: 'amd64' } as const;
const good = krewManifest(
  '1.2.3',
  [{ platform: linux, file: archiveName(linux), sha256: SHA }],
  'https://x/{{version}}/',
);

interface PlatformDoc {
  uri?: string;
  sha256?: string;
  bin?: string;
  files?: unknown[];
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
}
interface ManifestDoc {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string };
  spec: { shortDescription?: string; version?: string; platforms: PlatformDoc[] };
}
const first = (d: ManifestDoc): PlatformDoc => d.spec.platforms[0] as PlatformDoc;

/** The good manifest with one change made to its parsed form. */
function edited(change: (doc: ManifestDoc) => void): string {
  const doc = yaml.load(good) as ManifestDoc;
  change(doc);
  return yaml.dump(doc);
}

describe('krewManifest', () => {
  it("names each archive's uri with the version, its sha256 and an os/arch selector", () => {
    expect(krewProblems(good, 'agd')).toEqual([]);
    const spec = (yaml.load(good) as { spec: Record<string, unknown> }).spec;
    expect(spec.version).toBe('v1.2.3');
    expect(spec.platforms).toEqual([
      {
        selector: { matchLabels: { os: 'linux', arch: 'amd64' } },
        uri: 'https://x/v1.2.3/kubectl-agd_linux_amd64.tar.gz',
        sha256: SHA,
        bin: 'kubectl-agd',
        files: [{ from: 'kubectl-agd', to: '.' }],
      },
    ]);
  });
});

describe("krewProblems: krew's manifest rules", () => {
  it.each<[string, string, string, string?]>([
    [
      'another apiVersion',
      edited((d) => {
        d.apiVersion = 'krew.googlecontainertools.github.com/v1alpha1';
      }),
      'apiVersion: must be',
    ],
    [
      'another kind',
      edited((d) => {
        d.kind = 'Plugins';
      }),
      'kind: must be Plugin',
    ],
    ['a name other than the file', good, 'metadata.name: must be "other"', 'other'],
    [
      'an unsafe name',
      edited((d) => {
        d.metadata.name = 'a/b';
      }),
      'is not allowed',
      'a/b',
    ],
    [
      'a Windows device name',
      edited((d) => {
        d.metadata.name = 'COM1';
      }),
      'is not allowed',
      'COM1',
    ],
    [
      'no short description',
      edited((d) => {
        delete d.spec.shortDescription;
      }),
      'spec.shortDescription: must be set',
    ],
    [
      'a version without v',
      edited((d) => {
        d.spec.version = '1.2.3';
      }),
      'spec.version: must be a semantic version',
    ],
    [
      'no platform',
      edited((d) => {
        d.spec.platforms = [];
      }),
      'spec.platforms: must name at least one',
    ],
    [
      'no uri',
      edited((d) => {
        delete first(d).uri;
      }),
      'spec.platforms[0].uri: must be set',
    ],
    [
      'an uppercase sha256',
      edited((d) => {
        first(d).sha256 = 'A'.repeat(64);
      }),
      'spec.platforms[0].sha256',
    ],
    [
      'a short sha256',
      edited((d) => {
        first(d).sha256 = 'a'.repeat(63);
      }),
      'spec.platforms[0].sha256',
    ],
    [
      'no bin',
      edited((d) => {
        delete first(d).bin;
      }),
      'spec.platforms[0].bin: must be set',
    ],
    [
      'no files',
      edited((d) => {
        first(d).files = [];
      }),
      'spec.platforms[0].files',
    ],
    [
      'no selector',
      edited((d) => {
        delete first(d).selector;
      }),
      'spec.platforms[0].selector: must be set',
    ],
    [
      'an empty selector',
      edited((d) => {
        first(d).selector = {};
      }),
      'selector: must not be empty',
    ],
    [
      'empty matchLabels',
      edited((d) => {
        first(d).selector = { matchLabels: {} };
      }),
      'matchLabels: specified but empty',
    ],
    [
      'empty matchExpressions',
      edited((d) => {
        first(d).selector = { matchExpressions: [] };
      }),
      'matchExpressions: specified but empty',
    ],
    [
      'a key other than os and arch',
      edited((d) => {
        (first(d).selector as { matchLabels: Record<string, string> }).matchLabels.distro = 'x';
      }),
      'key "distro" not supported',
    ],
  ])('%s', (_, text, problem, name = 'agd') => {
    expect(krewProblems(text, name).join('\n')).toContain(problem);
  });
});
