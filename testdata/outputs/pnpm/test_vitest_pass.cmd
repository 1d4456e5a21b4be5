pnpm test
