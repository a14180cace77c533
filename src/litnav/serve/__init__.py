"""Servers over litnav: a local HTTP API (``litnav serve``, FastAPI) and an MCP server
(``litnav mcp``, stdio), both over :class:`litnav.serve.service.Service`."""
