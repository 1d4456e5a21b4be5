ruff check --output-format=concise .
