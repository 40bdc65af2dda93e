"""``kforge tune``: search a kernel's candidates (schedules and its own parameters) for
the fastest correct one, with a strategy and a budget, on the backend's workers
(``--workers``, ``--ray``), resuming from the tuning cache; ``--save`` keeps the winner
as the kernel's tuned schedule for this adapter (``check --tuned`` and ``certify
--tuned`` run it).

Output: the best ``--top`` candidates by median with their noise (interquartile range),
GB/s and GFLOP/s where the kernel declares its bytes and flops, energy where it was
read; the wrong ones with why; what was pruned; the conclusion, and advice when no
winner stands out. ``--json`` prints ``TuneResult.as_dict`` (``format``:
``oracle.TUNE_FORMAT``).
"""

from __future__ import annotations

import argparse
import sys

from forge import registry
from forge.errors import ForgeError, GpuUnavailable
from oracle import STRATEGIES, Budget, TuneResult, format_duration, save_tuned, tune

from ._check import add_run_flags, open_options
from ._fanout import add_fanout_flags, make_fleet
from ._kernels import add_kernel_arguments, resolve_kernels
from ._output import (
    add_json_flag,
    positive_arg,
    print_json,
    print_table,
    progress,
    schedule_arg,
    seconds_arg,
)
from ._report import add_report_flag, report_of, require_report_extra

__all__ = ["register"]

# Statuses of candidates that ran and failed, shown with why.
_FAILED = ("wrong", "error", "lost", "timeout", "crashed")


def _budget_arg(text: str) -> Budget:
    try:
        return Budget.parse(text)
    except ForgeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tune", help="search a kernel's schedules and parameters for the fastest correct one"
    )
    add_kernel_arguments(parser, many=False)
    parser.add_argument("--backend", help="backend to tune on (default: the default backend)")
    parser.add_argument("--size", help="problem size (default: the kernel's largest checked size)")
    parser.add_argument(
        "--schedule",
        dest="space",
        action="append",
        type=schedule_arg,
        help="a candidate schedule (repeatable; default: the kernel's knobs, "
        "or the generated space)",
    )
    parser.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        default="halving",
        help="how candidates are picked: "
        + "; ".join(f"{s.name}: {s.description}" for s in STRATEGIES.values())
        + " (default: halving)",
    )
    parser.add_argument(
        "--budget",
        type=_budget_arg,
        metavar="N|DURATION",
        help="candidates to measure (pruned ones do not count, wrong ones do), "
        "or a time: 90s, 5m (default: no limit)",
    )
    parser.add_argument(
        "--cache",
        metavar="PATH",
        help="the tuning cache file (default: one per kernel, backend, adapter "
        "and size under the cache root's tuning folder)",
    )
    parser.add_argument("--no-cache", action="store_true", help="keep and reuse nothing")
    parser.add_argument(
        "--search-seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the random and model-based strategies (default 0)",
    )
    parser.add_argument(
        "--top", type=positive_arg, default=10, metavar="K", help="candidates shown (default 10)"
    )
    parser.add_argument(
        "--objective",
        choices=("time", "energy"),
        default="time",
        help="rank by median time, or by energy per run (GFLOP/s per watt; "
        "NVIDIA GPUs through NVML)",
    )
    parser.add_argument(
        "--energy",
        action="store_true",
        help="also read the energy of each candidate (NVML, the cuda backend)",
    )
    parser.add_argument(
        "--energy-seconds",
        type=seconds_arg,
        default=1.0,
        metavar="S",
        help="seconds of repeated runs each energy reading spans (default 1)",
    )
    parser.add_argument(
        "--save",
        action="store_true",
        help="keep the winner as the kernel's tuned schedule for this adapter",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="show the pruned space and run nothing"
    )
    parser.add_argument(
        "--no-compile-ahead",
        action="store_true",
        help="compile each candidate only when it is measured (default: the next "
        "candidates' NVRTC compiles run on the host's other cores meanwhile)",
    )
    add_run_flags(parser, samples=5)
    add_fanout_flags(parser)
    add_report_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(run=_tune)


def _run(args, kernel, backend: str) -> tuple[TuneResult, list[str]]:
    """Tune on the backend's workers; returns the result and notes for the reader."""
    fleet = make_fleet(args, [backend], open_options(args))
    notes: list[str] = []
    try:
        fleet.start([backend])
        ok, why = fleet.opened(backend)
        if not ok:
            raise GpuUnavailable(f"backend {backend!r} is not available: {why}")
        groups = fleet.groups(backend)
        runner = groups[0]
        for other in groups[1:]:
            notes.append(
                f"{other.concurrency} {backend} workers on {other.info.adapter.name} "
                f"were not used: medians are compared within one adapter model "
                f"({runner.info.adapter.name} here)"
            )
        energy_s = args.energy_seconds if (args.energy or args.objective == "energy") else 0.0
        if energy_s and runner.info.energy:
            if args.objective == "energy":
                raise GpuUnavailable(
                    f"--objective energy needs energy readings, which "
                    f"{backend} cannot make: {runner.info.energy}"
                )
            notes.append(f"energy: not read: {runner.info.energy}")
            energy_s = 0.0
        quiet = args.json or args.dry_run
        with progress(None, quiet) as advance:
            result = tune(
                runner,
                kernel,
                size=args.size,
                space=args.space,
                seed=args.seed or 0,
                samples=max(2, args.samples),
                dry_run=args.dry_run,
                timeout_s=args.timeout,
                strategy=args.strategy,
                budget=args.budget,
                search_seed=args.search_seed,
                cache=False if args.no_cache else args.cache,
                objective=args.objective,
                energy_s=energy_s,
                on_planned=lambda n: advance(total=n),
                on_progress=lambda c: advance(f"{c.key}: {c.status}"),
                compile_ahead=not args.no_compile_ahead,
            )
        if args.save:
            notes.append(_save(result, runner.info))
    finally:
        fleet.close()
    return result, notes


