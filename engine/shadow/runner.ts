import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Envelope } from '../contract/envelope';
import type { RouteSpec } from '../contract/routes';
import type { SchemaRegistry } from '../contract/schema-registry';
import { createEngine, type Engine } from '../core/engine';
import type { EngineAnswer } from '../core/stage';
import type { HttpClient } from '../http/client';
import { createJournal, type Journal } from '../journal/journal';
import type { JournalEntry, ShadowRun } from '../journal/journal-entry';
import { silentLogger, type Logger } from '../log';
import type { Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import type { Meter } from '../metrics/meter';
import { createAnsweringClient, type AnsweringClient } from '../testing/answers';
import { inputOf, testCaseOf } from '../testing/recorded-case';
import { fieldChanges, type FieldChange } from '../testing/replay';
import { maskerOf, runCase, type CaseRun } from '../testing/run-case';
import { firstPerWindow } from '../first-per-window';
import { turnEventLoop } from '../time-slices';
import { shadowKey } from './report';

/**
 * A shadow candidate: a new version of a served mapping that runs beside the live one. After the live
 * answer of a read request (GET routes, reports, export values, file parsing) is sent, the candidate
 * runs on the ERP answers the live mapping received, recorded in its trace, as a mapping test runs on
 * recorded answers: it sends nothing to the ERP, and a call the live run did not make fails it. Its
 * envelope is compared with the live one: same, different (kept in the journal under `<name>~shadow`
 * with the field-level difference, once a second of each kind) or failed. Candidates run one at a
 * time, each in its own turn of the event loop, and not at all while the process is busier than
 * `maxCpuShare`.
 */
export interface ShadowRunner {
  /** The candidates by the name of the mapping they shadow; a reload replaces them. */
  replace(candidates: readonly Mapping[]): void;
  readonly candidates: readonly Mapping[];
  /** A live answer was sent: queue its candidate run, when there is a candidate and the request is a read. */
  answered(answer: EngineAnswer): void;
  /** Resolves when every queued run has finished (tests, the bench, a graceful stop). */
  idle(): Promise<void>;
}

export interface ShadowSettings {
  readonly journal: Journal;
  readonly meter: Meter;
  readonly log: Logger;
  /** Share of one CPU (event-loop utilisation, 0..1) above which candidates are skipped. */
  readonly maxCpuShare: number;
  /** Milliseconds, for the journal's one run a second of each kind of difference; Date.now by default. */
  readonly now?: () => number;
  /** The contract's validators, shared with the live engine (compiled once per schema). */
  readonly schemas: SchemaRegistry;
}

/** Operations that only read, besides the GET routes: the candidate never runs a write or an event. */
const READ_POSTS = new Set(['GetReport', 'GetExportValues', 'ParseWorkOrderFile', 'ParseItemFile']);

function isRead(route: RouteSpec): boolean {
  return route.method === 'GET' || READ_POSTS.has(route.operationId);
}

const DIFFERENCE_LIMIT = 50;

/**
 * A run that answered otherwise is kept in the journal once a second per kind of difference (its
 * operation and outcome, the JSON paths that differ with list positions left out, or the reason it
 * failed); every run is counted. A candidate that changes every answer would otherwise write a second
 * journal entry, trace and all, for each live request: measured at 300 req/s, that doubled the live
 * answers' p99. One a second of each kind still shows every kind of difference, with its examples.
 */
const KEPT_EVERY_MS = 1000;

/** Kinds remembered at most; beyond it the memory starts again (a kind may then be kept twice in a second). */
const KINDS_LIMIT = 1000;

function kindOf(operation: string, outcome: string, differences: readonly FieldChange[], reason: string | undefined): string {
  const paths = new Set(differences.map((change) => change.path.replace(/\[\d+\]/g, '[*]')));
  return [operation, outcome, reason ?? '', ...[...paths].sort()].join('\n');
}

/** Runs waiting beyond this are skipped: under a burst the queue must not hold every request's answers. */
const QUEUE_LIMIT = 64;

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

/**
 * A candidate ready to run: one engine for all its runs (its session and token caches carry over, as a
 * served mapping's do), whose ERP is whichever recorded answers the current run set, and its masker.
 */
interface Prepared {
  readonly mapping: Mapping;
  readonly engine: Engine;
  readonly mask: Masker;
  answering?: AnsweringClient;
}

function prepared(mapping: Mapping, schemas: SchemaRegistry): Prepared {
  const relay: HttpClient = {
    send: (request) => {
      if (!candidate.answering) throw new Error('a shadow candidate sent a request outside a run');
      return candidate.answering.send(request);
    },
    close: () => undefined,
  };
  // Silent: the candidate's request lines would read as live requests in the server's log. Its own
  // journal keeps nothing: a run's difference is kept in the server's journal, by runOne.
  const engine = createEngine({ mappings: [mapping], http: relay, schemas, log: silentLogger, checkInboundAuth: false, outbox: 'inline', journal: createJournal({ size: 0 }) });
  const candidate: Prepared = { mapping, engine, mask: maskerOf(mapping) };
  return candidate;
}

interface Job {
  readonly candidate: Prepared;
  readonly live: Mapping;
  readonly liveMask: Masker;
  readonly route: RouteSpec;
  readonly answer: EngineAnswer & { readonly entry: JournalEntry; readonly envelope: Envelope };
}

export function createShadowRunner(settings: ShadowSettings): ShadowRunner {
  const { journal, meter, log, schemas } = settings;
  const busy = busyMeter();
  let byName = new Map<string, Prepared>();
  /** Whether a run of this kind is kept now: the first of its kind in the last second. */
  const keep = firstPerWindow(KEPT_EVERY_MS, settings.now ?? Date.now, KINDS_LIMIT);
  // The live versions' maskers, built once per loaded version (a reload makes new Mapping objects).
  const liveMasks = new WeakMap<Mapping, Masker>();
  const liveMask = (mapping: Mapping): Masker => liveMasks.get(mapping) ?? liveMasks.set(mapping, maskerOf(mapping)).get(mapping)!;
  const queue: Job[] = [];
  let running: Promise<void> | undefined;

  async function drain(): Promise<void> {
    for (let job = queue.shift(); job; job = queue.shift()) {
      // Each run starts in a turn of its own, after the sockets waiting (other requests' answers).
      await turnEventLoop();
      await runOne(job, journal, meter, log, keep).catch((error: unknown) => log.error({ err: error }, 'a shadow run failed'));
    }
    running = undefined;
  }

  return {
    replace(candidates) {
      const old = byName;
      byName = new Map(candidates.map((candidate) => [candidate.name, old.get(candidate.name)?.mapping === candidate ? old.get(candidate.name)! : prepared(candidate, schemas)]));
      // Runs still queued hold their engine; closing only drops its connections, which a recorded run never opens.
      for (const [name, gone] of old) if (byName.get(name) !== gone) void gone.engine.close();
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
      if (busy() > settings.maxCpuShare || queue.length >= QUEUE_LIMIT) return meter.shadow({ mapping: mapping.name, operation, outcome: 'skipped' });
      queue.push({ candidate, live: mapping, liveMask: liveMask(mapping), route, answer: { ...answer, entry, envelope } });
      running ??= drain();
    },
    idle: async () => {
      while (running) await running;
    },
  };
}

async function runOne(job: Job, journal: Journal, meter: Meter, log: Logger, keep: (kind: string) => boolean): Promise<void> {
  const { candidate, live, route, answer } = job;
  const operation = route.operationId;
  const started = performance.now();
  const liveEnvelope = job.liveMask.deep(answer.envelope) as Envelope;
  const ran = testCaseOf({ route, input: inputOf(answer.entry, route), steps: answer.steps ?? [], resultName: answer.entry.result, envelope: answer.envelope }, 'shadow');
  let run: CaseRun | undefined;
  let reason: string | undefined;
  if ('problem' in ran) reason = ran.problem;
  else {
    const client = createAnsweringClient({ answers: 'answers' in ran ? ran.answers : undefined });
    candidate.answering = client;
    try {
      run = await runCase(candidate.mapping, route, ran.input, client, candidate.mask, { engine: candidate.engine });
      if (client.unanswered.length > 0) reason = `the candidate makes a call the live mapping did not make, so no ERP answer of it was recorded: ${client.unanswered.join(', ')}`;
    } catch (error) {
      reason = `the candidate faulted: ${(error as Error).message}`;
    } finally {
      candidate.answering = undefined;
    }
  }
  // A changed list of 5,000 orders says enough with its first 50 differences.
  const differences: FieldChange[] = run ? fieldChanges(liveEnvelope, run.envelope).slice(0, DIFFERENCE_LIMIT) : [];
  const outcome = reason !== undefined ? 'failed' : differences.length > 0 ? 'different' : 'same';
  meter.shadow({ mapping: live.name, operation, outcome });
  if (outcome === 'same' || !keep(kindOf(operation, outcome, differences, reason))) return;
  const shadow: ShadowRun = { live: answer.entry.id, outcome, liveResult: answer.entry.result, differences, ...(reason === undefined ? {} : { reason }) };
  const entry: JournalEntry = {
    ...answer.entry,
    id: `${answer.entry.id}.shadow`,
    at: new Date().toISOString(),
    mapping: shadowKey(live.name),
    file: candidate.mapping.file,
    steps: run?.steps ?? [],
    rulesMatched: [],
    result: run?.resultName ?? 'NotRun',
    success: run?.envelope.isResultSuccess ?? false,
    failure: run?.failure,
    envelope: run?.envelope,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    shadow,
  };
  journal.add(entry, candidate.mask);
  log.debug({ mapping: live.name, operation, outcome, live: answer.entry.id }, 'shadow candidate answered otherwise');
}
