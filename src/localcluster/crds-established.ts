// Waits until CRDs are Established. `kubectl wait --for=condition=Established` fails at once, instead of
// waiting, when it reads a CRD whose `status.conditions` the API server has not filled yet ("accessor
// error: <nil> is of the type <nil>"); on a loaded machine that window is wide enough to hit. That answer
// is retried until the deadline; any other failure is returned as it is.
import { execFile } from 'node:child_process';

export interface KubectlWaitResult {
  readonly code: number;
  readonly stderr: string;
}

const NOT_FILLED_YET = 'accessor error';

function runOnce(
  kubectl: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<KubectlWaitResult> {
  return new Promise((resolve) => {
    execFile(kubectl, args, { env }, (error, _stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stderr: String(stderr) });
    });
  });
}

/**
 * `kubectl [kubectlArgs…] wait --for=condition=Established --timeout=… <targets>`, retried while the
 * CRDs have no conditions yet. Throws naming kubectl's message when it fails for any other reason or
 * when the deadline passes.
 */
export async function waitCrdsEstablished(
  kubectl: string,
  targets: readonly string[],
  options: { kubectlArgs?: readonly string[]; env?: NodeJS.ProcessEnv; timeoutSeconds?: number } = {},
): Promise<void> {
  const timeoutSeconds = options.timeoutSeconds ?? 60;
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    const args = [
      ...(options.kubectlArgs ?? []),
      'wait',
      '--for=condition=Established',
      `--timeout=${left}s`,
    ];
    const result = await runOnce(kubectl, [...args, ...targets], options.env ?? process.env);
    if (result.code === 0) return;
    if (!result.stderr.includes(NOT_FILLED_YET) || Date.now() >= deadline) {
      throw new Error(
        `kubectl wait --for=condition=Established ${targets.join(' ')}: ${result.stderr.trim()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
