import { useEffect, useState } from 'preact/hooks';
import { mappingsOf, NeedsAdminToken, type MappingView } from './api';
import { useDrafts } from './drafts';

/** The mapping files, loaded once per page. */
export function useMappings(): [MappingView[], () => void] {
  const [mappings, setMappings] = useState<MappingView[]>([]);
  const load = () => void mappingsOf().then((answer) => setMappings(answer.mappings), (error: unknown) => {
    // Without the admin token the page asks for it; anything else is a fault to see.
    if (!(error instanceof NeedsAdminToken)) throw error;
  });
  useEffect(load, []);
  return [mappings, load];
}

/** A select of the mapping files, labelled; a file edited and not saved says so. */
export function FilePicker(props: { mappings: MappingView[]; value: string; onChange: (file: string) => void }) {
  const drafts = useDrafts();
  return (
    <label>
      Mapping file{' '}
      <select value={props.value} onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}>
        {props.mappings.map((mapping) => <option key={mapping.file} value={mapping.file}>{mapping.file}{drafts.changed(mapping.file) ? ' (unsaved changes)' : ''}</option>)}
      </select>
    </label>
  );
}

/** A message the page shows after an action: what happened, or why not. */
export function Notice(props: { text?: string; error?: boolean }) {
  if (!props.text) return null;
  return <p role={props.error ? 'alert' : 'status'} class={props.error ? 'notice error' : 'notice'}>{props.text}</p>;
}

/** Beside a button that runs a mapping: its saved text does not load, so the button is refused, with the problems. */
export function NotLoading(props: { mapping: MappingView; doing: string }) {
  const errors = props.mapping.issues.filter((issue) => issue.severity === 'error');
  return (
    <div class="notice error not-loading" role="alert">
      {props.mapping.file} does not load as saved ({errors.length} problem{errors.length === 1 ? '' : 's'}): {props.doing} until it does; fix it in the Editor and save.
      <ul class="issues">{errors.map((issue, index) => <li key={index} class="error"><code>{issue.text}</code></li>)}</ul>
    </div>
  );
}

export function Json(props: { value: unknown; label?: string }) {
  return <pre class="json" aria-label={props.label}>{JSON.stringify(props.value, null, 2)}</pre>;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