def _save(result: TuneResult, info) -> str:
    winner = result.winner
    if winner is None:
        result.saved = None
        return "nothing saved: no winner stood out (see the advice above)"
    path = save_tuned(
        info,
        result.kernel,
        winner.schedule,
        winner.values,
        {"size": str(result.size), "median_ns": winner.median, "strategy": result.strategy},
    )
    result.saved = str(path)
    return (
        f"saved {winner.key} as {result.kernel.id}'s tuned schedule on {info.name} "
        f"({info.adapter.name}): {path}; `kforge check --tuned` runs it"
    )


def _rows(result: TuneResult, top: int, energy: bool) -> tuple[list[str], list[tuple]]:
    work = result.work
    columns = ["#", "candidate", "status", "median", "noise (iqr)", "GB/s", "GFLOP/s"]
    columns += ["J/run", "GFLOP/s/W"] if energy else []
    columns += ["samples", "from"]
    rows = []
    for rank, c in enumerate(result.ranked()[:top], 1):
        rates = c.rates(work)
        timing = c.timing
        assert timing is not None  # ranked() holds the candidates that ran
        noise = timing.iqr
        row = [
            str(rank),
            c.key,
            c.status,
            format_duration(c.median),
            f"{format_duration(noise)} ({noise / c.median:.1%})" if c.median else "-",
            _figure(rates["gb_per_s"]),
            _figure(rates["gflop_per_s"]),
        ]
        if energy:
            row += [
                f"{c.energy:.3g}" if c.energy_j else "-",
                _figure(rates["gflop_per_s_per_watt"]),
            ]
        row += [str(timing.count), "cache" if c.cached else "run"]
        rows.append(tuple(row))
    return columns, rows


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _print(result: TuneResult, args, notes: list[str]) -> None:
    pruned = result.by_status("pruned")
    title = (
        f"kforge tune {result.kernel.id} on {result.backend} ({result.adapter}), size "
        f"{result.size}: {result.strategy}, budget {result.budget}; "
        f"{len(result.candidates)} candidates, {len(pruned)} pruned"
        + (
            " - dry run"
            if args.dry_run
            else f"; {result.measured} measurements now, {result.reused} from the tuning cache"
        )
    )
    if args.dry_run:
        print_table(
            title,
            ["candidate", "status", "why"],
            [(c.key, c.status, c.reason) for c in result.candidates],
        )
        print(result.conclusion)
        return
    energy = any(c.energy_j for c in result.candidates)
    columns, rows = _rows(result, args.top, energy)
    print_table(
        title,
        columns,
        rows,
        caption=f"finalists first: measured again together on "
        f"one device; workers: {', '.join(result.workers)}",
    )
    failed = [c for c in result.candidates if c.status in _FAILED]
    if failed:
        print_table(
            f"ran, and may not win ({len(failed)})",
            ["candidate", "status", "why"],
            [(c.key, c.status, c.reason.split("\n")[0][:140]) for c in failed],
        )
    if pruned:
        reasons: dict[str, int] = {}
        for c in pruned:
            why = (
                c.reason.split(":")[0] if c.reason.startswith(("duplicate", "unused")) else c.reason
            )
            reasons[why] = reasons.get(why, 0) + 1
        print(
            f"pruned before running: {len(pruned)} (--dry-run lists them): "
            + "; ".join(
                f"{n} x {_short(why)}"
                for why, n in sorted(reasons.items(), key=lambda i: -i[1])[:4]
            )
        )
    if result.cache_path:
        print(f"tuning cache: {result.cache_path}")
    print(result.conclusion)
    for line in ([result.advice] if result.advice else []) + notes:
        print(line)


def _tune(args) -> int:
    if args.report:
        require_report_extra()
    (kernel,) = resolve_kernels(args.kernels, args.kernel_ids)[:1]
    backend = args.backend or registry.default_backend()
    result, notes = _run(args, kernel, backend)
    if args.report:
        report_of(result.as_dict(), args.report, f"this kforge tune of {kernel.id}")
    if args.json:
        data = result.as_dict(top=args.top)
        data["notes"] = notes
        print_json(data)
    else:
        _print(result, args, notes)
    ran_wrong = not result.dry_run and not result.ranked()
    if ran_wrong:
        print("kforge tune: no candidate ran correctly", file=sys.stderr)
    return 1 if ran_wrong else 0
