import pino from 'pino';

export type Logger = pino.Logger;

/** The levels `serve --log-level` and LOG_LEVEL take, most severe first. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  /**
   * Masks the secret values it knows in each line's JSON text (the engine's SecretRegistry): an ERP's
   * answer quoted in a message may echo a credential, and no field list can say where.
   */
  readonly secrets?: { json(text: string): string };
  /** Where the lines go; standard output by default. */
  readonly destination?: pino.DestinationStream;
}

/**
 * Structured JSON logs (pino): one line per request and per outbound call, machine-readable for the
 * operator's log stack. `LOG_LEVEL` sets the level; tests pass a silent logger.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const { secrets } = options;
  return pino({
    name: options.name ?? 'adapter-engine',
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    // Secrets travel in headers; never let a header value reach a log line by accident.
    redact: { paths: ['headers.authorization', 'headers.Authorization', '*.headers.authorization', '*.headers.Authorization'], censor: '***' },
    ...(secrets ? { hooks: { streamWrite: (line: string) => secrets.json(line) } } : {}),
  }, options.destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });

/**
 * A child logger carrying `bindings` on each line, or the logger itself when it writes nothing (level
 * silent, as tests, dry runs and the bench run it): pino's child writes its bindings as JSON text through
 * the redaction at once, a few µs per request that no line would ever show.
 */
export function childLogger(log: Logger, bindings: pino.Bindings): Logger {
  return log.isLevelEnabled('fatal') ? log.child(bindings) : log;
}
