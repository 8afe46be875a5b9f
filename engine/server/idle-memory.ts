import type http from 'node:http';
import type https from 'node:https';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from '../log';

/**
 * Memory back to the system once a burst is over.
 *
 * After a burst of heavy requests (the hostile-expression corpus: RSS 850 MB, 230 MB before), the
 * live heap falls back to about 80 MB at the next collection, but V8 keeps the pages it freed in its
 * page pool, committed and resident, and returns them only in a memory-reducing collection, which it
 * runs near its heap limit and, through its memory reducer, after about 8 s of little work. `serve`
 * runs without that reducer (main.js's shebang: --no-memory-reducer), because a memory-reducing
 * collection also throws away the optimised code and shrinks the heap: the next burst then cost 30–45%
 * more CPU per request for its first seconds (bench case 1, whose processes take turns with pauses of
 * 10 s, showed it on every run; docs/operations.md has the figures). A normal full collection
 * (what `--expose-gc`'s `gc()` runs) leaves RSS where it was; glibc's heap and the other native
 * allocations are a few tens of MB and play no part.
 *
 * So, when no request has arrived for IDLE_MS and RSS has grown by GROWTH_BYTES or more since the
 * last look, this runs V8's memory-reducing collection once ("last resort": the one it runs itself
 * at the heap limit). It takes a few hundred milliseconds on an idle process; a request arriving
 * meanwhile waits for it. GROWTH_BYTES is well above what heavy ordinary load adds (the example's
 * 508-order list at 8 connections: 300–390 MB) and well below what the hostile corpus adds (about
 * 1,100 MB without the memory reducer), so that cost is paid after an unusual burst, not after every
 * busy minute. An idle process whose RSS does not grow is never collected again, and a process that
 * stays busy is never interrupted. docs/operations.md says so for operators.
 */
const IDLE_MS = 5000;
const GROWTH_BYTES = 512 * 1024 * 1024;
const CHECK_MS = 1000;

interface IdleMemory {
  /** Stops the checks (the process is stopping). */
  stop(): void;
}

/** V8's memory-reducing full collection, without `--expose-gc` on the command line (or `gc` left on any global). */
function memoryReducingCollection(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  // Contexts made from now on (none in the engine today) get no `gc` global.
  v8.setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

export function releaseMemoryWhenIdle(server: http.Server | https.Server, log: Logger): IdleMemory {
  const collect = memoryReducingCollection();
  let lastRequestAt = Date.now();
  let inFlight = 0;
  let baseline = process.memoryUsage.rss();
  const onRequest = (_request: http.IncomingMessage, response: http.ServerResponse) => {
    lastRequestAt = Date.now();
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
      lastRequestAt = Date.now();
    });
  };
  server.on('request', onRequest);
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (inFlight > 0 || Date.now() - lastRequestAt < IDLE_MS || rss - baseline < GROWTH_BYTES) {
      // A process that gave memory back on its own (or never grew) starts from where it is now.
      baseline = Math.min(baseline, rss);
      return;
    }
    const started = performance.now();
    collect();
    baseline = process.memoryUsage.rss();
    log.info({ rssBeforeMb: Math.round(rss / 2 ** 20), rssAfterMb: Math.round(baseline / 2 ** 20), ms: Math.round(performance.now() - started) }, 'idle after a burst: memory the heap no longer uses returned to the system');
  }, CHECK_MS);
  // The checks never keep a stopping process alive.
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      server.off('request', onRequest);
    },
  };
}
