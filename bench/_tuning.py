"""P12 and P13: the tuner and the fan-out.

P13 (one GPU): for the built-in gemm and a raw kernel with its own tunables
(examples/tunable_matmul.py), every candidate is measured once (``exhaustive``) into a
tuning cache; then the model-based strategy (TPE) searches the same space with a budget
of a quarter of its candidates, once per seed, and random search beside it with the
same budget. Both read their measurements from that cache (nothing is measured again),
so every strategy is judged on the same numbers, as Kernel Tuner's simulation mode
judges its strategies; the figure is the best median a strategy found over the
exhaustive best, median of 5 seeds (goal: within 5%). Kernel Tuner's strategies replay
the same table through ``kernel_tuner.tune_cache`` where ``kernel-tuner`` is installed;
the table is written in Kernel Tuner's cache format either way.

P12 (two GPUs): ``kforge tune`` (gemm's whole space, exhaustive) and ``kforge check``
(the library's elementwise kernels at a large size, several seeds) with ``--workers 2``
against ``--workers 1`` (and on Ray where it is installed), process start included:
throughput is the inverse of the wall time (goal: at least 1.8 times).
"""

from __future__ import annotations

import functools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import forge
import oracle
from forge.tunables import format_value

from ._env import Bench
from ._report import Goal, Row, guarded

__all__ = ["p12", "p13", "replay", "kernel_tuner_cache"]

SEEDS = 5
SHARE = 0.25  # of the space, the budget of the strategies compared with exhaustive
WITHIN = 1.05  # how near the exhaustive best a strategy must come
_ROOT = Path(__file__).resolve().parents[1]


def _backend() -> str:
    status = forge.available_backends()
    return "cuda" if status.get("cuda", (False, ""))[0] else forge.default_backend()


def _subjects(env: Bench) -> list[tuple[str, object, int]]:
    sys.path.insert(0, str(_ROOT / "examples"))
    try:
        from tunable_matmul import MATMUL
    finally:
        sys.path.pop(0)
    # Every candidate is measured and judged: gemm's 362 at 2048 did not finish in the
    # 175 s a device call had left on the H200 (2026-12-01), so 1024 and 2048, for both
    # subjects to fit one call. At 1024 they did not finish in 215 s either: each
    # measurement waited for its own NVRTC compile (~1.3 s for a gemm candidate on one
    # core, some over 10 s) while the GPU idled. The tuner now compiles the next
    # candidates on the host's other cores while one is measured (tune's compile_ahead;
    # here through the worker's fleet); not measured yet on the H200 since.
    quick = env.sizes.gemm <= 1024
    return [
        ("gemm", forge.get_kernel("gemm"), 512 if quick else 1024),
        ("tunable_matmul", MATMUL, 512 if quick else 2048),
    ]


def replay(runner, kernel, size, cache: Path, strategy: str, budget: int, seed: int):
    """A strategy's search over measurements the cache holds (none is made again)."""
    return oracle.tune(
        runner,
        kernel,
        size=size,
        strategy=strategy,
        budget=budget,
        search_seed=seed,
        cache=cache,
        samples=5,
    )


def _reached(result, table: dict[str, float], best: float) -> tuple[float, int | None]:
    """(the best exhaustive median among the candidates a search measured, over the
    exhaustive best; evaluations until within WITHIN). The exhaustive run's own
    medians are used for every candidate, so that strategies are compared on the same
    numbers (their finalists' later runs do not count)."""
    found, first = float("inf"), None
    for index, c in enumerate(result.history(), 1):
        found = min(found, table.get(c.key, float("inf")))
        if first is None and found <= best * WITHIN:
            first = index
    return found / best, first


