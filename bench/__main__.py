"""``python -m bench`` from the repository root."""

from ._cli import main

raise SystemExit(main())
