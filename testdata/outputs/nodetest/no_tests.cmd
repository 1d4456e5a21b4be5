node --test --test-name-pattern=nothing_matches
