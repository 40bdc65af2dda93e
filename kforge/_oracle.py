"""``kforge certify`` and ``kforge profile-hardware``: the commands that drive the oracle
beyond ``check`` (``kforge tune`` lives in ``kforge._tune``)."""

from __future__ import annotations

import sys
from typing import Any

from forge import registry
from forge.errors import ForgeError, OracleMismatch, UnsupportedFeature
from forge.schedule import Schedule
from forge.tunables import describe as describe_candidate
from oracle import certify, fan_out, find_tuned
from oracle._ceilings import PROBES, SCALES, capacity_for, measure_ceilings, probe_scale

from ._check import add_backend_flag, add_run_flags, backends, open_options
from ._fanout import add_fanout_flags, make_fleet
from ._kernels import add_kernel_arguments, resolve_kernels
from ._output import (
    add_json_flag,
    output_file_arg,
    print_json,
    print_table,
    progress,
    schedule_arg,
    write_json,
)
from ._report import add_report_flag, report_of, require_report_extra

# Values a backend reports for "no limit" (the host's 2**62) read better as words.
_UNLIMITED = 2**62

#: The ``format`` fields of ``kforge profile-hardware`` and ``certify --json`` (``kforge
#: report`` reads them, and ``oracle.TUNE_FORMAT``'s).
PROFILE_FORMAT = "kforge-profile/1"
CERTIFY_FORMAT = "kforge-certify/1"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "certify", help="certify kernels and keep a manifest (reused when nothing changed)"
    )
    add_kernel_arguments(parser)
    add_backend_flag(parser, "backends to certify on (repeatable; default: every available one)")
    parser.add_argument("--schedule", type=schedule_arg, help="schedule, e.g. wg=128,ipt=4")
    parser.add_argument(
        "--force", action="store_true", help="certify again even if a manifest matches"
    )
    parser.add_argument(
        "--cache-dir", help="cache root (default: $FORGE_CACHE_DIR or ~/.cache/kernel-forge)"
    )
    parser.add_argument(
        "--tuned",
        action="store_true",
        help="certify each kernel's saved tuned schedule (kforge tune --save) "
        "where this adapter has one",
    )
    add_run_flags(parser, samples=5)
    add_fanout_flags(parser)
    add_report_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(run=_certify)

    parser = subparsers.add_parser(
        "profile-hardware", help="adapter identity and constraints of each available backend"
    )
    add_backend_flag(parser, "backends to describe (repeatable; default: every available one)")
    parser.add_argument(
        "--measure",
        action="store_true",
        help="also measure each adapter's ceilings (copy bandwidth, fp32 FMA "
        "and tensor-core throughput) for the roofline of kforge report",
    )
    parser.add_argument(
        "--scale",
        choices=SCALES,
        default="auto",
        help="probe sizes for --measure: large for GPUs, small for CPU adapters "
        "and numpy (default: auto, by adapter)",
    )
    parser.add_argument(
        "--results", metavar="PATH", type=output_file_arg, help="also write the JSON profile here"
    )
    add_json_flag(parser)
    parser.set_defaults(run=_profile_hardware)


# -- certify -------------------------------------------------------------------------------
def _certify_one(runner, kernel, args) -> dict:
    """Certify ``kernel`` on ``runner`` (one backend on one adapter model): a row."""
    adapter = runner.info.adapter.name
    row: dict[str, Any] = {
        "kernel": kernel.id,
        "backend": runner.name,
        "adapter": adapter,
        "note": "",
        "evaluations": [],
    }
    schedule = args.schedule
    if args.tuned and schedule is None:
        tuned, found, row["note"] = find_tuned(runner.info, kernel)
        if tuned is not None:
            kernel, schedule = tuned, found
    try:
        cert = certify(
            runner,
            kernel,
            schedule,
            seed=args.seed or 0,
            samples=args.samples,
            cache=args.cache_dir,
            force=args.force,
            timeout_s=args.timeout,
        )
    except UnsupportedFeature as exc:  # the backend cannot even generate the source
        row.update(result="unsupported", detail=str(exc), report=str(exc))
        return row
    except OracleMismatch as exc:
        failures = exc.report or []
        unsupported = failures and all(ev.verdict == "unsupported" for ev in failures)
        detail = failures[0].problems[0] if failures and failures[0].problems else str(exc)
        row.update(
            result="unsupported" if unsupported else "FAILED",
            detail=detail,
            report=str(exc),
            evaluations=[ev.as_dict() for ev in failures],
        )
        return row
    key = cert.manifest["key"]
    row.update(
        result="reused" if cert.reused else "certified",
        schedule=describe_candidate(Schedule.parse(key["schedule"]), kernel.tunable_values()),
        key_hash=cert.key_hash,
        path=str(cert.path),
        detail=(f"re-certified: {cert.replaced}" if cert.replaced else row["note"]),
    )
    row["evaluations"] = [ev.as_dict() for ev in cert.evaluations]
    return row


