/**
 * platform: and push: at load: a push needs a platform, a check of what a valid push is, secrets from
 * ${VAR}, a valid JSON Schema; the platform block is read by the same code as system:.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { errorsOf, expectOnlyError, FILE, HEADER, yaml } from '../support/mapping-issues';

const ENV = { PUSH_KEY: 'k-1', HMAC_SECRET: 's-1', PLATFORM_SECRET: 'p-1' };

/** HEADER (lines 1-4), operations (5), platform (6-7), push from line 8. */
const withPush = (...lines: string[]) => yaml(`${HEADER}operations: {}`, 'platform:', '  baseUrl: http://platform.local/integration', 'push:', ...lines);

const NEW_ORDER = [
  '  NewOrder:',
  '    auth: { type: apiKey, keys: ["${PUSH_KEY}"] }',
  '    schema: { type: object, required: [orderNo] }',
  '    idempotencyKey: input.orderNo',
  '    calls:',
  '      - name: create',
  '        method: POST',
  '        path: /work-orders',
  '        body: input',
];

describe('push endpoints at load', () => {
  it('a valid push loads with its platform, auth, schema and calls', () => {
    const result = checkMappingText(withPush(...NEW_ORDER), FILE, ENV);
    expect(result.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    const push = result.mapping?.pushes.get('NewOrder');
    expect(push?.auth.type).toBe('apiKey');
    expect(push?.calls.map((call) => call.path.source)).toEqual(['/work-orders']);
    expect(push?.schema?.({})).toEqual([expect.objectContaining({ path: '/orderNo' })]);
    expect(result.mapping?.platform?.baseUrl.href).toBe('http://platform.local/integration');
  });

  it('outbox.tryFirstMs on a push is refused at it: the ERP is answered 202 once the push is stored', () => {
    expectOnlyError(withPush(...NEW_ORDER, '    outbox: { tryFirstMs: 3000 }'), { code: 'SETTINGS_DISAGREE', line: 18, col: 27, mentions: ['tryFirstMs', '202'] }, ENV);
  });

  it('push without platform is PUSH_WITHOUT_PLATFORM at the push key', () => {
    const text = yaml(`${HEADER}operations: {}`, 'push:', ...NEW_ORDER);
    expectOnlyError(text, { code: 'PUSH_WITHOUT_PLATFORM', line: 6, col: 1, mentions: ['platform:'] }, ENV);
  });

  it('a push with neither schema nor rules is PUSH_UNCHECKED', () => {
    const lines = NEW_ORDER.filter((line) => !line.includes('schema'));
    expectOnlyError(withPush(...lines), { code: 'PUSH_UNCHECKED', line: 9, col: 3, mentions: ['schema', 'rules'] }, ENV);
  });

  it('an HMAC secret written into the file is SECRET_INLINE', () => {
    const lines = NEW_ORDER.map((line) => (line.includes('auth:') ? '    auth: { type: hmac, secrets: [plain-text] }' : line));
    expectOnlyError(withPush(...lines), { code: 'SECRET_INLINE', line: 10, col: 35 }, ENV);
  });

  it('a secret reused through a YAML *alias is read where its &anchor is: from ${VAR}, or inline (SECRET_INLINE)', () => {
    const second = (auth: string) => NEW_ORDER.map((line) => line.replace('NewOrder', 'Again').replace(/auth: .*/, `auth: ${auth}`));
    const anchored = (auth: string) => NEW_ORDER.map((line) => line.replace(/auth: .*/, `auth: &sig ${auth}`));
    const fromVar = withPush(...anchored('{ type: hmac, secrets: ["${HMAC_SECRET}"] }'), ...second('*sig'));
    expect(errorsOf(fromVar, ENV)).toEqual([]);
    const inline = withPush(...anchored('{ type: hmac, secrets: [plain-text] }'), ...second('*sig'));
    expect(errorsOf(inline, ENV).map((issue) => issue.code)).toEqual(['SECRET_INLINE', 'SECRET_INLINE']);
    // The alias stands for the last anchor of its name before it, as YAML says: here the inline one.
    const redefined = withPush(...anchored('{ type: hmac, secrets: ["${HMAC_SECRET}"] }'), ...second('&sig { type: hmac, secrets: [plain-text] }').map((line) => line.replace('Again', 'Other')), ...second('*sig'));
    expect(errorsOf(redefined, ENV).map((issue) => [issue.code, issue.path])).toEqual([['SECRET_INLINE', 'push.Other.auth.secrets[0]'], ['SECRET_INLINE', 'push.Again.auth.secrets[0]']]);
  });

  it('a schema that is no JSON Schema is PUSH_SCHEMA_INVALID', () => {
    const lines = NEW_ORDER.map((line) => (line.includes('schema:') ? '    schema: { type: banana }' : line));
    expectOnlyError(withPush(...lines), { code: 'PUSH_SCHEMA_INVALID', line: 11, col: 13 }, ENV);
  });

  it('schemas with the same $id in two mappings (or a reload) each keep their own rules, $refs included', () => {
    // The payload schemas share one AJV (payload-schema.ts); each is removed from it once compiled.
    const schemaWith = (required: string) => `    schema: { $id: "https://erp.example/order.json", type: object, required: [${required}], properties: { lines: { type: array, items: { $ref: "#/definitions/line" } } }, definitions: { line: { type: object, required: [sku] } } }`;
    const load = (required: string) => checkMappingText(withPush(...NEW_ORDER.map((line) => (line.includes('schema:') ? schemaWith(required) : line))), FILE, ENV);
    const first = load('orderNo');
    const second = load('documentNo');
    for (const result of [first, second]) expect(result.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    const check = (result: typeof first, payload: unknown) => result.mapping?.pushes.get('NewOrder')?.schema?.(payload);
    expect(check(first, { orderNo: 'A', lines: [{}] })).toEqual([expect.objectContaining({ path: '/lines/0/sku' })]);
    expect(check(first, { documentNo: 'A' })).toEqual([expect.objectContaining({ path: '/orderNo' })]);
    expect(check(second, { documentNo: 'A', lines: [{ sku: 'A-100' }] })).toEqual([]);
    expect(check(second, { orderNo: 'A' })).toEqual([expect.objectContaining({ path: '/documentNo' })]);
    // A schema that failed to compile leaves nothing behind either.
    expect(load('orderNo, { banana }').issues.some((issue) => issue.severity === 'error')).toBe(true);
    expect(check(load('orderNo'), { orderNo: 'A' })).toEqual([]);
  });

  it('two mappings that declare the same payload schema share one validator; another schema gets its own', () => {
    // Compiling was a tenth of loading a mapping with pushes; many customers on one ERP repeat the schema (issue 28).
    const load = (required: string) => checkMappingText(withPush(...NEW_ORDER.map((line) => (line.includes('schema:') ? `    schema: { type: object, required: [${required}] }` : line))), FILE, ENV);
    const validator = (result: ReturnType<typeof load>) => result.mapping?.pushes.get('NewOrder')?.schema;
    const [first, again, other] = [load('orderNo'), load('orderNo'), load('documentNo')];
    expect(validator(first)).toBeDefined();
    expect(validator(again)).toBe(validator(first));
    expect(validator(other)).not.toBe(validator(first));
    expect(validator(other)?.({ orderNo: 'A' })).toEqual([expect.objectContaining({ path: '/documentNo' })]);
  });

  it('an unknown auth type is refused by the structure check, naming the three kinds', () => {
    const lines = NEW_ORDER.map((line) => (line.includes('auth:') ? '    auth: { type: bearer }' : line));
    const [issue] = errorsOf(withPush(...lines), ENV);
    expect(issue.code).toBe('VALUE_NOT_ALLOWED');
    expect(issue.message).toContain('apiKey, basic, hmac');
  });

  it('a rule message is a template and a bad expression is reported where it is', () => {
    const lines = [...NEW_ORDER.filter((line) => !line.includes('schema')), '    rules:', '      - expect: $count(input.lines > 0', '        message: "order {input.orderNo} has no lines"'];
    const [issue] = errorsOf(withPush(...lines), ENV);
    expect(issue).toMatchObject({ code: 'EXPRESSION_SYNTAX', line: 18 });
  });

  it('the platform block is read by the code of system: (a bad base URL names platform.baseUrl)', () => {
    const text = withPush(...NEW_ORDER).replace('http://platform.local/integration', 'ftp://platform.local');
    expectOnlyError(text, { code: 'BASE_URL_INVALID', line: 7, col: 12, mentions: ['platform.baseUrl'] }, ENV);
  });

  it('platform auth secrets must come from ${VAR} too', () => {
    const text = withPush(...NEW_ORDER).replace('  baseUrl: http://platform.local/integration', '  baseUrl: http://platform.local/integration\n  auth: { type: bearer, token: inline }');
    expectOnlyError(text, { code: 'SECRET_INLINE', line: 8, col: 32, mentions: ['platform.auth.token'] }, ENV);
  });

  it('a platform call reads only the calls above it', () => {
    const lines = [...NEW_ORDER, '        headers: { X-Id: "{calls.later.body.id}" }', '      - name: later', '        method: GET', '        path: /x'];
    const [issue] = errorsOf(withPush(...lines), ENV);
    expect(issue.code).toBe('CALL_NOT_YET_MADE');
  });

  it('idempotencyKey cannot read calls', () => {
    const lines = NEW_ORDER.map((line) => (line.includes('idempotencyKey') ? '    idempotencyKey: calls.create.body.id' : line));
    const [issue] = errorsOf(withPush(...lines), ENV);
    expect(issue.code).toBe('CALL_NOT_YET_MADE');
  });
});
