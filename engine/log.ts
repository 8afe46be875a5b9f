import pino from 'pino';

export type Logger = pino.Logger;

/** The levels `serve --log-level` and LOG_LEVEL take, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Structured JSON logs (pino): one line per request and per outbound call, machine-readable for the
 * operator's log stack. `LOG_LEVEL` sets the level; tests pass a silent logger.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    name: options.name ?? 'adapter-engine',
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    // Secrets travel in headers; never let a header value reach a log line by accident.
    redact: { paths: ['headers.authorization', 'headers.Authorization', '*.headers.authorization', '*.headers.Authorization'], censor: '***' },
  });
}

export const silentLogger: Logger = pino({ level: 'silent' });
