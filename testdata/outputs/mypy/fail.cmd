mypy bad.py
