cargo test nothing_matches