def _targets(fleet, names, rows) -> list:
    """Each backend's runners that opened, one per adapter model; a row for those that
    did not."""
    targets = []
    for name in names:
        try:
            targets += fleet.groups(name)
        except ForgeError as exc:
            rows.append(
                {
                    "kernel": "-",
                    "backend": name,
                    "adapter": "-",
                    "result": "FAILED",
                    "detail": f"could not open: {exc}",
                    "report": str(exc),
                }
            )
    return targets


def _certify_all(args, kernels, names) -> tuple[list[dict], bool]:
    """Certify every kernel on every backend and adapter model, spread over the
    fleet's workers; (rows in order, interrupted)."""
    rows: list[dict] = []
    fleet = make_fleet(args, names, open_options(args))
    fleet.start(names)
    done: dict[int, dict] = {}
    try:
        work = [(runner, kernel) for runner in _targets(fleet, names, rows) for kernel in kernels]
        with progress(len(work), args.json) as advance:
            for index, row in fan_out(
                work, lambda item: _certify_one(item[0], item[1], args), fleet.concurrency
            ):
                done[index] = row
                advance(f"{row['kernel']} on {row['backend']}: {row['result']}")
    except KeyboardInterrupt:
        return rows + [done[i] for i in sorted(done)], True
    finally:
        fleet.close()
    return rows + [done[i] for i in sorted(done)], False


def _print_matrix(rows: list[dict]) -> None:
    """One line per kernel, one column per backend and adapter: what each certified."""
    columns = list(
        dict.fromkeys(f"{r['backend']} on {r['adapter']}" for r in rows if r["kernel"] != "-")
    )
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        if r["kernel"] != "-":
            cells.setdefault(r["kernel"], {})[f"{r['backend']} on {r['adapter']}"] = r["result"]
    print_table(
        "certified: kernel x adapter",
        ["kernel", *columns],
        [(kernel, *(found.get(c, "-") for c in columns)) for kernel, found in cells.items()],
    )


def _certify(args) -> int:
    if args.report:
        require_report_extra()
    kernels = resolve_kernels(args.kernels, args.kernel_ids)
    names, unavailable, refused = backends(args.backends)
    rows, interrupted = _certify_all(args, kernels, names)
    failed = [r for r in rows if r["result"] == "FAILED"]
    data = {
        "format": CERTIFY_FORMAT,
        "passed": not failed and not refused,
        "unavailable": unavailable,
        "refused": refused,
        "interrupted": interrupted,
        "results": rows,
    }
    if args.report:
        report_of(data, args.report, "this kforge certify run")
    if args.json:
        print_json(data)
    else:
        print_table(
            "kforge certify",
            ["kernel", "backend", "adapter", "result", "schedule", "manifest", "detail"],
            [
                (
                    r["kernel"],
                    r["backend"],
                    r["adapter"],
                    r["result"],
                    r.get("schedule", "-"),
                    r.get("path", "-"),
                    r["detail"].split("\n")[0][:100],
                )
                for r in rows
            ],
        )
        if args.ray is not None or len({(r["backend"], r["adapter"]) for r in rows}) > len(
            {r["backend"] for r in rows}
        ):
            _print_matrix(rows)
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
        profile = {
            "adapter": ctx.adapter.as_dict(),
            "constraints": ctx.constraints.as_dict(),
            "timing_source": ctx.timing_source,
            "timestamp_supported": ctx.timestamp_supported,
        }
        if args.measure:
            ceilings = measure_ceilings(
                ctx,
                scale,
                on_probe=lambda c: advance(
                    f"{name}: {c.name} {'measured' if c.value is not None else 'not measured'}"
                ),
            )
            profile["ceilings"] = {k: c.as_dict() for k, c in ceilings.items()}
    return profile


def _ceiling_rows(profile: dict) -> list[tuple]:
    rows = []
    for name, c in profile.get("ceilings", {}).items():
        if c["value"] is None:
            rows.append((f"ceiling.{name}", f"not measured: {c['reason']}"))
        else:
            rows.append(
                (
                    f"ceiling.{name}",
                    f"{c['value']:.4g} {c['unit']} ({c['what']}; median "
                    f"of {c['timing']['count']}, {c['timing']['source']})",
                )
            )
    return rows


def _profile_hardware(args) -> int:
    names, unavailable, refused = backends(args.backends)
    with progress(
        len(names) * len(PROBES) if args.measure else 0, args.json or not args.measure
    ) as advance:
        profiles = {name: _profile(name, args, advance) for name in names}
    data = {
        "format": PROFILE_FORMAT,
        "backends": profiles,
        "unavailable": {**unavailable, **refused},
    }
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
