import type { RouteSpec } from '../contract/routes';
import type { Validator } from '../contract/schema-registry';
import type { SourcePosition } from '../errors';
import type { CompiledExpression, ExpressionLimits } from '../expressions/compile';
import type { CellConverter } from './column-types';
import type { TextEncoding } from './file-settings';
import type { CsvOptions } from './file-settings';
import type { Secret } from './secret';
import type { FieldsRead } from './fields-read';

/**
 * The internal model of a mapping file: built once by the loader, frozen, and the only thing the
 * pipeline reads. The YAML is never looked at again after load.
 */

/** Where a model element came from, so runtime messages and the CLI can point back into the file. */
export type Origin = SourcePosition;

export interface LocatedExpression extends CompiledExpression {
  readonly origin: Origin;
}

/** Literal text with `{expression}` placeholders, e.g. `/sales-orders/{input.Code}`. */
export interface Template {
  readonly source: string;
  readonly parts: readonly (string | LocatedExpression)[];
  readonly origin: Origin;
}

export type ResponseType = 'json' | 'text' | 'binary' | 'xml';

/** One piece of a bodyXml template: literal XML, or a placeholder whose value is escaped for its place. */
export type XmlTemplatePart = string | { readonly expression: LocatedExpression; readonly context: 'text' | 'attribute' };

export interface CallSpec {
  readonly name: string;
  /** Made only when this gives true (over input and the calls above); a skipped call has no record. */
  readonly when?: LocatedExpression;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The mapping says this call cannot change the ERP although its method is not GET (a SOAP Read, a SuiteQL query). */
  readonly safe: boolean;
  /** Path under the system's base URL; placeholder values are URI-encoded. With `absolute`, the call's url: an absolute URL. */
  readonly path: Template;
  /** The call's url (not path): an absolute URL from an answer, fetched only from system.assetHosts and without credentials. */
  readonly absolute?: true;
  readonly query: readonly (readonly [string, Template])[];
  /** How query values are written: percent (RFC 3986, space as %20) or form (space as +). */
  readonly queryEncoding: 'percent' | 'form';
  /** Query parameters sent raw (OData's $filter): see engine/http/query-encoding.ts. */
  readonly rawQuery: readonly string[];
  readonly headers: readonly (readonly [string, Template])[];
  /**
   * The headers among `headers` computed as each attempt is sent, over the request then (`request`):
   * they read it, a clock or a random source (per-attempt.ts). Not part of the answer cache's key.
   */
  readonly attemptHeaders: readonly string[];
  readonly body?: LocatedExpression;
  /** json, or xml: the body value written as XML (always for a SOAP call). */
  readonly requestType: 'json' | 'xml';
  /** The body as an XML template (instead of body). */
  readonly bodyXml?: readonly XmlTemplatePart[];
  readonly soap?: { readonly version: '1.1' | '1.2'; readonly action?: Template };
  readonly responseType: ResponseType;
  /** XML answers: local names of the elements that are always lists. */
  readonly lists: readonly string[];
  readonly timeoutMs: number;
  /** Effective retry policy: `attempts` is 1 for a request the mapping did not mark safe to repeat. */
  readonly retry: RetryPolicy;
  readonly paginate?: PaginateSpec;
  readonly forEach?: ForEachSpec;
  readonly cache?: CacheSpec;
  /** How the system refuses inside an answer: the call's own rule, else its system's (a graphql call: GraphQL's own); undefined for none. */
  readonly refusal?: RefusalSpec;
  /** A GraphQL request: the body is {query, variables, operationName}. */
  readonly graphql?: GraphqlSpec;
  readonly origin: Origin;
}

/**
 * Whether making this call may change the ERP: anything but a GET, unless the mapping marks it `safe: true`
 * or it sends a GraphQL query (a mutation can change the ERP, a query cannot). The one definition of "a
 * write" for everything that runs a mapping without meaning to change the ERP (dry-run without --live,
 * the studio's "Try a route").
 */
export function canChangeErp(call: Pick<CallSpec, 'method' | 'safe' | 'graphql'>): boolean {
  return call.method !== 'GET' && !call.safe && call.graphql?.operation !== 'query';
}

export interface GraphqlSpec {
  /** The document as written: sent as query. */
  readonly document: string;
  /** graphql.operationName, else the name of the document's one operation; sent as operationName. */
  readonly operationName?: string;
  readonly operation: 'query' | 'mutation' | 'subscription';
  /** The variables the operation declares, without $: paging sets after (and first) only when declared. */
  readonly declares: readonly string[];
  /** Over input, item and the calls above: the variables object. */
  readonly variables?: LocatedExpression;
  /** Over response.body: a list of business refusals ({ message, field }) the answer carries. */
  readonly userErrors?: LocatedExpression;
}

