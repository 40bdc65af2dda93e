"""Golden files: the exact text emitted for a few kernels per target (tests/golden/).

A deliberate emitter change updates them: run
``FORGE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_emit_golden.py`` and review
the diff (``git diff tests/golden``) like any other change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import forge
from forge import Schedule

GOLDEN = Path(__file__).parent / "golden"
CASES = [
    ("affine", Schedule(256, items_per_invocation=2, vector_width=4, max_workgroups=4224)),
    ("softmax", Schedule((32, 4), items_per_invocation=2)),
    # the moments level (mean and variance in one reduction) and per-column chunks
    ("layernorm", Schedule((256, 1), items_per_invocation=4, vector_width=4)),
    ("gemm", Schedule((16, 16), vector_width=4, tile=(64, 64, 8))),
    ("transpose", Schedule((32, 8), tile=(32, 32))),
]
_EXTENSION = {"wgsl": "wgsl", "cuda": "cu"}


def _path(kernel: str, schedule: Schedule, target: str) -> Path:
    slug = str(schedule).replace(",", "_").replace("=", "")
    return GOLDEN / f"{kernel}.{slug}.{_EXTENSION[target]}"


@pytest.mark.parametrize("target", ["wgsl", "cuda"])
@pytest.mark.parametrize("kernel, schedule", CASES, ids=[c[0] for c in CASES])
def test_emitted_source_matches_its_golden_file(kernel, schedule, target):
    text = forge.get_kernel(kernel).source(target, schedule)
    path = _path(kernel, schedule, target)
    if os.environ.get("FORGE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path.name}; run with FORGE_UPDATE_GOLDEN=1"
    assert text == path.read_text(), (
        f"{path.name} differs from the emitter's output; if the change is intended, "
        "regenerate with FORGE_UPDATE_GOLDEN=1 and review the diff"
    )
