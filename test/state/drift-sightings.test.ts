import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DriftSightings } from '../../engine/state/drift-sightings';
import { openDriftSightings, openState } from '../../engine/state/state-store';
import { describeWithPostgres } from '../support/postgres';

/**
 * The ERP drift a server saw live, kept where its state is: two engines on one store (two replicas on
 * one PostgreSQL, or two workers on one state directory) read what either kept, one row per mapping,
 * call and kind that keeps its first time seen. The same checks run on both stores.
 */

const log = pino({ level: 'silent' });
const sighting = (at: string, where = '$.qty') => ({ mapping: 'acme', call: 'order', kind: 'missing', path: where, expected: 'present', got: 'missing', at });

function keepsOneRowPerKind(open: () => Promise<DriftSightings>): void {
  it('shows one engine what another kept, one row per mapping, call and kind that keeps its first time', async () => {
    const [one, other] = [await open(), await open()];
    expect(await other.read()).toEqual([]);
    await one.keep(sighting('2026-11-26T01:00:00.000Z'));
    await other.keep(sighting('2026-11-26T02:00:00.000Z', '$.lines[0].qty'));
    await other.keep({ ...sighting('2026-11-26T02:00:00.000Z'), kind: 'type', expected: 'number', got: 'string' });
    const rows = await one.read();
    expect(rows.find((row) => row.kind === 'missing')).toEqual({
      mapping: 'acme', call: 'order', kind: 'missing', path: '$.lines[0].qty', expected: 'present', got: 'missing',
      firstSeen: '2026-11-26T01:00:00.000Z', lastSeen: '2026-11-26T02:00:00.000Z',
    });
    expect(rows.map((row) => row.kind).sort()).toEqual(['missing', 'type']);
  });
}

describe('ERP drift seen live, in drift.json of the state directory', () => {
  const dirs: string[] = [];
  afterAll(() => { for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true }); });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'drift-seen-'));
  dirs.push(stateDir);
  keepsOneRowPerKind(() => openDriftSightings({ stateDir }));

  it('is what a server without DATABASE_URL opens, even when it opens no outbox or journal store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'drift-seen-'));
    dirs.push(dir);
    const state = await openState({ outbox: { stateDir: dir, explicit: false }, initial: { mappings: [] }, journalSize: 10 }, log);
    await state.drift.keep(sighting('2026-11-26T01:00:00.000Z'));
    expect(state.drift.location).toBe(path.join(dir, 'drift.json'));
    expect(fs.existsSync(path.join(dir, 'drift.json'))).toBe(true);
    await state.journal.close();
  });
});

describeWithPostgres('ERP drift seen live, in the state store\'s PostgreSQL', (server) => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => { for (const close of closing.splice(0)) await close(); });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'drift-seen-'));
  afterAll(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  keepsOneRowPerKind(async () => {
    // Each an engine's state as serve opens it: the outbox, the journal and the drift on one pool.
    const state = await openState({ outbox: { stateDir, databaseUrl: server().url, explicit: true }, initial: { mappings: [] }, journalSize: 10 }, log);
    closing.push(async () => { await state.drift.close(); await state.journal.close(); await state.outbox?.close(); });
    return state.drift;
  });

  it('keeps the latest place when an older sighting is told late, and nothing in the state directory', async () => {
    const drift = await openDriftSightings({ stateDir, databaseUrl: server().url });
    closing.push(() => drift.close());
    await drift.keep({ ...sighting('2026-11-26T05:00:00.000Z', '$.now'), call: 'late' });
    await drift.keep({ ...sighting('2026-11-26T04:00:00.000Z', '$.before'), call: 'late' });
    expect((await drift.read()).find((row) => row.call === 'late')).toMatchObject({ path: '$.now', firstSeen: '2026-11-26T04:00:00.000Z', lastSeen: '2026-11-26T05:00:00.000Z' });
    expect(drift.location).toBe('PostgreSQL "public".adapter_drift_seen');
    expect(fs.existsSync(path.join(stateDir, 'drift.json'))).toBe(false);
  });
});
