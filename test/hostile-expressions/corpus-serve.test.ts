/**
 * Issue 15, against the real process: `serve` (as `npm start` runs it: the example mapping on the
 * bundled example ERP) with one more mapping per request-time case of the hostile corpus, all fired at
 * it a few at a time. No case may end the process: afterwards it is still running and the example
 * still answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, startServe, stoppedAfterEach, tempDir } from '../cli/cli-process';
import { CORPUS, mappingFor } from './corpus';

const { running } = stoppedAfterEach(afterEach);

/** Hostile requests in flight at once: enough to overlap, few enough for a two-core machine. */
const AT_ONCE = 4;

describe('the hostile corpus against a serve process', () => {
  it('no case ends the process; the example keeps answering', async () => {
    const cases = CORPUS.filter((entry) => !entry.expect.load);
    const dir = tempDir();
    fs.copyFileSync(EXAMPLE, path.join(dir, 'example.yaml'));
    cases.forEach((entry, index) => {
      fs.writeFileSync(path.join(dir, `hostile-${index}.yaml`), mappingFor(entry.expression).text.replace('name: connectivity-test', `name: hostile-${index}`));
    });
    const serving = await startServe(['--example-erp', dir]);
    running.push(serving);
    const base = serving.urls[0].replace(/\/[^/]*$/, '');
    const answers: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const index = next++;
        const entry = cases[index];
        // Bounded: each case answers within its 1 s limit and a margin; a hung process fails the fetch.
        const response = await fetch(`${base}/hostile-${index}/Items/${encodeURIComponent(entry.number ?? 'c')}`, { signal: AbortSignal.timeout(30_000) });
        const body = (await response.json()) as { isResultSuccess: boolean; result: number };
        answers.push(`${body.isResultSuccess ? 'answered' : `failed (${body.result})`}: ${entry.name}`);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    console.info(`${answers.length} hostile requests to serve, ${answers.filter((line) => line.startsWith('failed')).length} failed as expected, the rest answered; the process is still running`);
    expect(answers).toHaveLength(cases.length);
    expect(serving.child.exitCode).toBeNull();
    expect(serving.child.signalCode).toBeNull();
    const example = await fetch(`${base}/example/WorkOrders/WorkOrderExternalIndexableValueLabel`);
    expect(((await example.json()) as { isResultSuccess: boolean }).isResultSuccess).toBe(true);
    fs.rmSync(dir, { recursive: true });
  }, 240_000);
});
