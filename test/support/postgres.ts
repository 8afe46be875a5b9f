import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresUnavailable, startPostgres, type PgServer } from '../../bench/lib/postgres-server';

/**
 * A describe block with a throwaway server (one per block, started in beforeAll). Without PostgreSQL the
 * block is skipped with the reason in its title, or fails when CI=true. `concurrent`: the block runs beside
 * the file's other concurrent blocks.
 */
export function describeWithPostgres(name: string, body: (server: () => PgServer) => void, options: { readonly concurrent?: boolean } = {}): void {
  const reason = postgresUnavailable();
  if (reason !== undefined) {
    if (process.env.CI === 'true') {
      describe(name, () => {
        it('has PostgreSQL to test against (required when CI=true)', () => {
          throw new Error(`PostgreSQL is unavailable: ${reason}`);
        });
      });
    } else {
      describe.skip(`${name} (skipped, no PostgreSQL: ${reason})`, () => { it('needs PostgreSQL', () => undefined); });
    }
    return;
  }
  describe(name, options, () => {
    let server: PgServer | undefined;
    beforeAll(async () => { server = await startPostgres(); }, 60_000);
    afterAll(async () => { await server?.stop(); }, 30_000);
    body(() => {
      if (server === undefined) throw new Error('the PostgreSQL test server did not start');
      return server;
    });
  });
}
