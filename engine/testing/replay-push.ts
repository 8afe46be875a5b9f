import type { SchemaRegistry } from '../contract/schema-registry';
import type { Mapping } from '../mapping/model';
import { createAnsweringClient, type RecordedAnswers } from './answers';
import { callChanges, fieldChanges, verdictOf, type Replayed } from './replay';
import { maskerOf, runPushCase, type PushRun } from './run-case';

/**
 * Replay of a push (`POST /push/<name>`): what it makes comes from the pushed JSON alone (its checks, its
 * transform), so it replays without recorded answers: the answer the ERP gets (status and body) and the
 * platform requests of the events it stores. Each side runs through runPushCase (the engine's inline
 * outbox, as `test` and `dry-run` run a push): nothing is stored, and the platform calls get the recorded
 * answers a test case gives, else the dry run's "not sent" stand-in, so nothing is sent either.
 */
export interface PushReplayCase {
  /** A journal id, or a test case's file:line:col. */
  readonly source: string;
  readonly at?: string;
  /** The push endpoint's name (POST /push/<name>). */
  readonly push: string;
  /** The pushed JSON. */
  readonly input: unknown;
  /** The platform's answers a push case of a test file gives; a journal has none (they came after the push's answer). */
  readonly answers: RecordedAnswers;
}

async function runSide(mapping: Mapping, replayCase: PushReplayCase, schemas: SchemaRegistry): Promise<PushRun> {
  const client = createAnsweringClient({ answers: replayCase.answers, notSent: true });
  try {
    return await runPushCase(mapping, replayCase.push, replayCase.input, client, maskerOf(mapping), { schemas });
  } finally {
    client.close();
  }
}

/**
 * The answer the ERP gets, as compared: its status and body without the event ids, which are new in
 * every run (the events themselves are compared by the platform requests they make).
 */
function answerOf(run: PushRun): { status: number; body: unknown } {
  const body = run.body;
  if (typeof body !== 'object' || body === null || !('events' in body)) return { status: run.status, body };
  return { status: run.status, body: Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'events')) };
}

export async function replayPush(oldMapping: Mapping, newMapping: Mapping, replayCase: PushReplayCase, schemas: SchemaRegistry): Promise<Replayed> {
  const before = await runSide(oldMapping, replayCase, schemas);
  const after = await runSide(newMapping, replayCase, schemas);
  // Each stored event makes the push's calls to the platform: a new or dropped event is a new or dropped call.
  const calls = callChanges(before.steps, after.steps);
  const fields = fieldChanges(answerOf(before), answerOf(after));
  const side = (run: PushRun) => ({ result: run.result, success: run.status === 202, unrecorded: [] });
  const [old, now] = [side(before), side(after)];
  return {
    source: replayCase.source,
    ...(replayCase.at === undefined ? {} : { at: replayCase.at }),
    operation: `push/${replayCase.push}`,
    request: `POST /push/${replayCase.push}`,
    verdict: verdictOf(old, now, fields.length > 0 || calls.length > 0),
    old,
    new: now,
    fields,
    calls,
  };
}
