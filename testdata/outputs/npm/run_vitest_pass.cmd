npm run check
