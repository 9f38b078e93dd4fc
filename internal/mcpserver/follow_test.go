package mcpserver
