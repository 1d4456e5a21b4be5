eslint good
