jest --passWithNoTests nothing_matches