/** A refusal inside an answer whatever its status (JSON-RPC's error in a 200, a SOAP fault). */
export interface RefusalSpec {
  /** Over { response }: true when the answer is a refusal. */
  readonly when: LocatedExpression;
  /** The system's words, for externalMessage and the dead letter. */
  readonly message?: LocatedExpression;
  /** Whether the refusal passes: the call is tried again within its retry budget, an outbox delivery later; absent means never. */
  readonly retryable?: LocatedExpression;
  /** How long the system asks to wait before the next try, in milliseconds; absent: the retry backoff. */
  readonly retryAfterMs?: LocatedExpression;
}

/** A login whose answer every call of the connection reads as `session`. */
export interface SessionSpec {
  readonly login: CallSpec;
  /** Over { response } of the login: the value expressions read as `session`. */
  readonly value: LocatedExpression;
  readonly ttlMs?: number;
  /** Over { response } of any call: the session ended, log in again and send the call once more. */
  readonly renewWhen?: LocatedExpression;
}

export interface RetryPolicy {
  /** Total tries including the first; 1 means no retry. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Longest `Retry-After` the engine waits for; a longer one ends the retries. */
  readonly retryAfterMaxMs: number;
}

/** How the pages of one call are requested and where their items are. */
export type PaginateSpec =
  | (PaginateCommon & { readonly style: 'page'; readonly pageParam: string; readonly firstPage: number; readonly sizeParam?: string; readonly pageSize?: number; readonly hasMore?: LocatedExpression })
  | (PaginateCommon & { readonly style: 'offset'; readonly offsetParam: string; readonly limitParam: string; readonly pageSize: number; readonly hasMore?: LocatedExpression })
  | (PaginateCommon & { readonly style: 'cursor'; readonly cursorParam?: string; readonly next: LocatedExpression; readonly pageSize?: number })
  | (PaginateCommon & { readonly style: 'nextLink'; readonly next: LocatedExpression; readonly pageSize?: number })
  | (PaginateCommon & { readonly style: 'linkHeader' })
  /** A GraphQL connection: `items` gives the connection (its nodes or edges[].node are the page's items); the cursor goes into the variables. */
  | (PaginateCommon & { readonly style: 'connection'; readonly pageSize?: number });

interface PaginateCommon {
  /** query: the engine writes the page state into the query; body: the body and headers expressions read it as `page`. */
  readonly in: 'query' | 'body';
  /** Gives the items of one page from { status, headers, body }. */
  readonly items: LocatedExpression;
  readonly maxPages: number;
  /** A full page whose next/hasMore gives nothing may be the last one; otherwise it fails the request. */
  readonly lastPageMayBeFull: boolean;
}

/** One request per element (or per chunk of elements) of a list. */
export interface ForEachSpec {
  readonly list: LocatedExpression;
  /** Elements per request; absent means one request per element (`item`), present gives `chunk`. */
  readonly chunk?: number;
  readonly maxConcurrency: number;
  readonly onError: 'fail' | 'skip';
}

export interface CacheSpec {
  readonly ttlMs: number;
  readonly maxEntries: number;
}

export interface OutcomeRule {
  readonly when: LocatedExpression;
  /** A result name of the route, checked at load. */
  readonly result: string;
  readonly message?: LocatedExpression;
  /** `when` tests `response.status`: only such a rule may claim an authentication failure (401, 403, 407). */
  readonly readsStatus: boolean;
  readonly origin: Origin;
}

interface OperationBase {
  readonly route: RouteSpec;
  readonly origin: Origin;
}

/** Calls to the external system (possibly none), outcome rules, and an output transform. */
export interface FlowOperation extends OperationBase {
  readonly mode: 'flow';
  readonly calls: readonly CallSpec[];
  readonly outcomes: readonly OutcomeRule[];
  /** Builds `data`; absent on event routes. */
  readonly output?: LocatedExpression;
  /** Where the output builds each field of the data (output-fields.ts): a contract problem names that line. */
  readonly outputFields?: readonly { readonly keys: readonly string[]; readonly origin: Origin }[];
  /** Overall time budget of one contract request, over all its calls and retries. */
  readonly deadlineMs?: number;
  /** List routes: a record that fails the contract check fails the answer, or is left out of the list. */
  readonly onInvalidRecord: 'fail' | 'skip';
  /** Event routes with delivery: outbox: stored, answered at once, delivered in the background. */
  readonly outbox?: OutboxSpec;
}

