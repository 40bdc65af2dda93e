"""P14 and isolation: the main job itself. ``kforge check`` of the whole library, one
backend at a time, process start included, caches warm (a run first fills them), the
median of three runs: each GPU backend against the numpy reference measured beside it
(at most 5 s and 1.2 times the reference), and worker processes against in-process
(isolation costs at most 10 % of the wall time)."""

from __future__ import annotations

import functools
import statistics
import subprocess
import sys
import time

import forge

from ._env import Bench
from ._report import Goal, Row, guarded

__all__ = ["p14"]

_RUNS = 3


def _seconds(*argv: str) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "kforge", "check", *argv, "--samples", "5"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return time.perf_counter() - start, result.returncode


def _median(*argv: str) -> tuple[float, list[float], int]:
    _seconds(*argv)  # warm the caches: NVRTC images, measured float semantics, the OS's
    runs = [_seconds(*argv) for _ in range(_RUNS)]
    return statistics.median(t for t, _ in runs), [t for t, _ in runs], max(c for _, c in runs)


def p14(env: Bench) -> list[Row]:
    rows: list[Row] = []
    reference, ref_runs, _ = _median("--backend", "reference")
    status = forge.available_backends()
    for name in ("cuda", "wgpu"):
        if not status.get(name, (False, ""))[0]:
            continue
        rows += guarded(
            "P14",
            f"kforge check --backend {name}, whole library",
            functools.partial(_row, name, reference, ref_runs),
        )
        rows += guarded(
            "isolation",
            f"kforge check --backend {name}: workers vs in-process",
            functools.partial(_isolation_row, name),
        )
    return rows


def _row(name: str, reference: float, ref_runs: list[float]) -> Row:
    ours, runs, code = _median("--backend", name)
    return Row(
        "P14",
        f"kforge check --backend {name}, whole library",
        "reference backend",
        reference,
        ours,
        "s",
        Goal("<=", 1.2),
        notes=(
            f"median of {_RUNS} runs after a warm-up, process start included; runs "
            f"{', '.join(f'{t:.2f}' for t in runs)} s (reference "
            f"{', '.join(f'{t:.2f}' for t in ref_runs)} s); exit {code}; goal also "
            f"<= 5 s: {'met' if ours <= 5 else 'NOT met'}"
        ),
        raw={"runs": runs, "reference_runs": ref_runs, "exit": code},
    )


def _isolation_row(name: str) -> Row:
    inproc, in_runs, _ = _median("--backend", name, "--no-isolate")
    isolated, iso_runs, _ = _median("--backend", name)
    return Row(
        "isolation",
        f"kforge check --backend {name}: workers vs in-process",
        "--no-isolate",
        inproc,
        isolated,
        "s",
        Goal("<=", 1.10),
        notes=f"in-process runs {in_runs}, worker runs {iso_runs}",
        raw={"in_process": in_runs, "workers": iso_runs},
    )
