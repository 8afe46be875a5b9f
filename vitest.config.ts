import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/slowest-first';

/**
 * Files that start real processes (serve, the CLI, PostgreSQL, a browser) or measure the event loop and
 * the heap: each runs in a process of its own (forks, isolated), so no heap, handler or module state of
 * another file weighs on what it measures. So do MOSTLY_WAITING's.
 */
const OWN_PROCESS = ['test/cli/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/studio/**/*.test.ts', 'test/hostile-expressions/**/*.test.ts', 'engine/expressions/**/*.test.ts', 'bench/bench-quick.test.ts'];
/**
 * Files that mostly wait on a stand-in's clock: the Shopify-style store restores its cost bucket at 50
 * points a second, so a poll from an empty bucket waits about 25 s (4 s of CPU in 30 s). They run in a
 * process of their own beside the first group's two workers, and take almost no CPU from them. (The
 * studio's browser files wait too when alone, but beside the workers Chromium's CPU slowed both: the
 * first group took 30 s longer.)
 */
const MOSTLY_WAITING = ['test/erp-calls/shopify-example.test.ts'];
const ALL = ['engine/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'];
const TIMEOUTS = { testTimeout: 20000, hookTimeout: 20000 };

export default defineConfig({
  test: {
    // The CLI tests run the built binary: build-once rebuilds dist/ when a bare `vitest run` finds it stale.
    // temp-root gives the run one temporary directory (TMPDIR), removed when it ends. Once for the run: the projects below do not extend it.
    globalSetup: ['test/cli/build-once.ts', 'test/temp-root.ts'],
    // Two files at a time in each pool: the machine CI and the team use has 2 cores (vitest's default is
    // one fewer than the cores), and the process suites spend much of their time waiting on their
    // processes. Only the first group uses both pools at once (its fork: the mostly-waiting file).
    maxWorkers: 2,
    minWorkers: 1,
    // Isolation is a pool's setting in vitest, not a project's: the files that share modules run in the
    // threads pool, the others in the forks pool.
    poolOptions: { threads: { isolate: false }, forks: { isolate: true } },
    sequence: { sequencer: SlowestFirst },
    projects: [
      // The files that test the engine in-process (a few start PostgreSQL or a helper process) and measure
      // no pause share their worker's modules (isolate: false):
      // importing the engine again for each of them cost more than their tests (79 of them: 64 s alone,
      // 18 s shared). They keep no state between files (no module-level state in the engine; servers
      // closed after each test). First: two threads at a time, the mostly-waiting files beside them.
      { test: { name: 'shared-modules', include: ALL, exclude: [...OWN_PROCESS, ...MOSTLY_WAITING], pool: 'threads', sequence: { groupOrder: 0 }, ...TIMEOUTS } },
      // Same group, another pool: vitest runs the pools of a group at the same time.
      { test: { name: 'mostly-waiting', include: MOSTLY_WAITING, pool: 'forks', sequence: { groupOrder: 0 }, ...TIMEOUTS } },
      { test: { name: 'own-process', include: OWN_PROCESS, pool: 'forks', sequence: { groupOrder: 1 }, ...TIMEOUTS } },
    ],
  },
});
