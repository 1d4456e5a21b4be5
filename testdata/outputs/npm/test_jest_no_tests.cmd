npm test -- nothing_matches
