"""``python -m server``: the language server on stdio."""

import sys

from server import main

sys.exit(main())
