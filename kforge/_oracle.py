"""``kforge check``, ``kforge certify``, ``kforge tune`` and ``kforge profile-hardware``:
the commands that drive the oracle. The oracle is imported inside each command, so
``import forge`` never loads it."""

from __future__ import annotations

import sys

from forge import registry
from forge.errors import GpuUnavailable, InvalidArgument, OracleMismatch, UnsupportedFeature
from ._output import add_json_flag, print_json, print_table, progress, schedule_arg

_FAILING = ("mismatch", "error", "timeout")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check", help="every kernel on every available backend against the numpy reference")
    parser.add_argument("kernels", nargs="*", metavar="KERNEL", help="kernel ids (default: all)")
    _add_backend_flag(parser, "backends to check (repeatable; default: every available one)")
    parser.add_argument("--size", type=int, help="problem size (default: every test size of each kernel)")
    _add_run_flags(parser, samples=5)
    add_json_flag(parser)
    parser.set_defaults(run=_check)

    parser = subparsers.add_parser(
        "certify", help="certify kernels and keep a manifest (reused when nothing changed)")
    parser.add_argument("kernels", nargs="*", metavar="KERNEL", help="kernel ids (default: all)")
    _add_backend_flag(parser, "backends to certify on (repeatable; default: every available one)")
    parser.add_argument("--schedule", type=schedule_arg, help="schedule, e.g. wg=128,ipt=4")
    parser.add_argument("--force", action="store_true", help="certify again even if a manifest matches")
    parser.add_argument("--cache-dir", help="cache root (default: $FORGE_CACHE_DIR or ~/.cache/kernel-forge)")
    _add_run_flags(parser, samples=5)
    add_json_flag(parser)
    parser.set_defaults(run=_certify)

    parser = subparsers.add_parser("tune", help="search a kernel's schedules for the fastest correct one")
    parser.add_argument("kernel", metavar="KERNEL")
    parser.add_argument("--backend", help="backend to tune on (default: the default backend)")
    parser.add_argument("--size", type=int, help="problem size (default: the kernel's largest test size)")
    parser.add_argument("--schedule", dest="space", action="append", type=schedule_arg,
                        help="a candidate schedule (repeatable; default: the generated space)")
    parser.add_argument("--dry-run", action="store_true", help="show the pruned space and run nothing")
    _add_run_flags(parser, samples=5)
    add_json_flag(parser)
    parser.set_defaults(run=_tune)

    parser = subparsers.add_parser(
        "profile-hardware", help="adapter identity and constraints of each available backend")
    _add_backend_flag(parser, "backends to describe (repeatable; default: every available one)")
    add_json_flag(parser)
    parser.set_defaults(run=_profile_hardware)


def _add_backend_flag(parser, text: str) -> None:
    parser.add_argument("--backend", dest="backends", action="append", metavar="NAME", help=text)


def _add_run_flags(parser, samples: int) -> None:
    parser.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    parser.add_argument("--samples", type=int, default=samples,
                        help=f"timed runs per evaluation (default {samples})")
    parser.add_argument("--capacity-mib", type=int, metavar="MIB",
                        help="memory each context opens with (default: the backend's); "
                             "large sizes need more")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="bound on each wait for the device; a kernel that runs "
                             "longer is reported as 'timeout' (default 60)")


def _open_options(args) -> dict:
    return {} if args.capacity_mib is None else {"capacity_bytes": args.capacity_mib << 20}


def _kernels(names):
    return [registry.get_kernel(n) for n in names] if names else registry.list_kernels()


def _backends(names) -> tuple[list[str], dict[str, str]]:
    """Available backends to use and the unavailable ones with why; a backend the user
    named explicitly must be available."""
    status = registry.available_backends()
    for name in names or ():
        if name not in status:
            raise InvalidArgument(f"unknown backend {name!r}; installed: {', '.join(status)}")
        if not status[name][0]:
            raise GpuUnavailable(f"backend {name!r} is not available: {status[name][1]}")
    chosen = names or list(status)
    return ([n for n in chosen if status[n][0]],
            {n: status[n][1] for n in chosen if not status[n][0]})


