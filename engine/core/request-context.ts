import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestContext } from './stage';

/**
 * The request being served, followed through its async calls. One storage for every engine of the
 * process, on purpose: on Node 24 a storage's `run()` leaves the storage as a key in the caller's
 * context frame when it returns, and every later async step of that caller copies the frame. A
 * storage per engine made a chain that creates engines one after another (a shadow candidate's
 * runs, `test`, `diff`) copy a frame one key longer per engine: the 10,000th run paid for 10,000
 * keys. The storage holds no state of its own; each request's context is its `run()`'s.
 */
export const requestContexts = new AsyncLocalStorage<RequestContext>();
