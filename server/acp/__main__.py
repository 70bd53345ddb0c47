"""``python -m server.acp``: the ACP agent on stdio (what ``harness acp`` hands off to)."""

import sys

from server.acp.main import main

sys.exit(main(sys.argv[1:]))
