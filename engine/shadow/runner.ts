import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { RouteSpec } from '../contract/routes';
import type { EngineAnswer } from '../core/stage';
import type { Journal } from '../journal/journal';
import type { JournalEntry, ShadowRun } from '../journal/journal-entry';
import type { Logger } from '../log';
import { createMasker, declaredSecretNames, type Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import { inputOf } from '../testing/recorded-case';
import { shadowKey } from './report';
import { startShadowThread, type ShadowThread } from './thread';
import type { FromThread, KeptRun, ShadowOutcome, ThreadSettings } from './thread-messages';

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
 * costs. The live thread only hands each run over, and not at all while it is busier than `maxCpuShare`.
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
  /** Share of one CPU (event-loop utilisation, 0..1) above which candidates are skipped. */
  readonly maxCpuShare: number;
  /** Milliseconds, for the journal's one run a second of each kind of difference; Date.now by default. */
  readonly now?: () => number;
  /** How the served mappings are compiled: the thread compiles the candidates alike. */
  readonly thread: ThreadSettings;
}

/** Operations that only read, besides the GET routes: the candidate never runs a write or an event. */
const READ_POSTS = new Set(['GetReport', 'GetExportValues', 'ParseWorkOrderFile', 'ParseItemFile']);

function isRead(route: RouteSpec): boolean {
  return route.method === 'GET' || READ_POSTS.has(route.operationId);
}

/**
 * Runs handed over and not yet back, at most: beyond it a run is skipped. Under a burst the thread must
 * not hold every request's answers, and the live thread holds each waiting run's journal entry.
 */
const QUEUE_LIMIT = 64;

/** After the thread stopped unasked, runs are skipped this long before it is started again: a thread that cannot start is not started for every request. */
const RESTART_AFTER_MS = 10_000;

/**
 * How often the process's busyness is measured; between two measurements the last one stands. Short, so
 * that a burst after a quiet spell is seen within a tenth of a second: with one-second windows a burst
 * ran the candidate on every request of its first second, and the live answers paid for it.
 */
const BUSY_WINDOW_MS = 100;

function busyMeter(): () => number {
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  let at = performance.now();
  let share = 0;
  return () => {
    if (performance.now() - at >= BUSY_WINDOW_MS) {
      const now = performance.eventLoopUtilization();
      share = performance.eventLoopUtilization(now, since).utilization;
      since = now;
      at = performance.now();
    }
    return share;
  };
}

/** A run handed over: what the live thread keeps of it until it comes back. */
interface Handed {
  readonly candidate: Mapping;
  readonly live: Mapping;
  readonly operation: string;
  readonly entry: JournalEntry;
}

/** A masker of both versions' secrets: the old values are the live version's, the new the candidate's. */
function bothMasked(live: Mapping, candidate: Mapping): Masker {
  const [a, b] = [live, candidate].map((version) => declaredSecretNames(version.system, version.platform));
  return createMasker([...live.secretValues, ...candidate.secretValues], { headers: [...a.headers, ...b.headers], query: [...a.query, ...b.query] });
}

