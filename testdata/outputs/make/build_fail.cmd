make bad
