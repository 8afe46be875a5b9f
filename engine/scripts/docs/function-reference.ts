import { HELPER_FUNCTIONS } from '../../expressions/functions';
import { JSONATA_FUNCTIONS } from '../../expressions/jsonata-functions';

/**
 * The tables of the functions an expression can call in docs/mapping-format.md, from their declarations
 * (the studio editor's hover help reads the same: expressions/function-help.ts).
 */
const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderHelperFunctions(): string {
  return ['| function | what it gives |', '|---|---|', ...HELPER_FUNCTIONS.map((helper) => `| \`$${helper.name}\` | ${cell(helper.doc)} |`)].join('\n');
}

export function renderJsonataFunctions(): string {
  return ['| function | what it gives |', '|---|---|', ...JSONATA_FUNCTIONS.map((fn) => `| \`${cell(fn.usage)}\` | ${cell(fn.doc)} |`)].join('\n');
}
