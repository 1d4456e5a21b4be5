pytest -k nothing_matches
