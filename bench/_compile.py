"""P8: running an already-compiled kernel again compiles nothing. In the same process
the module (CUDA) or pipeline (wgpu) cache serves it; in a new process NVRTC's disk
cache serves CUDA, and wgpu (no disk cache) pays again, which is measured and said.

New processes are this module run as ``python -m bench._compile --child BACKEND``:
one run of a tiny kernel, its timings and compile counters as a JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import forge
from forge import Schedule

from ._env import Bench
from ._report import Goal, Row, guarded
from ._workload import bind_views, host_array

__all__ = ["p8", "child_run"]

_ROOT = Path(__file__).resolve().parents[1]
_N = 4096
# Used by no other section, so the first run here really is the first in the process.
_SCHEDULE = Schedule(96, items_per_invocation=2)


def _counters(ctx) -> dict:
    counts = {"pipeline_misses": ctx.compile_count}
    if ctx.backend_name == "cuda":
        from backends.cuda import compile_stats

        counts.update(module_loads=ctx.module_loads, **compile_stats.snapshot())
    return counts


def _delta(after: dict, before: dict) -> dict:
    return {k: after[k] - before.get(k, 0) for k in after}


def _runs(ctx) -> list[dict]:
    """Two runs of IR affine under ``_SCHEDULE``: counters added and ms taken by each."""
    kernel = forge.get_kernel("affine")
    views = bind_views(ctx, kernel, _N, {"x": host_array(_N, 50)})
    runs = []
    for _ in range(2):
        before = _counters(ctx)
        start = time.perf_counter()
        ctx.run_kernel(kernel, _SCHEDULE, views, _N)
        runs.append({"ms": (time.perf_counter() - start) * 1e3, **_delta(_counters(ctx), before)})
    return runs


def _work(run: dict) -> int:
    """Compiles and loads a run made (NVRTC runs, disk-cache reads, module loads,
    pipeline-cache misses): zero for a run served from memory."""
    keys = ("compiles", "disk_hits", "module_loads", "pipeline_misses")
    return sum(run.get(k, 0) for k in keys)


def _same_process_row(backend: str, ctx) -> Row:
    first, second = _runs(ctx)
    return Row(
        "P8",
        f"second run, same process, {backend}",
        "first run's compiles + loads",
        _work(first),
        _work(second),
        "compiles",
        Goal("==", 0, on="ours"),
        notes=(
            f"first run {first['ms']:.1f} ms {_describe(first)}; "
            f"second {second['ms']:.2f} ms {_describe(second)}"
        ),
        raw={"first": first, "second": second},
    )


def _describe(run: dict) -> str:
    shown = {k: v for k, v in run.items() if k != "ms" and v}
    return "(" + (", ".join(f"{k} {v}" for k, v in shown.items()) or "nothing compiled") + ")"


def _child(backend: str, cache: str) -> dict:
    env = dict(
        os.environ,
        FORGE_CACHE_DIR=cache,
        PYTHONPATH=os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")])),
    )
    result = subprocess.run(
        [sys.executable, "-m", "bench._compile", "--child", backend],
        cwd=_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the {backend} child process failed: {last}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _new_process_rows(env: Bench, backend: str) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="kforge-bench-cache-") as cache:
        env.progress(f"P8: two new {backend} processes on an empty disk cache")
        cold, warm = _child(backend, cache), _child(backend, cache)
    notes = "; ".join(
        f"{label} process: open {run['open_ms']:.0f} ms, first run {run['first']['ms']:.1f} ms "
        f"{_describe(run['first'])}"
        for label, run in (("first", cold), ("second", warm))
    )
    if backend == "cuda":
        return [
            Row(
                "P8",
                "first run in a new process, warm disk cache, cuda",
                "NVRTC compiles, empty cache",
                cold["first"].get("compiles", 0),
                warm["first"].get("compiles", 0),
                "compiles",
                Goal("==", 0, on="ours"),
                notes=notes,
                raw={"cold": cold, "warm": warm},
            )
        ]
    return [
        Row(
            "P8",
            "first run in a new process, wgpu (no disk cache)",
            "first process",
            _work(cold["first"]),
            _work(warm["first"]),
            "compiles",
            None,
            notes=notes + "; every new wgpu process builds its pipelines again",
            raw={"cold": cold, "warm": warm},
        )
    ]


def p8(env: Bench) -> list[Row]:
    def wgpu_same() -> Row:
        from ._wgpu import open_wgpu

        with open_wgpu() as ctx:
            return _same_process_row("wgpu", ctx)

    return (
        guarded(
            "P8", "second run, same process, cuda", lambda: _same_process_row("cuda", env.cuda())
        )
        + guarded("P8", "new process, cuda", lambda: _new_process_rows(env, "cuda"))
        + guarded("P8", "second run, same process, wgpu", wgpu_same)
        + guarded("P8", "new process, wgpu", lambda: _new_process_rows(env, "wgpu"))
    )


def child_run(backend: str) -> dict:
    """What a new process pays: opening the context, then the two runs of ``_runs``."""
    start = time.perf_counter()
    with forge.open_context(backend, capacity_bytes=16 << 20) as ctx:
        open_ms = (time.perf_counter() - start) * 1e3
        first, second = _runs(ctx)
    return {"open_ms": open_ms, "first": first, "second": second}


if __name__ == "__main__":
    if sys.argv[1:2] != ["--child"] or len(sys.argv) != 3:
        sys.exit("usage: python -m bench._compile --child cuda|wgpu")
    print(json.dumps(child_run(sys.argv[2])))
