"""The user's MCP servers as tools (§15): where servers come from and whether they may run
(``config``, ``approvals``), running them on the official ``mcp`` SDK (``client``), their
tools as the model sees them (``tools``) and one run's set of servers (``runtime``).

Nothing here imports the SDK at module level: it is loaded only when a server is
configured, so a start-up with no server pays nothing for it."""
