yarn test