export function createShadowRunner(settings: ShadowSettings): ShadowRunner {
  const { journal, meter, log } = settings;
  const now = settings.now ?? Date.now;
  const busy = busyMeter();
  let byName = new Map<string, Candidate>();
  // A kept run holds both versions' values (the live answer, the candidate's): masked with both
  // versions' secrets. Built once per pair of loaded versions (a reload makes new Mapping objects).
  const masks = new WeakMap<Mapping, { readonly live: Mapping; readonly mask: Masker }>();
  const maskOf = (live: Mapping, candidate: Mapping): Masker => {
    const known = masks.get(candidate);
    if (known?.live === live) return known.mask;
    const mask = bothMasked(live, candidate);
    masks.set(candidate, { live, mask });
    return mask;
  };
  const handed = new Map<number, Handed>();
  let lastId = 0;
  const idleWaiters: (() => void)[] = [];
  let thread: ShadowThread | undefined;
  let stoppedAt = -Infinity;

  const settled = () => {
    if (handed.size > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  const sources = () => [...byName.values()].map(({ mapping, text, baseDir }) => ({ name: mapping.name, file: mapping.file, text, baseDir }));

  function heard(message: FromThread): void {
    if (message.type === 'problem') return log.error(message.message);
    const run = handed.get(message.id);
    if (!run) return;
    handed.delete(message.id);
    meter.shadow({ mapping: run.live.name, operation: run.operation, outcome: message.outcome });
    if (message.kept) keep(run, message.outcome, message.kept);
    settled();
  }

  function ended(why: string): void {
    log.error(`${why}; its runs under way are counted as failed, and candidates are skipped for ${RESTART_AFTER_MS / 1000} s`);
    thread = undefined;
    stoppedAt = performance.now();
    for (const run of handed.values()) meter.shadow({ mapping: run.live.name, operation: run.operation, outcome: 'failed' });
    handed.clear();
    settled();
  }

  /** The thread, started (with the candidates) when the first run needs it; none while it may not restart yet. */
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

  function keep(run: Handed, outcome: ShadowOutcome, kept: KeptRun): void {
    const shadow: ShadowRun = { live: run.entry.id, outcome: outcome === 'failed' ? 'failed' : 'different', liveResult: run.entry.result, differences: kept.differences, ...(kept.reason === undefined ? {} : { reason: kept.reason }) };
    const entry: JournalEntry = {
      ...run.entry,
      id: `${run.entry.id}.shadow`,
      at: new Date().toISOString(),
      mapping: shadowKey(run.live.name),
      file: run.candidate.file,
      steps: [...kept.steps],
      rulesMatched: [],
      result: kept.resultName ?? 'NotRun',
      success: kept.success,
      failure: kept.failure,
      envelope: kept.envelope,
      durationMs: kept.durationMs,
      shadow,
    };
    journal.add(entry, maskOf(run.live, run.candidate));
    log.debug({ mapping: run.live.name, operation: run.operation, outcome, live: run.entry.id }, 'shadow candidate answered otherwise');
  }

  const idle = () => (handed.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
  async function stop(): Promise<void> {
    await idle();
    const stopping = thread;
    thread = undefined;
    await stopping?.close();
  }

  return {
    replace(candidates) {
      byName = new Map(candidates.map((candidate) => [candidate.mapping.name, candidate]));
      // Started with the candidates, so that it has compiled them by the first read; stopped without (its memory is a V8 heap of its own).
      if (byName.size === 0) void idle().then(() => (byName.size === 0 ? stop() : undefined)).catch((error: unknown) => log.error({ err: error }, 'the shadow\'s thread did not stop'));
      else if (thread) thread.post({ type: 'candidates', candidates: sources() });
      else running();
    },
    get candidates() {
      return [...byName.values()].map((candidate) => candidate.mapping);
    },
    answered(answer) {
      const { mapping, route, entry, envelope } = answer;
      const candidate = mapping && byName.get(mapping.name);
      if (!candidate || !mapping || !route || !isRead(route) || !envelope) return;
      const operation = route.operationId;
      // Without a journal entry there is no trace of the ERP's answers to replay (--journal-size 0).
      if (!entry) return meter.shadow({ mapping: mapping.name, operation, outcome: 'failed' });
      const to = busy() > settings.maxCpuShare || handed.size >= QUEUE_LIMIT ? undefined : running();
      if (!to) return meter.shadow({ mapping: mapping.name, operation, outcome: 'skipped' });
      const id = ++lastId;
      try {
        to.post({ type: 'run', id, at: now(), job: { mapping: mapping.name, operationId: operation, input: inputOf(entry, route), steps: answer.steps ?? [], resultName: entry.result, envelope } });
      } catch (error) {
        // A value the thread cannot be given (none expected: the answers are parsed JSON or text).
        log.error({ err: error, live: entry.id }, 'a shadow run could not be handed to its thread');
        return meter.shadow({ mapping: mapping.name, operation, outcome: 'failed' });
      }
      handed.set(id, { candidate: candidate.mapping, live: mapping, operation, entry });
    },
    idle,
    close: stop,
  };
}
