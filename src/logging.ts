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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { component: 'agent-deployment-operator' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
