import { readFile, writeFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import type { Pki } from './certs.ts';

export const CONTEXT_NAME = 'agent-operator-local';

/** Writes a kubeconfig that reaches `server` as the admin user (certificates embedded). */
export async function writeKubeconfig(path: string, server: string, pki: Pki): Promise<void> {
  const base64 = async (file: string) => (await readFile(file)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: CONTEXT_NAME, cluster: { server, 'certificate-authority-data': await base64(pki.caCert) } },
    ],
    users: [
      {
        name: `${CONTEXT_NAME}-admin`,
        user: {
          'client-certificate-data': await base64(pki.adminCert),
          'client-key-data': await base64(pki.adminKey),
        },
      },
    ],
    contexts: [
      {
        name: CONTEXT_NAME,
        context: { cluster: CONTEXT_NAME, user: `${CONTEXT_NAME}-admin`, namespace: 'default' },
      },
    ],
    'current-context': CONTEXT_NAME,
  };
  await writeFile(path, yaml.dump(config), { mode: 0o600 });
}
