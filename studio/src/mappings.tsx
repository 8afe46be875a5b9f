import { useMappings } from './common';
import type { MappingView } from './api';

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
  return <>{mappings.map((mapping) => <Mapping key={mapping.file} mapping={mapping} />)}</>;
}
