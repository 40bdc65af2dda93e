"""The test suite's plugin distribution (tests/plugins/forge_demo_plugin) is installed
by ./scripts/test into .test-plugins, outside the user's environment; a plain
``pytest`` run finds it there too (and its subprocesses, through PYTHONPATH)."""

import os
import sys
from pathlib import Path

_PLUGINS = Path(__file__).resolve().parent / ".test-plugins"
if _PLUGINS.is_dir() and str(_PLUGINS) not in sys.path:
    sys.path.insert(0, str(_PLUGINS))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(_PLUGINS)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    )
