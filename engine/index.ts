/** Public surface of the engine, for the CLI, the benchmarks and embedding. */
export { ROUTES, findRoute, resultNumber, type RouteSpec } from './contract/routes';
export { toEnvelope, type Envelope, type Outcome } from './contract/envelope';
export { contractSchemas } from './contract/schema-registry';
export { formatIssue, MappingLoadError, OperationFailure, type MappingIssue, type Problem } from './errors';
export { createHttpClient, TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from './http/client';
export type { AttemptReport } from './http/with-retry';
export { Secret } from './http/secret';
export { createLogger, silentLogger, type Logger } from './log';
export { checkMappingFile, checkMappingText, loadMapping } from './mapping/load';
export type { Mapping, Operation } from './mapping/model';
export { failureOutcome, handleRequest } from './pipeline/handle';
export type { TraceObserver } from './pipeline/run-operation';
export { createApp, type AppDeps, type EngineApp } from './server/app';
