"""``make protocol``: the files written from the declaration (``server.protocol``) — the
command manifest, the TypeScript and Lua declarations, and the generated regions of the
docs (``<!-- BEGIN generated:NAME -->`` … ``<!-- END generated:NAME -->``).
``python -m server.protocol.gen --check`` (in ``make lint``) says which differ instead."""
