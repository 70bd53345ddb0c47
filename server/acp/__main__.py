"""``python -m server.acp``: the ACP agent on stdio (what ``harness acp`` hands off to). The
arguments are read before the protocol package is imported, so ``--help`` and a usage
error answer at once."""

import sys

from harness.cli.acp import parser

arguments = parser().parse_args(sys.argv[1:])

from server.acp.main import serve  # noqa: E402 -- after the arguments, see above

sys.exit(serve(arguments))
