python3 -m unittest -v test_unit
