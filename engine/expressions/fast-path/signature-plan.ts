/** JSONata's parsed signature (parseSignature in jsonata.js): the text as written and the check. */
export interface Signature {
  readonly definition?: string;
  validate(args: unknown[], context: unknown): unknown[];
}

/**
 * JSONata checks the arguments of a built-in or helper against its signature on every call: it writes a
 * letter per argument's type, matches the letters with a regular expression and walks the parameters to
 * build the argument list (putting the context in for a missing `-` argument, wrapping a value in a list
 * for an `a` parameter). With the example mapping that was about 15% of a list transform. What the walk
 * gives depends only on the letters (and the context's letter), unless a parameter checks the items of a
 * list (`a<s>`), so a call site asks JSONata's own `validate` once per combination of letters, with
 * stand-in values, and remembers where each argument went: a plan. The calls after that follow the plan.
 * A parameter that checks a list's items (`a<n>`) is checked item by item against its letter as JSONata
 * does, and on a mismatch `validate` runs and gives JSONata's error. An answer the plan cannot describe, a
 * failed check, a signature more involved than letters with one item letter: `validate` runs every time.
 */

type Source =
  | { readonly from: 'arg'; readonly index: number; readonly wrap: boolean }
  | { readonly from: 'context'; readonly wrap: boolean }
  | { readonly from: 'value'; readonly value: null | undefined; readonly wrap: boolean };

/** 'same': the arguments as they are, in their order (no context put in, nothing wrapped, none added). */
type Plan = readonly Source[] | 'validate' | 'same';

/** A call site sees a few combinations of argument types; a runaway one (an expression over varied data) stops learning. */
const MAX_PLANS = 32;

/** JSONata's getSymbol as a number, never 0 (so that a key of n letters differs from one of n+1). */
function letter(value: unknown): number {
  switch (typeof value) {
    case 'string': return 1;
    case 'number': return 2;
    case 'boolean': return 3;
    case 'undefined': return 4;
    case 'function': return 7;
    case 'object': {
      if (value === null) return 5;
      const flags = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
      if (flags._jsonata_function === true || flags._jsonata_lambda === true) return 7;
      return Array.isArray(value) ? 6 : 8;
    }
    default: return 4;
  }
}

/** Letters per key: 16^13 is still an exact number. */
const MAX_LEARNED_ARGUMENTS = 12;

/** A stand-in of the letter's type that can be told apart from every other stand-in (null and undefined are values). */
function standIn(code: number, serial: number): { value: unknown; distinct: boolean } {
  switch (code) {
    case 1: return { value: `\u0000stand-in ${serial}`, distinct: true };
    case 2: return { value: serial + 0.5, distinct: true };
    case 3: return { value: true, distinct: false };
    case 4: return { value: undefined, distinct: false };
    case 5: return { value: null, distinct: false };
    case 6: return { value: [], distinct: true };
    // A function argument ($map's, $sort's, $reduce's): JSONata's getSymbol gives 'f' for any JavaScript function.
    case 7: return { value: () => serial, distinct: true };
    default: return { value: {}, distinct: true };
  }
}

function learn(signature: Signature, codes: readonly number[], contextCode: number): Plan {
  // A function as the context is left to validate; two booleans would be two equal stand-ins.
  if (contextCode === 7) return 'validate';
  if ([...codes, contextCode].filter((code) => code === 3).length > 1) return 'validate';
  const args = codes.map((code, index) => standIn(code, index));
  const context = standIn(contextCode, codes.length);
  let validated: unknown[];
  try {
    validated = signature.validate(args.map((arg) => arg.value), context.value);
  } catch {
    return 'validate';
  }
  const plan: Source[] = [];
  for (const entry of validated) {
    const wrapped = Array.isArray(entry) && entry.length === 1 && !args.some((arg) => arg.value === entry);
    const value = wrapped ? (entry as unknown[])[0] : entry;
    const index = args.findIndex((arg) => arg.distinct && arg.value === value);
    if (index >= 0) plan.push({ from: 'arg', index, wrap: wrapped });
    else if (context.distinct && value === context.value) plan.push({ from: 'context', wrap: wrapped });
    else if (value === null || value === undefined) plan.push({ from: 'value', value, wrap: wrapped });
    else if (typeof value === 'boolean' && (codes.includes(3) || contextCode === 3)) {
      const at = codes.indexOf(3);
      plan.push(at >= 0 ? { from: 'arg', index: at, wrap: wrapped } : { from: 'context', wrap: wrapped });
    } else return 'validate';
  }
  const same = plan.length === codes.length && plan.every((source, index) => source.from === 'arg' && source.index === index && !source.wrap);
  return same ? 'same' : plan;
}

/** The parameters' part of a signature (`x-` of `<x-:s>`), undefined when it has no text. */
function parameters(signature: Signature): string | undefined {
  const definition = signature.definition;
  if (typeof definition !== 'string') return undefined;
  const colon = definition.lastIndexOf(':');
  return (colon < 0 ? definition : definition.slice(0, colon)).slice(1);
}

