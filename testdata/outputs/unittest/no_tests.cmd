python3 -m unittest
