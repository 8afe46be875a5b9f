import { JSONATA_FUNCTIONS } from '../../expressions/jsonata-functions';

/**
 * The table of JSONata's functions in docs/mapping-format.md, from their declarations (the studio editor's
 * hover help reads the same: expressions/function-help.ts). The engine's helpers are the hand-written table
 * beside it, which test/docs/docs.test.ts checks against their declarations (expressions/functions.ts).
 */
const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderJsonataFunctions(): string {
  return ['| function | what it gives |', '|---|---|', ...JSONATA_FUNCTIONS.map((fn) => `| \`${cell(fn.usage)}\` | ${cell(fn.doc)} |`)].join('\n');
}
