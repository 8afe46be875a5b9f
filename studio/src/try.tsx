import { useEffect, useState } from 'preact/hooks';
import { api, type TryAnswer } from './api';
import { errorText, FilePicker, Notice, NotLoading, useMappings } from './common';
import { useDrafts } from './drafts';
import { Trace } from './trace';

/** A contract operation as the form needs it: its parameters by name, or a body (the smallest one its schema accepts). */
interface OperationInput {
  operation: string;
  method: string;
  path: string;
  inputSource: 'query' | 'path' | 'body' | 'none';
  params: string[];
  example: unknown;
}

/**
 * The input: one labelled field per parameter of a query or path route (built from the contract), or
 * the JSON body, prefilled with the smallest body the contract's schema accepts; "raw JSON" for any.
 */
function InputForm(props: { spec?: OperationInput; text: string; onText: (text: string) => void }) {
  const { spec } = props;
  const [raw, setRaw] = useState(false);
  if (!spec || spec.inputSource === 'none') return <p>This operation takes no input.</p>;
  const byName = spec.inputSource !== 'body' && !raw;
  let values: Record<string, unknown> = {};
  try {
    values = (JSON.parse(props.text || '{}') as Record<string, unknown>) ?? {};
  } catch {
    values = {};
  }
  return (
    <fieldset class="wide">
      <legend>Input of {spec.method} {spec.path}</legend>
      {spec.inputSource !== 'body' && (
        <label><input type="checkbox" checked={raw} onChange={(event) => setRaw((event.target as HTMLInputElement).checked)} /> raw JSON</label>
      )}
      {byName ? spec.params.map((name) => (
        <label key={name}>
          {name}{' '}
          <input value={typeof values[name] === 'string' ? values[name] : ''} onInput={(event) => {
            const value = (event.target as HTMLInputElement).value;
            const next = { ...values, [name]: value };
            if (value === '') delete next[name];
            props.onText(JSON.stringify(next));
          }} />
        </label>
      )) : (
        <label class="wide">
          Input (JSON {spec.inputSource === 'body' ? 'body' : 'parameters'})
          <textarea rows={6} value={props.text} onInput={(event) => props.onText((event.target as HTMLTextAreaElement).value)} />
        </label>
      )}
    </fieldset>
  );
}

export function TryPage() {
  const [mappings] = useMappings();
  const drafts = useDrafts();
  const [operations, setOperations] = useState<OperationInput[]>([]);
  const [file, setFile] = useState('');
  const [operation, setOperation] = useState('GetWorkOrderByCode');
  const [input, setInput] = useState('{}');
  const [source, setSource] = useState<'erp' | 'recorded'>('erp');
  const [ran, setRan] = useState<TryAnswer>();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  useEffect(() => void api<{ operations: OperationInput[] }>('GET', '/operations').then((answer) => setOperations(answer.operations)), []);
  const chosen = file || mappings[0]?.file || '';
  const view = mappings.find((mapping) => mapping.file === chosen);
  const routes = view?.routes ?? [];
  const spec = operations.find((candidate) => candidate.operation === operation);
  const choose = (id: string) => {
    setOperation(id);
    const next = operations.find((candidate) => candidate.operation === id);
    setInput(next?.inputSource === 'body' ? JSON.stringify(next.example, null, 2) : '{}');
  };
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
    const send = (confirm: boolean) => api<TryAnswer>('POST', '/try', { file: chosen, operation, input: parsed, source, confirm });
    // Calls that can change the ERP are sent only once the person says so; the server refuses them unasked.
    const changes = source === 'erp' ? routes.find((route) => route.operation === operation)?.changes ?? [] : [];
    if (changes.length > 0 && !confirm(`${operation} can change the ERP: it sends ${changes.join(', ')}.\n\nSend it to the ERP now?`)) {
      setNotice({ text: `not sent: ${operation} would send ${changes.join(', ')} to the ERP`, error: true });
      return;
    }
    try {
      setRan(await send(changes.length > 0));
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  // A field of an answer, clicked: its path is typed at the cursor of the mapping's editor, which opens.
  const insertField = (path: string) => {
    drafts.insertLater(chosen, path);
    location.hash = `#/editor/${encodeURI(chosen)}`;
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
          <select value={operation} onChange={(event) => choose((event.target as HTMLSelectElement).value)}>
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
        <InputForm key={operation} spec={spec} text={input} onText={setInput} />
        <button type="submit" disabled={!chosen || !spec}>Run</button>
        <button type="button" disabled={!ran?.requestId} onClick={() => void saveAsTest()}>Save as test case</button>
        {view && !view.loads && <NotLoading mapping={view} doing="Run and Save as test case refuse it" />}
        {drafts.changed(chosen) && <p class="notice">{chosen} has unsaved changes in the Editor: this runs the saved text</p>}
        <Notice text={notice?.text} error={notice?.error} />
      </form>
      {ran && (
        <>
          <p class="ran">{ran.operation} ({ran.route}), answers from {ran.source}</p>
          <Trace files={mappings.map((mapping) => mapping.file)} steps={ran.steps} envelope={ran.envelope} resultName={ran.resultName} failure={ran.failure} onField={insertField} />
        </>
      )}
    </>
  );
}
