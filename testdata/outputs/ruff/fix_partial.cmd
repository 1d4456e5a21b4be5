ruff check --fix --output-format=concise .
