import fs from 'node:fs';

/**
 * Calls `changed` when a mapping file is written, added or removed. Editors and deploy tools often
 * replace a file by renaming a new one over it, so the directory is watched rather than the file, and
 * bursts of events (write, rename, chmod) within `quietMs` become one reload.
 */
export function watchMappings(
  watched: readonly { readonly dir: string; readonly concerns: (name: string) => boolean }[],
  changed: () => void,
  onError: (error: Error) => void,
  quietMs = 200,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watchers = watched.map(({ dir, concerns }) => {
    const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
      if (name !== null && !concerns(name.toString())) return;
      clearTimeout(timer);
      timer = setTimeout(changed, quietMs);
      timer.unref();
    });
    watcher.on('error', onError);
    return watcher;
  });
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
