import fs from 'node:fs';
import { ROUTES } from '../contract/routes';
import { formatIssue, type MappingIssue } from '../errors';
import { pushRows, rowOf, type PushRow, type RouteRow } from '../mapping/route-rows';
import { maskerOf } from '../testing/run-case';
import type { Mapping } from '../mapping/model';
import { changingCalls } from './changes-erp';

/** What the Mappings page shows of one file: nothing secret (the base URL masked, the auth by kind only). */
export interface MappingView {
  readonly file: string;
  readonly name?: string;
  /** Whether the file on disk loads; when not, `serving` says whether a last good mapping still serves. */
  readonly loads: boolean;
  readonly serving: boolean;
  readonly baseUrl?: string;
  readonly auth?: string;
  /** Each route with the calls of it that can change the ERP (Try asks before sending them). */
  readonly routes: readonly (RouteRow & { readonly changes: readonly string[] })[];
  readonly pushes: readonly PushRow[];
  readonly issues: readonly IssueView[];
  readonly testFile: string;
}

/** A problem as `validate` prints it (`file:line:col  message`), with the lines around it. */
export interface IssueView {
  readonly severity: MappingIssue['severity'];
  readonly line: number;
  readonly text: string;
  readonly around: readonly { readonly line: number; readonly text: string }[];
}

/** What the view is made from: a file of the studio, or one `serve` loads (its problems as text only). */
export interface FileState {
  readonly name: string;
  readonly path: string;
  readonly loads: boolean;
  readonly serving?: Mapping;
  readonly issues: readonly Pick<IssueView, 'severity' | 'line' | 'text'>[];
}

export function issueViewOf(issue: MappingIssue): Pick<IssueView, 'severity' | 'line' | 'text'> {
  return { severity: issue.severity, line: issue.line, text: formatIssue(issue) };
}

/** The mapping's test file by the convention of `test` and `record`: acme.yaml → acme.test.yaml. */
export function testFileOf(file: Pick<FileState, 'name'>): string {
  return file.name.replace(/\.(ya?ml)$/, '.test.$1');
}

function issueViews(issues: FileState['issues'], text: string): IssueView[] {
  const lines = text.split('\n');
  return issues.map((issue) => ({
    ...issue,
    around: issue.line <= 0 ? [] : lines.slice(Math.max(0, issue.line - 3), issue.line + 2).map((line, index) => ({ line: Math.max(1, issue.line - 2) + index, text: line })),
  }));
}

export function mappingView(file: FileState): MappingView {
  const mapping = file.serving;
  const text = fs.existsSync(file.path) ? fs.readFileSync(file.path, 'utf8') : '';
  const base = { file: file.name, loads: file.loads, serving: mapping !== undefined, issues: issueViews(file.issues, text), testFile: testFileOf(file) };
  if (!mapping) return { ...base, routes: [], pushes: [] };
  return {
    ...base,
    name: mapping.name,
    baseUrl: maskerOf(mapping).url(mapping.system.baseUrl),
    auth: mapping.system.auth.type,
    routes: ROUTES.map((route) => ({ ...rowOf(mapping, route), changes: changingCalls(mapping, route.operationId) })),
    pushes: pushRows(mapping),
  };
}
