"""``kforge certify``, ``kforge tune`` and ``kforge profile-hardware``: the commands that
drive the oracle beyond ``check``."""

from __future__ import annotations

import sys

from forge import registry
from forge.errors import ForgeError, OracleMismatch, UnsupportedFeature
from oracle import Session, certify, format_duration, tune
from oracle._ceilings import PROBES, SCALES, capacity_for, measure_ceilings, probe_scale

from ._check import add_backend_flag, add_run_flags, backends, open_options
from ._kernels import add_kernel_arguments, resolve_kernels
from ._output import (add_json_flag, print_json, print_table, progress, schedule_arg,
                      write_json)
from ._report import add_report_flag, report_of, require_report_extra

# Values a backend reports for "no limit" (the host's 2**62) read better as words.
_UNLIMITED = 2 ** 62

#: The ``format`` fields of ``kforge profile-hardware``, ``tune`` and ``certify --json``
#: (``kforge report`` reads them).
PROFILE_FORMAT = "kforge-profile/1"
TUNE_FORMAT = "kforge-tune/1"
CERTIFY_FORMAT = "kforge-certify/1"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "certify", help="certify kernels and keep a manifest (reused when nothing changed)")
    add_kernel_arguments(parser)
    add_backend_flag(parser, "backends to certify on (repeatable; default: every available one)")
    parser.add_argument("--schedule", type=schedule_arg, help="schedule, e.g. wg=128,ipt=4")
    parser.add_argument("--force", action="store_true", help="certify again even if a manifest matches")
    parser.add_argument("--cache-dir", help="cache root (default: $FORGE_CACHE_DIR or ~/.cache/kernel-forge)")
    add_run_flags(parser, samples=5)
    add_report_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(run=_certify)

    parser = subparsers.add_parser("tune", help="search a kernel's schedules for the fastest correct one")
    add_kernel_arguments(parser, many=False)
    parser.add_argument("--backend", help="backend to tune on (default: the default backend)")
    parser.add_argument("--size", help="problem size (default: the kernel's largest checked size)")
    parser.add_argument("--schedule", dest="space", action="append", type=schedule_arg,
                        help="a candidate schedule (repeatable; default: the generated space)")
    parser.add_argument("--dry-run", action="store_true", help="show the pruned space and run nothing")
    add_run_flags(parser, samples=5)
    add_report_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(run=_tune)

    parser = subparsers.add_parser(
        "profile-hardware", help="adapter identity and constraints of each available backend")
    add_backend_flag(parser, "backends to describe (repeatable; default: every available one)")
    parser.add_argument("--measure", action="store_true",
                        help="also measure each adapter's ceilings (copy bandwidth, fp32 FMA "
                             "and tensor-core throughput) for the roofline of kforge report")
    parser.add_argument("--scale", choices=SCALES, default="auto",
                        help="probe sizes for --measure: large for GPUs, small for CPU adapters "
                             "and numpy (default: auto, by adapter)")
    parser.add_argument("--results", metavar="PATH", help="also write the JSON profile here")
    add_json_flag(parser)
    parser.set_defaults(run=_profile_hardware)


# -- certify -------------------------------------------------------------------------------
def _certify_one(runner, kernel, args) -> dict:
    row = {"kernel": kernel.id, "backend": runner.name,
           "adapter": runner.info.adapter.as_dict(), "evaluations": []}
    try:
        cert = certify(runner, kernel, args.schedule, seed=args.seed or 0, samples=args.samples,
                       cache=args.cache_dir, force=args.force, timeout_s=args.timeout)
    except UnsupportedFeature as exc:  # the backend cannot even generate the source
        row.update(result="unsupported", detail=str(exc), report=str(exc))
        return row
    except OracleMismatch as exc:
        failures = exc.report or []
        unsupported = failures and all(ev.verdict == "unsupported" for ev in failures)
        row.update(result="unsupported" if unsupported else "FAILED",
                   detail=failures[0].problems[0] if failures and failures[0].problems else str(exc),
                   report=str(exc), evaluations=[ev.as_dict() for ev in failures])
        return row
    row.update(result="reused" if cert.reused else "certified",
               schedule=cert.manifest["key"]["schedule"], key_hash=cert.key_hash,
               path=str(cert.path), detail=(f"re-certified: {cert.replaced}" if cert.replaced else ""))
    row["evaluations"] = [ev.as_dict() for ev in cert.evaluations]
    return row


def _certify(args) -> int:
    if args.report:
        require_report_extra()
    kernels = resolve_kernels(args.kernels, args.kernel_ids)
    names, unavailable, refused = backends(args.backends)
    rows, interrupted = [], False
    session = Session(isolate=False if args.no_isolate else None,
                      open_options={n: open_options(args) for n in names}, timeout_s=args.timeout)
    try:
        with progress(len(kernels) * len(names), args.json) as advance:
            for name in names:
                try:
                    runner = session.runner(name)
                except ForgeError as exc:
                    rows.append({"kernel": "-", "backend": name, "result": "FAILED",
                                 "detail": f"could not open: {exc}", "report": str(exc)})
                    continue
                for kernel in kernels:
                    rows.append(_certify_one(runner, kernel, args))
                    advance(f"{kernel.id} on {name}: {rows[-1]['result']}")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        session.close()
    failed = [r for r in rows if r["result"] == "FAILED"]
    data = {"format": CERTIFY_FORMAT, "passed": not failed and not refused,
            "unavailable": unavailable, "refused": refused, "interrupted": interrupted,
            "results": rows}
    if args.report:
        report_of(data, args.report, "this kforge certify run")
    if args.json:
        print_json(data)
    else:
        print_table("kforge certify", ["kernel", "backend", "result", "schedule", "manifest", "detail"],
                    [(r["kernel"], r["backend"], r["result"], r.get("schedule", "-"),
                      r.get("path", "-"), r["detail"].split("\n")[0][:100]) for r in rows])
        for name, why in unavailable.items():
            print(f"{name}: not available: {why}")
        for name, why in refused.items():
            print(f"{name}: ERROR: asked for with --backend but not available: {why}")
        for row in failed:
            print(f"\n{row['report']}", file=sys.stderr)
    if interrupted:
        print("kforge certify: interrupted; the manifests written so far are kept", file=sys.stderr)
        return 130
    return 1 if failed or refused or not rows else 0


