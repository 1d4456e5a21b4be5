vitest run
