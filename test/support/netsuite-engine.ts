/** examples/netsuite/netsuite.yaml on the NetSuite stand-in (test/support/netsuite-erp.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { loadMapping } from '../../engine/mapping/load';
import type { Mapping } from '../../engine/mapping/model';
import { PROJECT_ROOT } from '../../engine/paths';
import { mappingFromText } from './engine';
import { NS_ACCOUNT, NS_CREDENTIALS } from './netsuite-erp';

export const NETSUITE_MAPPING = path.join(PROJECT_ROOT, 'examples', 'netsuite', 'netsuite.yaml');

export function netsuiteEnv(url: string): Record<string, string> {
  return {
    NS_URL: url, NS_ACCOUNT_ID: NS_ACCOUNT, NS_CONSUMER_KEY: NS_CREDENTIALS.consumerKey, NS_CONSUMER_SECRET: NS_CREDENTIALS.consumerSecret,
    NS_TOKEN_ID: NS_CREDENTIALS.token, NS_TOKEN_SECRET: NS_CREDENTIALS.tokenSecret,
  };
}

export function loadNetSuiteMapping(url: string): Mapping {
  return loadMapping(NETSUITE_MAPPING, { env: netsuiteEnv(url) }).mapping;
}

/** The example with its text changed first (a limit lowered, a setting taken out). */
export function netsuiteMappingWith(url: string, change: (text: string) => string, env: Record<string, string> = {}): Mapping {
  const text = fs.readFileSync(NETSUITE_MAPPING, 'utf8');
  const changed = change(text);
  expect(changed).not.toBe(text);
  return mappingFromText(changed, { ...netsuiteEnv(url), ...env });
}
