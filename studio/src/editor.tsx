import { autocompletion, type CompletionContext } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, hoverTooltip, keymap, lineNumbers } from '@codemirror/view';
import { syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, styleNonce, type Issue } from './api';
import { errorText, FilePicker, Notice, useMappings } from './common';
import { useDrafts, type Drafts } from './drafts';
import { placeOf, type Place } from './source-links';
import { docOf, SETTINGS } from './schema-docs';
import { keyPath, settingsAt } from './yaml-context';

/** The engine's problems (the text of `validate`) as CodeMirror diagnostics at their line and column. */
function diagnosticsOf(view: EditorView, issues: readonly Issue[]): Diagnostic[] {
  const { doc } = view.state;
  return issues.map((issue) => {
    const line = doc.line(Math.min(Math.max(issue.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max(issue.col - 1, 0), line.to);
    const to = Math.max(from, Math.min(line.to, from + 1 + (/^[\w.$-]*/.exec(doc.sliceString(from, line.to))?.[0].length ?? 0) - 1));
    return { from, to, severity: issue.severity, message: issue.text ?? issue.message, source: issue.code };
  });
}

/** The settings the format allows where the cursor is (under `system:` the system's), as the key of a new line. */
function completeSetting(context: CompletionContext) {
  const word = context.matchBefore(/[A-Za-z]\w*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const line = context.state.doc.lineAt(context.pos);
  // A value after `key:` is no place for a setting's name.
  if (line.text.slice(0, word.from - line.from).includes(':')) return null;
  const lines = context.state.doc.sliceString(0, line.to).split('\n');
  const settings = settingsAt(keyPath(lines, lines.length - 1, word.from - line.from)) ?? SETTINGS;
  return { from: word.from, options: settings.map((setting) => ({ label: setting.name, type: 'property', info: setting.description || undefined, apply: `${setting.name}: ` })) };
}

const BODY_PATH = /calls\.(\w+)\.body\.((?:\w+\.)*)(\w*)$/;

/** `calls.<name>.body.` completed with the fields the ERP sent in the answers the test file recorded and in the last Try. */
function completeAnswerField(fields: () => Readonly<Record<string, readonly string[]>>) {
  return (context: CompletionContext) => {
    const found = context.matchBefore(BODY_PATH);
    const parts = found && BODY_PATH.exec(found.text);
    if (!parts) return null;
    const [, call, prefix, word] = parts;
    const next = new Set((fields()[call] ?? []).filter((path) => path.startsWith(prefix) && path.length > prefix.length).map((path) => path.slice(prefix.length).split('.')[0]));
    if (next.size === 0) return null;
    return { from: context.pos - word.length, options: [...next].map((label) => ({ label, type: 'property', detail: `in ${call}'s answers (recorded, or the last Try)` })) };
  };
}

/** What the editor knows of a function an expression calls: the engine's helpers and JSONata's own (GET /functions). */
interface FunctionHelp {
  name: string;
  usage?: string;
  doc: string;
  helper: boolean;
}

function tooltip(pos: number, end: number, text: string) {
  return { pos, end, create: () => {
    const dom = document.createElement('div');
    dom.className = 'hover-doc';
    dom.textContent = text;
    return { dom };
  } };
}

/** Hover help: a `$function` of an expression (what it gives), or a setting's key (its description from the schema). */
function hoverDocs(functions: () => ReadonlyMap<string, FunctionHelp>) {
  return hoverTooltip((view, pos) => {
    const line = view.state.doc.lineAt(pos);
    for (const call of line.text.matchAll(/\$([A-Za-z]\w*)/g)) {
      const start = line.from + (call.index ?? 0);
      const end = start + call[0].length;
      const help = functions().get(call[1]);
      if (help && pos >= start && pos <= end) return tooltip(start, end, `${help.usage ?? `$${help.name}`}: ${help.doc}${help.helper ? ' (an engine helper)' : ''}`);
    }
    const key = /^\s*(?:-\s+)?([A-Za-z]\w*):/.exec(line.text);
    if (!key) return null;
    const start = line.from + line.text.indexOf(key[1]);
    const end = start + key[1].length;
    const doc = docOf(key[1]);
    if (!doc || pos < start || pos > end) return null;
    return tooltip(start, end, `${key[1]}: ${doc}`);
  });
}

/** What the editor reads besides the text: the functions' help, the fields of the recorded answers. */
interface EditorHelp {
  readonly functions: () => ReadonlyMap<string, FunctionHelp>;
  readonly answerFields: () => Readonly<Record<string, readonly string[]>>;
}

/**
 * An editor of `file`: a mapping (completion of its settings and of the ERP's fields, hover help) or
 * its test file (`tests`: the test files' checks). Both are checked by the engine as they are typed.
 */
function createEditor(parent: HTMLElement, text: string, file: string, tests: boolean, onIssues: (issues: Issue[]) => void, drafts: Drafts, help: EditorHelp): EditorView {
  // The engine checks the text as it is typed: the same messages as validate, at their line.
  const engineLint = linter(async (view) => {
    const text = view.state.doc.toString();
    const answer = await api<{ issues: Issue[] }>('POST', '/check', { file, text });
    // An answer about a text since changed would list problems that are no longer there.
    if (view.state.doc.toString() !== text) return [];
    const issues = answer.issues.filter((issue) => issue.code !== 'UNMAPPED_ROUTE');
    onIssues(issues);
    return diagnosticsOf(view, issues);
  }, { delay: 400 });
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [lineNumbers(), highlightActiveLine(), history(), keymap.of([...defaultKeymap, ...historyKeymap, ...lintKeymap, ...searchKeymap]), search({ top: true }), highlightSelectionMatches(), yaml(), syntaxHighlighting(defaultHighlightStyle), lintGutter(), engineLint,
        ...(tests ? [] : [autocompletion({ override: [completeAnswerField(help.answerFields), completeSetting] }), hoverDocs(help.functions)]),
        // Every edit is kept in the drafts at once: another page, or another file, and back finds it; the cursor too.
        EditorView.updateListener.of((update) => {
          if (update.docChanged) drafts.edit(file, update.state.doc.toString(), drafts.get(file)?.saved ?? text);
          if (update.docChanged || update.selectionSet) drafts.setCursor(file, update.state.selection.main.head);
        }), EditorView.contentAttributes.of({ 'aria-label': tests ? 'Test file YAML' : 'Mapping YAML' }), EditorView.cspNonce.of(styleNonce)],
    }),
  });
}

