npm run build
