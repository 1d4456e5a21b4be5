tsc -p .
