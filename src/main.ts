/**
 * The controller process: configuration, logger, Kubernetes client, the operator, signals. Every
 * start-up failure ends in one line on stderr naming the cause and the fix, and exit code 2 (bad option)
 * or 1 (anything else); src/startup.ts checks the kubeconfig and the API server first.
 */
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logging.ts';
import { startOperator } from './operator.ts';
import { helpText } from './options.ts';
import { checkApiServer, loadKubeAccess, StartupError } from './startup.ts';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${helpText()}\n`);
  process.exit(0);
}

/** One line, whatever the message holds (a YAML parser's excerpt spans several). */
function fail(message: string, code: number): never {
  process.stderr.write(`agent-deployment-operator: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(code);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(argv, process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  fail(`configuration error: ${err.message.split('\n').join('; ')} (see --help)`, 2);
}

const logger = createLogger(config.logLevel);
let operator: Awaited<ReturnType<typeof startOperator>>;
try {
  const access = loadKubeAccess(process.env);
  await checkApiServer(access);
  operator = await startOperator({ config, access, logger, onLostLeadership: () => process.exit(1) });
} catch (err) {
  if (err instanceof StartupError) fail(err.message, 1);
  fail(`start-up failed: ${err instanceof Error ? err.message : String(err)}`, 1);
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    operator.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ error: err instanceof Error ? err.message : String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
