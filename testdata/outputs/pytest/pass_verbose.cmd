pytest -v
