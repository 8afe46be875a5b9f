import diff from 'microdiff';
import type { RouteSpec } from '../contract/routes';
import type { SchemaRegistry } from '../contract/schema-registry';
import type { Mapping } from '../mapping/model';
import { createAnsweringClient, type RecordedAnswers } from './answers';
import { maskerOf, runCase, type CaseRun, type TraceStep } from './run-case';

/**
 * Replay (`adapter-engine diff`): one recorded request run through two mappings, each on the ERP answers
 * recorded with it, by the same runCase (and so the same Engine.handle) as `test` and `dry-run`. Nothing is
 * sent: a call without a recorded answer fails the run and is named, never answered by a guess.
 */
export interface ReplayCase {
  /** Where the request comes from: a journal id, or a test case's file:line:col. */
  readonly source: string;
  /** When it was recorded (ISO 8601); test cases have no time. */
  readonly at?: string;
  readonly route: RouteSpec;
  readonly input: unknown;
  readonly answers: RecordedAnswers;
  /**
   * The event was stored in the outbox when recorded: the ERP's answer to its delivery came later and is
   * not part of the recording, and the platform's answer never depended on it. The delivery's calls get
   * the dry run's "not sent" stand-in, so the replay still compares what they would send.
   */
  readonly storedEvent: boolean;
}

export type Verdict = 'same' | 'different' | 'newly failing' | 'newly succeeding' | 'unrecorded';

export interface FieldChange {
  readonly path: string;
  readonly old?: unknown;
  readonly new?: unknown;
}

/** How the ERP calls of the two runs differ, call by call (a call made twice is paired in order). */
export type CallChange =
  | { readonly call: string; readonly change: 'new call' | 'dropped call'; readonly request: string }
  | { readonly call: string; readonly change: 'request line'; readonly old: string; readonly new: string }
  | { readonly call: string; readonly change: 'body'; readonly fields: readonly FieldChange[] };

interface SideRun {
  readonly result: string;
  readonly success: boolean;
  /** Calls the mapping made that have no recorded answer (the run failed on them). */
  readonly unrecorded: readonly string[];
}

export interface Replayed {
  readonly source: string;
  readonly at?: string;
  readonly operation: string;
  /** The request as the platform sent it, e.g. GET /WorkOrders/Code?Code=SO-1001. */
  readonly request: string;
  readonly verdict: Verdict;
  readonly old: SideRun;
  readonly new: SideRun;
  /** The envelope's fields that differ. */
  readonly fields: readonly FieldChange[];
  readonly calls: readonly CallChange[];
}

/** A JSON path: `$` for the whole value, `$.data.requests[0].itemName` for a field inside. */
function pathText(path: readonly (string | number)[]): string {
  return `$${path.map((key) => {
    if (typeof key === 'number') return `[${key}]`;
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }).join('')}`;
}

/** Field-level differences of two JSON values; a value that is not an object or list differs as a whole. (The shadow report's too.) */
export function fieldChanges(old: unknown, now: unknown, prefix: readonly (string | number)[] = []): FieldChange[] {
  const bothContainers = typeof old === 'object' && old !== null && typeof now === 'object' && now !== null && Array.isArray(old) === Array.isArray(now);
  if (!bothContainers) return Object.is(old, now) ? [] : [{ path: pathText(prefix), old, new: now }];
  return diff(old as Record<string, unknown>, now as Record<string, unknown>).map((change) => {
    const path = pathText([...prefix, ...change.path]);
    if (change.type === 'CREATE') return { path, new: change.value };
    if (change.type === 'REMOVE') return { path, old: change.oldValue };
    return { path, old: change.oldValue, new: change.value };
  });
}

type RequestStep = Extract<TraceStep, { step: 'request' }>;

function requestLine(step: RequestStep): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(step.query)) for (const one of Array.isArray(value) ? value : [value]) query.append(name, one);
  return `${step.method} ${step.path}${query.size > 0 ? `?${query}` : ''}`;
}

