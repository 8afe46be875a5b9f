import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createMetrics } from '../../engine/server/metrics';
import { blocksOf, ROOT } from './markdown';

/**
 * The operator's examples in docs/operations.md are checked against the engine: alert expressions only
 * use metrics the engine exports, the metrics table lists exactly those, and the systemd unit and the
 * Kubernetes Deployment only use flags and endpoints `serve` has.
 */
const GUIDE = 'docs/operations.md';
const BINARY = path.join(ROOT, 'dist', 'engine', 'cli', 'main.js');
/** The primary of --workers exports these besides the workers' own metrics. */
const PRIMARY_METRICS = ['adapter_workers', 'adapter_worker_restarts_total'];
const ADMIN_ENDPOINTS = ['/health/live', '/health/ready', '/metrics', '/openapi.json'];

async function exportedMetrics(): Promise<Set<string>> {
  const metrics = createMetrics();
  const names = (await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name);
  return new Set([...names, ...PRIMARY_METRICS]);
}

const baseName = (name: string) => name.replace(/_(bucket|count|sum)$/, '');
const serveFlags = () => new Set(execFileSync(process.execPath, [BINARY, 'serve', '--help'], { encoding: 'utf8' }).match(/--[a-z-]+/g));

describe('the operations guide', () => {
  it('alert rules use only metrics the engine exports', async () => {
    const exported = await exportedMetrics();
    const rules = blocksOf(GUIDE).filter((block) => block.text.startsWith('# prometheus rules\n'));
    expect(rules).toHaveLength(1);
    const groups = (parse(rules[0].text) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups;
    const expressions = groups.flatMap((group) => group.rules.map((rule) => rule.expr));
    expect(expressions.length).toBeGreaterThan(3);
    const used = expressions.flatMap((expr) => expr.match(/\b(adapter|nodejs|process)_[a-z0-9_]+/g) ?? []).map(baseName);
    expect(used.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('the metrics table lists exactly the adapter_* metrics the engine exports', async () => {
    const exported = [...(await exportedMetrics())].filter((name) => name.startsWith('adapter_')).sort();
    const text = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8');
    const listed = [...text.matchAll(/^\| `(adapter_[a-z0-9_]+)` \|/gm)].map((match) => match[1]).sort();
    expect(listed).toEqual(exported);
  });

  it('the systemd unit and the Kubernetes Deployment use flags serve has and the admin endpoints', () => {
    const flags = serveFlags();
    const unit = blocksOf(GUIDE).find((block) => block.lang === 'ini');
    expect(unit).toBeDefined();
    const execStart = /^ExecStart=.*? serve (.*)$/m.exec(unit!.text)?.[1] ?? '';
    expect(execStart).not.toBe('');
    expect((execStart.match(/--[a-z-]+/g) ?? []).filter((flag) => !flags.has(flag))).toEqual([]);
    expect(unit!.text).toMatch(/^ExecReload=.*-HUP/m);

    const manifest = blocksOf(GUIDE).find((block) => block.text.startsWith('# kubernetes\n'));
    expect(manifest).toBeDefined();
    const deployment = parseAllDocuments(manifest!.text).map((document) => document.toJS() as { kind: string; spec: { replicas?: number; template: { spec: { containers: { args: string[]; env?: { name: string }[]; ports: { name: string }[]; livenessProbe: { httpGet: { path: string; port: string } }; readinessProbe: { httpGet: { path: string; port: string } } }[] } } } }).find((document) => document.kind === 'Deployment');
    const container = deployment!.spec.template.spec.containers[0];
    expect(container.args[0]).toBe('serve');
    // More than one replica: the outbox and the pushes must be in the PostgreSQL they share.
    if ((deployment!.spec.replicas ?? 1) > 1) expect((container.env ?? []).map((variable) => variable.name)).toContain('DATABASE_URL');
    expect(container.args.filter((arg) => arg.startsWith('--') && !flags.has(arg))).toEqual([]);
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      expect(ADMIN_ENDPOINTS).toContain(probe.httpGet.path);
      // A probe sends no token: only the endpoints that answer without one.
      expect(['/health/live', '/health/ready']).toContain(probe.httpGet.path);
      expect(container.ports.map((port) => port.name)).toContain(probe.httpGet.port);
    }
  });

  it('the Prometheus scrape config sends a token to the admin port', () => {
    const blocks = blocksOf(GUIDE).filter((block) => block.text.startsWith('# prometheus scrape config\n'));
    expect(blocks).toHaveLength(1);
    const job = (parse(blocks[0].text) as { scrape_configs: { authorization?: { credentials_file?: string }; metrics_path?: string; static_configs: { targets: string[] }[] }[] }).scrape_configs[0];
    expect(job.authorization?.credentials_file).toMatch(/^\//);
    expect(job.metrics_path ?? '/metrics').toBe('/metrics');
    const manifest = blocksOf(GUIDE).find((block) => block.text.startsWith('# kubernetes\n'));
    const adminPort = /--admin-port, "(\d+)"/.exec(manifest?.text ?? '')?.[1];
    expect(job.static_configs[0].targets.map((target) => target.split(':')[1])).toEqual([adminPort]);
  });
});
