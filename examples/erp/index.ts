/** Example ERP: a realistic ERP HTTP API to write adapter mappings against. */
export { BASE_PATH, createErpApp } from './app';
export type { ErpAppOptions } from './app';
export { startErp } from './main';
export type { RunningErp, StartErpOptions } from './main';
export { signature, type PushTarget } from './pushes';
export { SHORT_ARTICLE, SHORT_ARTICLE_AVAILABLE } from './data';
export * from './types';
