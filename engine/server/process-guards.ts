import type { Engine } from '../core/engine';
import type { Logger } from '../log';
import { EXIT_CODES } from '../errors';

/**
 * What the serving process does with a fault no request caught. An unhandled promise rejection is a bug
 * in one request's work, not a broken process: it is logged as an engine fault with the request it
 * belongs to (the engine's request context follows the promise), and every other customer keeps being
 * served. An uncaught exception may have left shared state half-changed, so it is logged and the
 * process exits non-zero for its supervisor to restart it.
 */
export function installProcessGuards(engine: Pick<Engine, 'currentRequest'>, log: Logger, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const onRejection = (reason: unknown) => {
    const request = engine.currentRequest();
    log.error({ err: reason, fault: 'unhandledRejection', ...(request ? { request } : {}) }, 'engine fault: a promise was rejected and nothing handled it; the process keeps serving');
  };
  const onException = (error: Error) => {
    const request = engine.currentRequest();
    log.fatal({ err: error, fault: 'uncaughtException', ...(request ? { request } : {}) }, 'engine fault: uncaught exception; exiting so the supervisor restarts the process');
    // pino writes synchronously to stdout by default, so the line is out before the exit.
    exit(EXIT_CODES.CRASHED);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
