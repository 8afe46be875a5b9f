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
 * An answer the plan cannot describe, a failed check or a list-item check: `validate` runs every time.
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

/** The context's letter of a call: without a `-` parameter the context is never put in, and is not looked at. */
const UNUSED_CONTEXT = 4;

/** The signature check of one call site. */
export class CallSiteSignature {
  private signature: Signature | undefined;
  private plans = new Map<number, Plan>();
  private learning = true;
  private usesContext = true;
  /** The last combination's key and plan: a call site mostly sees one, and then skips the map. */
  private lastKey = -1;
  private lastPlan: Plan = 'validate';

  validate(signature: Signature, args: unknown[], context: unknown): unknown[] {
    if (signature !== this.signature) {
      // A call site calls one named function; this only runs once, on the first call.
      this.signature = signature;
      this.plans = new Map();
      this.learning = !checksListItems(signature);
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
