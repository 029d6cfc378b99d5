/** The controller process: configuration, logger, Kubernetes client, the operator, signals. */
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, helpText, loadConfig } from './config.ts';
import { createLogger } from './logging.ts';
import { startOperator } from './operator.ts';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${helpText()}\n`);
  process.exit(0);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(argv, process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`configuration error:\n${err.message}\n`);
  process.exit(2);
}

const logger = createLogger(config.logLevel);
const kc = new KubeConfig();
kc.loadFromDefault();

const operator = await startOperator({ config, kc, logger, onLostLeadership: () => process.exit(1) });

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
