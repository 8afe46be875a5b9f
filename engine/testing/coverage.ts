import jsonata from 'jsonata';
import { contractSchemaFiles } from '../contract/schema-files';
import type { MappingIssue, MappingIssueCode } from '../errors';
import type { LocatedExpression, Mapping } from '../mapping/model';
import type { PathSegment, YamlSource } from '../mapping/yaml-source';

/**
 * What the cases of a mapping test file never exercised, found while they run (`adapter-engine test`;
 * `validate --strict` makes the findings errors). A misspelt ERP field passes every other check: JSONata
 * gives nothing for it, an object constructor leaves the key out, and the answer is valid but emptier.
 * Two symptoms are visible across the cases of a file:
 * - an expression that gave nothing in every case that ran it (`d.Descr` for `d.Description`);
 * - an output field the mapping writes (a key of an object constructor in its output or in a function it
 *   calls, named like a contract field) that no case's output contains.
 * The mapping is instrumented by copying its model with each expression wrapped (the model is frozen and
 * the served engine carries no such counting).
 */

interface ExpressionUse {
  readonly operation: string;
  readonly expression: LocatedExpression;
  runs: number;
  gave: number;
}

export interface Coverage {
  /** The mapping to run the cases on: the loaded one, with its expressions counted. */
  readonly mapping: Mapping;
  /** The output a case built for an operation (before the contract check). */
  recordOutput(operation: string, data: unknown): void;
  findings(): MappingIssue[];
}

const isLocated = (value: object): value is LocatedExpression =>
  typeof (value as Partial<LocatedExpression>).evaluate === 'function' && typeof (value as Partial<LocatedExpression>).source === 'string' && typeof (value as Partial<LocatedExpression>).origin === 'object';

/** A copy of `node` with every expression replaced by `wrap(expression)`; parts without expressions are kept as they are (same objects). */
function withWrapped(node: unknown, wrap: (expression: LocatedExpression) => LocatedExpression): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) {
    const copy = node.map((element: unknown) => withWrapped(element, wrap));
    return copy.some((element, index) => element !== node[index]) ? copy : node;
  }
  if (node instanceof Map) {
    const copy = new Map([...(node as Map<unknown, unknown>)].map(([key, value]) => [key, withWrapped(value, wrap)]));
    return [...copy].some(([key, value]) => value !== node.get(key)) ? copy : node;
  }
  if (Object.getPrototypeOf(node) !== Object.prototype) return node; // URL, Secret, RegExp: no expressions inside
  if (isLocated(node)) return wrap(node);
  const entries = Object.entries(node).map(([key, value]) => [key, withWrapped(value, wrap)] as const);
  return entries.some(([key, value]) => value !== (node as Record<string, unknown>)[key]) ? Object.fromEntries(entries) : node;
}

/** Every property name the contract's schemas declare: the names an output field can have. */
function contractFieldNames(): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const properties = (node as { properties?: unknown }).properties;
    if (typeof properties === 'object' && properties !== null) for (const name of Object.keys(properties)) names.add(name);
    for (const value of Object.values(node)) visit(value);
  };
  for (const schema of contractSchemaFiles().values()) visit(schema);
  return names;
}

interface WrittenKey {
  readonly name: string;
  readonly at: readonly PathSegment[];
  readonly offset: number;
}

/** A value written as it is: null, true, false, a number or a text. */
function isLiteral(node: unknown): boolean {
  const type = (node as { type?: unknown } | undefined)?.type;
  return type === 'value' || type === 'string' || type === 'number';
}

/** The string keys of the object constructors in `text`, and the names of the functions it calls ($name(...)). */
function keysAndCalls(text: string, at: readonly PathSegment[]): { keys: WrittenKey[]; calls: Set<string> } {
  const keys: WrittenKey[] = [];
  const calls = new Set<string>();
  let tree: unknown;
  try {
    tree = jsonata(text).ast();
  } catch {
    return { keys, calls };
  }
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const current = node as { type?: string; value?: unknown; lhs?: unknown; procedure?: { type?: string; value?: unknown } };
    if (current.type === 'unary' && current.value === '{' && Array.isArray(current.lhs)) {
      for (const pair of current.lhs as unknown[][]) {
        const key = pair[0] as { type?: string; value?: unknown; position?: number };
        // A literal (`"updateWorkOrderRequest": null`, the contract's "no change") is exercised by being there.
        if (isLiteral(pair[1])) continue;
        // JSONata records the position after the closing quote.
        if (key.type === 'string' && typeof key.value === 'string') keys.push({ name: key.value, at, offset: Math.max(0, (key.position ?? 0) - key.value.length - 2) });
      }
    }
    if (current.type === 'function' && current.procedure?.type === 'variable' && typeof current.procedure.value === 'string') calls.add(current.procedure.value);
    Object.values(current).forEach(visit);
  };
  visit(tree);
  return { keys, calls };
}

