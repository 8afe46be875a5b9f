import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // The CLI tests run the built binary: build-once rebuilds dist/ when a bare `vitest run` finds it stale.
    // temp-root gives the run one temporary directory (TMPDIR), removed when it ends.
    globalSetup: ['test/cli/build-once.ts', 'test/temp-root.ts'],
  },
});
