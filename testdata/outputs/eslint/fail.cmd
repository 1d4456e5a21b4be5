eslint bad
