go test ./notests
