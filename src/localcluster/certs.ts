import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of the PEM files the local API server and its kubeconfig use. */
export interface Pki {
  readonly caCert: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
}

// One openssl config for every certificate; `-extensions` picks the section.
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[serving]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
`;

async function writeKeyPair(privatePath: string, publicPath?: string): Promise<void> {
  // P-256 keys: fast to generate, accepted for TLS and for service-account token signing (ES256).
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await writeFile(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  if (publicPath) await writeFile(publicPath, publicKey.export({ type: 'spki', format: 'pem' }));
}

/** Where `generatePki(dir)` puts each file. */
export function pkiPaths(dir: string): Pki {
  const file = (name: string) => join(dir, name);
  return {
    caCert: file('ca.crt'),
    servingCert: file('serving.crt'),
    servingKey: file('serving.key'),
    adminCert: file('admin.crt'),
    adminKey: file('admin.key'),
    serviceAccountKey: file('sa.key'),
    serviceAccountPub: file('sa.pub'),
  };
}

/**
 * Generates a CA, a serving certificate for 127.0.0.1/localhost, an admin client certificate in group
 * system:masters and a service-account key pair under `dir`, with node:crypto keys and the openssl CLI.
 */
export async function generatePki(dir: string): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  const config = file('openssl.cnf');
  await writeFile(config, OPENSSL_CONFIG);
  await Promise.all(['ca', 'serving', 'admin'].map((name) => writeKeyPair(file(`${name}.key`))));
  await writeKeyPair(file('sa.key'), file('sa.pub'));

  await run('openssl', [
    'req',
    '-x509',
    '-new',
    '-key',
    file('ca.key'),
    '-subj',
    '/CN=agent-operator-local-ca',
    '-days',
    '3650',
    '-config',
    config,
    '-extensions',
    'ca',
    '-out',
    file('ca.crt'),
  ]);
  const issue = async (name: string, subject: string, extensions: string) => {
    await run('openssl', [
      'req',
      '-new',
      '-key',
      file(`${name}.key`),
      '-subj',
      subject,
      '-config',
      config,
      '-out',
      file(`${name}.csr`),
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-days',
      '3650',
      '-extfile',
      config,
      '-extensions',
      extensions,
      '-out',
      file(`${name}.crt`),
    ]);
  };
  await Promise.all([
    issue('serving', '/CN=kube-apiserver', 'serving'),
    issue('admin', '/O=system:masters/CN=agent-operator-admin', 'client'),
  ]);
  return pkiPaths(dir);
}
