import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn real daemons; forks keep each file's processes and signals apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: more parallel daemons than this only adds contention.
    maxWorkers: 2,
  },
});
