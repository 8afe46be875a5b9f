import { formatIssue, type MappingIssue } from '../errors';
import { StudioError } from './studio-error';
import type { StudioFile, Workspace } from './workspace';

/** Each problem with its line as `validate` prints it: the page shows that text. */
export function withText(issues: readonly MappingIssue[]): (MappingIssue & { text: string })[] {
  return issues.map((issue) => ({ ...issue, text: formatIssue(issue) }));
}

/**
 * The file, when its saved text loads. While it does not, its last good mapping keeps serving, but a
 * run, a test run or a new test case of it would show or record that older mapping as if it were the
 * saved one: refused (409) with the load problems, which the page shows where its button is.
 */
export function loadedFile(workspace: Workspace, name: string, doing: string): StudioFile {
  const file = workspace.file(name);
  if (!file) throw new StudioError(404, `no mapping file ${name} in this studio; it has ${workspace.files.map((each) => each.name).join(', ')}`);
  if (file.loads && file.serving) return file;
  const errors = file.issues.filter((issue) => issue.severity === 'error');
  const count = `${errors.length} problem${errors.length === 1 ? '' : 's'}`;
  throw new StudioError(409, `${file.name} does not load as saved (${count}), so it cannot ${doing}: fix it in the editor and save. ${errors[0] ? formatIssue(errors[0]) : ''}`.trim(), { issues: withText(errors) });
}
