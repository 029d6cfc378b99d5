/**
 * CLI: `node src/simulator/main.ts [--port N] [--api-key K] [--templates file.json] [--revision-step-ms N]`.
 * Environment: SIMULATOR_PORT, SIMULATOR_API_KEY (flags win).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_API_KEY, EXAMPLE_TEMPLATES, startSimulator } from './index.ts';
import { SandboxTemplateSeedSchema } from './templates.ts';

const Port = z.coerce.number().int().min(0).max(65535);
const StepMs = z.coerce.number().int().min(0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
      templates: { type: 'string' },
      'revision-step-ms': { type: 'string' },
    },
  });
  const port = Port.parse(values.port ?? process.env.SIMULATOR_PORT ?? 0);
  const envKey = process.env.SIMULATOR_API_KEY;
  const apiKeys = values['api-key'] ?? (envKey ? [envKey] : [DEFAULT_API_KEY]);
  const templates = values.templates
    ? z.array(SandboxTemplateSeedSchema).parse(JSON.parse(await readFile(values.templates, 'utf8')))
    : EXAMPLE_TEMPLATES;
  const simulator = await startSimulator({
    port,
    apiKeys,
    templates,
    ...(values.host ? { host: values.host } : {}),
    ...(values['revision-step-ms'] ? { revisionStepMs: StepMs.parse(values['revision-step-ms']) } : {}),
  });
  const stop = () => {
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`simulator listening on ${simulator.url}`);
}

main().catch((error: unknown) => {
  console.error(`simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
