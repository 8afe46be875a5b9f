import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { errorsOf, expectOnlyError, FILE, yaml } from '../support/mapping-issues';

/** A mapping whose base URL and bearer token are given as `baseUrl` and `token` (text as written in YAML). */
const mapping = (baseUrl: string, token = '"${ERP_TOKEN}"', extraSystem: string[] = []) => yaml(
  'version: 1',
  'name: test',
  'system:',
  `  baseUrl: ${baseUrl}`,
  `  auth: { type: bearer, token: ${token} }`,
  ...extraSystem,
  'operations: {}',
);

const lenient = (text: string, env: NodeJS.ProcessEnv = {}) => checkMappingText(text, FILE, env, process.cwd(), 'warning');

describe('${VAR:-default} and ${VAR:?message}, as in POSIX shells', () => {
  it('${VAR:-default} is the value when set and not empty, else the default', () => {
    const text = mapping('${ERP_URL:-http://fallback.local/api}');
    const token = { ERP_TOKEN: 't0ken' };
    expect(checkMappingText(text, FILE, { ...token, ERP_URL: 'http://erp.local/v2' }).mapping?.system.baseUrl.href).toBe('http://erp.local/v2');
    expect(checkMappingText(text, FILE, { ...token, ERP_URL: '' }).mapping?.system.baseUrl.href).toBe('http://fallback.local/api');
    expect(checkMappingText(text, FILE, token).mapping?.system.baseUrl.href).toBe('http://fallback.local/api');
  });

  it('${VAR:?message} unset or empty fails with the message at its position', () => {
    const text = mapping('http://erp.local', '"${ERP_TOKEN:?ask the customer\'s IT for the API token}"');
    for (const env of [{}, { ERP_TOKEN: '' }]) {
      const error = expectOnlyError(text, { code: 'ENV_UNSET', line: 5, col: 33, mentions: ['ERP_TOKEN', "ask the customer's IT for the API token"] }, env);
      expect(error.severity).toBe('error');
    }
    expect(checkMappingText(text, FILE, { ERP_TOKEN: 't0ken' }).mapping?.system.auth).toMatchObject({ type: 'bearer' });
  });

  it('plain ${VAR} set to the empty text is a value, not unset', () => {
    const text = yaml('version: 1', 'name: "a${SUFFIX}"', 'system:', '  baseUrl: http://erp.local', 'operations: {}');
    expect(checkMappingText(text, FILE, { SUFFIX: '' }).mapping?.name).toBe('a');
  });

  it('other shell forms are refused, naming the forms that exist', () => {
    const error = expectOnlyError(mapping('${ERP_URL:=http://x}'), { code: 'ENV_REFERENCE_INVALID', line: 4, col: 12, mentions: ['${ERP_URL:=http://x}', '${NAME:-default}', '${NAME:?message}'] }, { ERP_TOKEN: 't0ken' });
    expect(error.severity).toBe('error');
  });

  it('a secret may not have a default: the default would be written into the file', () => {
    expectOnlyError(mapping('http://erp.local', '"${ERP_TOKEN:-dev-token}"'), { code: 'SECRET_INLINE', line: 5, col: 32, mentions: ['default'] });
  });
});

describe('checking without the customer\'s secrets (unset variables as warnings)', () => {
  it('loads: each unset variable is one warning where it is first used, and the URL stands in as unset.invalid', () => {
    const text = mapping('${ERP_URL}', '"${ERP_TOKEN:?from the vault}"', ['  headers: { X-Echo: "${ERP_URL}", X-Plant: "${PLANT:-Berlin}" }']);
    const result = lenient(text);
    const unset = result.issues.filter((issue) => issue.code === 'ENV_UNSET');
    expect(unset.map(({ line, col, severity }) => ({ line, col, severity }))).toEqual([
      { line: 4, col: 12, severity: 'warning' },
      { line: 5, col: 33, severity: 'warning' },
    ]);
    expect(unset[0].message).toContain('ERP_URL');
    expect(unset[1].message).toContain('from the vault');
    expect(result.mapping?.system.baseUrl.href).toBe('http://unset.invalid/');
    expect(result.mapping?.system.headers).toEqual([['X-Echo', '${ERP_URL}'], ['X-Plant', 'Berlin']]);
  });

  it('the same mapping does not load when variables are required (serve, calls to the ERP): every one named', () => {
    const errors = errorsOf(mapping('${ERP_URL}', '"${ERP_TOKEN}"', ['  headers: { X-Echo: "${ERP_URL}" }']));
    expect(errors.map(({ code, line, col }) => ({ code, line, col }))).toEqual([
      { code: 'ENV_UNSET', line: 4, col: 12 },
      { code: 'ENV_UNSET', line: 5, col: 33 },
    ]);
    expect(errors.map((error) => error.message).join('\n')).toMatch(/ERP_URL[\s\S]*ERP_TOKEN/);
  });

  it('a TLS file named by an unset variable is not read while checking', () => {
    const tls = ['  tls: { caFile: "${CA_DIR}/ca.pem" }'];
    expect(lenient(mapping('http://erp.local', '"${ERP_TOKEN}"', tls)).mapping).toBeDefined();
    const dir = path.resolve(__dirname, '..', 'fixtures', 'tls', 'missing-dir');
    expectOnlyError(mapping('http://erp.local', '"${ERP_TOKEN}"', tls), { code: 'TLS_FILE_UNREADABLE', line: 6, col: 18 }, { ERP_TOKEN: 't0ken', CA_DIR: dir });
  });

  it('malformed references stay errors', () => {
    const result = lenient(mapping('http://${1X}/api'));
    expect(result.mapping).toBeUndefined();
    expect(result.issues.filter((issue) => issue.severity === 'error').map((issue) => issue.code)).toEqual(['ENV_REFERENCE_INVALID']);
  });
});
