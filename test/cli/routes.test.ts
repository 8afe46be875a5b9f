import { describe, expect, it } from 'vitest';
import { runCli, STACK_LINE, tempDir, writeFile } from './cli-process';

const MIXED = `version: 1
name: mixed
system:
  baseUrl: http://erp.test
operations:
  GetItem:
    calls:
      - { name: article, method: GET, path: "/articles/{input.number}" }
    output: calls.article.body
  GetExternalIndexableValueLabel:
    static: { label: Order }
  ReportWorkOrderStatus:
    acknowledge: true
`;

describe('adapter-engine routes', () => {
  it('lists the 19 contract routes of the example as an aligned table', async () => {
    const result = await runCli(['routes', 'mappings/example.yaml'], { env: { ERP_URL: 'http://erp.test/api/v1' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('example (mappings/example.yaml): 17 mapped, 2 static, 0 acknowledged, 0 unmapped');
    const rows = result.stdout.split('\n').filter((line) => /^(GET|POST) /.test(line) && !line.includes('/push/'));
    expect(rows).toHaveLength(19);
    expect(result.stdout).toMatch(/^POST\s+\/push\/NewOrder\s+hmac\s+one record\s+POST \/work-orders$/m);
    // Aligned: the status column starts at the same place on every row.
    const starts = rows.map((row) => row.search(/ (mapped|static|acknowledged|unmapped) /));
    expect(new Set(starts).size).toBe(1);
    expect(rows[0]).toMatch(/^GET\s+\/WorkOrders\s+GetWorkOrders\s+mapped\s+calls: orders$/);
  });

  it('tells mapped, static, acknowledged and unmapped routes apart, with what unmapped ones answer', async () => {
    const file = writeFile(tempDir(), 'mixed.yaml', MIXED);
    const result = await runCli(['routes', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 mapped, 1 static, 1 acknowledged, 16 unmapped');
    expect(result.stdout).toMatch(/GetItem\s+mapped\s+calls: article/);
    expect(result.stdout).toMatch(/GetExternalIndexableValueLabel\s+static/);
    expect(result.stdout).toMatch(/ReportWorkOrderStatus\s+acknowledged/);
    expect(result.stdout).toMatch(/GetWorkOrders\s+unmapped\s+answers AdapterNotDefined/);
    expect(result.stdout).toMatch(/GetExportColumns\s+unmapped\s+answers Success with empty data/);
  });

  it('--json gives the counts and one entry per route', async () => {
    const file = writeFile(tempDir(), 'mixed.yaml', MIXED);
    const result = await runCli(['routes', '--json', file]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { counts: Record<string, number>; routes: { operation: string; status: string }[] };
    expect(report.counts).toEqual({ mapped: 1, static: 1, acknowledged: 1, unmapped: 16 });
    expect(report.routes).toHaveLength(19);
    expect(report.routes.find((r) => r.operation === 'ReportWorkOrderStatus')?.status).toBe('acknowledged');
  });

  it('a mapping with errors exits 1 with file:line:col and no stack trace', async () => {
    const file = writeFile(tempDir(), 'bad.yaml', MIXED.replace('acknowledge: true', 'acknowledge: yes please'));
    const result = await runCli(['routes', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.yaml:13:\d+ {2}/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('a missing mapping file is a usage error', async () => {
    const result = await runCli(['routes', 'nowhere.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mapping file not found: nowhere.yaml');
  });
});

/** The push guide's mapping (docs/push-endpoints.md): an HMAC-signed push and a batched one. */
const PUSH_EXAMPLE = 'examples/push.yaml';
const PUSH_ENV = { ERP_URL: 'http://erp.test', PLATFORM_URL: 'http://platform.test', PLATFORM_CLIENT_SECRET: 'client-secret-value', ERP_PUSH_SECRET: 's', ERP_PUSH_KEY: 'k' };

describe('push endpoints in routes and validate', () => {
  it('routes lists each push endpoint with its auth, records and platform calls; --json has them too', async () => {
    const result = await runCli(['routes', PUSH_EXAMPLE], { env: PUSH_ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/POST\s+\/push\/NewOrder\s+hmac\s+one record\s+POST \/work-orders$/m);
    expect(result.stdout).toMatch(/POST\s+\/push\/Orders\s+apiKey\s+records in batches of 100\s+POST \/work-orders\/batch/);
    const json = JSON.parse((await runCli(['routes', PUSH_EXAMPLE, '--json'], { env: PUSH_ENV })).stdout) as { pushes: { path: string }[] };
    expect(json.pushes.map((push) => push.path)).toEqual(['/push/NewOrder', '/push/Orders']);
  });

  it('validate counts the push endpoints of a mapping that loads', async () => {
    const result = await runCli(['validate', PUSH_EXAMPLE], { env: PUSH_ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ok  0 of 19 routes mapped, 2 push endpoints (POST /push/NewOrder, /push/Orders)');
  });
});
