import { compileNode, type Evaluator } from '../compile-node';
import type { AstNode } from '../subset';

/**
 * The state of one expression's generation: the functions and call-site variables written so far,
 * the values kept out of the source (`K`: a lambda's parsed signature) and the closures of subtrees
 * left to the closure fast path (`C`). Every identifier in the source is made here or is a helper's.
 */
export class Unit {
  readonly lines: string[] = [];
  readonly constants: unknown[] = [];
  readonly closures: Evaluator[] = [];
  /** The node kinds that run as closures, for `dry-run --explain`. */
  readonly delegated: string[] = [];
  private serial = 0;
  private readonly functions = new Map<AstNode, string>();

  constructor(readonly lambdaNames: ReadonlySet<string>) {}

  name(prefix: string): string {
    this.serial += 1;
    return `${prefix}${this.serial}`;
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `K[${this.constants.length - 1}]`;
  }

  /** A call into the closure fast path for a subtree the generator leaves to it, built when it first runs. */
  closure(node: AstNode, why: string): string {
    let built: Evaluator | undefined;
    this.closures.push((input, frame, run) => (built ??= compileNode(node, this.lambdaNames))(input, frame, run));
    this.delegated.push(why);
    return `C[${this.closures.length - 1}]`;
  }

  /** The function of a node, written once however often it is referred to. */
  memo(node: AstNode, write: (name: string) => string): string {
    const known = this.functions.get(node);
    if (known !== undefined) return known;
    const name = this.name('f');
    this.functions.set(node, name);
    this.lines.push(write(name));
    return name;
  }
}

/** What the structures (structures.ts) write their parts with: generate.ts's two writers. */
export interface Writer {
  expression(node: AstNode, unit: Unit, input?: string): string;
  functionFor(node: AstNode, unit: Unit): string;
}

/** The clock check of a loop, as compile-node.ts's tick(): every 1024th item. */
export const TICK = 'if ((++run.ticks & 1023) === 0) checkClock(run);';
