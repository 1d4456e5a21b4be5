npm test
