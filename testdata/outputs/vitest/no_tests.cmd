vitest run nothing_matches
