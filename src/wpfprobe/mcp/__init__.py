"""Face: the MCP tools as data, the co-located server, custom tools, the client and discovery manifests."""
