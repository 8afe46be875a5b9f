import fs from 'node:fs';
import path from 'node:path';

/**
 * The one way a mapping or a test file is rewritten (a case appended by `record`, `requests export
 * --as-test` or the studio; a file saved in the studio): written beside the file, then renamed over it,
 * so a reader (the runner, a reload, an editor) never sees half a file.
 */
export function writeAtomically(filePath: string, text: string): void {
  const temporary = path.join(path.dirname(filePath), `.${path.basename(filePath)}.${process.pid}.tmp`);
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, filePath);
}
