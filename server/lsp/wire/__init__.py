"""The wire: the transport hardening pygls lacks — our own ``Content-Length`` framing
(``framing``), the JSON-RPC rules checked on every message before pygls handles it
(``protocol``), the stdin/stdout loop and the way out (``stdio``), notifications and
cancellable requests to the client (``rpc``), logging to stderr and ``window/logMessage``
(``logs``), and the settings section read before anything heavy loads (``section``).

It imports nothing else of ``server`` (``tools/check_imports.py``), and of ``harness`` only
``harness.redact``: the rest of the server stands on it, never the other way round.
"""
