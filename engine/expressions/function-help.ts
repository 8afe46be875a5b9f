import { HELPER_FUNCTIONS } from './functions';
import { JSONATA_FUNCTIONS } from './jsonata-functions';

/**
 * The functions an expression can call, each from its one declaration: the engine's helpers
 * (functions.ts) and JSONata's own (jsonata-functions.ts). The studio editor's hover help
 * (GET /studio/api/functions) and the tables of docs/mapping-format.md (npm run docs) read them.
 */
export interface FunctionHelp {
  readonly name: string;
  /** How it is called; a helper's doc begins with an example call instead. */
  readonly usage?: string;
  readonly doc: string;
  /** Added by the engine (true) or JSONata's own. */
  readonly helper: boolean;
}

export function functionHelp(): FunctionHelp[] {
  return [
    ...HELPER_FUNCTIONS.map((helper) => ({ name: helper.name, doc: helper.doc, helper: true })),
    ...JSONATA_FUNCTIONS.map((fn) => ({ name: fn.name, usage: fn.usage, doc: fn.doc, helper: false })),
  ];
}
