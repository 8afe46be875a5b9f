import type { AstNode } from '../subset';
import type { Unit } from './unit';

/**
 * A regular expression literal `/LOT-([A-Z][0-9]{4})/` written as code: at each evaluation, the matcher
 * function JSONata makes of it (language.ts's regexMatcher, over the RE2 engine of regex.ts), the
 * evaluation marked as one that made a function value, as the closure does (called-only.ts puts the mark
 * back when `$match`, `$replace`, `$split` or `$contains` only calls it). The pattern is the parse tree's
 * RegExp, handed over as a constant: its text is never written into the source.
 */
export function isWrittenRegex(node: AstNode): boolean {
  return node.type === 'regex' && node.predicate === undefined && node.group === undefined && node.keepArray === undefined && node.stages === undefined;
}

export function regexExpression(node: AstNode, unit: Unit): string {
  return `((run.functionsMade = true), regexMatcher(${unit.constant(node.value)}))`;
}
