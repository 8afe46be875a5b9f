import { performance } from 'node:perf_hooks';
import type { RouteSpec } from '../contract/routes';
import type { EngineAnswer } from '../core/stage';
import type { Journal } from '../journal/journal';
import type { Logger } from '../log';
import type { Mapping } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import { inputOf } from '../testing/recorded-case';
import { BUSY_WINDOW_MS, busyMeter, wakeUps, type LiveRequests } from './busy';
import { keptEntry, maskersOfPairs, type RunOf } from './kept';
import { startShadowThread, type ShadowThread } from './thread';
import type { FromThread, KeptRun, RunJob, ShadowOutcome, ThreadSettings } from './thread-messages';

/**
 * A shadow candidate: a new version of a served mapping that runs beside the live one. After the live
 * answer of a read request (GET routes, reports, export values, file parsing) is sent, the candidate
 * runs on the ERP answers the live mapping received, recorded in its trace, as a mapping test runs on
 * recorded answers: it sends nothing to the ERP, and a call the live run did not make fails it. Its
 * envelope is compared with the live one: same, different (kept in the journal under `<name>~shadow`
 * with the field-level difference, once a second of each kind) or failed.
 *
 * The candidates run in a thread of their own at the lowest CPU priority (worker.ts): at 300 req/s,
 * runs in the live thread doubled the live answers' p99, each run costing about what a live request
 * costs. The live thread hands the runs over one at a time, and only while no live request is under
 * way and it uses less than `maxCpuShare` of a CPU: even at the lowest priority, runs during a burst
 * of live requests took CPU from them (p99 1.35x with 300 requests at the start of each second). Runs
 * wait meanwhile, 64 at most; beyond that a read is skipped.
 */
export interface ShadowRunner {
  /** The candidates by the name of the mapping they shadow; a reload replaces them. */
  replace(candidates: readonly Candidate[]): void;
  readonly candidates: readonly Mapping[];
  /** A live answer was sent: hand its candidate run over, when there is a candidate and the request is a read. */
  answered(answer: EngineAnswer): void;
  /** Resolves when every run handed over has come back (tests, the bench, a graceful stop). */
  idle(): Promise<void>;
  /** Stops the candidates' thread, once idle. */
  close(): Promise<void>;
}

/** A candidate, with the text it was compiled from: the shadow's thread compiles the same text. */
export interface Candidate {
  readonly mapping: Mapping;
  readonly text: string;
  /** Where its relative paths (TLS files) are read from. */
  readonly baseDir: string;
}

export interface ShadowSettings {
  readonly journal: Journal;
  readonly meter: Meter;
  readonly log: Logger;
  /** Share of one CPU (the live thread's CPU time, 0..1) above which candidates are skipped. */
  readonly maxCpuShare: number;
  /** Milliseconds, for the journal's one run a second of each kind of difference; Date.now by default. */
  readonly now?: () => number;
  /** How the served mappings are compiled: the thread compiles the candidates alike. */
  readonly thread: ThreadSettings;
  /** The live requests under way (the server's): a run is handed over only while there is none. */
  readonly live: LiveRequests;
}

/** Operations that only read, besides the GET routes: the candidate never runs a write or an event. */
const READ_POSTS = new Set(['GetReport', 'GetExportValues', 'ParseWorkOrderFile', 'ParseItemFile']);

function isRead(route: RouteSpec): boolean {
  return route.method === 'GET' || READ_POSTS.has(route.operationId);
}

/**
 * Runs waiting, at most, and the characters of their jobs: beyond either a read is skipped. Under a
 * load that leaves no pause the live thread must not hold every request's answers, nor the thread
 * run a backlog into the next load; a long list's job can be tens of MB alone.
 */
const QUEUE_LIMIT = 64;
const QUEUE_CHARS = 16 * 1024 * 1024;

/** A read's run, waiting for the live thread to be quiet: what the candidate runs on, as JSON text. */
interface Waiting extends RunOf {
  readonly job: string;
  /** When the live answer was sent (the clock of the journal's one kept run a second per kind). */
  readonly at: number;
  /** performance.now() when it began to wait. */
  readonly since: number;
}

/**
 * How long a run waits for a pause between live requests before it goes while they are under way (if
 * the live thread's CPU allows): requests waiting on a slow ERP use no CPU, and may never all end at once.
 */
const PAUSE_WAIT_MS = 1000;

/** After the thread stopped unasked, runs are skipped this long before it is started again: a thread that cannot start is not started for every request. */
const RESTART_AFTER_MS = 10_000;

