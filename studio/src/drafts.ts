import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

/**
 * The editor's text of each file while the page is open, beside the text last saved: going to another
 * page (or another file) and back keeps the work; a file whose text differs from the saved one is
 * marked changed wherever files are picked, and the page asks before a reload or close drops it.
 */
interface Draft {
  readonly text: string;
  readonly saved: string;
}

export interface Drafts {
  get(file: string): Draft | undefined;
  /** The editor's text now, against `saved` (the file's text when the editor read or saved it). */
  edit(file: string, text: string, saved: string): void;
  changed(file: string): boolean;
  /** The files with unsaved changes. */
  unsaved(): string[];
  /** Called after every change; returns the stop. */
  watch(listener: () => void): () => void;
  /** Where the cursor of the file's editor was last (an offset in its text). */
  cursor(file: string): number | undefined;
  setCursor(file: string, at: number): void;
  /** Text to type at the file's cursor when its editor opens next (a field path clicked in a trace). */
  insertLater(file: string, text: string): void;
  /** The text waiting for the file's editor, taken (once). */
  takeInsertion(file: string): string | undefined;
}

export function createDrafts(): Drafts {
  const drafts = new Map<string, Draft>();
  const listeners = new Set<() => void>();
  const cursors = new Map<string, number>();
  const insertions = new Map<string, string>();
  const changed = (file: string) => {
    const draft = drafts.get(file);
    return draft !== undefined && draft.text !== draft.saved;
  };
  return {
    get: (file) => drafts.get(file),
    edit(file, text, saved) {
      const before = changed(file);
      drafts.set(file, { text, saved });
      if (before !== changed(file)) for (const listener of listeners) listener();
    },
    changed,
    unsaved: () => [...drafts.keys()].filter(changed),
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    cursor: (file) => cursors.get(file),
    setCursor: (file, at) => void cursors.set(file, at),
    insertLater: (file, text) => void insertions.set(file, text),
    takeInsertion(file) {
      const text = insertions.get(file);
      insertions.delete(file);
      return text;
    },
  };
}

export const DraftsContext = createContext<Drafts>(createDrafts());

/** The drafts, with a render of the caller whenever a file becomes changed or saved. */
export function useDrafts(): Drafts {
  const drafts = useContext(DraftsContext);
  const [, setTick] = useState(0);
  useEffect(() => drafts.watch(() => setTick((tick) => tick + 1)), [drafts]);
  return drafts;
}

/** While a file has unsaved changes, leaving the page (reload, close, another address) asks first. */
export function askBeforeLeaving(drafts: Drafts): () => void {
  const ask = (event: BeforeUnloadEvent) => {
    if (drafts.unsaved().length === 0) return;
    event.preventDefault();
    // Older browsers show the dialog only when returnValue is set.
    event.returnValue = '';
  };
  addEventListener('beforeunload', ask);
  return () => removeEventListener('beforeunload', ask);
}
