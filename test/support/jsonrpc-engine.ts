/**
 * examples/jsonrpc/odoo.yaml on the JSON-RPC stand-in, and what its tests assert on an answer: the
 * result by name (its number taken from the route table) and Odoo's own words.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { findRoute, resultNumber } from '../../engine/contract/routes';
import { loadMapping } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { PROJECT_ROOT } from '../../engine/paths';
import type { Reply } from './engine';
import { mappingFromText } from './engine';

export const ODOO_MAPPING = path.join(PROJECT_ROOT, 'examples', 'jsonrpc', 'odoo.yaml');
export const ODOO_KEY = 'odoo-key-1';

export function odooEnv(url: string): Record<string, string> {
  return { ODOO_URL: url, ODOO_KEY };
}

export function loadOdooMapping(url: string): Mapping {
  return loadMapping(ODOO_MAPPING, { env: odooEnv(url) }).mapping;
}

/** The example with its text changed first (a setting taken out, to show what it does). */
export function odooMappingWith(url: string, change: (text: string) => string): Mapping {
  const text = fs.readFileSync(ODOO_MAPPING, 'utf8');
  const changed = change(text);
  expect(changed).not.toBe(text);
  return mappingFromText(changed, odooEnv(url));
}

/** The route answered `resultName` (a failure) with `externalMessage`. */
export function expectRefused(reply: Reply, operationId: string, resultName: string, externalMessage: string): void {
  const route = findRoute(operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  expect(reply.status).toBe(200);
  expect(reply.body, JSON.stringify(reply.body)).toMatchObject({ isResultSuccess: false, result: resultNumber(route, resultName), externalMessage });
}
