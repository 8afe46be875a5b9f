import { useEffect, useState } from 'preact/hooks';
import { mappingsOf, type MappingView } from './api';

/** The mapping files, loaded once per page. */
export function useMappings(): [MappingView[], () => void] {
  const [mappings, setMappings] = useState<MappingView[]>([]);
  const load = () => void mappingsOf().then((answer) => setMappings(answer.mappings));
  useEffect(load, []);
  return [mappings, load];
}

/** A select of the mapping files, labelled. */
export function FilePicker(props: { mappings: MappingView[]; value: string; onChange: (file: string) => void }) {
  return (
    <label>
      Mapping file{' '}
      <select value={props.value} onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}>
        {props.mappings.map((mapping) => <option key={mapping.file} value={mapping.file}>{mapping.file}</option>)}
      </select>
    </label>
  );
}

/** A message the page shows after an action: what happened, or why not. */
export function Notice(props: { text?: string; error?: boolean }) {
  if (!props.text) return null;
  return <p role={props.error ? 'alert' : 'status'} class={props.error ? 'notice error' : 'notice'}>{props.text}</p>;
}

export function Json(props: { value: unknown; label?: string }) {
  return <pre class="json" aria-label={props.label}>{JSON.stringify(props.value, null, 2)}</pre>;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
