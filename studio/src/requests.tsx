import { useEffect, useState } from 'preact/hooks';
import { api, canEdit, onNewRequests, type RequestEntry, type RequestSummary } from './api';
import { errorText, Notice, useMappings } from './common';
import { Trace } from './trace';

const FILTERS = [
  { name: 'mapping', label: 'Mapping' },
  { name: 'operation', label: 'Operation' },
  { name: 'contains', label: 'Text' },
] as const;

/** A datetime-local field's value (local time) as the ISO 8601 the journal's filter reads; '' stays ''. */
function isoOf(local: string): string {
  return local === '' ? '' : new Date(local).toISOString();
}

/** A moment as a datetime-local field shows it: local time, to the minute. */
function localOf(ms: number): string {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

export function RequestsPage() {
  const [mappings] = useMappings();
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState('');
  const [result, setResult] = useState('');
  const [results, setResults] = useState<string[]>([]);
  // The time range, as the datetime-local fields hold it (local time).
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  useEffect(() => void api<{ results: string[] }>('GET', '/results').then((answer) => setResults(answer.results), () => undefined), []);
  const [rows, setRows] = useState<RequestSummary[]>([]);
  const [shown, setShown] = useState<RequestEntry>();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const query = new URLSearchParams(Object.entries({ ...filters, result, outcome, from: isoOf(from), to: isoOf(to) }).filter(([, value]) => value !== '')).toString();
  const load = () => void api<{ requests: RequestSummary[] }>('GET', `/requests${query ? `?${query}` : ''}`).then((answer) => setRows(answer.requests), (error: unknown) => setNotice({ text: errorText(error), error: true }));
  useEffect(load, [query]);
  // New requests arrive as server-sent events; the filters are applied by asking again.
  useEffect(() => onNewRequests(load), [query]);
  const open = async (id: string) => setShown(await api<RequestEntry>('GET', `/requests/${id}`));
  const exportAsTest = async () => {
    if (!shown) return;
    try {
      const answer = await api<{ testFile: string; name: string }>('POST', `/requests/${shown.id}/test-case`);
      setNotice({ text: `exported as test case "${answer.name}" in ${answer.testFile}` });
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  return (
    <>
      <form class="toolbar" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        {FILTERS.map((filter) => (
          <label key={filter.name}>
            {filter.label}{' '}
            <input value={filters[filter.name] ?? ''} onChange={(event) => setFilters({ ...filters, [filter.name]: (event.target as HTMLInputElement).value })} />
          </label>
        ))}
        <label>
          Result{' '}
          <select value={result} onChange={(event) => setResult((event.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {results.map((name) => <option key={name} value={name}>{name}</option>)}
          </select>
        </label>
        <label>From <input type="datetime-local" value={from} onChange={(event) => setFrom((event.target as HTMLInputElement).value)} /></label>
        <label>To <input type="datetime-local" value={to} onChange={(event) => setTo((event.target as HTMLInputElement).value)} /></label>
        <button type="button" onClick={() => { setFrom(localOf(Date.now() - 3_600_000)); setTo(''); }}>Last hour</button>
        <button type="button" onClick={() => { setFrom(''); setTo(''); }}>Any time</button>
        <label>
          Outcome{' '}
          <select value={outcome} onChange={(event) => setOutcome((event.target as HTMLSelectElement).value)}>
            <option value="">any</option><option value="success">success</option><option value="failure">failure</option>
          </select>
        </label>
      </form>
      <Notice text={notice?.text} error={notice?.error} />
      <table>
        <caption>Requests, newest first</caption>
        <thead><tr><th>time</th><th>mapping</th><th>operation</th><th>request</th><th>result</th><th>ms</th></tr></thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} class={row.success ? 'pass' : 'fail'}>
              <td><button type="button" class="link" onClick={() => void open(row.id)}>{new Date(row.at).toISOString()}</button></td>
              <td>{row.mapping}</td><td>{row.operation}</td><td><code>{row.method} {row.path}</code></td><td>{row.result}</td><td>{row.durationMs}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown && (
        <section aria-label="Request detail">
          <h2>{shown.operation} <small>{shown.requestId}</small></h2>
          {canEdit && <button type="button" onClick={() => void exportAsTest()}>Export as test</button>}
          <Trace files={mappings.map((mapping) => mapping.file)} steps={shown.steps} envelope={shown.envelope} resultName={shown.result} failure={shown.failure} />
        </section>
      )}
    </>
  );
}