export interface OutboxSpec {
  /** Over `input`; absent: one key for the operation. */
  readonly orderingKey?: LocatedExpression;
  readonly maxAgeMs: number;
  readonly onDeadLetter: 'block' | 'skip';
  /** Operations only: how long the platform's answer waits for a first try of the stored event; absent: answered at once. */
  readonly tryFirstMs?: number;
}

/** A fixed answer written in the mapping (export columns, the label), checked against the contract at load. */
interface StaticOperation extends OperationBase {
  readonly mode: 'static';
  readonly data: unknown;
}

/** Event routes only: answer success without forwarding anything. */
interface AcknowledgeOperation extends OperationBase {
  readonly mode: 'acknowledge';
}

/**
 * Where one contract field of a file record comes from. A field written as a bare column name is read
 * directly (no JSONata per row: that is what keeps 200,000-line files fast); a literal is a constant;
 * anything else is a JSONata expression over the row.
 */
export type FieldSource =
  | { readonly kind: 'column'; readonly column: string; readonly origin: Origin }
  | { readonly kind: 'constant'; readonly value: unknown; readonly origin: Origin }
  | { readonly kind: 'expression'; readonly expression: LocatedExpression; readonly origin: Origin };

export type FieldMap = readonly (readonly [string, FieldSource])[];

/** How CSV rows become contract objects. */
export type RowBuild =
  /** One work order per distinct key (file order), header fields from its first row, one request line per row. */
  | { readonly kind: 'workOrders'; readonly key: FieldSource; readonly fields: FieldMap; readonly requests: FieldMap }
  /** One item per row. */
  | { readonly kind: 'items'; readonly fields: FieldMap }
  /** A JSONata expression over the list of rows. */
  | { readonly kind: 'output'; readonly expression: LocatedExpression };

export interface ColumnType {
  /** As written in the mapping, e.g. `date:DD.MM.YYYY`. */
  readonly name: string;
  readonly convert: CellConverter;
}

export interface CsvLayout extends CsvOptions {
  readonly encoding: TextEncoding;
  readonly types: ReadonlyMap<string, ColumnType>;
  readonly build: RowBuild;
}

export interface JsonLayout {
  readonly encoding: TextEncoding;
  /** From the parsed document to the route's list. */
  readonly output: LocatedExpression;
}

/** The two file routes, parsed by the engine: the accepted types are the ones with a layout. */
export interface FileOperation extends OperationBase {
  readonly mode: 'file';
  readonly csv?: CsvLayout;
  readonly json?: JsonLayout;
  readonly maxFileBytes: number;
  readonly maxProblems: number;
}

export type Operation = FlowOperation | StaticOperation | AcknowledgeOperation | FileOperation;

export interface SystemSpec {
  readonly baseUrl: URL;
  readonly headers: readonly (readonly [string, string])[];
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly auth: AuthSpec;
  readonly tls?: TlsSpec;
  /** The default query encoding of the calls. */
  readonly queryEncoding: 'percent' | 'form';
  /** session: cookies the ERP sets are kept per connection and sent back. */
  readonly cookies: 'none' | 'session';
  /** SAP Gateway's CSRF token protocol; needs cookies: session. */
  readonly csrf?: CsrfSpec;
  /** Most requests in flight to this ERP at once, over all contract requests. */
  readonly maxConcurrency: number;
  /** The header carrying an outbox event's id on each delivery attempt; undefined sends none. */
  readonly idempotencyHeader?: string;
  /** The header carrying the platform request's id on every call; undefined sends none. */
  readonly requestIdHeader?: string;
  /** Asked by the readiness check when set. */
  readonly healthCheck?: { readonly path: string; readonly timeoutMs: number };
  /** Hosts a call's url may fetch from (host, or host:port), besides the base URL's. */
  readonly assetHosts: readonly string[];
  /** A token bucket the calls to this system wait in (http/token-bucket.ts); one per connection. */
  readonly rateLimit?: RateLimitSpec;
  /** Answer values that mean empty: object fields holding one are removed before expressions read the answer. */
  readonly emptyValues: readonly unknown[];
  /** A login step whose answer every call reads as `session`. */
  readonly session?: SessionSpec;
  /** How XML is written and read: the mapping's prefixes, and whether read keys carry them. */
  readonly xml: { readonly namespaces: Readonly<Record<string, string>>; readonly prefixedKeys: boolean };
}

export interface RateLimitSpec {
  readonly capacity: number;
  readonly refillPerSecond: number;
  /** Over { request, input, calls }: the points one request takes; absent: 1. */
  readonly cost?: LocatedExpression;
  /** Over { response }: the level the system reports; absent: the bucket counts alone. */
  readonly observe?: LocatedExpression;
}