# -- check ---------------------------------------------------------------------------------
_SEVERITY = ("error", "timeout", "mismatch", "unsupported", "pass")  # worst first


def _check_row(kernel_id: str, backend: str, evaluations: list) -> tuple:
    """One table row for a kernel on a backend, over every size checked: the worst
    verdict, the largest errors, the time at the largest size that was timed."""
    from oracle import format_duration

    worst = min(evaluations, key=lambda ev: _SEVERITY.index(ev.verdict))
    ulps = [ev.max_ulp for ev in evaluations if ev.max_ulp is not None]
    errors = [ev.max_abs for ev in evaluations if ev.max_abs is not None]
    timed = [ev for ev in evaluations if ev.timing is not None]
    last = max(timed, key=lambda ev: ev.size) if timed else None
    note = f"size {worst.size}: {worst.problems[0]}" if worst.problems else ""
    verdict = worst.verdict.upper() if worst.verdict in _FAILING else worst.verdict
    return (kernel_id, backend, verdict, ",".join(str(ev.size) for ev in evaluations),
            str(max(ulps)) if ulps else "-", f"{max(errors):.3g}" if errors else "-",
            format_duration(last.timing.median) if last else "-",
            last.timing.source if last else "-", note.split("\n")[0][:100])


def _check_table(results) -> None:
    by_pair: dict[tuple[str, str], list] = {}
    for result in results:
        for name, ev in result.evaluations.items():
            by_pair.setdefault((result.kernel.id, name), []).append(ev)
    rows = [_check_row(k, b, evs) for (k, b), evs in by_pair.items()]
    _table("kforge check: each backend against the numpy reference",
           ["kernel", "backend", "verdict", "sizes", "max ulp", "max abs err",
            "median (largest size)", "timing", "note"], rows)


def _table(title: str, columns: list[str], rows: list[tuple]) -> None:
    """A table whose last column (notes, reasons) is left out when every row's is empty."""
    if rows and not any(row[-1] for row in rows):
        columns, rows = columns[:-1], [row[:-1] for row in rows]
    print_table(title, columns, rows)


def _check(args) -> int:
    from oracle import cross_check

    kernels = _kernels(args.kernels)
    names, unavailable = _backends(args.backends)
    plan = [(k, size) for k in kernels for size in ([args.size] if args.size else k.test_sizes)]
    results = []
    with progress(len(plan) * len(names), args.json) as advance:
        for kernel, size in plan:
            results.append(cross_check(
                kernel, names, size, args.seed, samples=args.samples,
                open_options={name: _open_options(args) for name in names},
                timeout_s=args.timeout,
                on_result=lambda name, ev, k=kernel: advance(f"{k.id} at {ev.size} on {name}: "
                                                              f"{ev.verdict}")))
    failed = [ev for r in results for ev in r.evaluations.values() if ev.verdict in _FAILING]
    if args.json:
        return _json_verdict(failed, unavailable, [r.as_dict() for r in results])
    _check_table(results)
    _print_unavailable(unavailable)
    for ev in failed:
        print(f"\n{ev.report()}", file=sys.stderr)
    for result in results:
        if not result.passed:
            print(f"{result.kernel.id} at size {result.size}: {result.verdict()}", file=sys.stderr)
    total = sum(len(r.evaluations) for r in results)
    print(f"{len(failed)} of {total} evaluations failed" if failed else
          f"all {total} evaluations passed, or are unsupported where shown")
    return 1 if failed else 0


def _json_verdict(failed: list, unavailable: dict[str, str], results: list) -> int:
    print_json({"passed": not failed, "unavailable": unavailable, "results": results})
    return 1 if failed else 0


def _print_unavailable(unavailable: dict[str, str]) -> None:
    for name, why in unavailable.items():
        print(f"{name}: not available: {why}")