/** The calls each run made, paired by name and order: a new call, a dropped one, a changed line or body. (A push's platform calls too.) */
export function callChanges(oldSteps: readonly TraceStep[], newSteps: readonly TraceStep[]): CallChange[] {
  const byCall = (steps: readonly TraceStep[]) => {
    const calls = new Map<string, RequestStep[]>();
    for (const step of steps) if (step.step === 'request') calls.set(step.call, [...(calls.get(step.call) ?? []), step]);
    return calls;
  };
  const before = byCall(oldSteps);
  const after = byCall(newSteps);
  const changes: CallChange[] = [];
  for (const call of new Set([...before.keys(), ...after.keys()])) {
    const olds = before.get(call) ?? [];
    const news = after.get(call) ?? [];
    for (let index = 0; index < Math.max(olds.length, news.length); index += 1) {
      const [was, is] = [olds[index], news[index]];
      const label = Math.max(olds.length, news.length) > 1 ? `${call} (${index + 1})` : call;
      if (!was) changes.push({ call: label, change: 'new call', request: requestLine(is) });
      else if (!is) changes.push({ call: label, change: 'dropped call', request: requestLine(was) });
      else {
        // Compared whole (a changed baseUrl moves every call); shown under the base when that is what changed.
        if (was.method !== is.method || was.url !== is.url) {
          const [before, after] = requestLine(was) === requestLine(is) ? [`${was.method} ${was.url}`, `${is.method} ${is.url}`] : [requestLine(was), requestLine(is)];
          changes.push({ call: label, change: 'request line', old: before, new: after });
        }
        const fields = fieldChanges(was.body, is.body);
        if (fields.length > 0) changes.push({ call: label, change: 'body', fields });
      }
    }
  }
  return changes;
}

/** The request as the platform sent it: the route with its path parameters and query filled in. */
function platformRequest(route: RouteSpec, input: unknown): string {
  const values = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(values[name] ?? `{${name}}`)));
  if (route.inputSource !== 'query') return `${route.method} ${path}`;
  const query = new URLSearchParams(Object.entries(values).map(([name, value]): [string, string] => [name, String(value)]));
  return `${route.method} ${path}${query.size > 0 ? `?${query}` : ''}`;
}

async function runSide(mapping: Mapping, replay: ReplayCase, schemas: SchemaRegistry): Promise<{ run: CaseRun; unrecorded: string[] }> {
  const client = createAnsweringClient({ answers: replay.answers, notSent: replay.storedEvent });
  try {
    const run = await runCase(mapping, replay.route, replay.input, client, maskerOf(mapping), { schemas });
    // A call without an answer is tried again by the retry policy: name it once.
    return { run, unrecorded: [...new Set(client.unanswered)] };
  } finally {
    client.close();
  }
}

export function verdictOf(old: SideRun, now: SideRun, changed: boolean): Verdict {
  if (old.unrecorded.length > 0 || now.unrecorded.length > 0) return 'unrecorded';
  if (old.success && !now.success) return 'newly failing';
  if (!old.success && now.success) return 'newly succeeding';
  return changed ? 'different' : 'same';
}

export async function replay(oldMapping: Mapping, newMapping: Mapping, replayCase: ReplayCase, schemas: SchemaRegistry): Promise<Replayed> {
  const before = await runSide(oldMapping, replayCase, schemas);
  const after = await runSide(newMapping, replayCase, schemas);
  const side = ({ run, unrecorded }: typeof before): SideRun => ({ result: run.resultName, success: run.envelope.isResultSuccess, unrecorded });
  const fields = fieldChanges(before.run.envelope, after.run.envelope);
  const calls = callChanges(before.run.steps, after.run.steps);
  const [old, now] = [side(before), side(after)];
  return {
    source: replayCase.source,
    ...(replayCase.at === undefined ? {} : { at: replayCase.at }),
    operation: replayCase.route.operationId,
    request: platformRequest(replayCase.route, replayCase.input),
    verdict: verdictOf(old, now, fields.length > 0 || calls.length > 0),
    old,
    new: now,
    fields,
    calls,
  };
}
