import type { ExpressionStats } from '../expressions/compile';
import type { Mapping } from '../mapping/model';

/**
 * How the mappings' expressions ran (fast path, fallback, interpreter), summed for metrics. Each compiled
 * expression counts its own runs; this walks the frozen model to find them, once per scrape, not per request.
 */
export type ExpressionTotals = { -readonly [K in keyof ExpressionStats]: number };

function isStats(value: unknown): value is ExpressionStats {
  const stats = value as Partial<ExpressionStats> | null;
  return typeof stats === 'object' && stats !== null && typeof stats.fast === 'number' && typeof stats.fallback === 'number' && typeof stats.interpreter === 'number';
}

export function addExpressionStats(mappings: readonly Mapping[], into: ExpressionTotals): ExpressionTotals {
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node) || ArrayBuffer.isView(node)) return;
    seen.add(node);
    if (node instanceof Map) {
      for (const value of node.values()) visit(value);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'stats' && isStats(value)) {
        into.fast += value.fast;
        into.fallback += value.fallback;
        into.interpreter += value.interpreter;
      } else visit(value);
    }
  };
  for (const mapping of mappings) visit(mapping);
  return into;
}