def _p13_subject(env: Bench, name: str, kernel, size: int) -> list[Row]:
    backend = _backend()
    cache = Path(tempfile.mkdtemp(prefix="kforge-p13-")) / f"{name}.jsonl"
    with oracle.Fleet.local([backend], 1) as fleet:
        runner = fleet.runner(backend)
        env.progress(f"P13 {name}: every candidate on {backend} at size {size}")
        full = oracle.tune(runner, kernel, size=size, strategy="exhaustive", cache=cache, samples=5)
        table = {c.key: _search_median(c, cache) for c in full.history() if c.timing}
        best = min(table.values())
        budget = max(1, int(len(full.history()) * SHARE))
        figures = {}
        for strategy in ("tpe", "random"):
            runs = [
                _reached(replay(runner, kernel, size, cache, strategy, budget, seed), table, best)
                for seed in range(SEEDS)
            ]
            figures[strategy] = runs
    kt = guarded(
        "P13",
        f"{name}: Kernel Tuner's strategies, same table",
        lambda: _kernel_tuner_row(name, full, cache, budget, best),
    )
    tpe, rnd = figures["tpe"], figures["random"]
    note = (
        f"{len(full.history())} candidates measured on {full.adapter} at size {size} "
        f"(exhaustive best {best / 1e3:.4g} us, {full.best.key if full.best else '-'}); "
        f"budget {budget} (25%); per seed, best found / exhaustive best: TPE "
        f"{[round(r, 3) for r, _ in tpe]}, random {[round(r, 3) for r, _ in rnd]}; "
        f"evaluations until within 5%: TPE {[f for _, f in tpe]}, random "
        f"{[f for _, f in rnd]}"
    )
    return [
        Row(
            "P13",
            f"{name}: TPE within 5% of the exhaustive best, 25% of the evaluations",
            "random search, same budget",
            statistics.median(r for r, _ in rnd),
            statistics.median(r for r, _ in tpe),
            "x best",
            Goal("<=", WITHIN, on="ours"),
            notes=note,
            raw={
                "tpe": tpe,
                "random": rnd,
                "budget": budget,
                "candidates": len(full.history()),
                "best_ns": best,
                "table": str(kernel_tuner_cache(full, cache)),
            },
        )
    ] + kt


def _search_median(c, cache: Path) -> float:
    """A candidate's median in the search (its finalist runs, if any, left aside)."""
    for line in cache.read_text().splitlines():
        record = json.loads(line)
        if record["candidate"] == c.key and record["phase"] == "search" and record["samples_ns"]:
            return statistics.median(record["samples_ns"])
    return c.median


def p13(env: Bench) -> list[Row]:
    rows: list[Row] = []
    for name, kernel, size in _subjects(env):
        rows += guarded(
            "P13",
            f"{name}: TPE against exhaustive",
            functools.partial(_p13_subject, env, name, kernel, size),
        )
    return rows


# -- Kernel Tuner ---------------------------------------------------------------------------
def _kt_params(c) -> dict:
    from oracle._strategies import features

    return {
        k: format_value(v) if not isinstance(v, (int, float, bool, str)) else v
        for k, v in features(c).items()
    }


def kernel_tuner_cache(result, path: Path) -> Path:
    """The exhaustive table in Kernel Tuner's cache format (times in milliseconds), for
    ``kernel_tuner.tune_cache(path, strategy=...)`` (simulation mode)."""
    ran = result.history()
    rows = {c.key: _kt_params(c) for c in ran}
    every = list(next(iter(rows.values()))) if rows else []
    values = {k: sorted({r[k] for r in rows.values()}, key=str) for k in every}
    keys = [k for k in every if len(values[k]) > 1]  # the parameters that vary
    values = {k: values[k] for k in keys}
    rows = {key: {k: params[k] for k in keys} for key, params in rows.items()}
    cache = {}
    for c in ran:
        params = rows[c.key]
        entry = dict(params)
        if c.timing is not None:
            times = [t / 1e6 for t in c.timing.samples_ns]
            entry.update(time=c.median / 1e6, times=times)
        else:
            entry.update(time="RuntimeFailedConfig")
        entry.update(
            compile_time=0.0,
            verification_time=0.0,
            benchmark_time=0.0,
            strategy_time=0.0,
            framework_time=0.0,
            timestamp="",
        )
        cache[",".join(str(params[k]) for k in keys)] = entry
    target = path.with_suffix(".kernel_tuner.json")
    target.write_text(
        json.dumps(
            {
                "device_name": result.adapter,
                "kernel_name": result.kernel.id,
                "problem_size": [int(result.size)],
                "tune_params_keys": keys,
                "tune_params": values,
                "objective": "time",
                "cache": cache,
            },
            indent=1,
        )
    )
    return target


def kernel_tuner_figures(table: str | Path, budget: int) -> dict[str, list[float]]:
    """Kernel Tuner's strategies replaying ``table`` (``kernel_tuner_cache``) with
    ``budget`` evaluations, once per seed: best time found over the table's best, per
    seed. Runs wherever ``kernel-tuner`` is installed (``python -c "from
    bench._tuning import kernel_tuner_figures; print(kernel_tuner_figures(PATH, N))"``)."""
    import kernel_tuner
    import numpy as np

    data = json.loads(Path(table).read_text())
    best = min(e["time"] for e in data["cache"].values() if isinstance(e["time"], float))
    keys = data["tune_params_keys"]
    found: dict[str, list[float]] = {}
    for strategy in ("random_sample", "bayes_opt", "genetic_algorithm", "greedy_ils"):
        found[strategy] = []
        for seed in range(SEEDS):
            random.seed(seed)
            np.random.seed(seed)
            results, _ = kernel_tuner.tune_cache(
                str(table),
                strategy=strategy,
                strategy_options={"max_fevals": budget},
                verbose=False,
                quiet=True,
            )
            seen: dict[tuple, float] = {}
            for r in results:  # the first ``budget`` distinct evaluations count
                seen.setdefault(
                    tuple(r[k] for k in keys),
                    r["time"] if isinstance(r.get("time"), float) else float("inf"),
                )
            times = list(seen.values())[:budget]
            found[strategy].append(min(times) / best if times else float("inf"))
    return found


