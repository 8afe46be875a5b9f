import { isDeepEqual } from '../deep-equal';
import { FALLBACK, toBoolean, toText } from './runtime';

/**
 * JSONata's binary operators, mirroring evaluateBinary and the evaluate*Expression functions of
 * jsonata 2.2.2. Where the interpreter throws (T2001, T2009, D1001, ...) these throw FALLBACK, and the
 * interpreter's rerun gives the real error.
 */

function isNumeric(value: unknown): boolean {
  if (typeof value !== 'number') return false;
  if (Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) throw FALLBACK;
  return true;
}

function numeric(lhs: unknown, rhs: unknown, op: string): unknown {
  if (lhs !== undefined && !isNumeric(lhs)) throw FALLBACK;
  if (rhs !== undefined && !isNumeric(rhs)) throw FALLBACK;
  if (lhs === undefined || rhs === undefined) return undefined;
  const a = lhs as number;
  const b = rhs as number;
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    default: return a % b;
  }
}

function comparison(lhs: unknown, rhs: unknown, op: string): unknown {
  const ltype = typeof lhs;
  const rtype = typeof rhs;
  const lcomparable = ltype === 'undefined' || ltype === 'string' || ltype === 'number';
  const rcomparable = rtype === 'undefined' || rtype === 'string' || rtype === 'number';
  if (!lcomparable || !rcomparable) throw FALLBACK;
  if (ltype === 'undefined' || rtype === 'undefined') return undefined;
  if (ltype !== rtype) throw FALLBACK;
  const a = lhs as number;
  const b = rhs as number;
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    default: return a >= b;
  }
}

function includes(lhs: unknown, rhs: unknown): boolean {
  if (lhs === undefined || rhs === undefined) return false;
  const list = Array.isArray(rhs) ? rhs : [rhs];
  for (let index = 0; index < list.length; index++) if (list[index] === lhs) return true;
  return false;
}

export function boolize(value: unknown): boolean {
  const booled = toBoolean(value);
  return booled === undefined ? false : (booled as boolean);
}

/** The operators other than `and`/`or` (which short-circuit and are compiled separately). */
export function binary(op: string, lhs: unknown, rhs: unknown): unknown {
  switch (op) {
    case '+': case '-': case '*': case '/': case '%':
      return numeric(lhs, rhs, op);
    case '=':
      return lhs === undefined || rhs === undefined ? false : isDeepEqual(lhs, rhs);
    case '!=':
      return lhs === undefined || rhs === undefined ? false : !isDeepEqual(lhs, rhs);
    case '<': case '<=': case '>': case '>=':
      return comparison(lhs, rhs, op);
    case '&':
      return (lhs === undefined ? '' : toText(lhs)).concat(rhs === undefined ? '' : toText(rhs));
    case 'in':
      return includes(lhs, rhs);
    default:
      throw FALLBACK;
  }
}
