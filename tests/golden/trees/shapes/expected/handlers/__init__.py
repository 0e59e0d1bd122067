"""Your tool handlers: one module per tool. mcpstub creates missing ones and never edits them."""
