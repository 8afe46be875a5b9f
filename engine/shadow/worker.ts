import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createSchemaRegistry } from '../contract/schema-registry';
import { checkMappingText } from '../mapping/load';
import { firstPerWindow } from '../first-per-window';
import { prepareCandidate, runJob, type PreparedCandidate } from './run';
import type { CandidateSource, FromThread, RunJob, ThreadSettings, ToThread } from './thread-messages';

/**
 * The shadow's thread: the candidates run here, at the lowest CPU priority the system gives, so that
 * their work goes only where the live requests leave the CPU idle. On Linux a thread's priority is its
 * own: the live thread keeps its own. The thread compiles each candidate from the very text the live
 * thread compiled, and runs the jobs one after another, in the order they came.
 */

/** A run of this kind is kept in the journal at most once a second (see runner.ts). */
const KEPT_EVERY_MS = 1000;
/** Kinds remembered at most; beyond it the memory starts again (a kind may then be kept twice in a second). */
const KINDS_LIMIT = 1000;
/** The lowest priority (the highest nice value) on Linux and macOS. */
const LOWEST_PRIORITY = 19;

function start(port: NonNullable<typeof parentPort>, settings: ThreadSettings): void {
  try {
    os.setPriority(LOWEST_PRIORITY);
  } catch (error) {
    tell({ type: 'problem', message: `the shadow's thread could not lower its priority, so candidates compete with live requests: ${(error as Error).message}` });
  }
  const schemas = createSchemaRegistry();
  const byName = new Map<string, { readonly source: CandidateSource; readonly prepared: PreparedCandidate }>();
  // The clock of the window is the live answer's time, given with each job: a run late in the queue
  // counts in the second its live request was answered.
  let jobAt = 0;
  const keep = firstPerWindow(KEPT_EVERY_MS, () => jobAt, KINDS_LIMIT);
  let queue: Promise<void> = Promise.resolve();

  function tell(message: FromThread): void {
    port.postMessage(message);
  }

  function replace(candidates: readonly CandidateSource[]): void {
    const old = new Map(byName);
    byName.clear();
    for (const source of candidates) {
      const before = old.get(source.name);
      if (before && before.source.text === source.text && before.source.baseDir === source.baseDir) {
        byName.set(source.name, before);
        continue;
      }
      const result = checkMappingText(source.text, source.file, settings.env, source.baseDir, 'error', settings.compileOptions);
      if (result.mapping) byName.set(source.name, { source, prepared: prepareCandidate(result.mapping, schemas) });
      else tell({ type: 'problem', message: `${source.file} did not compile in the shadow's thread, so it does not run: ${result.issues.map((issue) => issue.message).join('; ')}` });
    }
    for (const [name, gone] of old) if (byName.get(name) !== gone) void gone.prepared.engine.close();
  }

  async function run(id: number, at: number, job: RunJob): Promise<void> {
    const candidate = byName.get(job.mapping);
    // Only when the candidate did not compile here (told as a problem when it was given).
    if (!candidate) return tell({ type: 'ran', id, outcome: 'failed' });
    try {
      jobAt = at;
      tell({ type: 'ran', id, ...(await runJob(candidate.prepared, job, keep)) });
    } catch (error) {
      tell({ type: 'problem', message: `a shadow run failed: ${(error as Error).stack ?? String(error)}` });
      tell({ type: 'ran', id, outcome: 'failed' });
    }
  }

  port.on('message', (message: ToThread) => {
    const next = message.type === 'candidates' ? () => replace(message.candidates) : () => run(message.id, message.at, message.job);
    // One at a time, in order; a failure is told and the queue goes on.
    queue = queue.then(next).catch((error: unknown) => tell({ type: 'problem', message: `the shadow's thread failed: ${(error as Error).stack ?? String(error)}` }));
  });
}

if (parentPort) start(parentPort, workerData as ThreadSettings);
