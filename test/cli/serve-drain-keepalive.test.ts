import http from 'node:http';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * SIGTERM under keep-alive load, against the real process: clients that keep their connections open
 * and send one request after another (as a load balancer does) get every request they sent answered; the
 * answers during the drain say `Connection: close`, and what follows goes to a new connection, which is
 * refused. No request is reset.
 */

const { running } = stoppedAfterEach(afterEach);

const MAPPING = `version: 1
name: drain
system:
  baseUrl: http://127.0.0.1:9
operations:
  GetExternalIndexableValueLabel:
    static:
      label: on
`;

interface ClientLog {
  answered: number;
  closeAnswers: number;
  /** How the client's requests ended once they failed: the error code of the first failure. */
  failure?: string;
}

/** One keep-alive connection sending requests back to back until one fails (or `max` were sent). */
async function keepAliveClient(url: string, log: ClientLog, max = 5000): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let sent = 0; sent < max; sent += 1) {
      const outcome = await new Promise<{ connection?: string } | { error: string }>((resolve) => {
        http.get(`${url}/WorkOrders/WorkOrderExternalIndexableValueLabel`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve({ connection: response.headers.connection }));
          response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
        }).on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      });
      if ('error' in outcome) {
        log.failure = outcome.error;
        return;
      }
      log.answered += 1;
      if (outcome.connection === 'close') log.closeAnswers += 1;
    }
  } finally {
    agent.destroy();
  }
}

describe('serve: SIGTERM with keep-alive connections', () => {
  it('30 busy keep-alive connections: every request sent is answered, none is reset', { timeout: 60_000 }, async () => {
    const serving = await startServe([writeFile(tempDir(), 'drain.yaml', MAPPING)]);
    running.push(serving);
    const logs: ClientLog[] = Array.from({ length: 30 }, () => ({ answered: 0, closeAnswers: 0 }));
    onTestFailed(() => console.error(JSON.stringify(logs)));
    const clients = logs.map((log) => keepAliveClient(serving.urls[0], log));
    // Until every connection is open and busy.
    while (logs.some((log) => log.answered < 3)) await new Promise((resolve) => setTimeout(resolve, 20));
    serving.child.kill('SIGTERM');
    await Promise.all(clients);
    expect((await serving.exited).code).toBe(0);
    // A new connection refused is what a stopped listener does; a reset or a hang-up loses a request that was sent.
    expect(logs.map((log) => log.failure)).toEqual(logs.map(() => 'ECONNREFUSED'));
    expect(logs.every((log) => log.closeAnswers === 1)).toBe(true);
  });
});
