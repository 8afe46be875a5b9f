import { useState } from 'preact/hooks';
import { api, canEdit, type MappingView } from './api';
import { errorText, Notice, useMappings } from './common';

/**
 * A new mapping, as `adapter-engine init <name>` starts one: every contract route forwarding to the same
 * path on the ERP, and its test file; written beside the studio's mappings (never over a file), served
 * at once, and opened in the Editor.
 */
function NewMapping() {
  const [name, setName] = useState('');
  const [notice, setNotice] = useState<string>();
  const start = async (event: Event) => {
    event.preventDefault();
    try {
      const made = await api<{ file: string }>('POST', '/mappings', { name });
      location.hash = `#/editor/${encodeURI(made.file)}`;
    } catch (error) {
      setNotice(errorText(error));
    }
  };
  return (
    <form class="toolbar" aria-label="New mapping" onSubmit={(event) => void start(event)}>
      <label>
        New mapping{' '}
        <input value={name} placeholder="acme" title="letters, digits, - and _: it becomes the file name" onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={name === ''}>Start it</button>
      <small>writes &lt;name&gt;.yaml and &lt;name&gt;.test.yaml as <code>adapter-engine init</code> does: every route forwarded to the same path on the ERP</small>
      <Notice text={notice} error />
    </form>
  );
}

function Mapping(props: { mapping: MappingView }) {
  const { mapping } = props;
  const counts = ['mapped', 'static', 'acknowledged', 'unmapped'].map((status) => `${mapping.routes.filter((row) => row.status === status).length} ${status}`).join(', ');
  return (
    <section aria-label={mapping.file}>
      <h2>{mapping.name ?? mapping.file} <small>{mapping.file}</small></h2>
      <p>
        {mapping.loads ? 'loads' : mapping.serving ? 'does not load: the last good mapping is serving' : 'does not load'}
        {mapping.baseUrl && <> · ERP <code>{mapping.baseUrl}</code> · auth {mapping.auth}</>}
        {mapping.routes.length > 0 && <> · {counts}</>}
      </p>
      {mapping.issues.length > 0 && (
        <ul class="issues" aria-label="Problems">
          {mapping.issues.map((issue, index) => (
            <li key={index} class={issue.severity}>
              <code>{issue.text}</code>
              {issue.around && issue.around.length > 0 && (
                <pre>{issue.around.map((line) => `${String(line.line).padStart(4)}${line.line === issue.line ? ' >' : '  '} ${line.text}`).join('\n')}</pre>
              )}
            </li>
          ))}
        </ul>
      )}
      {mapping.routes.length > 0 && (
        <table>
          <caption>Routes</caption>
          <thead><tr><th>operation</th><th>route</th><th>kind</th><th>status</th><th>detail</th></tr></thead>
          <tbody>
            {mapping.routes.map((row) => (
              <tr key={row.operation}>
                <td>{row.operation}</td><td><code>{row.method} {row.path}</code></td><td>{row.kind}</td>
                <td class={`status-${row.status}`}>{row.status}</td>
                <td>{row.answers ? `answers ${row.answers}` : row.calls.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mapping.pushes.length > 0 && (
        <table>
          <caption>Push endpoints</caption>
          <thead><tr><th>push</th><th>path</th><th>auth</th><th>records</th></tr></thead>
          <tbody>{mapping.pushes.map((push) => <tr key={push.push}><td>{push.push}</td><td><code>POST {push.path}</code></td><td>{push.auth}</td><td>{push.records}</td></tr>)}</tbody>
        </table>
      )}
    </section>
  );
}

export function MappingsPage() {
  const [mappings] = useMappings();
  return (
    <>
      {canEdit && <NewMapping />}
      {mappings.map((mapping) => <Mapping key={mapping.file} mapping={mapping} />)}
    </>
  );
}
