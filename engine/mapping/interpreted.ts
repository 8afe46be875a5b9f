import type { MappingIssue } from '../errors';
import type { LocatedExpression, Mapping } from './model';

/**
 * The info lines of `validate` and the studio: each expression of the mapping that will run on JSONata's
 * interpreter instead of compiled code (docs/expressions-compiled.md), at its place, with the construct
 * that keeps it there. Asking prepares each expression (parses it with the mapping's functions), which
 * `serve` leaves to the first evaluation: only these tools ask.
 */
function isLocatedExpression(value: object): value is LocatedExpression {
  const candidate = value as Partial<LocatedExpression>;
  return typeof candidate.source === 'string' && typeof candidate.explain === 'function' && typeof candidate.origin === 'object';
}

/** Every expression of the mapping, in file order (dry-run --explain and the info lines read them). */
export function locatedExpressions(mapping: Mapping): LocatedExpression[] {
  const found: LocatedExpression[] = [];
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (isLocatedExpression(value)) {
      found.push(value);
      return;
    }
    if (value instanceof Map) for (const item of value.values()) walk(item);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(mapping);
  return found.sort((a, b) => a.origin.line - b.origin.line || a.origin.col - b.origin.col);
}

export function interpretedExpressions(mapping: Mapping): MappingIssue[] {
  const issues: MappingIssue[] = [];
  for (const expression of locatedExpressions(mapping)) {
    const { runs, why } = expression.explain();
    if (runs !== 'interpreter') continue;
    issues.push({
      ...expression.origin,
      code: 'EXPRESSION_INTERPRETED',
      path: '',
      severity: 'info',
      message: `this expression runs on JSONata's interpreter, not compiled: ${why ?? 'the fast path is turned off'}`,
    });
  }
  return issues;
}
