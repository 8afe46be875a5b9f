import { defineConfig } from 'vitest/config';

/**
 * Files that start real processes (serve, the CLI, PostgreSQL, a browser) or measure the event loop and
 * the heap: each runs in a process of its own (isolate), so no heap, handler or module state of another
 * file weighs on what it measures.
 */
const OWN_PROCESS = ['test/cli/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/studio/**/*.test.ts', 'test/hostile-expressions/**/*.test.ts', 'engine/expressions/**/*.test.ts', 'bench/bench-quick.test.ts'];
const ALL = ['engine/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'];
const TIMEOUTS = { testTimeout: 20000, hookTimeout: 20000 };

export default defineConfig({
  test: {
    // The CLI tests run the built binary: build-once rebuilds dist/ when a bare `vitest run` finds it stale.
    // temp-root gives the run one temporary directory (TMPDIR), removed when it ends. Once for the run: the projects below do not extend it.
    globalSetup: ['test/cli/build-once.ts', 'test/temp-root.ts'],
    // Two files at a time: the machine CI and the team use has 2 cores (vitest's default is one fewer
    // than the cores), and the process suites spend most of their time waiting on their processes.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { test: { name: 'own-process', include: OWN_PROCESS, ...TIMEOUTS } },
      // The other files share their worker's modules (isolate: false): importing the engine again for
      // each of them cost more than their tests (79 files: 141 s alone, 33 s shared). They keep no state
      // of their own between files (no module-level state in the engine; servers closed after each test).
      { test: { name: 'shared-modules', include: ALL, exclude: OWN_PROCESS, isolate: false, ...TIMEOUTS } },
    ],
  },
});
