/**
 * The operator's logger: pino JSON lines with the level from config. Nothing logs a credential or a
 * secret value on purpose; the redact paths are the second line of defence should an object carrying
 * one ever reach a log call.
 */
import { type DestinationStream, type Logger, pino } from 'pino';

export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'bearerToken',
  '*.bearerToken',
  'secrets[*].value',
  '*.secrets[*].value',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'data',
  '*.data',
  'stringData',
  '*.stringData',
];

/**
 * Levels as words (`"level":"info"`), which log pipelines read without pino's number table. The process
 * is named under `app`, leaving `component` to the child loggers (observer, events, webhook-receiver):
 * pino does not merge bindings, so a base `component` made those lines carry the key twice, and strict
 * JSON parsers (Elasticsearch) refuse such lines.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { app: 'agent-deployment-operator' },
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
