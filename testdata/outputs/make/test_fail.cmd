make test-fail
