import jsonata from 'jsonata';
import { ExpressionLimitError } from './guard';
import type { Focus } from './guarded-slices';
import { findLongListLiteral } from './long-lists';

/**
 * `$eval(text, context?)` checked before JSONata's own runs it. The text is often request data (a
 * formula from the ERP), and what the mapping's own expressions are refused at load for would otherwise
 * reach the engine at request time: a list written out with 200,000 items blocked every request of the
 * process for 6.8 s, and parsing is one step whatever the text's length (about 0.1 s per megabyte).
 * So the text may be up to MAX_EVAL_TEXT characters, and a list written out longer than the depth limit
 * fails the request (D3120, as a syntax error of the text) before anything is evaluated. Everything else
 * in the text runs with the expression's limits, as JSONata's `$eval` does (same environment).
 */

/** Longest text `$eval` parses: about 10 ms of parsing, far above any formula. */
const MAX_EVAL_TEXT = 100_000;

interface JsonataFunction {
  readonly implementation: (this: unknown, ...args: unknown[]) => unknown;
}

/**
 * JSONata's own `$eval` (it parses the text and evaluates it in the caller's environment, which only the
 * library can do), fetched once per process: a constant of the library, not engine state.
 */
let original: Promise<JsonataFunction> | undefined;

function originalEval(): Promise<JsonataFunction> {
  original ??= jsonata('$eval').evaluate({}) as Promise<JsonataFunction>;
  return original;
}

async function evaluateText(this: Focus & { readonly options?: { readonly stack?: number } }, text: string | undefined, context?: unknown): Promise<unknown> {
  const own = await originalEval();
  if (typeof text === 'string') {
    if (text.length > MAX_EVAL_TEXT) {
      throw new ExpressionLimitError('text', `$eval was given a text of ${text.length} characters; the limit is ${MAX_EVAL_TEXT} (parsing it could not be interrupted)`);
    }
    let ast: unknown;
    try {
      ast = jsonata(text).ast();
    } catch {
      // JSONata's own $eval reports it (D3120).
    }
    const maxDepth = this.options?.stack;
    const longList = ast === undefined || typeof maxDepth !== 'number' ? undefined : findLongListLiteral(ast, maxDepth);
    if (longList) throw { code: 'D3120', value: longList.message, stack: new Error().stack };
  }
  return own.implementation.apply(this, context === undefined ? [text] : [text, context]);
}

export const EVAL_BUILTINS = [{ name: 'eval', signature: '<sx?:x>', implementation: evaluateText }] as const;