/** Puts the cursor at the problem, scrolled into view, and the focus in the editor. */
function goTo(view: EditorView, issue: Pick<Issue, 'line' | 'col'>): void {
  const line = view.state.doc.line(Math.min(Math.max(issue.line, 1), view.state.doc.lines));
  const pos = Math.min(line.from + Math.max(issue.col - 1, 0), line.to);
  view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
  view.focus();
}

/** A text waiting for this file's editor (a field clicked in a trace), typed where its cursor was last. */
function insertAtCursor(view: EditorView, at: number | undefined, insertion: string | undefined): void {
  if (insertion === undefined) return;
  const pos = Math.min(at ?? 0, view.state.doc.length);
  view.dispatch({ changes: { from: pos, insert: insertion }, selection: { anchor: pos + insertion.length }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
  view.focus();
}

/** A problem as `validate` prints it, its place and its message in aligned columns; the whole of it a link to its line. */
function ProblemLink(props: { issue: Issue; onClick: () => void }) {
  const text = props.issue.text ?? props.issue.message;
  const gap = text.indexOf('  ');
  return (
    <button type="button" class="link problem" onClick={props.onClick}>
      <span class="where">{gap < 0 ? '' : text.slice(0, gap)}</span>{'  '}<span class="what">{gap < 0 ? text : text.slice(gap + 2)}</span>
    </button>
  );
}

export function EditorPage() {
  const [mappings] = useMappings();
  const drafts = useDrafts();
  // A link to a place (#/editor/<file>:<line>:<col>, from a trace or a test) opens that file there.
  const [place, setPlace] = useState<Place | undefined>(placeOf(location.hash));
  const [file, setFile] = useState(place?.file ?? '');
  // The mapping, or the test file beside it.
  const [tests, setTests] = useState(false);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const [issues, setIssues] = useState<Issue[]>([]);
  useEffect(() => {
    const follow = () => {
      const next = placeOf(location.hash);
      setPlace(next);
      if (next) setFile(next.file);
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const functions = useRef<ReadonlyMap<string, FunctionHelp>>(new Map());
  useEffect(() => void api<{ functions: FunctionHelp[] }>('GET', '/functions').then((answer) => {
    functions.current = new Map(answer.functions.map((help) => [help.name, help]));
  }), []);
  const chosen = file || mappings[0]?.file || '';
  const testFile = mappings.find((mapping) => mapping.file === chosen)?.testFile ?? '';
  // The file in the editor: the mapping, or its test file.
  const target = tests && testFile ? testFile : chosen;
  const answerFields = useRef<Readonly<Record<string, readonly string[]>>>({});
  useEffect(() => {
    if (chosen) void api<{ calls: Record<string, string[]> }>('GET', `/answer-fields?file=${encodeURIComponent(chosen)}`).then((answer) => { answerFields.current = answer.calls; });
  }, [chosen]);
  // The file the editor shows now: a place is gone to once its file is in the editor.
  const [loaded, setLoaded] = useState('');
  useEffect(() => {
    if (place?.line !== undefined && view.current && loaded === place.file) goTo(view.current, place as Issue);
  }, [place, loaded]);
  useEffect(() => {
    if (!target || !host.current) return;
    let gone = false;
    const open = (text: string) => {
      if (gone || !host.current) return;
      view.current?.destroy();
      setIssues([]);
      view.current = createEditor(host.current, text, target, target !== chosen, setIssues, drafts, { functions: () => functions.current, answerFields: () => answerFields.current });
      insertAtCursor(view.current, drafts.cursor(target), drafts.takeInsertion(target));
      setLoaded(target);
    };
    // Unsaved work of this file comes back as it was left; otherwise the file as it is now.
    const draft = drafts.get(target);
    if (draft && drafts.changed(target)) open(draft.text);
    else void api<{ text: string }>('GET', `/source?file=${encodeURIComponent(target)}`).then((answer) => {
      drafts.edit(target, answer.text, answer.text);
      open(answer.text);
    });
    return () => {
      gone = true;
      view.current?.destroy();
      view.current = undefined;
    };
  }, [target]);
  const save = async () => {
    try {
      const text = view.current?.state.doc.toString() ?? '';
      const answer = await api<{ loads: boolean; issues: Issue[] }>('PUT', '/source', { file: target, text });
      drafts.edit(target, drafts.get(target)?.text ?? text, text);
      const errors = answer.issues.filter((issue) => issue.severity === 'error');
      const problems = `${errors.length} error${errors.length === 1 ? '' : 's'}`;
      if (target !== chosen) setNotice(answer.loads ? { text: `saved ${target}; Tests runs it` } : { text: `saved ${target}, but ${problems} keep cases from running. ${errors[0]?.text ?? ''}`, error: true });
      else setNotice(answer.loads ? { text: `saved ${chosen}; it loads and serves now` } : { text: `saved ${chosen}, but it does not load (${problems}): the last good mapping keeps serving. ${errors[0]?.message ?? ''}`, error: true });
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  return (
    <>
      <div class="toolbar">
        <FilePicker mappings={mappings} value={chosen} onChange={(next) => { setFile(next); setTests(false); }} />
        <label>
          Edit{' '}
          <select aria-label="Edit" value={tests ? 'tests' : 'mapping'} onChange={(event) => setTests((event.target as HTMLSelectElement).value === 'tests')}>
            <option value="mapping">the mapping: {chosen}</option>
            {testFile && <option value="tests">its tests: {testFile}{drafts.changed(testFile) ? ' (unsaved changes)' : ''}</option>}
          </select>
        </label>
        <button type="button" disabled={!target} onClick={() => void save()}>Save</button>
        {drafts.changed(target) && <span class="unsaved">unsaved changes: Try, Tests and the server use the saved text</span>}
      </div>
      <Notice text={notice?.text} error={notice?.error} />
      <div class="editor" ref={host} />
      <ul class="issues" aria-label="Problems">
        {issues.map((issue, index) => (
          <li key={index} class={issue.severity}>
            <ProblemLink issue={issue} onClick={() => view.current && goTo(view.current, issue)} />
          </li>
        ))}
      </ul>
    </>
  );
}
