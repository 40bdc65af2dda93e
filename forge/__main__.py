"""``python -m forge``: the kforge command line."""

import sys

from .cli import main

sys.exit(main())