# -- tune ----------------------------------------------------------------------------------
def _tune_data(result, adapter, kernel) -> dict:
    """``kforge tune --json``: the tuner's result, and what a report needs besides it
    (the format, the adapter, the strategy, the kernel's declared work at the size)."""
    return {"format": TUNE_FORMAT, **result.as_dict(), "adapter": adapter.as_dict(),
            "strategy": "successive-halving", **kernel.declared_work(result.size)}


def _tune(args) -> int:
    if args.report:
        require_report_extra()
    kernel, = resolve_kernels(args.kernels, args.kernel_ids)[:1]
    backend = args.backend or registry.default_backend()
    _, _, refused = backends([backend])
    if refused:
        from forge.errors import GpuUnavailable

        raise GpuUnavailable(f"backend {backend!r} is not available: {refused[backend]}")
    with registry.open_context(backend, **open_options(args)) as ctx:
        adapter = ctx.adapter
        with progress(None, args.json or args.dry_run) as advance:
            result = tune(ctx, kernel, size=args.size, space=args.space, seed=args.seed or 0,
                          samples=max(2, args.samples), dry_run=args.dry_run,
                          reopen=lambda: registry.open_context(backend, **open_options(args)),
                          on_progress=lambda c: advance(f"{c.schedule}: {c.status}"),
                          timeout_s=args.timeout)
    data = _tune_data(result, adapter, kernel)
    if args.report:
        report_of(data, args.report, f"this kforge tune of {kernel.id}")
    if args.json:
        print_json(data)
        return 0
    title = f"kforge tune {kernel.id} on {backend} ({adapter.name}), size {result.size}"
    measured = sorted((c for c in result.candidates if c.status != "pruned"),
                      key=lambda c: c.median)
    if measured:
        print_table(title + (" - dry run" if args.dry_run else ""),
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
def _readable(value):
    if isinstance(value, int) and not isinstance(value, bool) and value >= _UNLIMITED:
        return "unlimited"
    if isinstance(value, tuple):
        return tuple(_readable(v) for v in value)
    return value


def _profile(name: str, args, advance) -> dict:
    """One backend's profile: identity, constraints, timing, and with ``--measure`` its
    measured ceilings."""
    options, scale = {}, args.scale
    if args.measure:
        if scale == "auto":  # the probes' sizes follow the adapter: ask it first
            with registry.open_context(name) as ctx:
                scale = probe_scale(ctx)
        options["capacity_bytes"] = capacity_for(scale)
    with registry.open_context(name, **options) as ctx:
        profile = {"adapter": ctx.adapter.as_dict(), "constraints": ctx.constraints.as_dict(),
                   "timing_source": ctx.timing_source,
                   "timestamp_supported": ctx.timestamp_supported}
        if args.measure:
            ceilings = measure_ceilings(ctx, scale, on_probe=lambda c: advance(
                f"{name}: {c.name} {'measured' if c.value is not None else 'not measured'}"))
            profile["ceilings"] = {k: c.as_dict() for k, c in ceilings.items()}
    return profile


def _ceiling_rows(profile: dict) -> list[tuple]:
    rows = []
    for name, c in profile.get("ceilings", {}).items():
        if c["value"] is None:
            rows.append((f"ceiling.{name}", f"not measured: {c['reason']}"))
        else:
            rows.append((f"ceiling.{name}", f"{c['value']:.4g} {c['unit']} ({c['what']}; median "
                         f"of {c['timing']['count']}, {c['timing']['source']})"))
    return rows


def _profile_hardware(args) -> int:
    names, unavailable, refused = backends(args.backends)
    with progress(len(names) * len(PROBES) if args.measure else 0,
                  args.json or not args.measure) as advance:
        profiles = {name: _profile(name, args, advance) for name in names}
    data = {"format": PROFILE_FORMAT, "backends": profiles,
            "unavailable": {**unavailable, **refused}}
    if args.results:
        write_json(args.results, data)
    if args.json:
        print_json(data)
        return 1 if refused else 0
    for name, profile in profiles.items():
        rows = [(f"adapter.{k}", v) for k, v in profile["adapter"].items()]
        rows += [(k, _readable(v)) for k, v in profile["constraints"].items()]
        rows += [("timing_source", profile["timing_source"])] + _ceiling_rows(profile)
        print_table(f"{name}", ["property", "value"], rows)
    for name, why in {**unavailable, **refused}.items():
        print(f"{name}: not available: {why}")
    return 1 if refused else 0
