"""``--workers N`` and ``--ray [ADDRESS]``: where ``check``, ``certify`` and ``tune`` run
their work (``oracle.Fleet``). Without either, one worker per GPU per device backend
plus one per CPU backend, on this machine."""

from __future__ import annotations

from collections.abc import Sequence

from oracle import Fleet

from ._output import positive_arg

__all__ = ["add_fanout_flags", "make_fleet"]


def add_fanout_flags(parser) -> None:
    parser.add_argument(
        "--workers",
        type=positive_arg,
        metavar="N",
        help="at most N local workers, spread over the GPUs and backends "
        "(default: one per GPU per device backend, one per CPU backend)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run on Ray actors: a local cluster, or join the one at ADDRESS "
        "(with Ray's token authentication); needs kernel-forge[ray]",
    )


def make_fleet(args, names: Sequence[str], open_options: dict) -> Fleet:
    """The fleet the command's flags ask for, over backends ``names``."""
    names = [n for n in dict.fromkeys(names) if n]
    checks = False if args.no_shader_checks else args.shader_checks_only
    if args.all_shader_checks:
        checks = True
    unchecked = {} if checks is None else {"shader_checks": checks}
    options = {n: {**open_options, **(unchecked if n == "wgpu" else {})} for n in names}
    if args.ray is not None:
        return Fleet.on_ray(
            names, args.ray or None, args.workers, open_options=options, timeout_s=args.timeout
        )
    return Fleet.local(
        names,
        args.workers,
        isolate=False if args.no_isolate else None,
        open_options=options,
        timeout_s=args.timeout,
    )
