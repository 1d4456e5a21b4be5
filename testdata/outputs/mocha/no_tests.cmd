mocha --grep nothing_matches