/** How the platform must authenticate toward the engine. Credentials are Secrets so they never print. */
export type InboundAuthSpec =
  | { readonly type: 'none' }
  | { readonly type: 'apiKey'; readonly header: string; readonly keys: readonly Secret[] }
  | { readonly type: 'basic'; readonly users: readonly { readonly username: string; readonly password: Secret }[] };

/** How the ERP must authenticate a push: the platform's kinds, or an HMAC signature of the raw body. */
export type PushAuthSpec =
  | Exclude<InboundAuthSpec, { readonly type: 'none' }>
  | {
      readonly type: 'hmac';
      readonly header: string;
      readonly algorithm: 'sha256' | 'sha512';
      readonly encoding: 'hex' | 'base64';
      readonly prefix: string;
      readonly secrets: readonly Secret[];
      /** Signed in front of the body ("<timestamp>.<body>") and checked against the clock; undefined signs the body alone. */
      readonly timestampHeader?: string;
      readonly toleranceSeconds: number;
    };

/** One check of a pushed payload, with what the ERP is told when it fails. */
export interface PushRule {
  readonly expect: LocatedExpression;
  readonly message: Template;
}

/**
 * One push endpoint (`POST /push/<name>`): checked, turned into records for the platform, stored in the
 * outbox (one event per record or per batch) and delivered through `calls` to the mapping's platform.
 */
export interface PushSpec {
  readonly name: string;
  readonly auth: PushAuthSpec;
  /** The mapping's JSON Schema for the payload, compiled at load. */
  readonly schema?: Validator;
  readonly rules: readonly PushRule[];
  readonly idempotencyKey: LocatedExpression;
  readonly records?: LocatedExpression;
  readonly batch?: number;
  readonly transform?: LocatedExpression;
  readonly calls: readonly CallSpec[];
  readonly deadlineMs?: number;
  readonly outbox: OutboxSpec;
  readonly origin: Origin;
}

export interface InboundSpec {
  readonly auth: InboundAuthSpec;
}

/** Credentials toward the ERP. Secret values are wrapped so they never print. */
export type AuthSpec =
  | { readonly type: 'none' }
  | { readonly type: 'basic'; readonly username: string; readonly password: Secret }
  | { readonly type: 'bearer'; readonly token: Secret }
  | { readonly type: 'apiKey'; readonly in: 'header' | 'query'; readonly name: string; readonly value: Secret }
  | {
      readonly type: 'oauth2ClientCredentials';
      readonly tokenUrl: URL;
      readonly clientId: string;
      readonly clientSecret: Secret;
      readonly scope?: string;
      readonly audience?: string;
      /** How the client authenticates at the token endpoint: HTTP Basic header (default) or form fields. */
      readonly clientAuth: 'basic' | 'body';
    }
  | {
      /** OAuth 1.0a (RFC 5849): each request signed as it is sent (http/oauth1.ts). */
      readonly type: 'oauth1';
      readonly realm?: string;
      readonly consumerKey: string;
      readonly consumerSecret: Secret;
      readonly token: string;
      readonly tokenSecret: Secret;
      readonly signatureMethod: 'HMAC-SHA256' | 'HMAC-SHA1' | 'PLAINTEXT';
    };

export interface CsrfSpec {
  readonly header: string;
  /** Under baseUrl: where a token is fetched (GET) when a write comes before any read. */
  readonly fetchPath: string;
}

/** TLS toward the ERP; the files are read at load so a missing file is a load error. */
export interface TlsSpec {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: Secret;
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly insecureSkipVerify: boolean;
}

export interface Mapping {
  readonly file: string;
  readonly name: string;
  readonly version: 1;
  readonly description?: string;
  readonly system: SystemSpec;
  readonly inbound: InboundSpec;
  readonly limits: ExpressionLimits;
  /** Keyed by operation id; a route absent here is unmapped. */
  readonly operations: ReadonlyMap<string, Operation>;
  /** The platform's integration interface, which push endpoints deliver to. */
  readonly platform?: SystemSpec;
  /** Push endpoints by name (empty without push:). */
  readonly pushes: ReadonlyMap<string, PushSpec>;
  /** Values masked wherever people read what the mapping sent or got (dry run, request journal, recorded tests); see mask.ts. */
  readonly secretValues: readonly Secret[];
  /** The field names its expressions read (fields-read.ts): drift counts a missing field only when it is read. */
  readonly fieldsRead: FieldsRead;
}
