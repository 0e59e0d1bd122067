"""Your tool handlers, one module per tool: mcpstub adds missing ones, never edits."""
