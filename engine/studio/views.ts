import fs from 'node:fs';
import { ROUTES } from '../contract/routes';
import { formatIssue, type MappingIssue } from '../errors';
import { pushRows, rowOf, type PushRow, type RouteRow } from '../mapping/route-rows';
import { maskerOf } from '../testing/run-case';
import type { StudioFile } from './workspace';

/** What the Mappings page shows of one file: nothing secret (the base URL masked, the auth by kind only). */
export interface MappingView {
  readonly file: string;
  readonly name?: string;
  /** Whether the file on disk loads; when not, `serving` says whether a last good mapping still serves. */
  readonly loads: boolean;
  readonly serving: boolean;
  readonly baseUrl?: string;
  readonly auth?: string;
  readonly routes: readonly RouteRow[];
  readonly pushes: readonly PushRow[];
  readonly issues: readonly IssueView[];
  readonly testFile: string;
}

/** A problem as `validate` prints it, with the lines around it. */
export interface IssueView extends MappingIssue {
  readonly text: string;
  readonly around: readonly { readonly line: number; readonly text: string }[];
}

/** The mapping's test file by the convention of `test` and `record`: acme.yaml → acme.test.yaml. */
export function testFileOf(file: Pick<StudioFile, 'name'>): string {
  return file.name.replace(/\.(ya?ml)$/, '.test.$1');
}

function issueViews(issues: readonly MappingIssue[], text: string): IssueView[] {
  const lines = text.split('\n');
  return issues.map((issue) => ({
    ...issue,
    text: formatIssue(issue),
    around: issue.line <= 0 ? [] : lines.slice(Math.max(0, issue.line - 3), issue.line + 2).map((line, index) => ({ line: Math.max(1, issue.line - 2) + index, text: line })),
  }));
}

export function mappingView(file: StudioFile): MappingView {
  const mapping = file.serving;
  const text = fs.existsSync(file.path) ? fs.readFileSync(file.path, 'utf8') : '';
  const base = { file: file.name, loads: file.loads, serving: mapping !== undefined, issues: issueViews(file.issues, text), testFile: testFileOf(file) };
  if (!mapping) return { ...base, routes: [], pushes: [] };
  return {
    ...base,
    name: mapping.name,
    baseUrl: maskerOf(mapping).url(mapping.system.baseUrl),
    auth: mapping.system.auth.type,
    routes: ROUTES.map((route) => rowOf(mapping, route)),
    pushes: pushRows(mapping),
  };
}
