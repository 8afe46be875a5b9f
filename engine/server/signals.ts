/**
 * The operator's signals: SIGHUP reloads the mappings; SIGTERM and SIGINT stop gracefully. A second
 * SIGTERM/SIGINT while stopping is ignored (the shutdown timeout bounds the wait), so a supervisor
 * that repeats the signal cannot cut requests in flight short.
 */
export function onSignals(handlers: { readonly reload: () => void; readonly stop: (signal: NodeJS.Signals) => void }): () => void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    handlers.stop(signal);
  };
  const reload = () => {
    if (!stopping) handlers.reload();
  };
  process.on('SIGHUP', reload);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return () => {
    process.off('SIGHUP', reload);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
}
