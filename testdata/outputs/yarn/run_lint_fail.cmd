yarn run lint
