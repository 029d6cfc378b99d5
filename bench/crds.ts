/** Installs crds/ (of this checkout or another) with the cluster's kubectl: server-side apply, then wait until Established. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { waitCrdsEstablished } from '../src/localcluster/crds-established.ts';

const CRD_DIR = resolve(import.meta.dirname, '..', 'crds');
const run = promisify(execFile);

/** `crdDir`: another checkout's crds/ (bench --controller-tree); default this one's. */
export async function installCrds(binDir: string, kubeconfigPath: string, crdDir = CRD_DIR): Promise<void> {
  const kubectl = async (args: string[]) => {
    try {
      await run(join(binDir, 'kubectl'), ['--kubeconfig', kubeconfigPath, ...args]);
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim();
      throw new Error(`kubectl ${args[0]} failed: ${stderr || (err as Error).message}`);
    }
  };
  await kubectl(['apply', '--server-side', '-f', crdDir]);
  await waitCrdsEstablished(join(binDir, 'kubectl'), ['-f', crdDir], {
    kubectlArgs: ['--kubeconfig', kubeconfigPath],
  });
}
