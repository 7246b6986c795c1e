"""Face: ``wpfprobe mcp``, one stdio MCP server that federates every running probe of this user."""
