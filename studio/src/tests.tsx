import { useState } from 'preact/hooks';
import { api, ApiError, type Issue } from './api';
import { errorText, FilePicker, Json, useMappings } from './common';
import { useDrafts } from './drafts';
import { SourceLinks } from './source-links';

interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  note?: string;
}

interface FileResult {
  file: string;
  issues: (Issue & { message: string })[];
  cases: { name: string; operation: string; at: string; passed: boolean; mismatches: Mismatch[]; failure?: string; resultName?: string }[];
  coverage: Issue[];
}

function place(issue: Issue): string {
  return `${issue.file}:${issue.line}:${issue.col}  ${issue.message}`;
}

export function TestsPage() {
  const [mappings] = useMappings();
  const drafts = useDrafts();
  const [file, setFile] = useState('');
  const [result, setResult] = useState<FileResult>();
  // A run the studio refused (the mapping does not load as saved, no test file): a failure, with its problems.
  const [refused, setRefused] = useState<{ text: string; issues: Issue[] }>();
  const chosen = file || mappings[0]?.file || '';
  const files = mappings.map((mapping) => mapping.file);
  const testFile = mappings.find((mapping) => mapping.file === chosen)?.testFile ?? '';
  const run = async () => {
    setRefused(undefined);
    setResult(undefined);
    try {
      setResult(await api<FileResult>('POST', '/tests', { file: chosen }));
    } catch (error) {
      setRefused({ text: errorText(error), issues: error instanceof ApiError ? error.details.issues ?? [] : [] });
    }
  };
  const passed = result?.cases.filter((testCase) => testCase.passed).length ?? 0;
  // Problems of the test file (or its mapping) mean no case ran: that is a failure, not "0 of 0 passed".
  const verdict = result && (result.issues.length > 0
    ? `${result.file}: failed: ${result.issues.length} problem${result.issues.length === 1 ? '' : 's'} kept every case from running`
    : `${result.file}: ${passed} of ${result.cases.length} passed`);
  return (
    <>
      <div class="toolbar">
        <FilePicker mappings={mappings} value={chosen} onChange={setFile} />
        <button type="button" disabled={!chosen} onClick={() => void run()}>Run tests</button>
        {[chosen, testFile].filter((edited) => edited && drafts.changed(edited)).map((edited) => <p key={edited} class="notice">{edited} has unsaved changes in the Editor: this runs the saved text</p>)}
      </div>
      {refused && (
        <>
          <p role="status" class="notice error">{chosen}: failed: {refused.text}</p>
          <ul class="issues">{refused.issues.map((issue, index) => <li key={index} class="error"><code><SourceLinks text={issue.text ?? place(issue)} files={files} /></code></li>)}</ul>
        </>
      )}
      {result && (
        <>
          <p role="status" class={passed === result.cases.length && result.issues.length === 0 ? 'notice' : 'notice error'}>{verdict}</p>
          {result.issues.length > 0 && <ul class="issues">{result.issues.map((issue, index) => <li key={index} class="error"><code><SourceLinks text={place(issue)} files={files} /></code></li>)}</ul>}
          <table>
            <caption>Cases</caption>
            <thead><tr><th>case</th><th>operation</th><th>result</th><th>verdict</th></tr></thead>
            <tbody>
              {result.cases.map((testCase) => (
                <tr key={testCase.at} class={testCase.passed ? 'pass' : 'fail'}>
                  <td>{testCase.name}<br /><small>{testCase.at}</small></td>
                  <td>{testCase.operation}</td>
                  <td>{testCase.resultName}</td>
                  <td>
                    {testCase.passed ? 'passed' : 'failed'}
                    {!testCase.passed && testCase.failure && <pre class="failure"><SourceLinks text={testCase.failure} files={files} /></pre>}
                    {testCase.mismatches.map((mismatch, index) => (
                      <div key={index} class="diff">
                        <strong>{mismatch.path}</strong>{mismatch.note ? `: ${mismatch.note}` : ''}
                        <div class="side-by-side"><div><em>expected</em><Json value={mismatch.expected} /></div><div><em>actual</em><Json value={mismatch.actual} /></div></div>
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Coverage</h3>
          {result.cases.length === 0 ? <p>no case ran</p> : result.coverage.length === 0 ? <p>every output field was filled and every expression gave a value in some case</p> : <ul class="issues">{result.coverage.map((issue, index) => <li key={index} class="warning"><code><SourceLinks text={place(issue)} files={files} /></code></li>)}</ul>}
        </>
      )}
    </>
  );
}