def _kernel_tuner_row(name: str, full, cache: Path, budget: int, best: float) -> Row:
    table = kernel_tuner_cache(full, cache)
    try:
        import kernel_tuner  # noqa: F401
    except ImportError:
        raise ImportError(
            "kernel-tuner is not installed here (it needs pandas, scipy, "
            "scikit-learn, pymoo and python-constraint2, which the GPU machine "
            f"lacks); its strategies replay the table {table} anywhere with "
            f"bench._tuning.kernel_tuner_figures(PATH, {budget})"
        ) from None
    found = kernel_tuner_figures(table, budget)
    medians = {k: statistics.median(v) for k, v in found.items()}
    return Row(
        "P13",
        f"{name}: Kernel Tuner's strategies on the same table, same budget",
        "",
        None,
        min(medians.values()),
        "x best",
        None,
        notes="median of 5 seeds, best found / exhaustive best: "
        + ", ".join(f"{k} {v:.3f}" for k, v in medians.items()),
        raw=found,
    )


# -- P12 ------------------------------------------------------------------------------------
def _wall(*argv: str) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "kforge", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=_ROOT,
    )
    return time.perf_counter() - start, result.returncode


def _throughput_row(what: str, argv: list[str], fan: list[str]) -> Row:
    one, code1 = _wall(*argv, "--workers", "1")
    two, code2 = _wall(*argv, *fan)
    return Row(
        "P12",
        what,
        "one GPU (--workers 1)",
        one,
        two,
        "s",
        Goal("<=", 1 / 1.8),
        notes=f"throughput {one / two:.2f} x one GPU; process start included; "
        f"`kforge {' '.join(argv)} {' '.join(fan)}`; exit {code1}/{code2}",
        raw={"one_s": one, "fanned_s": two, "speedup": one / two},
    )


def p12(env: Bench) -> list[Row]:
    entry = forge.backend_entries().get("cuda")
    gpus = entry.devices() if entry is not None and entry.devices else 0
    if gpus < 2 or not forge.available_backends().get("cuda", (False, ""))[0]:
        raise RuntimeError(f"P12 needs two CUDA GPUs; this machine has {gpus}")
    env.progress("P12: kforge tune and check, two GPUs against one")
    cache = tempfile.mkdtemp(prefix="kforge-p12-")
    os.environ["FORGE_CACHE_DIR"] = cache  # NVRTC images stay warm across the runs
    size = "1024" if env.sizes.gemm <= 1024 else "2048"
    tune = [
        "tune",
        "gemm",
        "--backend",
        "cuda",
        "--size",
        size,
        "--strategy",
        "exhaustive",
        "--no-cache",
        "--samples",
        "5",
    ]
    elementwise = [k.id for k in forge.list_kernels() if "map" in k.tags]
    check = [
        "check",
        *elementwise,
        "--backend",
        "cuda",
        "--size",
        str(min(env.sizes.buffer_bytes // 4, 1 << 24)),
        "--samples",
        "20",
    ]
    env.progress("P12: a first run fills the NVRTC cache, so that no measured run compiles")
    _wall(*tune, "--workers", "2")
    rows = guarded(
        "P12",
        "kforge tune gemm (exhaustive), 2 GPUs against 1",
        lambda: _throughput_row(
            "kforge tune gemm (exhaustive), 2 GPUs against 1", tune, ["--workers", "2"]
        ),
    )
    rows += guarded(
        "P12",
        "kforge check, elementwise at a large size, 2 GPUs against 1",
        lambda: _throughput_row(
            "kforge check, elementwise at a large size, 2 GPUs against 1", check, ["--workers", "2"]
        ),
    )
    try:
        import ray  # noqa: F401
    except ImportError:
        return rows
    return rows + guarded(
        "P12",
        "kforge tune gemm on Ray, 2 GPUs against 1",
        lambda: _throughput_row(
            "kforge tune gemm on Ray, 2 GPUs against 1", tune, ["--ray", "--workers", "2"]
        ),
    )
