"""The server's commands (§7): ``table`` — the command table and the one adapter every
command goes through — and one module per feature, each function decorated
``@handles(name)`` for a command declared in ``server.protocol.commands``. The generated
``server.protocol.manifest`` names each command's module, so a module loads only when its
command is first used.
"""
