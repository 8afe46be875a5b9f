import pc from 'picocolors';
import type { Formatter } from 'picocolors/types';
import { formatIssue, type MappingIssue } from '../errors';
import { ROUTES } from '../contract/routes';

/**
 * Shared terminal output of the CLI: colour only when the stream is a terminal (picocolors honours
 * NO_COLOR and FORCE_COLOR), aligned tables, and one JSON document for `--json`.
 */
export interface Colors {
  readonly bold: Formatter;
  readonly dim: Formatter;
  readonly red: Formatter;
  readonly green: Formatter;
  readonly yellow: Formatter;
  readonly cyan: Formatter;
  readonly magenta: Formatter;
}

function colorsFor(stream: NodeJS.WriteStream): Colors {
  // picocolors decides from stdout; stderr may be a terminal while stdout is piped, or the reverse.
  const enabled = pc.isColorSupported && (stream.isTTY === true || 'FORCE_COLOR' in process.env);
  const c = pc.createColors(enabled);
  return { bold: c.bold, dim: c.dim, red: c.red, green: c.green, yellow: c.yellow, cyan: c.cyan, magenta: c.magenta };
}

export const out = {
  colors: colorsFor(process.stdout),
  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  },
  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  },
};

export const err = {
  colors: colorsFor(process.stderr),
  line(text = ''): void {
    process.stderr.write(`${text}\n`);
  },
};

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleLength(text)));
}

/** Columns padded to their widest cell; the last column is not padded so lines carry no trailing blanks. */
export function table(rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => { widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell)); });
  return rows.map((row) => indent + row.map((cell, index) => (index === row.length - 1 ? cell : pad(cell, widths[index]))).join('  ').trimEnd());
}

/** `file:line:col  message`, with the severity coloured; the plain text is exactly `formatIssue`. */
export function issueLine(issue: MappingIssue, colors: Colors): string {
  const text = formatIssue(issue);
  const split = text.indexOf('  ');
  const where = text.slice(0, split);
  const rest = text.slice(split + 2);
  const color = issue.severity === 'warning' ? colors.yellow : issue.severity === 'info' ? colors.cyan : colors.red;
  return `${color(where)}  ${rest}`;
}

/** JSON for people: indented, with long strings (Base64 images) shortened so the trace stays readable. */
export function prettyJson(value: unknown, indent: string, maxString = 240): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' && item.length > maxString ? `${item.slice(0, maxString)}… (${item.length} characters)` : item), 2);
  if (text === undefined) return `${indent}(nothing)`;
  return text.split('\n').map((line) => indent + line).join('\n');
}

/** The list shown when an operation argument names nothing. */
export function operationList(indent = '  '): string[] {
  return table(ROUTES.map((route) => [route.operationId, `${route.method} ${route.path}`]), indent);
}