/** True when a parameter checks the items of a list (`a<s>`): that check reads the values, not only their letters. */
function checksListItems(signature: Signature): boolean {
  return parameters(signature)?.includes('<') ?? true;
}

/** The letters of JSONata's getSymbol a list's items can be checked against, as letter() numbers them. */
const ITEM_LETTERS: Readonly<Record<string, number>> = { s: 1, n: 2, b: 3, l: 5, a: 6, f: 7, o: 8 };

/**
 * Per parameter, the letter its list's items must have (`a<n>` of $sum, `a<s>` of $join, `a<o>` of
 * $merge), undefined for a parameter without; undefined altogether when a parameter is more than a letter
 * with one item letter (a choice `(sf)`, a repeat `+`, a function's signature `f<s:o>`), which then
 * runs JSONata's validate every time. One validated argument per parameter, as validate gives them.
 */
function itemLetters(signature: Signature): readonly (number | undefined)[] | undefined {
  const text = parameters(signature);
  if (text === undefined) return undefined;
  const letters: (number | undefined)[] = [];
  for (let at = 0; at < text.length; at++) {
    const symbol = text[at];
    if (symbol === '?' || symbol === '-') continue;
    if (!'bnslaofxj'.includes(symbol)) return undefined;
    if (text[at + 1] !== '<') {
      letters.push(undefined);
      continue;
    }
    if (symbol === 'f') {
      // A function's own signature (`f<s:o>` of $match): validate does not check a function argument against it.
      const close = closingBracket(text, at + 1);
      if (close < 0) return undefined;
      letters.push(undefined);
      at = close;
      continue;
    }
    const close = text.indexOf('>', at + 2);
    const item = close < 0 ? undefined : ITEM_LETTERS[text.slice(at + 2, close)];
    if (item === undefined) return undefined;
    letters.push(item);
    at = close;
  }
  return letters;
}

/** The position of the `>` that closes the `<` at `open` (a function's signature may hold lists' `<...>`), -1 when none. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    if (text[at] === '<') depth += 1;
    else if (text[at] === '>' && --depth === 0) return at;
  }
  return -1;
}

/** The context's letter of a call: without a `-` parameter the context is never put in, and is not looked at. */
const UNUSED_CONTEXT = 4;

/** The signature check of one call site. */
export class CallSiteSignature {
  private signature: Signature | undefined;
  private plans = new Map<number, Plan>();
  private learning = true;
  /** For a signature that checks list items (itemLetters): the plan holds only when the items pass. */
  private items: readonly (number | undefined)[] | undefined;
  private usesContext = true;
  /** The last combination's key and plan: a call site mostly sees one, and then skips the map. */
  private lastKey = -1;
  private lastPlan: Plan = 'validate';

  validate(signature: Signature, args: unknown[], context: unknown): unknown[] {
    if (signature !== this.signature) {
      // A call site calls one named function; this only runs once, on the first call.
      this.signature = signature;
      this.plans = new Map();
      this.items = checksListItems(signature) ? itemLetters(signature) : undefined;
      this.learning = !checksListItems(signature) || this.items !== undefined;
      this.usesContext = parameters(signature)?.includes('-') ?? true;
      this.lastKey = -1;
    }
    if (!this.learning || args.length > MAX_LEARNED_ARGUMENTS) return signature.validate(args, context);
    const contextCode = this.usesContext ? letter(context) : UNUSED_CONTEXT;
    let key = contextCode;
    for (let index = 0; index < args.length; index++) key = key * 16 + letter(args[index]);
    let plan = key === this.lastKey ? this.lastPlan : this.plans.get(key);
    if (plan === undefined) {
      if (this.plans.size >= MAX_PLANS) return signature.validate(args, context);
      plan = learn(signature, args.map(letter), contextCode);
      this.plans.set(key, plan);
    }
    this.lastKey = key;
    this.lastPlan = plan;
    if (plan === 'validate') return signature.validate(args, context);
    // A list whose items the signature checks, with an item of another letter: validate gives JSONata's error.
    if (this.items !== undefined && !itemsPass(this.items, plan, args)) return signature.validate(args, context);
    if (plan === 'same') return args;
    const validated = new Array<unknown>(plan.length);
    for (let index = 0; index < plan.length; index++) {
      const source = plan[index];
      const value = source.from === 'arg' ? args[source.index] : source.from === 'context' ? context : source.value;
      validated[index] = source.wrap ? [value] : value;
    }
    return validated;
  }
}

/** JSONata's check of a list argument's items (T0412), for the arguments a plan hands on unwrapped. */
function itemsPass(items: readonly (number | undefined)[], plan: readonly Source[] | 'same', args: readonly unknown[]): boolean {
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === undefined) continue;
    const source: Source | undefined = plan === 'same' ? { from: 'arg', index, wrap: false } : plan[index];
    if (source === undefined || source.from === 'context') return false;
    if (source.from !== 'arg' || source.wrap) continue;
    const value = args[source.index];
    if (!Array.isArray(value)) continue;
    for (let at = 0; at < value.length; at++) if (letter(value[at]) !== item) return false;
  }
  return true;
}
