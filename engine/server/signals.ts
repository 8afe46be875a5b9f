/**
 * The operator's signals: SIGHUP reloads the mappings; SIGTERM and SIGINT stop gracefully. A second
 * SIGTERM/SIGINT while stopping is ignored (the shutdown timeout bounds the wait), so a supervisor
 * that repeats the signal cannot cut requests in flight short.
 *
 * Install these before the first "listening" line: a supervisor may send SIGHUP as soon as it sees one,
 * and Node's default for SIGHUP ends the process. A stop asked for while starting resolves `stopped`,
 * which the caller awaits once started.
 */
export function onSignals(reload: () => void): { readonly stopped: Promise<NodeJS.Signals>; readonly remove: () => void } {
  let stopping = false;
  let resolveStopped: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => { resolveStopped = resolve; });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    resolveStopped(signal);
  };
  const onHup = () => {
    if (!stopping) reload();
  };
  process.on('SIGHUP', onHup);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    stopped,
    remove: () => {
      process.off('SIGHUP', onHup);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    },
  };
}
