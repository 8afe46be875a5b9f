/**
 * The example mapping is the tutorial of the format: it must load cleanly, map every route, and give
 * a frozen model that no request can change.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../engine/contract/routes';
import { checkMappingFile, checkMappingText, loadMapping } from '../../engine/mapping/load';
import type { FlowOperation } from '../../engine/mapping/model';
import { EXAMPLE_MAPPING } from '../support/engine';
import { EXAMPLE_PUSH_ENV, exampleEnv } from '../../examples/example-env';
import { HEADER } from '../support/mapping-issues';

const ENV = exampleEnv('http://127.0.0.1:8081/api/v1');

/** 1-based line and column of the first occurrence of `text` in the example file (it is edited as a tutorial). */
function positionInExample(text: string): { line: number; col: number } {
  const lines = fs.readFileSync(EXAMPLE_MAPPING, 'utf8').split('\n');
  const line = lines.findIndex((candidate) => candidate.includes(text));
  if (line < 0) throw new Error(`example.yaml no longer contains ${text}`);
  return { line: line + 1, col: lines[line].indexOf(text) + 1 };
}

describe('mappings/example.yaml', () => {
  it('loads with zero errors and zero warnings (no UNMAPPED_ROUTE)', () => {
    const { mapping, issues } = checkMappingFile(EXAMPLE_MAPPING, { env: ENV });
    expect(issues).toEqual([]);
    expect(mapping).toBeDefined();
  });

  it('maps all 19 contract routes', () => {
    const { mapping } = loadMapping(EXAMPLE_MAPPING, { env: ENV });
    expect(ROUTES).toHaveLength(19);
    expect([...mapping.operations.keys()].sort()).toEqual(ROUTES.map((route) => route.operationId).sort());
    expect(mapping.system.baseUrl.href).toBe(ENV.ERP_URL);
    expect(mapping.system.timeoutMs).toBe(5000);
  });

  it('without ERP_URL it is refused at the line of the variable', () => {
    const { mapping, issues } = checkMappingFile(EXAMPLE_MAPPING, { env: { ...EXAMPLE_PUSH_ENV }, displayName: 'example.yaml' });
    expect(mapping).toBeUndefined();
    expect(issues).toEqual([expect.objectContaining({ code: 'ENV_UNSET', file: 'example.yaml', ...positionInExample('${ERP_URL}') })]);
    expect(issues[0].message).toContain('ERP_URL');
  });
});

describe('the loaded model is frozen', () => {
  const { mapping } = loadMapping(EXAMPLE_MAPPING, { env: ENV });
  const operation = mapping.operations.get('GetWorkOrderByCode') as FlowOperation;

  it('mapping, system, an operation, its calls and outcome rules', () => {
    expect(Object.isFrozen(mapping)).toBe(true);
    expect(Object.isFrozen(mapping.system)).toBe(true);
    expect(Object.isFrozen(mapping.limits)).toBe(true);
    expect(Object.isFrozen(operation)).toBe(true);
    expect(Object.isFrozen(operation.calls)).toBe(true);
    expect(Object.isFrozen(operation.calls[0])).toBe(true);
    expect(Object.isFrozen(operation.calls[0].path)).toBe(true);
    expect(Object.isFrozen(operation.outcomes[1])).toBe(true);
    expect(Object.isFrozen(operation.output)).toBe(true);
  });

  it('a static answer cannot be changed by whoever reads it', () => {
    const columns = mapping.operations.get('GetExportColumns');
    expect(columns?.mode).toBe('static');
    const data = (columns as { data: { key: string }[] }).data;
    expect(Object.isFrozen(data)).toBe(true);
    expect(Object.isFrozen(data[0])).toBe(true);
    expect(() => {
      data[0].key = 'changed';
    }).toThrow(TypeError);
  });

  it('assignments to the model throw in strict mode', () => {
    expect(() => {
      (mapping as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (operation.calls[0] as { timeoutMs: number }).timeoutMs = 1;
    }).toThrow(TypeError);
  });

  it('expressions carry their place in the file', () => {
    expect(operation.outcomes[1].message?.origin).toMatchObject(positionInExample('response.body.blockReason'));
  });
});

describe('a mapping with no operations', () => {
  it('loads, and warns once per unmapped route saying what it answers', () => {
    const { mapping, issues } = checkMappingText(`${HEADER}operations: {}\n`, 'empty.yaml');
    expect(mapping?.operations.size).toBe(0);
    expect(issues).toHaveLength(19);
    expect(issues.every((issue) => issue.severity === 'warning' && issue.code === 'UNMAPPED_ROUTE')).toBe(true);
    const about = (operationId: string) => issues.find((issue) => issue.message.includes(`(${operationId})`))?.message;
    expect(about('GetItem')).toContain('AdapterNotDefined');
    expect(about('GetExportColumns')).toContain('Success with empty data');
  });
});
