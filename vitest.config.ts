import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
          environment: 'node',
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['./test/support/global-setup.ts'],
          // Unit tests first, then the integration files, which share one API server.
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 600_000,
          // The files share one API server; each works in namespaces of its own.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
