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
  input: unknown;
  last?: { error: string; status?: number; body?: string };
}

interface OutboxView {
  groups: { mapping: string; kind: string; pending: number; retrying: number; dead: number; oldestPendingMs?: number }[];
  events: StoredEvent[];
}

function age(ms: number | undefined): string {
  if (ms === undefined) return '–';
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;
}

export function OutboxPage() {
  const [view, setView] = useState<OutboxView>({ groups: [], events: [] });
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const load = () => void api<OutboxView>('GET', '/outbox').then(setView, (error: unknown) => setNotice({ text: errorText(error), error: true }));
  useEffect(load, []);
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
      <div class="toolbar"><button type="button" onClick={load}>Refresh</button></div>
      <Notice text={notice?.text} error={notice?.error} />
      <table>
        <caption>Waiting, per mapping and kind</caption>
        <thead><tr><th>mapping</th><th>kind</th><th>pending</th><th>retrying</th><th>dead</th><th>oldest pending</th></tr></thead>
        <tbody>{view.groups.map((group) => <tr key={`${group.mapping}/${group.kind}`}><td>{group.mapping}</td><td>{group.kind}</td><td>{group.pending}</td><td>{group.retrying}</td><td>{group.dead}</td><td>{age(group.oldestPendingMs)}</td></tr>)}</tbody>
      </table>
      {view.events.length === 0 ? <p>nothing waits: every event was delivered</p> : (
        <table>
          <caption>Events</caption>
          <thead><tr><th>event</th><th>status</th><th>attempts</th><th>last answer</th><th>actions</th></tr></thead>
          <tbody>
            {view.events.map((event) => (
              <tr key={event.id} class={event.status === 'dead' ? 'fail' : ''}>
                <td>{event.operation} <small>{event.kind} · {event.mapping} · key {event.orderingKey}</small><details><summary>input</summary><Json value={event.input} /></details></td>
                <td>{event.status}</td>
                <td>{event.attempts}</td>
                <td>{event.last ? <>{event.last.status ?? ''} {event.last.error}{event.last.body && <pre>{event.last.body}</pre>}</> : ''}</td>
                <td>
                  {canSettle && event.status === 'dead' && <button type="button" onClick={() => void settle(event, 'retry')} aria-label={`Retry ${event.id}`}>Retry</button>}
                  {canSettle && <button type="button" onClick={() => void settle(event, 'drop')} aria-label={`Drop ${event.id}`}>Drop</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
