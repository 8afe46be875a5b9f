import type { Command } from 'commander';
import { ROUTES } from '../contract/routes';
import { EXIT_CODES } from '../errors';
import { pushRows, rowOf, type RouteRow } from '../mapping/route-rows';
import { loadOrReport } from './mapping-file';
import { out, table, type Colors } from './output';
import { collectEnv, envWith } from './usage';

interface RoutesOptions {
  env?: Record<string, string>;
  json?: boolean;
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
    out.json({ mapping: { name: mapping.name, file: mapping.file }, counts, routes: rows, pushes: pushRows(mapping) });
    return EXIT_CODES.OK;
  }
  const c = out.colors;
  out.line(`${c.bold(mapping.name)} ${c.dim(`(${mapping.file})`)}: ${counts.mapped} mapped, ${counts.static} static, ${counts.acknowledged} acknowledged, ${counts.unmapped} unmapped`);
  out.line('');
  const header = ['METHOD', 'PATH', 'OPERATION', 'STATUS', 'DETAIL'].map((title) => c.bold(title));
  for (const line of table([header, ...rows.map((row) => [row.method, row.path, row.operation, statusText(row, c), c.dim(detail(row))])])) out.line(line);
  const pushes = pushRows(mapping);
  if (pushes.length > 0) {
    out.line('');
    out.line(`${c.bold('push endpoints')} (the ERP pushes, the engine delivers to the platform through the outbox):`);
    const pushHeader = ['METHOD', 'PATH', 'AUTH', 'RECORDS', 'PLATFORM CALLS'].map((title) => c.bold(title));
    for (const line of table([pushHeader, ...pushes.map((row) => [row.method, row.path, row.auth, row.records, c.dim(row.calls.join(', '))])])) out.line(line);
  }
  return EXIT_CODES.OK;
}

export function registerRoutes(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('routes')
    .summary('list the contract routes and how a mapping answers each')
    .description(`List the ${ROUTES.length} contract routes and whether the mapping maps them (calls to the external system), answers them statically, acknowledges them (events) or leaves them unmapped; then the mapping's push endpoints, if any.\n\nExit code 0 when the mapping loads, 1 when it has errors, 2 for usage errors.`)
    .argument('<mapping>', 'mapping file (YAML)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mapping (repeatable)', collectEnv)
    .option('--json', 'print the routes as one JSON document')
    .action((mapping: string, options: RoutesOptions) => run(Promise.resolve(routes(mapping, options))));
}
