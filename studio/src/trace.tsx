import type { Envelope, Step } from './api';
import { Json } from './common';
import { SourceLinks } from './source-links';

/** An expression's value in a title: its JSON, cut at 80 characters (the whole of it is in the detail). */
function short(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** A step's one-line title: what `dry-run` prints as its heading. */
function title(step: Step): string {
  const s = step as Record<string, unknown>;
  switch (step.step) {
    case 'request': return `→ ${String(s.call)}: ${String(s.method)} ${String(s.url)}  (${String(s.source)})`;
    case 'response': return `← ${String(s.call)}: ${String(s.status)} in ${String(s.durationMs)} ms${s.attempts ? `, ${String(s.attempts)} attempt(s)` : ''}${s.cached ? ', cached' : ''}`;
    case 'no answer': return `✕ ${String(s.call)}: no answer: ${String(s.error)}`;
    case 'rule': return `${s.matched ? '✓' : '·'} rule ${String(s.when)} → ${String(s.result)}  (${String(s.at)})`;
    case 'expression': return `ƒ ${String(s.what)}: ${String(s.source)} → ${short(s.gave)}  (${String(s.at)})`;
    case 'output': return `output${s.at ? `  (${String(s.at)})` : ''}`;
    case 'check': return `contract check: ${(s.problems as unknown[]).length === 0 ? 'ok' : `${(s.problems as unknown[]).length} problem(s)`}`;
    case 'stored': return `stored in the outbox as ${String(s.eventId)} (key ${String(s.orderingKey)})`;
    case 'delivery': return `delivery: ${String(s.verdict)}${s.message ? `: ${String(s.message)}` : ''}`;
    case 'note': return `note: ${String(s.text)}`;
    default: return step.step;
  }
}

/** What the step carries beside its title: headers and body, the value an expression gave, the problems. */
function detail(step: Step): unknown {
  const s = step as Record<string, unknown>;
  switch (step.step) {
    case 'request': return { query: s.query, headers: s.headers, body: s.body };
    case 'response': return { headers: s.headers, body: s.body, ...(s.bodyError ? { bodyError: s.bodyError } : {}) };
    case 'output': return s.data;
    // What it read: the parts of its document the expression names (input, calls.<name>, response, …).
    case 'expression': return { read: s.read, gave: s.gave };
    default: return undefined;
  }
}

/** A list shows this many items; the fields of the others are those of the first ones, as a rule. */
const SHOWN_ITEMS = 20;

/**
 * An answer's body with each field a button that hands its path (`calls.<name>.body.stock.onHand`) to
 * `onField`; a list's items are read under the list's own path, as JSONata reads a path over a list.
 */
function FieldTree(props: { value: unknown; path: string; onField: (path: string) => void }) {
  const { value, path, onField } = props;
  if (Array.isArray(value)) {
    return (
      <ol class="fields" start={0}>
        {value.slice(0, SHOWN_ITEMS).map((item, index) => <li key={index}><FieldTree value={item} path={path} onField={onField} /></li>)}
        {value.length > SHOWN_ITEMS && <li>… {value.length - SHOWN_ITEMS} more</li>}
      </ol>
    );
  }
  if (typeof value !== 'object' || value === null) return <code>{JSON.stringify(value)}</code>;
  return (
    <ul class="fields">
      {Object.entries(value).map(([key, child]) => {
        const here = `${path}.${key}`;
        return (
          <li key={key}>
            <button type="button" class="link field" title={`insert ${here} at the editor's cursor`} onClick={() => onField(here)}>{key}</button>: <FieldTree value={child} path={here} onField={onField} />
          </li>
        );
      })}
    </ul>
  );
}

/** A call's answer: its headers, and its body with each field a button that inserts the field's path in the Editor. */
function AnswerView(props: { step: Step; onField: (path: string) => void }) {
  const s = props.step as Record<string, unknown>;
  const call = String(s.call).replace(/\[\d+\]$/, '');
  return (
    <div class="answer" aria-label={`Answer of ${call}`}>
      <Json value={{ headers: s.headers, ...(s.bodyError ? { bodyError: s.bodyError } : {}) }} />
      {typeof s.body === 'object' && s.body !== null ? (
        <>
          <p class="hint">body: click a field to insert <code>calls.{call}.body.…</code> at the Editor's cursor</p>
          <FieldTree value={s.body} path={`calls.${call}.body`} onField={props.onField} />
        </>
      ) : <Json value={s.body} />}
    </div>
  );
}

/**
 * `files`: the mapping files, whose `file:line` in a step is a link to the Editor at that line;
 * `onField`: given, an answer's fields are buttons that insert their path (Try a route).
 */
export function Trace(props: { steps: readonly Step[]; files: readonly string[]; envelope?: Envelope; resultName?: string; failure?: { kind: string; message: string }; onField?: (path: string) => void }) {
  return (
    <section class="trace" aria-label="Trace">
      <h3>Trace</h3>
      <ol>
        {props.steps.map((step, index) => {
          const more = detail(step);
          const problems = step.step === 'check' ? (step.problems as { path: string; message: string }[]) : [];
          if (problems.length > 0) {
            // The contract check's problems, each by the field it concerns.
            return (
              <li key={index} class="step step-check">
                <span><SourceLinks text={title(step)} files={props.files} /></span>
                <ul class="problems" aria-label="Contract problems">
                  {problems.map((problem, at) => <li key={at}><code>{problem.path}</code> {problem.message}</li>)}
                </ul>
              </li>
            );
          }
          return (
            <li key={index} class={`step step-${step.step.replace(/\s/g, '-')}`}>
              {more === undefined ? <span><SourceLinks text={title(step)} files={props.files} /></span> : (
                <details>
                  <summary><SourceLinks text={title(step)} files={props.files} /></summary>
                  {props.onField && step.step === 'response' && !step.xml ? <AnswerView step={step} onField={props.onField} /> : <Json value={more} />}
                </details>
              )}
            </li>
          );
        })}
      </ol>
      {props.failure && <p class="failure" role="alert">{props.failure.kind}: <SourceLinks text={props.failure.message} files={props.files} /></p>}
      {props.envelope && (
        <div class="envelope">
          <h3>Envelope{props.resultName ? `: ${props.resultName}` : ''}</h3>
          <Json value={props.envelope} label="Envelope" />
        </div>
      )}
    </section>
  );
}
