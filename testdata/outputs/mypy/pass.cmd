mypy good.py
