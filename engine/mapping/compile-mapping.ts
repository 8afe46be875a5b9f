import { outputFields } from './output-fields';
import { declaredSecretValues } from './mask';
import { Secret } from './secret';
import { secretCalls, type SecretCall } from './secret-calls';
import { findRoute, type JsonSchema, type RouteSpec } from '../contract/routes';
import { createSchemaRegistry, type SchemaRegistry } from '../contract/schema-registry';
import type { MappingIssue, MappingIssueCode } from '../errors';
import { compileWithTree, ExpressionSyntaxError, isReservedFunctionName, JSONATA_BUILTINS, UnsupportedRegexError, type CompileOptions, type ExpressionLimits } from '../expressions/compile';
import { HELPER_FUNCTIONS } from '../expressions/functions';
import { unknownFunctionCalls } from './function-calls';
import { FieldsReadCollector } from './fields-read';
import { changesPerAttempt } from './per-attempt';
import { callReferences, rootPaths, type RootPath } from './call-references';
import { inputFieldProblems } from './input-fields';
import { missingRequiredFields } from './output-required';
import { closest } from './check-structure';
import { dateArgumentProblems } from './date-arguments';
import { readsResponseStatus } from './parse-tree';
import { compileFileOperation, FILE_ROUTES, type CompileContext } from './compile-file';
import { compileInbound } from './compile-inbound';
import { compilePushes, type PushCompileContext } from './compile-push';
import { compileCache, compileCallRetry, compileForEach, compilePaginate, compileRawQuery, compileRefusal, type CompileHelpers } from './compile-connectivity';
import { compileSystem, type CallTarget } from './compile-system';
import { compileXmlRequest } from './compile-xml-request';
import { compileGraphql, type SchemaCache } from './compile-graphql';
import type { CallDocument, MappingDocument, OperationDocument, OperationMode } from './format';
import { withDefaults } from './format/defaults';
import type { OutboxDocument, OutcomeDocument, SessionDocument } from './format/mapping';
import type { CallSpec, OutboxSpec, LocatedExpression, Mapping, Operation, OutcomeRule, SystemSpec, Template } from './model';
import { createPrelude, type FunctionDefinition } from '../expressions/prelude';
import { splitTemplate, TemplateSyntaxError } from './templates';
import type { PathSegment, UnsetVariables, YamlSource } from './yaml-source';

/** Where `$secret("NAME")` reads its variables, and whether an unset one is an error (serve) or a warning (validate). */
export interface SecretEnvironment {
  readonly env: NodeJS.ProcessEnv;
  readonly unset: UnsetVariables;
}

/**
 * Turns a structurally valid mapping document into the frozen internal model: every expression and
 * template compiled, every result name checked against its route, every static answer checked against
 * the contract. Collects all problems rather than stopping at the first.
 */

