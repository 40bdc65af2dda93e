"""``python -m kforge``: the kforge command line."""

import sys

from . import main

sys.exit(main())
