/**
 * The krew plugin manifest (agd.yaml) of the single-file archives, and krew's rules for one, as its
 * index validation states them: apiVersion krew.googlecontainertools.github.com/v1alpha2 and kind
 * Plugin; a safe name ([\w-]+, no Windows device name) equal to the file's; a short description; a
 * semantic version with a leading v; at least one platform, each with a uri, a sha256 of 64 lowercase
 * hex digits, a bin, file operations, and a selector that is not empty and selects on os and arch only.
 */
import yaml from 'js-yaml';
import type { Platform } from './node-binary.ts';

export const KREW_API_VERSION = 'krew.googlecontainertools.github.com/v1alpha2';
export const PLUGIN_NAME = 'agd';
export const BIN = 'kubectl-agd';

export interface BuiltArchive {
  platform: Platform;
  /** The archive's file name, e.g. kubectl-agd_linux_amd64.tar.gz */
  file: string;
  sha256: string;
}

/** The archive name of a platform, as the manifest's uri names it. */
export const archiveName = (p: Platform) => `${BIN}_${p.os}_${p.arch}.tar.gz`;

/** `{{version}}` in the base URL is replaced by the plugin version (e.g. v0.1.0). */
export function krewManifest(version: string, archives: readonly BuiltArchive[], baseUrl: string): string {
  const tag = `v${version}`;
  const manifest = {
    apiVersion: KREW_API_VERSION,
    kind: 'Plugin',
    metadata: { name: PLUGIN_NAME },
    spec: {
      version: tag,
      homepage: 'https://github.com/agents-dev/agent-deployment-operator',
      shortDescription: 'Plan AgentDeployments in CI and import existing agent deployments',
      description:
        'kubectl agd plan says what the agent-deployment-operator would do on the control plane for each ' +
        'AgentDeployment and SandboxTemplate given, before they are applied (as terraform plan does); ' +
        'kubectl agd import writes the objects of deployments that exist already. A single executable: ' +
        'no Node.js needed.\n',
      platforms: archives.map((a) => ({
        selector: { matchLabels: { os: a.platform.os, arch: a.platform.arch } },
        uri: `${baseUrl.replaceAll('{{version}}', tag).replace(/\/$/, '')}/${a.file}`,
        sha256: a.sha256,
        bin: BIN,
        files: [{ from: BIN, to: '.' }],
      })),
    },
  };
  return yaml.dump(manifest, { lineWidth: -1, noRefs: true });
}

const SAFE_NAME = /^[\w-]+$/;
const SHA256 = /^[a-f0-9]{64}$/;
const SEMVER = /^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const WINDOWS_DEVICES = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`]),
]);

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Each rule the manifest breaks, naming the field; empty when krew accepts it. `name` is the file's. */
export function krewProblems(text: string, name: string): string[] {
  const doc = obj(yaml.load(text)) ?? {};
  const problems: string[] = [];
  if (doc.apiVersion !== KREW_API_VERSION) problems.push(`apiVersion: must be ${KREW_API_VERSION}`);
  if (doc.kind !== 'Plugin') problems.push('kind: must be Plugin');
  if (!SAFE_NAME.test(name) || WINDOWS_DEVICES.has(name.toLowerCase()))
    problems.push(
      `the plugin name ${JSON.stringify(name)} is not allowed: must match ${SAFE_NAME.source}, not a Windows device name`,
    );
  const metadataName = str(obj(doc.metadata)?.name);
  if (metadataName !== name)
    problems.push(
      `metadata.name: must be ${JSON.stringify(name)} (the file's name), not ${JSON.stringify(metadataName)}`,
    );
  const spec = obj(doc.spec) ?? {};
  if (!str(spec.shortDescription)) problems.push('spec.shortDescription: must be set');
  if (!SEMVER.test(str(spec.version)))
    problems.push('spec.version: must be a semantic version with a leading v (v1.2.3)');
  const platforms = Array.isArray(spec.platforms) ? spec.platforms : [];
  if (platforms.length === 0) problems.push('spec.platforms: must name at least one platform');
  platforms.forEach((value, i) => {
    const at = `spec.platforms[${i}]`;
    const p = obj(value) ?? {};
    if (!str(p.uri)) problems.push(`${at}.uri: must be set`);
    if (!SHA256.test(str(p.sha256))) problems.push(`${at}.sha256: must be 64 lowercase hex digits`);
    if (!str(p.bin)) problems.push(`${at}.bin: must be set`);
    if (!Array.isArray(p.files) || p.files.length === 0)
      problems.push(`${at}.files: must name the files to install`);
    const selector = obj(p.selector);
    if (!selector) {
      problems.push(`${at}.selector: must be set`);
      return;
    }
    const labels = obj(selector.matchLabels);
    const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : undefined;
    if (selector.matchLabels !== undefined && (!labels || Object.keys(labels).length === 0))
      problems.push(`${at}.selector.matchLabels: specified but empty`);
    if (expressions !== undefined && expressions.length === 0)
      problems.push(`${at}.selector.matchExpressions: specified but empty`);
    if (!labels && !expressions) problems.push(`${at}.selector: must not be empty`);
    const keys = [...Object.keys(labels ?? {}), ...(expressions ?? []).map((e) => str(obj(e)?.key))];
    for (const key of keys)
      if (key !== 'os' && key !== 'arch')
        problems.push(`${at}.selector: key ${JSON.stringify(key)} not supported (os and arch only)`);
  });
  return problems;
}
