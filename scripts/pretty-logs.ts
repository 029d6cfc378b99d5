/**
 * The controller's JSON log lines as readable lines, for a person at a terminal (`make run`): time, level,
 * message, then the other fields on the same line. The controller itself always writes JSON (the image,
 * CI, `make controller`); only `make run` turns it into lines, and only when its output is a terminal.
 * Lines that are not JSON (a start-up failure) pass through as they are.
 */
import pinoPretty from 'pino-pretty';

export function prettyLogs(destination: NodeJS.WritableStream, colorize: boolean): NodeJS.WritableStream {
  return pinoPretty({
    destination,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The process name is the same on every line; pid and hostname are not written.
    ignore: 'app',
    // `error` holds a message string here (never an error object): it stays on the line.
    errorLikeObjectKeys: ['err'],
  });
}
