python3 -m pytest -q
