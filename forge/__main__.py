"""``python -m forge``: a thin launcher of the ``kforge`` command line (the one module of
``forge`` that reaches above it; ``python -m kforge`` is the same)."""

import sys

from kforge import main

sys.exit(main())
