mocha