export function createShadowRunner(settings: ShadowSettings): ShadowRunner {
  const { journal, meter, log } = settings;
  const now = settings.now ?? Date.now;
  const busy = busyMeter();
  const wake = wakeUps(settings.live, () => pump());
  const maskOf = maskersOfPairs();
  let byName = new Map<string, Candidate>();
  const waiting: Waiting[] = [];
  let waitingChars = 0;
  let inFlight: { readonly id: number; readonly run: RunOf } | undefined;
  let lastId = 0;
  const idleWaiters: (() => void)[] = [];
  let thread: ShadowThread | undefined;
  let stoppedAt = -Infinity;

  const settled = () => {
    if (inFlight || waiting.length > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };
  const count = (run: { readonly live: Mapping; readonly operation: string }, outcome: ShadowOutcome | 'skipped') => meter.shadow({ mapping: run.live.name, operation: run.operation, outcome });
  const sources = () => [...byName.values()].map(({ mapping, text, baseDir }) => ({ name: mapping.name, file: mapping.file, text, baseDir }));

  function heard(message: FromThread): void {
    if (message.type === 'problem') return log.error(message.message);
    if (message.id !== inFlight?.id) return;
    const { run } = inFlight;
    inFlight = undefined;
    count(run, message.outcome);
    if (message.kept) {
      // The thread's own JSON text of a KeptRun.
      journal.add(keptEntry(run, message.outcome, JSON.parse(message.kept) as KeptRun), maskOf(run.live, run.candidate));
      log.debug({ mapping: run.live.name, operation: run.operation, outcome: message.outcome, live: run.entry.id }, 'shadow candidate answered otherwise');
    }
    pump();
  }

  function ended(why: string): void {
    log.error(`${why}; its run under way is counted as failed, and candidates are skipped for ${RESTART_AFTER_MS / 1000} s`);
    thread = undefined;
    stoppedAt = performance.now();
    if (inFlight) count(inFlight.run, 'failed');
    inFlight = undefined;
    pump();
  }

  /** The thread, started (with the candidates) when a run needs it; none while it may not restart yet. */
  function running(): ShadowThread | undefined {
    if (thread || performance.now() - stoppedAt < RESTART_AFTER_MS) return thread;
    try {
      thread = startShadowThread(settings.thread, { message: heard, ended });
      thread.post({ type: 'candidates', candidates: sources() });
    } catch (error) {
      ended(`the shadow's thread could not start: ${(error as Error).message}`);
    }
    return thread;
  }

  /**
   * Hands the next waiting run to the thread: one at a time, between live requests (or after waiting
   * a second for a pause), while the live thread is not busier than the share (background work:
   * deliveries, a reload). Otherwise the runs wait, and are looked at again when the last live
   * request ends, or a window later.
   */
  function pump(): void {
    if (inFlight || waiting.length === 0) return settled();
    const waited = performance.now() - waiting[0].since;
    if (settings.live.inFlight > 0 && waited < PAUSE_WAIT_MS) {
      wake.afterPause();
      return wake.in(PAUSE_WAIT_MS - waited);
    }
    if (busy() > settings.maxCpuShare) return wake.in(BUSY_WINDOW_MS);
    const to = running();
    if (!to) {
      for (const run of waiting.splice(0)) count(run, 'skipped');
      waitingChars = 0;
      return settled();
    }
    const run = waiting.shift()!;
    waitingChars -= run.job.length;
    const id = ++lastId;
    to.post({ type: 'run', id, at: run.at, job: run.job });
    inFlight = { id, run };
  }

  const idle = () => (!inFlight && waiting.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  async function stop(): Promise<void> {
    await idle();
    const stopping = thread;
    thread = undefined;
    await stopping?.close();
  }

  return {
    replace(candidates) {
      byName = new Map(candidates.map((candidate) => [candidate.mapping.name, candidate]));
      // Runs of a candidate a reload took away are not run (its thread no longer has it).
      for (const run of waiting.filter((waited) => !byName.has(waited.live.name))) {
        waiting.splice(waiting.indexOf(run), 1);
        waitingChars -= run.job.length;
        count(run, 'skipped');
      }
      // Started with the candidates, so that it has compiled them by the first read; stopped without (its memory is a V8 heap of its own).
      if (byName.size === 0) void idle().then(() => (byName.size === 0 ? stop() : undefined)).catch((error: unknown) => log.error({ err: error }, 'the shadow\'s thread did not stop'));
      else if (thread) thread.post({ type: 'candidates', candidates: sources() });
      else running();
    },
    get candidates() {
      return [...byName.values()].map((candidate) => candidate.mapping);
    },
    answered(answer) {
      const { mapping, route, envelope } = answer;
      const candidate = mapping && byName.get(mapping.name);
      if (!candidate || !mapping || !route || !isRead(route) || !envelope) return;
      const operation = route.operationId;
      // Without a journal entry there is no trace of the ERP's answers to replay (--journal-size 0).
      if (!answer.entry) return count({ live: mapping, operation }, 'failed');
      if (waiting.length >= QUEUE_LIMIT || waitingChars >= QUEUE_CHARS) return count({ live: mapping, operation }, 'skipped');
      const entry = answer.entry();
      let job: string;
      try {
        job = JSON.stringify({ mapping: mapping.name, operationId: operation, input: inputOf(entry, route), steps: answer.steps ?? [], resultName: entry.result, envelope } satisfies RunJob);
      } catch (error) {
        // A value with no JSON text (none expected: the answers are parsed JSON or text, as the journal keeps them).
        log.error({ err: error, live: entry.id }, 'a shadow run could not be handed to its thread');
        return count({ live: mapping, operation }, 'failed');
      }
      // The entry without what the job holds already: the run's own steps and envelope replace them when it is kept.
      waiting.push({ candidate: candidate.mapping, live: mapping, operation, entry: { ...entry, steps: [], envelope: undefined }, job, at: now(), since: performance.now() });
      waitingChars += job.length;
      pump();
    },
    idle,
    close: stop,
  };
}
