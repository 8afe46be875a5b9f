import type { Command } from 'commander';
import { ROUTES, type RouteSpec } from '../contract/routes';
import { EXIT_CODES } from '../errors';
import type { Mapping } from '../mapping/model';
import { loadOrReport } from './mapping-file';
import { out, table, type Colors } from './output';
import { collectEnv, envWith } from './usage';

interface RoutesOptions {
  env?: Record<string, string>;
  json?: boolean;
}

type Status = 'mapped' | 'static' | 'acknowledged' | 'unmapped';

interface RouteRow {
  operation: string;
  method: string;
  path: string;
  kind: RouteSpec['kind'];
  status: Status;
  calls: string[];
  /** File types a file route parses itself. */
  fileTypes?: string[];
  /** What an unmapped route answers. */
  answers?: string;
}

function rowOf(mapping: Mapping, route: RouteSpec): RouteRow {
  const base = { operation: route.operationId, method: route.method, path: route.path, kind: route.kind, calls: [] as string[] };
  const operation = mapping.operations.get(route.operationId);
  if (!operation) return { ...base, status: 'unmapped', answers: route.unmappedDefault ? `${route.successResult} with empty data (contract default)` : 'AdapterNotDefined' };
  if (operation.mode === 'static') return { ...base, status: 'static' };
  if (operation.mode === 'acknowledge') return { ...base, status: 'acknowledged' };
  if (operation.mode === 'file') return { ...base, status: 'mapped', fileTypes: (['csv', 'json'] as const).filter((type) => operation[type] !== undefined) };
  return { ...base, status: 'mapped', calls: operation.calls.map((call) => call.name) };
}

function statusText(row: RouteRow, c: Colors): string {
  switch (row.status) {
    case 'mapped': return c.green('mapped');
    case 'static': return c.cyan('static');
    case 'acknowledged': return c.cyan('acknowledged');
    case 'unmapped': return c.yellow('unmapped');
  }
}

function detail(row: RouteRow): string {
  if (row.status === 'unmapped') return `answers ${row.answers}`;
  if (row.status === 'static') return 'fixed answer from the mapping';
  if (row.status === 'acknowledged') return 'answers success, forwards nothing';
  if (row.fileTypes) return `parses ${row.fileTypes.join(' and ')} files itself`;
  return row.calls.length === 0 ? 'no calls (output only)' : `calls: ${row.calls.join(', ')}`;
}

function routes(mappingFile: string, options: RoutesOptions): number {
  const mapping = loadOrReport(mappingFile, envWith(options.env), 'warning');
  if (!mapping) return EXIT_CODES.FAILED;
  const rows = ROUTES.map((route) => rowOf(mapping, route));
  const counts = Object.fromEntries((['mapped', 'static', 'acknowledged', 'unmapped'] as const).map((status) => [status, rows.filter((row) => row.status === status).length]));
  if (options.json) {
    out.json({ mapping: { name: mapping.name, file: mapping.file }, counts, routes: rows });
    return EXIT_CODES.OK;
  }
  const c = out.colors;
  out.line(`${c.bold(mapping.name)} ${c.dim(`(${mapping.file})`)}: ${counts.mapped} mapped, ${counts.static} static, ${counts.acknowledged} acknowledged, ${counts.unmapped} unmapped`);
  out.line('');
  const header = ['METHOD', 'PATH', 'OPERATION', 'STATUS', 'DETAIL'].map((title) => c.bold(title));
  for (const line of table([header, ...rows.map((row) => [row.method, row.path, row.operation, statusText(row, c), c.dim(detail(row))])])) out.line(line);
  return EXIT_CODES.OK;
}

export function registerRoutes(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('routes')
    .summary('list the contract routes and how a mapping answers each')
    .description(`List the ${ROUTES.length} contract routes and whether the mapping maps them (calls to the external system), answers them statically, acknowledges them (events) or leaves them unmapped.\n\nExit code 0 when the mapping loads, 1 when it has errors, 2 for usage errors.`)
    .argument('<mapping>', 'mapping file (YAML)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mapping (repeatable)', collectEnv)
    .option('--json', 'print the routes as one JSON document')
    .action((mapping: string, options: RoutesOptions) => run(Promise.resolve(routes(mapping, options))));
}
