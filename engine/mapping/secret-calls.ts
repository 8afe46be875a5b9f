import { callsOf } from './parse-tree';

/**
 * `$secret("NAME")` in an expression: the value of an environment variable, given to the expression as
 * a value when it runs (never pasted into its text, where a quote in the value would break it and a load
 * error would print it). Read from the expression's parse tree; the name must be a literal so the load
 * can check the variable is set and every value can be masked where the engine shows what it sent.
 */

export interface SecretCall {
  /** The variable's name, or undefined when the argument is not one string literal. */
  readonly name?: string;
  /** Offset of the call in the expression text (JSONata's position is just after the token). */
  readonly offset: number;
}

/** Every `$secret(...)` call of a parse tree, in source order. */
export function secretCalls(tree: unknown): SecretCall[] {
  return callsOf(tree, 'secret').map((node) => {
    const [argument, ...more] = node.arguments ?? [];
    const literal = argument?.type === 'string' && more.length === 0 && typeof argument.value === 'string' ? argument.value : undefined;
    return { name: literal, offset: Math.max(0, (node.procedure?.position ?? 7) - 7) };
  });
}
