import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../paths';
import type { FromThread, ThreadSettings, ToThread } from './thread-messages';

/**
 * The shadow's thread as the live thread holds it: started with the compile settings, told candidates
 * and jobs, and heard back. The thread runs the compiled worker.js, from dist/ also when the live
 * thread runs from sources (the tests): a thread cannot run TypeScript, and `npm test` builds first.
 */
export interface ShadowThread {
  post(message: ToThread): void;
  /** Stops the thread; runs under way are dropped (call after the runner is idle). */
  close(): Promise<void>;
}

const WORKER_FILE = path.join(PROJECT_ROOT, 'dist', 'engine', 'shadow', 'worker.js');

/**
 * A candidate that builds an ever-larger value fails its own thread at this heap, not the process: the
 * live thread's memory stays its own. A large list's run holds its recorded answers and two envelopes.
 */
const HEAP_LIMIT_MB = 1024;

export function startShadowThread(settings: ThreadSettings, on: { readonly message: (message: FromThread) => void; readonly ended: (why: string) => void }): ShadowThread {
  const worker = new Worker(WORKER_FILE, { workerData: settings, resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB }, stdout: false, stderr: false });
  // The thread never keeps the process alive: a server stops when its listeners close.
  worker.unref();
  let closing = false;
  let failure: Error | undefined;
  worker.on('message', on.message);
  worker.on('error', (error) => {
    failure = error;
  });
  worker.on('exit', (code) => {
    if (!closing) on.ended(`the shadow's thread stopped (exit code ${code})${failure ? `: ${failure.message}` : ''}`);
  });
  return {
    post: (message) => worker.postMessage(message),
    async close() {
      closing = true;
      await worker.terminate();
    },
  };
}
