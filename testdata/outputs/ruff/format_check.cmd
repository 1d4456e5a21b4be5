ruff format --check .
