import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/outbox/sqlite-store';
import type { OutboxStore } from '../../engine/outbox/store';
import { storeSupport } from '../../engine/outbox/support';

/** Ids shortened as git's: a prefix that names one event works, one that names several or none says so. */
let store: OutboxStore | undefined;
afterEach(async () => { await store?.close(); });

const event = (id: string) => ({ id, mapping: 'm1', operation: 'ConfirmPutWallPlacement', orderingKey: id, input: {}, requestId: `r-${id}`, acceptedAt: 1_700_000_000_000, blocksKeyWhenDead: true });

describe('outbox support actions', () => {
  it('takes a unique prefix of an id, and refuses an ambiguous, a too short or an unknown one', async () => {
    store = openSqliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-support-')));
    await store.enqueue(event('abcd1111-0000-4000-8000-000000000001'));
    await store.enqueue(event('abcd2222-0000-4000-8000-000000000002'));
    const support = storeSupport(store);
    expect(await support.show('abcd1')).toMatchObject({ id: 'abcd1111-0000-4000-8000-000000000001' });
    expect(await support.show('abcd')).toEqual({ status: 409, problem: 'abcd is ambiguous: it starts 2 events (abcd1111-0000-4000-8000-000000000001, abcd2222-0000-4000-8000-000000000002); give more of the id' });
    expect(await support.show('abc')).toMatchObject({ status: 404, problem: 'no event abc; a shortened id needs at least 4 characters' });
    expect(await support.retry('abcd3')).toMatchObject({ status: 404, problem: expect.stringContaining('no event abcd3 in the outbox') });
    expect(await support.show("ab'%")).toMatchObject({ status: 400 });
    expect(await support.retry('abcd2')).toEqual({ id: 'abcd2222-0000-4000-8000-000000000002', was: 'pending' });
    expect(await support.drop('abcd2', ' ')).toMatchObject({ status: 400 });
    expect(await support.drop('abcd2', 'by hand')).toEqual({ id: 'abcd2222-0000-4000-8000-000000000002' });
    expect(await support.drop('abcd2', 'again')).toMatchObject({ status: 409, problem: expect.stringContaining('not dropped') });
  });
});
