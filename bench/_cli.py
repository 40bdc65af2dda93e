"""``python -m bench``: every docs/PERFORMANCE.md target (P1 to P14, and B1 for
the browser backend) measured against its baseline in one process, as a table on stdout;
progress on stderr; ``--json`` and
``--markdown`` keep the run for BENCHMARKS.md."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import importlib.metadata
import os
import platform
import sys
import time
from collections.abc import Callable

from ._env import Bench, Sizes
from ._report import Row, failed_row, markdown_section, summary, text_table, to_json

__all__ = ["SECTIONS", "main", "select"]


def _sections() -> dict[str, Callable[[Bench], list[Row]]]:
    from ._browser import b1
    from ._compile import p8
    from ._cuda import p1, p3, p4
    from ._harness import p5, p7
    from ._main_job import p14
    from ._peers import p9, p11
    from ._tuning import p12, p13
    from ._wgpu import p2, p6
    from ._wgpu_gemm import p10
    from ._wgpu_rows import p11_wgpu

    return {
        "P1": p1,
        "P2": p2,
        "P3": p3,
        "P4": p4,
        "P5": p5,
        "P6": p6,
        "P7": p7,
        "P8": p8,
        "P9": p9,
        "P10": p10,
        # P11: the CUDA rows (bench/_peers.py), then the same kernels on wgpu; each
        # half can run alone (``--only P11-WGPU``)
        "P11": lambda env: p11(env) + p11_wgpu(env),
        "P11-CUDA": p11,
        "P11-WGPU": p11_wgpu,
        "P12": p12,
        "P13": p13,
        "P14": p14,
        "B1": b1,
    }


SECTIONS = (
    *("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14"),
    "B1",
)
#: targets that run part of one in ``SECTIONS``: only when named, in its place
_PARTS = {"P11-CUDA": "P11", "P11-WGPU": "P11"}
_LIBRARIES = (
    "numpy",
    "cuda-bindings",
    "nvidia-cuda-nvrtc",
    "wgpu",
    "torch",
    "triton",
    "playwright",
    "optuna",
    "ray",
    "nvidia-ml-py",
    "kernel-tuner",
)


def select(only: str | None) -> list[str]:
    """The targets ``--only`` names (``"P1,P3"``, any case), in run order; all by default.
    ``ValueError`` names an unknown one."""
    if not only:
        return list(SECTIONS)
    wanted = {part.strip().upper() for part in only.split(",") if part.strip()}
    unknown = sorted(wanted - set(SECTIONS) - set(_PARTS))
    if unknown:
        known = ", ".join([*SECTIONS, *_PARTS])
        raise ValueError(f"unknown targets {unknown}; choose from {known}")
    order = [*SECTIONS, *_PARTS]
    return sorted(wanted, key=lambda t: (SECTIONS.index(_PARTS.get(t, t)), order.index(t)))


def _versions() -> dict[str, str]:
    found = {}
    for name in _LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def emit_settings(given: list[str]) -> dict[str, object]:
    """``--emit NAME=VALUE`` settings: each NAME one of ``forge.emit._rows.SWITCHES``,
    each VALUE a Python literal of the type the switch holds."""
    from forge.emit import _rows

    switches = {name: getattr(_rows, name) for name in _rows.SWITCHES}
    settings: dict[str, object] = {}
    for text in given:
        name, _, value = text.partition("=")
        if name not in switches or not value:
            raise ValueError(
                f"--emit {text!r}: give NAME=VALUE with NAME one of {sorted(switches)}"
            )
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed = None
        if type(parsed) is not type(switches[name]):
            raise ValueError(
                f"--emit {text!r}: {name} holds a {type(switches[name]).__name__} "
                f"({switches[name]!r} now), not {value!r}"
            )
        settings[name] = parsed
    return settings


def _meta(env: Bench, argv: list[str], seconds: float) -> dict:
    cuda = env.cuda_adapter()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "versions": _versions(),
        "cuda_device": cuda,
        "wgpu_adapter": env.memo("wgpu adapter", dict),
        "command": " ".join(["python -m bench", *argv]),
        "seconds": seconds,
        "sizes": dataclasses.asdict(env.sizes),
    }


def run(env: Bench, targets: list[str]) -> list[Row]:
    """Every section in ``targets``; a section that raises becomes one error row."""
    sections = _sections()
    rows: list[Row] = []
    for target in targets:
        start = time.perf_counter()
        env.progress(f"{target}: start")
        try:
            rows.extend(sections[target](env))
        except Exception as exc:  # noqa: BLE001 - recorded, the next section runs
            rows.append(failed_row(target, "section", exc))
        env.progress(f"{target}: done in {time.perf_counter() - start:.1f} s")
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated targets to run, e.g. P1,P3")
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer samples")
    parser.add_argument("--rounds", type=int, help="baseline/ours alternations per figure")
    parser.add_argument("--json", metavar="PATH", help="write the rows and run facts as JSON")
    parser.add_argument(
        "--markdown", metavar="PATH", help="write a BENCHMARKS.md section for this run"
    )
    parser.add_argument(
        "--kernels",
        metavar="NAMES",
        help="comma-separated P11 kernels to run (e.g. softmax,layernorm_f16); default all",
    )
    parser.add_argument(
        "--emit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of forge.emit._rows's switches for this run, e.g. "
        "CUDA_PACKED_HALF_ROWS=False, to time an emission against another run's; "
        "repeatable, recorded in the run's command",
    )
    args = parser.parse_args(argv)
    try:
        settings = emit_settings(args.emit)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        targets = select(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    sizes = Sizes.quick() if args.quick else Sizes()
    if args.rounds is not None:
        if args.rounds < 1:
            parser.error("--rounds must be at least 1")
        sizes = dataclasses.replace(sizes, rounds=args.rounds)
    kernels = frozenset(k.strip() for k in args.kernels.split(",")) if args.kernels else None
    if kernels is not None:
        from ._peers import P11_KERNELS
        from ._wgpu_rows import WGPU_P11

        known = {name for name, _ in (*P11_KERNELS, *WGPU_P11)}
        if kernels - known:
            parser.error(
                f"--kernels: no P11 kernel {sorted(kernels - known)}; known: {sorted(known)}"
            )
    from forge.emit import _emit, _rows

    kept = {name: getattr(_rows, name) for name in settings}
    for name, value in settings.items():
        setattr(_rows, name, value)
    _emit.cache_clear()  # no text emitted before the switch is reused
    env = Bench(sizes, kernels=kernels)
    start = time.perf_counter()
    try:
        rows = run(env, targets)
        meta = _meta(env, argv, time.perf_counter() - start)
    finally:
        env.close()
        for name, value in kept.items():
            setattr(_rows, name, value)
        _emit.cache_clear()
    print(text_table(rows))
    print(summary(rows))
    if args.json:
        with open(args.json, "w") as f:
            f.write(to_json(meta, rows) + "\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown_section(meta, rows))
    return 0
