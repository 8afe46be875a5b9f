import { useState } from 'preact/hooks';
import { api, type TryAnswer } from './api';
import { errorText, FilePicker, Notice, useMappings } from './common';
import { Trace } from './trace';

export function TryPage() {
  const [mappings] = useMappings();
  const [file, setFile] = useState('');
  const [operation, setOperation] = useState('GetWorkOrderByCode');
  const [input, setInput] = useState('{ "Code": "SO-1001" }');
  const [source, setSource] = useState<'erp' | 'recorded'>('erp');
  const [ran, setRan] = useState<TryAnswer>();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const chosen = file || mappings[0]?.file || '';
  const routes = mappings.find((mapping) => mapping.file === chosen)?.routes ?? [];
  const run = async (event: Event) => {
    event.preventDefault();
    setNotice(undefined);
    let parsed: unknown;
    try {
      parsed = input.trim() === '' ? undefined : JSON.parse(input);
    } catch (error) {
      setNotice({ text: `the input is not JSON: ${errorText(error)}`, error: true });
      return;
    }
    try {
      setRan(await api<TryAnswer>('POST', '/try', { file: chosen, operation, input: parsed, source }));
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  const saveAsTest = async () => {
    if (!ran?.requestId) return;
    try {
      const answer = await api<{ testFile: string; name: string }>('POST', `/requests/${ran.requestId}/test-case`);
      setNotice({ text: `saved as test case "${answer.name}" in ${answer.testFile}` });
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  return (
    <>
      <form class="toolbar" onSubmit={(event) => void run(event)}>
        <FilePicker mappings={mappings} value={chosen} onChange={setFile} />
        <label>
          Operation{' '}
          <select value={operation} onChange={(event) => setOperation((event.target as HTMLSelectElement).value)}>
            {routes.map((route) => <option key={route.operation} value={route.operation}>{route.operation} ({route.method} {route.path})</option>)}
          </select>
        </label>
        <label>
          Answers from{' '}
          <select value={source} onChange={(event) => setSource((event.target as HTMLSelectElement).value as 'erp' | 'recorded')}>
            <option value="erp">the ERP (live, or the example ERP)</option>
            <option value="recorded">recorded answers of the test file</option>
          </select>
        </label>
        <label class="wide">
          Input (JSON: query or path parameters, or the body)
          <textarea rows={4} value={input} onInput={(event) => setInput((event.target as HTMLTextAreaElement).value)} />
        </label>
        <button type="submit">Run</button>
        <button type="button" disabled={!ran?.requestId} onClick={() => void saveAsTest()}>Save as test case</button>
      </form>
      <Notice text={notice?.text} error={notice?.error} />
      {ran && (
        <>
          <p>{ran.operation} ({ran.route}), answers from {ran.source}</p>
          <Trace steps={ran.steps} envelope={ran.envelope} resultName={ran.resultName} failure={ran.failure} />
        </>
      )}
    </>
  );
}
