/** Public surface of the engine, for the CLI, the benchmarks and embedding. */
export { ROUTES, findRoute, resultNumber, type RouteSpec } from './contract/routes';
export { toEnvelope, type Envelope, type Outcome } from './contract/envelope';
export { createSchemaRegistry, type SchemaRegistry } from './contract/schema-registry';
export { formatIssue, MappingLoadError, OperationFailure, type MappingIssue, type Problem } from './errors';
export { createHttpClient, TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from './http/client';
export type { AttemptReport } from './http/with-retry';
export { Secret } from './mapping/secret';
export { createLogger, silentLogger, type Logger } from './log';
export { checkMappingFile, checkMappingText, loadMapping } from './mapping/load';
export type { Mapping, Operation } from './mapping/model';
export { createEngine, type Engine, type EngineDeps } from './core/engine';
export type { Clock, EngineAnswer, RequestContext } from './core/stage';
export { requestFor, type EngineRequest } from './core/request';
export type { TraceObserver } from './pipeline/run-operation';
export { createHttpApp, type HttpAppOptions } from './server/app';
export { installProcessGuards } from './server/process-guards';