/** `operations.GetItem.calls[0]`, as messages name places. */
function named(path: readonly PathSegment[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof URL)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/**
 * The contract's validators for static answers, built on first use and shared by every mapping loaded in
 * the process: like the contract schemas they check against, they are constants of the program (as the
 * format's shape check in check-structure.ts is). A registry per file (two AJV instances holding every
 * contract schema) was half the load time of each further mapping file.
 */
let staticChecks: SchemaRegistry | undefined;
function staticAnswerChecks(): SchemaRegistry {
  staticChecks ??= createSchemaRegistry();
  return staticChecks;
}

/**
 * A path into a call's recorded answer (`calls.order.body.customer.name`) read by an operation's
 * expression: `validate` checks its field names against the answers the mapping's tests recorded.
 */
export interface AnswerRead {
  readonly operationId: string;
  readonly call: string;
  /** The names after `body`, each where it stands in the file. */
  readonly fields: readonly { readonly name: string; readonly file: string; readonly line: number; readonly col: number }[];
}

/** Which calls the expressions being compiled may read as `calls.<name>` (set while an operation's are). */
interface CallScope {
  readonly operationId: string;
  /** Every call the operation defines, in order. */
  readonly defined: readonly string[];
  /** The calls whose records exist when these expressions run. */
  readonly readable: readonly string[];
  /** Why a call the operation defines cannot be read here. */
  readonly notYet: (name: string) => string;
}

class Compiler implements CompileContext, CompileHelpers, PushCompileContext {
  readonly issues: MappingIssue[] = [];
  readonly warnings: MappingIssue[] = [];
  /** The `$name := function(...) {...};` definitions an expression needs, placed before it. */
  private preludeFor: (source: string) => string = () => '';
  /** Every function an expression may call: JSONata's, the engine's helpers, $secret, and the mapping's own. */
  private callable: ReadonlySet<string> = new Set([...JSONATA_BUILTINS, ...HELPER_FUNCTIONS.map((helper) => helper.name), 'secret']);
  /** Set while an operation's expressions are compiled: their `calls.<name>` are checked against it. */
  private scope?: CallScope;
  /** GraphQL schemas (graphql.schema) read in this load, by file. */
  readonly graphqlSchemas: SchemaCache = new Map();
  /** Set while a contract operation's expressions are compiled: their `input.<field>` are checked against its route. */
  private inputOf?: RouteSpec;
  /** What the operations' expressions read of their calls' answers. */
  readonly answerReads: AnswerRead[] = [];
  /** The mapping's functions that call $secret: an expression whose prelude defines one needs the binding too. */
  private readonly secretFunctions = new Set<string>();

  /** Values of the variables `$secret("NAME")` reads, bound to the expressions that call it. */
  readonly secrets = new Map<string, string>();
  /** What the expressions read, for drift watching (fields-read.ts). */
  readonly fieldsRead = new FieldsReadCollector();
  /** The expressions that give a new value on each attempt (per-attempt.ts): a header holding one is computed as each attempt is sent. */
  private readonly perAttempt = new WeakSet<LocatedExpression>();

  constructor(readonly source: YamlSource, private readonly limits: ExpressionLimits, readonly baseDir: string, private readonly env: SecretEnvironment = { env: process.env, unset: 'error' }, private readonly compileOptions: CompileOptions = {}) {}

  functions(raw: Record<string, string> | undefined): void {
    const definitions: FunctionDefinition[] = [];
    this.callable = new Set([...this.callable, ...Object.keys(raw ?? {})]);
    for (const [name, text] of Object.entries(raw ?? {})) {
      const path = ['functions', name];
      if (isReservedFunctionName(name)) {
        this.report('RESERVED_NAME', path, `a function named "${name}" would hide the built-in $${name}; choose another name`, this.source.keyAt(path));
        continue;
      }
      const compiled = this.compiledAt(text, path);
      if (!compiled) continue;
      if ((compiled.tree as { readonly type?: unknown }).type !== 'lambda') {
        this.report('EXPRESSION_SYNTAX', path, `functions.${name} must be a JSONata function, e.g. function($order) { ... }`);
        continue;
      }
      if (secretCalls(compiled.tree).length > 0) this.secretFunctions.add(name);
      definitions.push({ name, text });
    }
    this.preludeFor = createPrelude(definitions);
  }

  report(code: MappingIssueCode, path: readonly PathSegment[], message: string, pos = this.source.at(path)): void {
    this.issues.push({ file: this.source.file, line: pos.line, col: pos.col, path: named(path), severity: 'error', code, message });
  }

  warn(code: MappingIssueCode, path: readonly PathSegment[], message: string): void {
    this.warnAt(code, path, message, this.source.at(path));
  }

  private warnAt(code: MappingIssueCode, path: readonly PathSegment[], message: string, pos: { line: number; col: number }): void {
    this.warnings.push({ file: this.source.file, line: pos.line, col: pos.col, path: named(path), severity: 'warning', code, message });
  }

  origin(path: readonly PathSegment[]) {
    return { file: this.source.file, ...this.source.at(path) };
  }

  expression(text: string, path: readonly PathSegment[], offsetInString = 0): LocatedExpression | undefined {
    return this.compiledAt(text, path, offsetInString)?.expression;
  }

  /** The expression and its parse tree (for a check of its own, as functions() reads its kind), or undefined when reported. */
  private compiledAt(text: string, path: readonly PathSegment[], offsetInString = 0): { readonly expression: LocatedExpression; readonly tree: unknown } | undefined {
    try {
      // The tree is read here and let go: the compiled expression does not keep it (compileWithTree).
      // A whole expression field (not a template's placeholder, which sits after its brace) that reads ${VAR}.
      const pasted = offsetInString === 0 ? this.source.envAt(path) : undefined;
      if (pasted) {
        this.envInExpression(path, pasted.names[0] ?? 'NAME');
        return undefined;
      }
      const prelude = this.preludeFor(text);
      const { compiled: expression, tree } = compileWithTree(text, this.limits, prelude, this.compileOptions);
      this.fieldsRead.add(tree);
      const origin = { file: this.source.file, ...this.source.insideString(path, offsetInString) };
      for (const call of unknownFunctionCalls(tree, this.callable)) {
        const hint = closest(call.name, [...this.callable]);
        this.report('FUNCTION_UNKNOWN', path, `$${call.name} is not a function: not JSONata's, not the engine's and not one of this mapping's functions${hint ? `; did you mean $${hint}?` : ''}`, this.source.insideString(path, offsetInString + call.offset));
      }
      // A function of the mapping that calls $secret (checked where it is defined) runs inside this expression's prelude.
      const viaFunction = [...this.secretFunctions].some((name) => prelude.includes(`$${name} := `));
      const bindings = this.secretBindings(secretCalls(tree), path, offsetInString, viaFunction);
      if (bindings === false) return undefined;
      // The properties, not a spread: `fastPath` is a getter that prepares the expression, which waits for the first evaluation.
      const properties = Object.getOwnPropertyDescriptors(expression);
      if (bindings) properties.evaluate = { value: (input: unknown) => expression.evaluate(input, bindings), enumerable: true };
      const compiled: LocatedExpression = Object.freeze(Object.defineProperties({ origin }, properties) as LocatedExpression);
      if (this.scope || this.inputOf) this.rootsRead(rootPaths(text, tree), path, offsetInString);
      if (changesPerAttempt(tree)) this.perAttempt.add(compiled);
      for (const problem of dateArgumentProblems(text, tree)) this.report(problem.code, path, problem.message, this.source.insideString(path, offsetInString + problem.offset));
      return { expression: compiled, tree };
    } catch (error) {
      if (!(error instanceof ExpressionSyntaxError)) throw error;
      if (error instanceof UnsupportedRegexError) {
        this.report('REGEX_UNSUPPORTED', path, error.message, this.source.insideString(path, offsetInString + error.offset));
        return undefined;
      }
      this.report('EXPRESSION_SYNTAX', path, `JSONata expression does not compile: ${error.message} (${error.code})`, this.source.insideString(path, offsetInString + error.offset));
      return undefined;
    }
  }

  /**
   * `${VAR}` inside an expression pastes the value into JSONata text: a quote in it breaks the expression,
   * and a load error would print part of it. Refused, with the way that gives the value as a value.
   */
  private envInExpression(path: readonly PathSegment[], name: string): void {
    this.report('ENV_IN_EXPRESSION', path, `\${${name}} inside an expression pastes the variable's value into the expression's text, where a quote in it breaks the expression and an error message would show it; write $secret("${name}") instead, which gives the value as a value and masks it wherever the engine shows what it sent`);
  }

  /** The bindings of an expression's `$secret("NAME")` calls: undefined when it makes none, false when one is reported. */
  private secretBindings(calls: readonly SecretCall[], path: readonly PathSegment[], offsetInString: number, viaFunction: boolean): Record<string, unknown> | undefined | false {
    if (calls.length === 0 && !viaFunction) return undefined;
    let ok = true;
    for (const call of calls) {
      const at = this.source.insideString(path, offsetInString + call.offset);
      if (call.name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(call.name)) {
        this.report('SECRET_NAME_INVALID', path, '$secret takes the name of an environment variable written as text, e.g. $secret("ERP_API_KEY"), so the load can check it is set and mask its value', at);
        ok = false;
        continue;
      }
      const value = this.env.env[call.name];
      if (value !== undefined) this.secrets.set(call.name, value);
      else if (this.env.unset === 'warning') this.warnAt('ENV_UNSET', path, `environment variable ${call.name} (read by $secret) is not set; checked without it (serve and live calls need it)`, at);
      else {
        this.report('ENV_UNSET', path, `environment variable ${call.name} (read by $secret) is not set; set it in the environment or in an --env-file before starting the engine`, at);
        ok = false;
      }
    }
    if (!ok) return false;
    const values = this.secrets;
    // Checks that send nothing (test, diff, dry-run --answers) run on recorded answers, which need no
    // secret: an unset one stands in as its ${NAME} text, as an unset ${NAME} in the file does.
    const standIn = this.env.unset === 'warning';
    // Bound per expression, read when it runs: a variable set only after a warning-mode check is reported there.
    return {
      secret: (name: string) => {
        const value = values.get(name);
        if (value !== undefined) return value;
        if (standIn) return `\${${name}}`;
        throw new Error(`environment variable ${name} is not set`);
      },
    };
  }

  /**
   * A `calls.<name>` the operation does not define, or whose record does not exist yet when the expression
   * runs, gives nothing at run time: an answer with data missing, not an error. Refused here instead, at
   * the name's own line and column.
   */
  private callsRead(paths: readonly RootPath[], path: readonly PathSegment[], offsetInString: number, scope: CallScope): void {
    for (const { name, offset } of callReferences(paths)) {
      const pos = this.source.insideString(path, offsetInString + offset);
      if (!scope.defined.includes(name)) {
        const hint = closest(name, scope.defined);
        const has = scope.defined.length > 0 ? `its calls: ${scope.defined.join(', ')}` : 'it makes no calls';
        this.report('CALL_NOT_DEFINED', path, `calls.${name}: ${scope.operationId} has no call named "${name}"${hint ? `; did you mean calls.${hint}?` : ''} (${has})`, pos);
      } else if (!scope.readable.includes(name)) {
        this.report('CALL_NOT_YET_MADE', path, scope.notYet(name), pos);
      }
    }
  }

  /** What an expression reads from its root: the calls (checked against the scope), the input (against the route), the answers (kept for validate). */
  private rootsRead(paths: readonly RootPath[], path: readonly PathSegment[], offsetInString: number): void {
    if (this.scope) this.callsRead(paths, path, offsetInString, this.scope);
    if (!this.inputOf) return;
    for (const problem of inputFieldProblems(this.inputOf, paths)) this.report('INPUT_FIELD_UNKNOWN', path, problem.message, this.source.insideString(path, offsetInString + problem.offset));
    for (const names of paths) {
      const [root, call, body, ...fields] = names;
      if (root.name !== 'calls' || body?.name !== 'body' || fields.length === 0 || !this.scope?.defined.includes(call.name)) continue;
      const at = (offset: number) => ({ file: this.source.file, ...this.source.insideString(path, offsetInString + offset) });
      this.answerReads.push({ operationId: this.scope.operationId, call: call.name, fields: fields.map((field) => ({ name: field.name, ...at(field.offset) })) });
    }
  }

  private scoped<T>(scope: CallScope, compile: () => T): T {
    this.scope = scope;
    try {
      return compile();
    } finally {
      this.scope = undefined;
    }
  }

  template(text: string, path: readonly PathSegment[]): Template | undefined {
    let pieces;
    try {
      pieces = splitTemplate(text);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      this.report('TEMPLATE_SYNTAX', path, error.message, this.source.insideString(path, error.offset));
      return undefined;
    }
    const parts: (string | LocatedExpression)[] = [];
    let ok = true;
    for (const piece of pieces) {
      if ('literal' in piece) parts.push(piece.literal);
      else {
        const compiled = this.expression(piece.expression, path, piece.offset);
        if (compiled) parts.push(compiled);
        else ok = false;
      }
    }
    return ok ? { source: text, parts, origin: this.origin(path) } : undefined;
  }

  /** A call's path under the base URL, or its url (an absolute URL from an answer, under system.assetHosts): one of them. */
  private callTarget(raw: CallDocument, path: readonly PathSegment[], target: CallTarget): Template | undefined {
    if (raw.url !== undefined && raw.path !== undefined) return this.refuse('SETTINGS_DISAGREE', [...path, 'url'], `${named(path)} has both path and url; a call goes to a path under system.baseUrl, or to a url taken from an answer`);
    if (raw.url === undefined) {
      if (raw.path === undefined) return this.refuse('OPERATION_INCOMPLETE', path, `${named(path)} needs a path (under system.baseUrl), e.g. path: /sales-orders/{input.Code}`);
      return this.pathTemplate(raw.path, [...path, 'path']);
    }
    if (target.spec && target.spec.assetHosts.length === 0) return this.refuse('SETTINGS_DISAGREE', [...path, 'url'], `${named(path)}.url fetches an absolute URL, which is allowed only from the hosts listed in system.assetHosts (e.g. assetHosts: [cdn.example.com]); there are none`);
    return this.template(raw.url, [...path, 'url']);
  }

  pathTemplate(text: string, path: readonly PathSegment[]): Template | undefined {
    const literal = text.replace(/\{[^}]*\}/g, 'x');
    const unsafe =
      !text.startsWith('/') ? 'must start with "/" (it is appended to system.baseUrl)'
      : /^\/\//.test(text) || /:\/\//.test(literal) ? 'must be a path, not an absolute URL'
      : /(^|\/)\.\.?(\/|$)/.test(literal) ? 'must not contain "." or ".." segments'
      : /[?#]/.test(literal) ? 'must not contain "?" or "#"; put query parameters under query:'
      : undefined;
    if (unsafe) {
      this.report('UNSAFE_PATH', path, `call path "${text}" ${unsafe}`);
      return undefined;
    }
    return this.template(text, path);
  }

  templates(record: Record<string, string> | undefined, path: readonly PathSegment[]): (readonly [string, Template])[] {
    return Object.entries(record ?? {}).flatMap(([key, text]) => {
      const compiled = this.template(text, [...path, key]);
      return compiled ? [[key, compiled] as const] : [];
    });
  }

  call(raw: CallDocument, path: readonly PathSegment[], target: CallTarget): CallSpec | undefined {
    const when = raw.when === undefined ? undefined : this.expression(raw.when, [...path, 'when']);
    const ownRefusal = raw.refusal === undefined ? undefined : compileRefusal(this, raw.refusal, [...path, 'refusal']);
    const pathTemplate = this.callTarget(raw, path, target);
    const query = this.templates(raw.query, [...path, 'query']);
    const headers = this.templates(raw.headers, [...path, 'headers']);
    const body = raw.body === undefined ? undefined : this.expression(raw.body, [...path, 'body']);
    const graphql = compileGraphql(this, raw, path, this.graphqlSchemas);
    // A GraphQL query reads, as a GET does: safe to repeat unless the call says otherwise.
    const retrySettings = graphql && graphql.operation === 'query' ? { ...raw.retry, idempotent: raw.retry?.idempotent ?? true } : raw.retry;
    const retry = compileCallRetry(this, retrySettings, raw.method, target.retry, path);
    const paginate = compilePaginate(this, raw.paginate, path);
    const forEach = compileForEach(this, raw.forEach, path);
    const rawQuery = compileRawQuery(this, raw, path);
    const xml = compileXmlRequest(this, raw, path);
    if (xml === false || graphql === false) return undefined;
    if (paginate && paginate.style === 'connection' && graphql && !graphql.declares.includes('after')) {
      this.report('SETTINGS_DISAGREE', [...path, 'paginate', 'style'], `${named(path)}.paginate.style is connection, but the GraphQL operation declares no $after variable for the cursor: declare ($after: String) and pass it to the connection, e.g. orders(first: 50, after: $after)`);
      return undefined;
    }
    if (paginate && paginate.style === 'connection' && !raw.graphql) {
      this.report('SETTINGS_DISAGREE', [...path, 'paginate', 'style'], `${named(path)}.paginate.style connection pages a GraphQL connection; the call has no graphql: block`);
      return undefined;
    }
    if (paginate && paginate.in === 'body' && paginate.style !== 'connection' && raw.body === undefined && raw.bodyXml === undefined) {
      this.report('SETTINGS_DISAGREE', [...path, 'paginate', 'in'], `${named(path)}.paginate.in is body, but the call has no body to carry the page: add a body that reads page.number, page.offset, page.limit or page.cursor`);
      return undefined;
    }
    if ((raw.when !== undefined && !when) || (raw.refusal !== undefined && !ownRefusal)) return undefined;
    if (!pathTemplate || (raw.body !== undefined && !body) || !retry || paginate === false || forEach === false || !rawQuery) return undefined;
    return {
      name: raw.name,
      when,
      method: raw.method,
      safe: raw.safe,
      path: pathTemplate,
      ...(raw.url !== undefined ? { absolute: true as const } : {}),
      query,
      queryEncoding: raw.queryEncoding ?? target.queryEncoding,
      rawQuery,
      headers,
      attemptHeaders: headers.filter(([, template]) => template.parts.some((part) => typeof part !== 'string' && this.perAttempt.has(part))).map(([name]) => name),
      body,
      requestType: raw.soap ? 'xml' : raw.requestType,
      bodyXml: xml.bodyXml,
      soap: xml.soap,
      // A SOAP answer is XML whatever the call says: its result and fault are read from the envelope.
      responseType: raw.soap ? 'xml' : raw.responseType,
      lists: raw.lists ?? [],
      timeoutMs: raw.timeoutMs ?? target.timeoutMs,
      retry,
      paginate,
      forEach,
      cache: compileCache(raw.cache),
      // A GraphQL call reads GraphQL's errors itself (pipeline/refusal.ts); the system's rule is for its other calls.
      refusal: ownRefusal ?? (graphql ? undefined : target.refusal),
      graphql,
      origin: this.origin(path),
    };
  }

  outcome(raw: OutcomeDocument, path: readonly PathSegment[], route: RouteSpec): OutcomeRule | undefined {
    const compiled = this.compiledAt(raw.when, [...path, 'when']);
    const when = compiled?.expression;
    const message = raw.message === undefined ? undefined : this.expression(raw.message, [...path, 'message']);
    const known = Object.keys(route.results);
    if (!known.includes(raw.result)) {
      const hint = closest(raw.result, known);
      this.report('UNKNOWN_RESULT', [...path, 'result'], `"${raw.result}" is not a result of ${route.method} ${route.path}${hint ? `; did you mean ${hint}? Use` : '; use'} one of: ${known.join(', ')}`);
      return undefined;
    }
    if (!when || (raw.message !== undefined && !message)) return undefined;
    return { when, result: raw.result, message, readsStatus: readsResponseStatus(compiled.tree), origin: this.origin(path) };
  }

  /** The mode the settings present describe; undefined when they mix modes (reported). */
  private modeOf(operationId: string, raw: OperationDocument, path: readonly PathSegment[]): OperationMode | undefined {
    const flowKeys = (['calls', 'outcomes', 'output', 'deadlineMs'] as const).filter((key) => raw[key] !== undefined);
    const present: OperationMode[] = [
      ...(raw.file !== undefined ? ['file' as const] : []),
      ...(raw.static !== undefined ? ['static' as const] : []),
      ...(raw.acknowledge ? ['acknowledge' as const] : []),
      ...(flowKeys.length > 0 ? ['flow' as const] : []),
    ];
    const describe = (mode: OperationMode) => (mode === 'flow' ? flowKeys.join(', ') : mode);
    if (present.length > 1) {
      const [first, ...others] = present;
      const why = present.includes('file') ? '; either the engine reads the file (file) or the ERP does (calls + output), not both'
        : present.includes('static') ? '; a static answer stands alone'
        : present.includes('acknowledge') ? '; acknowledge means nothing is forwarded' : '';
      this.report('MODES_MIXED', path, `${operationId} has "${describe(first)}" together with ${others.map(describe).join(', ')}${why}`);
      return undefined;
    }
    const found = present[0] ?? 'flow';
    if (raw.mode !== undefined && raw.mode !== found) {
      this.report('MODE_MISMATCH', [...path, 'mode'], `${operationId} says mode: ${raw.mode}, but its settings are those of ${found === 'flow' ? `a flow (${flowKeys.join(', ') || 'nothing yet'})` : found}; ${raw.mode === 'flow' ? 'add calls and output' : `add "${raw.mode}"`} or change the mode`);
      return undefined;
    }
    return found;
  }

  operation(operationId: string, raw: OperationDocument, target: CallTarget): Operation | undefined {
    const route = findRoute(operationId) as RouteSpec; // the structure check admits only contract operations
    this.inputOf = route;
    try {
      return this.operationOf(route, raw, target);
    } finally {
      this.inputOf = undefined;
    }
  }

  private operationOf(route: RouteSpec, raw: OperationDocument, target: CallTarget): Operation | undefined {
    const { operationId } = route;
    const path: PathSegment[] = ['operations', operationId];
    const origin = this.origin(path);
    const mode = this.modeOf(operationId, raw, path);
    if (!mode) return undefined;
    if (raw.onInvalidRecord === 'skip' && (mode !== 'flow' || (route.dataSchema as { type?: string } | null)?.type !== 'array')) {
      return this.refuse('SETTING_NOT_FOR_ROUTE', [...path, 'onInvalidRecord'], `onInvalidRecord: skip leaves records out of a list answered by calls + output; ${operationId} ${mode === 'flow' ? 'answers no list' : `is answered by ${mode}`}`);
    }

    if (mode === 'file' && raw.file) {
      if (!FILE_ROUTES[operationId]) {
        this.report('MODE_NOT_FOR_ROUTE', [...path, 'file'], `"file" is only for ParseWorkOrderFile and ParseItemFile (uploaded files); ${operationId} cannot use it`, this.source.keyAt([...path, 'file']));
        return undefined;
      }
      return compileFileOperation(this, raw.file, path, route, origin);
    }
    if (mode === 'static') {
      if (route.kind === 'event') return this.refuse('MODE_NOT_FOR_ROUTE', path, `${operationId} is an event route and answers without data; use "acknowledge: true" instead of "static"`);
      const problems = staticAnswerChecks().compile(route.dataSchema as JsonSchema)(raw.static);
      if (problems.length > 0) {
        for (const problem of problems) {
          const where = problem.path.split('/').filter(Boolean).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
          this.report('STATIC_DATA_INVALID', [...path, 'static', ...where], `static answer of ${operationId} at ${problem.path}: ${problem.message}`);
        }
        return undefined;
      }
      return { mode: 'static', route, origin, data: raw.static };
    }
    if (mode === 'acknowledge') {
      if (route.kind !== 'event') return this.refuse('MODE_NOT_FOR_ROUTE', path, `"acknowledge" is for event routes; ${operationId} must answer data (use calls + output, or static)`);
      return { mode: 'acknowledge', route, origin };
    }
    if (route.kind === 'event' && raw.output !== undefined) return this.refuse('MODE_NOT_FOR_ROUTE', [...path, 'output'], `${operationId} is an event route and answers without data; remove "output"`);
    if (route.kind === 'event' && !raw.calls?.length) return this.refuse('OPERATION_INCOMPLETE', path, `${operationId} needs "calls" to forward the event, or "acknowledge: true"`);
    if (route.kind === 'data' && raw.output === undefined) return this.refuse('OPERATION_INCOMPLETE', path, `${operationId} must say how its data is built: add "output" (or use "static")`);

    const defined = (raw.calls ?? []).map((call) => call.name);
    const calls = this.calls(raw.calls ?? [], path, target, operationId);
    const everyCall: CallScope = { operationId, defined, readable: defined, notYet: () => '' };
    const outcomes = (raw.outcomes ?? []).map((rule, index) => this.scoped(everyCall, () => this.outcome(rule, [...path, 'outcomes', index], route)));
    const built = raw.output === undefined ? undefined : this.scoped(everyCall, () => this.compiledAt(raw.output as string, [...path, 'output']));
    const output = built?.expression;
    const missing = built ? missingRequiredFields(built.tree, route) : [];
    for (const problem of missing) this.report('OUTPUT_FIELD_MISSING', [...path, 'output'], problem.message, this.source.insideString([...path, 'output'], problem.offset));
    if (calls.some((c) => !c) || outcomes.some((o) => !o) || (raw.output !== undefined && !output) || missing.length > 0) return undefined;
    this.capped(raw, path, target.spec);
    const outbox = this.beforeAnyCall(operationId, defined, 'outbox.orderingKey', () => this.outbox(raw, path, route, outcomes as OutcomeRule[]));
    if (outbox === false) return undefined;
    const outputFieldOrigins = output && outputFields(output.source).map((field) => ({ keys: field.keys, origin: { file: this.source.file, ...this.source.insideString([...path, 'output'], field.offset) } }));
    return { mode: 'flow', route, origin, calls: calls as CallSpec[], outcomes: outcomes as OutcomeRule[], output, outputFields: outputFieldOrigins, deadlineMs: raw.deadlineMs, onInvalidRecord: raw.onInvalidRecord, outbox };
  }

  /**
   * delivery: outbox answers the platform before the ERP is asked, so it is only for events: no data.
   * Outcome rules may still classify the ERP's answer: one giving another result than success fails the
   * delivery (dead-lettered with the rule's message), as the refusal rule does.
   */
  private outbox(raw: OperationDocument, path: readonly PathSegment[], route: RouteSpec, outcomes: readonly OutcomeRule[]): OutboxSpec | undefined | false {
    if (raw.delivery !== 'outbox') {
      if (raw.outbox) this.warn('SETTINGS_DISAGREE', [...path, 'outbox'], `${named(path)}.outbox has no effect without "delivery: outbox"`);
      return undefined;
    }
    if (route.kind !== 'event') {
      this.report('OUTBOX_NOT_ALLOWED', [...path, 'delivery'], `${route.operationId} answers data, which only the ERP can give while the platform waits; delivery: outbox is for event routes`);
      return false;
    }
    if (outcomes.length !== (raw.outcomes ?? []).length) return false;
    return this.outboxSettings(raw.outbox, path);
  }

  /** The outbox block of an operation or a push: ordering key, retry window, what a dead event does. */
  outboxSettings(raw: OutboxDocument | undefined, path: readonly PathSegment[]): OutboxSpec | false {
    const settings = raw ?? { maxAgeMs: 86_400_000, onDeadLetter: 'block' as const };
    const orderingKey = settings.orderingKey === undefined ? undefined : this.expression(settings.orderingKey, [...path, 'outbox', 'orderingKey']);
    if (settings.orderingKey !== undefined && !orderingKey) return false;
    return { orderingKey, maxAgeMs: settings.maxAgeMs, onDeadLetter: settings.onDeadLetter, ...(settings.tryFirstMs === undefined ? {} : { tryFirstMs: settings.tryFirstMs }) };
  }

  /** Calls made in order; each reads only the calls above it. `owner` names the operation or push in messages. */
  calls(raw: readonly CallDocument[], path: readonly PathSegment[], target: CallTarget, owner: string): (CallSpec | undefined)[] {
    const names = new Set<string>();
    const defined = raw.map((call) => call.name);
    return raw.map((call, index) => {
      if (names.has(call.name)) this.report('DUPLICATE_CALL_NAME', [...path, 'calls', index, 'name'], `a call named "${call.name}" already exists in ${owner}; names must be unique`);
      names.add(call.name);
      // A call's path, query, headers, body, forEach and paginate run before its answer exists: they read the calls above it.
      const notYet = (name: string) => (name === call.name
        ? `calls.${name} is read while the call "${name}" itself is being made, before its answer exists (outcome rules read that answer as response)`
        : `calls.${name} is read by the call "${call.name}", which is made before "${name}": a call can read only the calls above it`);
      return this.scoped({ operationId: owner, defined, readable: defined.slice(0, index), notYet }, () => this.call(call, [...path, 'calls', index], target));
    });
  }

  /**
   * system.session: its login is a call like any other (compiled by the same code), made before the
   * system's first call; it reads no calls and no input, and is one plain request.
   */
  withSession(target: CallTarget, raw: SessionDocument | undefined): CallTarget {
    if (!raw) return target;
    const path: PathSegment[] = ['system', 'session'];
    const login = this.scoped({ operationId: 'system.session', defined: [], readable: [], notYet: () => '' }, () => this.call(raw.login, [...path, 'login'], target));
    const extras = (['paginate', 'forEach', 'cache', 'when'] as const).filter((key) => raw.login[key] !== undefined);
    for (const key of extras) this.report('SETTING_NOT_FOR_ROUTE', [...path, 'login', key], `system.session.login.${key} does not apply to a login, which is one request made before the system's first call`);
    const value = this.expression(raw.value, [...path, 'value']);
    const renewWhen = raw.renewWhen === undefined ? undefined : this.expression(raw.renewWhen, [...path, 'renewWhen']);
    if (!login || !value || extras.length > 0 || (raw.renewWhen !== undefined && !renewWhen) || !target.spec) return target;
    return { ...target, spec: { ...target.spec, session: { login, value, ttlMs: raw.ttlMs, renewWhen } } };
  }

  /** Expressions worked out when an event or push is accepted, before any call is made: they read no calls. */
  beforeAnyCall<T>(owner: string, defined: readonly string[], what: string, compile: () => T): T {
    return this.scoped({ operationId: owner, defined, readable: [], notYet: (name) => `calls.${name}: ${what} is worked out when the event is accepted, before any call is made; it can read only input` }, compile);
  }

  /** Settings another layer caps: loading is fine, but the integrator should know which one wins. */
  private capped(raw: OperationDocument, path: readonly PathSegment[], system: SystemSpec | undefined): void {
    (raw.calls ?? []).forEach((call, index) => {
      const at = [...path, 'calls', index];
      const fanOut = call.forEach?.maxConcurrency;
      if (system && fanOut !== undefined && fanOut > system.maxConcurrency) {
        this.warn('LIMIT_CAPPED', [...at, 'forEach', 'maxConcurrency'], `${named(at)}.forEach.maxConcurrency is ${fanOut}, but system.maxConcurrency allows only ${system.maxConcurrency} requests to the ERP at once; the lower one applies`);
      }
      const timeout = call.timeoutMs ?? system?.timeoutMs;
      if (raw.deadlineMs !== undefined && timeout !== undefined && timeout > raw.deadlineMs) {
        this.warn('LIMIT_CAPPED', call.timeoutMs !== undefined ? [...at, 'timeoutMs'] : [...path, 'deadlineMs'], `${named(at)} may wait ${timeout} ms for an answer, but the operation's deadlineMs is ${raw.deadlineMs}; the deadline ends it first`);
      }
    });
  }

  refuse(code: MappingIssueCode, path: readonly PathSegment[], message: string): undefined {
    this.report(code, path, message);
    return undefined;
  }
}
/**
 * `baseDir` is where relative file paths of the mapping (TLS files) are read from; `secretEnv` are the
 * values of the secret-named variables the text uses (the model keeps values, not where they came from).
 */
export function compileMapping(source: YamlSource, baseDir = process.cwd(), secretEnv: readonly Secret[] = [], environment?: SecretEnvironment, compileOptions: CompileOptions = {}): { mapping?: Mapping; issues: MappingIssue[]; warnings: MappingIssue[]; answerReads: readonly AnswerRead[] } {
  const raw: MappingDocument = withDefaults(source.value);
  const limits: ExpressionLimits = { timeoutMs: raw.limits.expressionTimeoutMs, wallTimeoutMs: raw.limits.expressionWallTimeoutMs, maxDepth: raw.limits.expressionMaxDepth, maxSequence: raw.limits.expressionMaxSequence };
  const compiler = new Compiler(source, limits, baseDir, environment, compileOptions);
  if (raw.limits.expressionWallTimeoutMs < raw.limits.expressionTimeoutMs) {
    compiler.report('SETTINGS_DISAGREE', ['limits', 'expressionWallTimeoutMs'], `limits.expressionWallTimeoutMs (${raw.limits.expressionWallTimeoutMs}) is below limits.expressionTimeoutMs (${raw.limits.expressionTimeoutMs}); the wall-clock bound, waits included, must be at least the running-time limit`);
  }
  compiler.functions(raw.functions);
  const target = compiler.withSession(compileSystem(compiler, raw.system, 'system'), raw.system.session);
  const system = target.spec;
  const inbound = compileInbound(compiler, raw.inbound);
  const operations = new Map<string, Operation>();
  for (const [operationId, rawOperation] of Object.entries(raw.operations)) {
    const compiled = compiler.operation(operationId, rawOperation ?? { delivery: 'direct', onInvalidRecord: 'fail' }, target);
    if (compiled) operations.set(operationId, deepFreeze(compiled));
  }
  const platform = raw.platform && compileSystem(compiler, raw.platform, 'platform');
  const pushes = compilePushes(compiler, raw.push, platform);
  if (compiler.issues.length > 0 || !system || !inbound || !pushes || (platform && !platform.spec)) return { issues: [...compiler.issues, ...compiler.warnings], warnings: compiler.warnings, answerReads: [] };
  const secretValues = [...secretEnv, ...[...compiler.secrets.values()].map((value) => new Secret(value)), ...declaredSecretValues(system, inbound, platform?.spec, pushes)];
  const mapping: Mapping = { file: source.file, name: raw.name, version: 1, description: raw.description, system, inbound, limits, operations, platform: platform?.spec, pushes, secretValues, fieldsRead: compiler.fieldsRead };
  deepFreeze(mapping);
  return { mapping, issues: [], warnings: compiler.warnings, answerReads: compiler.answerReads };
}