# -- certify -------------------------------------------------------------------------------
def _certify_one(ctx, kernel, args) -> dict:
    from oracle import certify

    row = {"kernel": kernel.id, "backend": ctx.backend_name}
    try:
        cert = certify(ctx, kernel, args.schedule, seed=args.seed, samples=args.samples,
                       cache=args.cache_dir, force=args.force, timeout_s=args.timeout)
    except UnsupportedFeature as exc:  # the backend cannot even generate the source
        row.update(result="unsupported", detail=str(exc), report=str(exc))
        return row
    except OracleMismatch as exc:
        failures = exc.report or []
        unsupported = failures and all(ev.verdict == "unsupported" for ev in failures)
        row.update(result="unsupported" if unsupported else "FAILED",
                   detail=failures[0].problems[0] if failures and failures[0].problems else str(exc),
                   report=str(exc))
        return row
    row.update(result="reused" if cert.reused else "certified",
               schedule=cert.manifest["key"]["schedule"], key_hash=cert.key_hash,
               path=str(cert.path), detail="")
    return row


def _certify(args) -> int:
    kernels = _kernels(args.kernels)
    names, unavailable = _backends(args.backends)
    rows = []
    with progress(len(kernels) * len(names), args.json) as advance:
        for name in names:
            with registry.open_context(name, **_open_options(args)) as ctx:
                for kernel in kernels:
                    rows.append(_certify_one(ctx, kernel, args))
                    advance(f"{kernel.id} on {name}: {rows[-1]['result']}")
    failed = [r for r in rows if r["result"] == "FAILED"]
    if args.json:
        return _json_verdict(failed, unavailable, rows)
    _table("kforge certify", ["kernel", "backend", "result", "schedule", "manifest", "detail"],
           [(r["kernel"], r["backend"], r["result"], r.get("schedule", "-"),
             r.get("path", "-"), r["detail"].split("\n")[0][:100]) for r in rows])
    _print_unavailable(unavailable)
    for row in failed:
        print(f"\n{row['report']}", file=sys.stderr)
    return 1 if failed else 0


# -- tune ----------------------------------------------------------------------------------
def _tune(args) -> int:
    from oracle import format_duration, tune

    kernel = registry.get_kernel(args.kernel)
    backend = args.backend or registry.default_backend()
    _backends([backend])
    with registry.open_context(backend, **_open_options(args)) as ctx:
        adapter = ctx.adapter.name
        with progress(None, args.json or args.dry_run) as advance:
            result = tune(ctx, kernel, size=args.size, space=args.space, seed=args.seed,
                          samples=args.samples, dry_run=args.dry_run,
                          reopen=lambda: registry.open_context(backend, **_open_options(args)),
                          on_progress=lambda c: advance(f"{c.schedule}: {c.status}"),
                          timeout_s=args.timeout)
    if args.json:
        print_json(result.as_dict())
        return 0
    title = f"kforge tune {kernel.id} on {backend} ({adapter}), size {result.size}"
    measured = [c for c in result.candidates if c.status != "pruned"]
    if measured:
        _table(title + (" - dry run" if args.dry_run else ""),
               ["schedule", "status", "median", "samples", "reason"],
               [(str(c.schedule), c.status, format_duration(c.median) if c.timing else "-",
                 str(c.timing.count) if c.timing else "-", c.reason) for c in measured])
    pruned = result.by_status("pruned")
    if pruned:
        print_table(f"pruned before running ({len(pruned)})", ["schedule", "why"],
                    [(str(c.schedule), c.reason) for c in pruned])
    print(result.conclusion)
    return 0


# -- profile-hardware ----------------------------------------------------------------------
def _profile_hardware(args) -> int:
    names, unavailable = _backends(args.backends)
    profiles = {}
    for name in names:
        with registry.open_context(name) as ctx:
            profiles[name] = {"adapter": ctx.adapter.as_dict(),
                              "constraints": ctx.constraints.as_dict(),
                              "timing_source": ctx.timing_source,
                              "timestamp_supported": ctx.timestamp_supported}
    if args.json:
        print_json({"backends": profiles, "unavailable": unavailable})
        return 0
    for name, profile in profiles.items():
        rows = [(f"adapter.{k}", v) for k, v in profile["adapter"].items()]
        rows += [(k, v) for k, v in profile["constraints"].items()]
        rows += [("timing_source", profile["timing_source"])]
        print_table(f"{name}", ["property", "value"], rows)
    _print_unavailable(unavailable)
    return 0
