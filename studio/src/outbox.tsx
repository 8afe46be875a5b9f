import { useEffect, useState } from 'preact/hooks';
import { api, canSettle } from './api';
import { errorText, Json, Notice } from './common';

interface StoredEvent {
  id: string;
  kind: string;
  mapping: string;
  operation: string;
  orderingKey: string;
  status: string;
  attempts: number;
  acceptedAt: number;
  settledAt?: number;
  input: unknown;
  last?: { error: string; call?: string; status?: number; body?: string };
  dropReason?: string;
}

interface OutboxView {
  groups: { mapping: string; kind: string; pending: number; retrying: number; dead: number; oldestPendingMs?: number }[];
  events: StoredEvent[];
}

/**
 * The statuses to list, as the admin listener's `GET /outbox?status=` names them: those that wait
 * (oldest first, as they are delivered), or one kind of settled event, the latest settled first.
 */
const SHOWN = [
  { status: 'pending,dead', label: 'waiting (pending and dead)', order: 'accepted' },
  { status: 'pending', label: 'pending', order: 'accepted' },
  { status: 'dead', label: 'dead', order: 'accepted' },
  { status: 'delivered', label: 'delivered', order: 'settled' },
  { status: 'refused', label: 'refused', order: 'settled' },
  { status: 'dropped', label: 'dropped', order: 'settled' },
] as const;

/** A time as the person reads it: their own date and time, to the second. */
function when(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/** The start of the receiver's answer, on one line: the whole is in `outbox show`. */
function bodyStart(body: string): string {
  const line = body.replace(/\s+/g, ' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function LastAnswer(props: { last?: StoredEvent['last'] }) {
  const { last } = props;
  if (!last) return null;
  return (
    <>
      {last.status !== undefined && <b class="answer-status">{last.status}</b>}{last.call && <small> {last.call}</small>} {last.error}
      {last.body && <code class="answer-body">{bodyStart(last.body)}</code>}
    </>
  );
}

function age(ms: number | undefined): string {
  if (ms === undefined) return '–';
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;
}

export function OutboxPage() {
  const [view, setView] = useState<OutboxView>({ groups: [], events: [] });
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const [shown, setShown] = useState<(typeof SHOWN)[number]>(SHOWN[0]);
  const load = () => void api<OutboxView>('GET', `/outbox?${new URLSearchParams({ status: shown.status, order: shown.order, limit: '200' }).toString()}`).then(setView, (error: unknown) => setNotice({ text: errorText(error), error: true }));
  useEffect(load, [shown]);
  const settle = async (event: StoredEvent, action: 'retry' | 'drop') => {
    let reason: string | null = null;
    if (action === 'retry' && !confirm(`Retry ${event.operation} (${event.orderingKey})? The engine delivers it again now.`)) return;
    if (action === 'drop') {
      reason = prompt(`Drop ${event.operation} (${event.orderingKey}) for good? Say why (kept in the record):`);
      if (!reason) return;
    }
    try {
      const answer = await api<{ message: string }>('POST', `/outbox/${event.id}/${action}`, action === 'drop' ? { reason } : {});
      setNotice({ text: answer.message });
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
    load();
  };
  return (
    <>
      <div class="toolbar">
        <label>
          Status{' '}
          <select value={shown.status} onChange={(event) => setShown(SHOWN.find((each) => each.status === (event.target as HTMLSelectElement).value) ?? SHOWN[0])}>
            {SHOWN.map((each) => <option key={each.status} value={each.status}>{each.label}</option>)}
          </select>
        </label>
        <button type="button" onClick={load}>Refresh</button>
      </div>
      <Notice text={notice?.text} error={notice?.error} />
      <table>
        <caption>Waiting, per mapping and kind</caption>
        <thead><tr><th>mapping</th><th>kind</th><th>pending</th><th>retrying</th><th>dead</th><th>oldest pending</th></tr></thead>
        <tbody>{view.groups.map((group) => <tr key={`${group.mapping}/${group.kind}`}><td>{group.mapping}</td><td>{group.kind}</td><td>{group.pending}</td><td>{group.retrying}</td><td>{group.dead}</td><td>{age(group.oldestPendingMs)}</td></tr>)}</tbody>
      </table>
      {view.events.length === 0 ? <p>{shown === SHOWN[0] ? 'nothing waits: every event was delivered' : `no ${shown.label} events`}</p> : (
        <table aria-label="Events">
          <caption>Events: {shown.label}{shown.order === 'settled' ? ', the latest settled first' : ', oldest first'}</caption>
          <thead><tr><th>event</th><th>status</th><th>attempts</th><th>accepted</th><th>settled</th><th>last answer</th><th>actions</th></tr></thead>
          <tbody>
            {view.events.map((event) => (
              <tr key={event.id} class={event.status === 'dead' ? 'fail' : ''}>
                <td>{event.operation} <small>{event.kind} · {event.mapping} · key {event.orderingKey}</small><details><summary>input</summary><Json value={event.input} /></details></td>
                <td>{event.status}{event.dropReason && <small> ({event.dropReason})</small>}</td>
                <td>{event.attempts}</td>
                <td>{when(event.acceptedAt)}</td>
                <td>{when(event.settledAt)}</td>
                <td><LastAnswer last={event.last} /></td>
                <td>
                  {canSettle && event.status === 'dead' && <button type="button" onClick={() => void settle(event, 'retry')} aria-label={`Retry ${event.id}`}>Retry</button>}
                  {canSettle && (event.status === 'dead' || event.status === 'pending') && <button type="button" onClick={() => void settle(event, 'drop')} aria-label={`Drop ${event.id}`}>Drop</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