/** Contract-named keys written by an operation's output and (transitively) the mapping functions it calls. */
function writtenFields(operation: string, outputText: string, source: YamlSource, fieldNames: ReadonlySet<string>): WrittenKey[] {
  const functions = ((source.value as { functions?: Record<string, unknown> }).functions ?? {}) as Record<string, unknown>;
  const found = keysAndCalls(outputText, ['operations', operation, 'output']);
  const keys = [...found.keys];
  const pending = [...found.calls];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name) || typeof functions[name] !== 'string') continue;
    seen.add(name);
    const inner = keysAndCalls(functions[name], ['functions', name]);
    keys.push(...inner.keys);
    pending.push(...inner.calls);
  }
  return keys.filter((key) => fieldNames.has(key.name));
}

/** The keys holding a value (not null) anywhere in `data`. */
function filledKeys(data: unknown, into: Set<string>): void {
  if (typeof data !== 'object' || data === null) return;
  if (Array.isArray(data)) return data.forEach((element) => filledKeys(element, into));
  for (const [key, value] of Object.entries(data)) {
    if (value !== null && value !== undefined) into.add(key);
    filledKeys(value, into);
  }
}

export function measureCoverage(mapping: Mapping, source: YamlSource): Coverage {
  const uses: ExpressionUse[] = [];
  const operations = new Map<string, unknown>();
  for (const [id, operation] of mapping.operations) {
    operations.set(id, withWrapped(operation, (expression) => {
      const use: ExpressionUse = { operation: id, expression, runs: 0, gave: 0 };
      uses.push(use);
      return Object.freeze({
        ...expression,
        async evaluate(input: unknown, bindings?: Record<string, unknown>) {
          const value = await expression.evaluate(input, bindings);
          use.runs += 1;
          if (value !== undefined) use.gave += 1;
          return value;
        },
      });
    }));
  }
  const instrumented = { ...mapping, operations } as Mapping;
  const filled = new Map<string, Set<string>>();

  const issue = (code: MappingIssueCode, line: number, col: number, path: string, message: string): MappingIssue => ({ file: source.file, line, col, path, severity: 'warning', code, message });

  return {
    mapping: instrumented,
    recordOutput(operation, data) {
      let keys = filled.get(operation);
      if (!keys) filled.set(operation, (keys = new Set()));
      filledKeys(data, keys);
    },
    findings() {
      const found: MappingIssue[] = [];
      for (const use of uses) {
        if (use.runs === 0 || use.gave > 0) continue;
        const { origin, source: text } = use.expression;
        found.push(issue('EXPRESSION_ALWAYS_EMPTY', origin.line, origin.col, `operations.${use.operation}`,
          `${use.operation}: the expression ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} gave nothing in every test case that ran it (${use.runs} time${use.runs === 1 ? '' : 's'}); a misspelt field of the ERP's answer gives nothing. Check it against a recorded answer, or add a case in which it gives a value`));
      }
      const fieldNames = contractFieldNames();
      for (const [id, operation] of mapping.operations) {
        const keys = filled.get(id);
        if (operation.mode !== 'flow' || !operation.output || !keys) continue;
        const reported = new Set<string>();
        for (const key of writtenFields(id, operation.output.source, source, fieldNames)) {
          if (keys.has(key.name) || reported.has(key.name)) continue;
          reported.add(key.name);
          const pos = source.insideString(key.at, key.offset);
          found.push(issue('OUTPUT_FIELD_NEVER_FILLED', pos.line, pos.col, `operations.${id}.output`,
            `${id}: the output field "${key.name}" is written here but no test case's answer has it; the expression that fills it gave nothing every time (a misspelt ERP field?). Add a case whose recorded answer fills it`));
        }
      }
      return found.sort((a, b) => a.line - b.line || a.col - b.col);
    },
  };
}
