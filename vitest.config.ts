import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // The CLI tests run the built binary; this rebuilds dist/ when a bare `vitest run` finds it stale.
    globalSetup: ['test/cli/build-once.ts'],
  },
});
