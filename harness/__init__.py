"""harness: the agent runtime — contract, policy, workspace, tools, context, memory, store,
provider, loop, watch and cli. It never imports the language server, pygls or lsprotocol."""

__version__ = "0.1.0"
