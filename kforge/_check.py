"""``kforge check``: the main job. Every kernel (installed, or from Python files) on
every available backend, at each of its checked sizes and seeds, judged against its
numpy reference (or ``--reference-backend NAME``), in one table.

One session serves the whole run: contexts and compiled pipelines stay warm, and
backends that run device code do so in worker processes, so a kernel that faults
costs only its own verdict (``--no-isolate`` runs them here). Exit codes: 0 every
evaluation passed (or is unsupported where shown), 1 a failing verdict or an
evaluation that did not run, 2 a usage or input error, 130 interrupted (what was
judged is kept and reported).
"""

from __future__ import annotations

import concurrent.futures
import sys
import time
from dataclasses import dataclass, field

from forge import registry
from forge.errors import GpuUnavailable, InvalidArgument
from oracle import (
    CheckOptions,
    CrossCheck,
    Evaluation,
    Verdict,
    check_many,
    format_duration,
    prepare_while,
)

from ._baseline import RESULTS_FORMAT, compare_with_baseline
from ._fanout import add_fanout_flags, make_fleet
from ._kernels import add_kernel_arguments, resolve_kernels
from ._output import (
    add_json_flag,
    count_arg,
    output_dir_arg,
    output_file_arg,
    positive_arg,
    print_json,
    print_table,
    progress,
    schedule_arg,
    seconds_arg,
    write_json,
)
from ._report import add_report_flag, report_of, require_report_extra

__all__ = ["register", "RESULTS_FORMAT", "CheckRun"]


def add_backend_flag(parser, text: str) -> None:
    parser.add_argument("--backend", dest="backends", action="append", metavar="NAME", help=text)


def add_run_flags(parser, samples: int) -> None:
    parser.add_argument(
        "--seed",
        type=count_arg,
        help="input seed (default: 0, or 0 and 1 for kernels that name no test sizes)",
    )
    parser.add_argument(
        "--samples",
        type=count_arg,
        default=samples,
        help=f"timed runs per evaluation (default {samples}; 0: no timing)",
    )
    parser.add_argument(
        "--capacity-mib",
        type=positive_arg,
        metavar="MIB",
        help="memory each context opens with (default: the backend's, grown "
        "as large sizes need it)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds_arg,
        default=60.0,
        metavar="SECONDS",
        help="bound on each wait for the device; a kernel that runs longer "
        "is reported as 'timeout' (default 60)",
    )
    parser.add_argument(
        "--reference-timeout",
        type=seconds_arg,
        default=None,
        metavar="SECONDS",
        help="bound on each call of a kernel's numpy reference; one that runs longer is "
        "stopped and reported as 'reference-error' (default 120)",
    )
    parser.add_argument(
        "--no-isolate",
        action="store_true",
        help="run device backends in this process instead of worker processes",
    )
    checks = parser.add_mutually_exclusive_group()
    checks.add_argument(
        "--no-shader-checks",
        action="store_true",
        help="wgpu: make shader modules without naga's runtime checks (index clamps, "
        "loop bounds), as an app on wgpu-native may run them; for timing kernels that "
        "pass: an index out of range is then undefined behaviour",
    )
    checks.add_argument(
        "--all-shader-checks",
        action="store_true",
        help="wgpu: keep all of naga's runtime checks in every shader module; by default "
        "modules of the WGSL forge emits (whose loops are counted) have no loop counters",
    )
    checks.add_argument(
        "--shader-checks-only",
        choices=("bounds", "loops"),
        help="wgpu: keep only naga's index clamps (bounds) or only its loop counters "
        "(loops) in shader modules",
    )


def open_options(args) -> dict:
    return {} if args.capacity_mib is None else {"capacity_bytes": args.capacity_mib << 20}


def known_backends(names) -> list[str]:
    """``names`` (default: every installed backend), each checked to be installed."""
    installed = registry.backend_names()
    for name in names or ():
        if name not in installed:
            raise InvalidArgument(f"unknown backend {name!r}; installed: {', '.join(installed)}")
    return list(dict.fromkeys(names or installed))


def backends(names) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """(available backends to use, unavailable ones not asked for with why, unavailable
    ones asked for by name with why), by asking the registry."""
    chosen = known_backends(names)
    status = registry.available_backends()
    usable = [n for n in chosen if status[n][0]]
    missing = {n: status[n][1] for n in chosen if not status[n][0]}
    asked = {n: why for n, why in missing.items() if names and n in names}
    return usable, {n: w for n, w in missing.items() if n not in asked}, asked


def opened_backends(session, names, asked) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Like ``backends``, but learnt by opening each backend in ``session`` (its worker
    started already): no backend library is imported in this process to ask."""
    usable, missing, refused = [], {}, {}
    for name in names:
        ok, why = session.opened(name)
        if ok:
            usable.append(name)
        elif asked and name in asked:
            refused[name] = why
        else:
            missing[name] = why
    return usable, missing, refused


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check", help="every kernel on every available backend, judged against its reference"
    )
    add_kernel_arguments(parser)
    add_backend_flag(parser, "backends to check (repeatable; default: every available one)")
    parser.add_argument(
        "--size",
        help="problem size: 4099, 4096x32768 or M=512,N=512,K=256 "
        "(default: every checked size of each kernel)",
    )
    parser.add_argument(
        "--schedule",
        type=schedule_arg,
        help="run this schedule (default: each backend's first the kernel admits)",
    )
    parser.add_argument(
        "--reference-backend",
        metavar="NAME",
        help="judge against this backend's run instead of the numpy reference "
        "(a port check: no numpy reference needed)",
    )
    add_run_flags(parser, samples=5)
    parser.add_argument(
        "--junit", metavar="PATH", type=output_file_arg, help="also write JUnit XML for CI"
    )
    parser.add_argument(
        "--baseline",
        metavar="RESULTS",
        help="fail on a verdict that got worse, "
        "or a slowdown beyond the measured noise, against a saved --json run",
    )
    parser.add_argument(
        "--results",
        metavar="PATH",
        type=output_file_arg,
        help="also write the JSON results here (rewritten as the run goes, with "
        '"complete": false until it ends, so a run that is killed keeps what it judged)',
    )
    parser.add_argument(
        "--save-failures",
        metavar="DIR",
        type=output_dir_arg,
        help="save each failing evaluation's inputs and outputs (.npz) here",
    )
    parser.add_argument(
        "--sanitize", action="store_true", help="also run CUDA evaluations under compute-sanitizer"
    )
    add_report_flag(parser)
    parser.add_argument(
        "--tuned",
        action="store_true",
        help="run each kernel's saved tuned schedule (kforge tune --save) where "
        "the backend's adapter has one",
    )
    add_fanout_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(run=_check)


@dataclass
class CheckRun:
    """What a check produced: the cross-checks, backends that were unavailable (not
    asked for, and asked for), and whether it was interrupted."""

    results: list[CrossCheck] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False

    @property
    def evaluations(self) -> list[Evaluation]:
        return [ev for r in self.results for ev in r.evaluations.values()]

    @property
    def failed(self) -> list[Evaluation]:
        return [ev for ev in self.evaluations if ev.failing]

    @property
    def unverified(self) -> dict[str, str]:
        """Kernels whose device code no backend could run, though device backends were
        tried (each was unsupported): kernel id -> the reasons. Their numpy reference
        passing on the reference backend checks nothing of the kernel's own sources."""
        entries = registry.backend_entries()
        found: dict[str, str] = {}
        tried: dict[str, list[Evaluation]] = {}
        for result in self.results:
            for name, ev in result.evaluations.items():
                entry = entries.get(name)
                if entry is not None and entry.device_code:
                    tried.setdefault(result.kernel.id, []).append(ev)
        if not tried and self.missing_device_backends:  # none available: none tried
            return {r.kernel.id: "no device backend is available here" for r in self.results}
        for kernel_id, evaluations in tried.items():
            if all(ev.verdict == Verdict.UNSUPPORTED for ev in evaluations):
                reasons = dict.fromkeys(f"{ev.backend}: {ev.error}" for ev in evaluations)
                found[kernel_id] = "; ".join(reasons)
        return found

    @property
    def missing_device_backends(self) -> list[str]:
        """Device backends registered but unavailable here (and not asked for): a kernel
        no available backend could run may be one of theirs (a CUDA kernel on a machine
        without NVIDIA's driver), which is this machine's lack, not the kernel's."""
        entries = registry.backend_entries()
        return [name for name in self.unavailable if name in entries and entries[name].device_code]

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        unverified_here = self.unverified and not self.missing_device_backends
        return 1 if (self.failed or self.refused or not self.evaluations or unverified_here) else 0

    def as_dict(self, ended: bool = True) -> dict:
        """The results file; ``ended=False`` for what is saved while the run goes on."""
        return {
            "format": RESULTS_FORMAT,
            "passed": ended and self.exit_code == 0,
            "complete": ended and not self.interrupted,
            "interrupted": self.interrupted,
            "unavailable": dict(self.unavailable),
            "refused": dict(self.refused),
            "unverified": self.unverified,
            "results": [r.as_dict() for r in self.results],
        }


def _plan(kernels, size_text: str | None, seed: int | None) -> list[tuple]:
    plan = []
    for kernel in kernels:
        sizes = [kernel.size(size_text)] if size_text else list(kernel.checked_sizes())
        empty = [s for s in sizes if int(s) < 1]
        if empty:  # not "--size None" for a kernel's own test size
            where = f"--size {size_text}" if size_text else f"kernel {kernel.id}'s size {empty[0]}"
            raise InvalidArgument(f"{where}: a size must be at least 1 in every dimension")
        seeds = [seed] if seed is not None else list(kernel.checked_seeds())
        plan += [(kernel, s, sd) for s in sizes for sd in seeds]
    return plan


def run_check(args) -> CheckRun:
    """The check ``args`` ask for. Ctrl-C (or SIGTERM) anywhere in it, before the first
    verdict too, gives a run marked ``interrupted`` with what was judged by then."""
    run = CheckRun()
    saver = _Saver(getattr(args, "results", None), run)
    chosen = known_backends(args.backends)
    reference = args.reference_backend
    if reference:
        known_backends([reference])
    session = make_fleet(args, chosen + [reference or ""], open_options(args))
    try:
        session.start(chosen + ([reference] if reference else []))  # workers open meanwhile
        options = CheckOptions(
            schedule=args.schedule,
            samples=args.samples,
            timeout_s=args.timeout,
            reference=reference,
            tuned=args.tuned,
        )
        kernels = resolve_kernels(args.kernels, args.kernel_ids)
        plan = _plan(kernels, args.size, args.seed)
        if reference:
            ok, why = session.opened(reference)
            if not ok:
                raise GpuUnavailable(f"the reference backend {reference!r} is not available: {why}")
        saver.save()  # from here on a run that is killed leaves a file saying so
        (names, run.unavailable, run.refused), prepared = _open_while_preparing(
            session, chosen, args.backends, plan, options
        )
        judged = [n for n in names if n != reference]
        with progress(len(plan) * len(judged), args.json) as advance:
            for result in check_many(
                plan,
                judged,
                session,
                options,
                on_result=lambda name, ev: advance(
                    f"{ev.kernel.id} at {ev.size} on {name}: {ev.verdict}"
                ),
                prepared=prepared,
            ):
                run.results.append(result)
                _after_each(result, args)
                saver.save_now_and_then()
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        session.close()
    return run


class _Saver:
    """Keeps ``--results`` up to date while a check runs: written when the first kernel
    is about to be judged and then after each kernel, marked ``"complete": false``, so
    that a run killed outright (SIGKILL, out of memory, a reference calling
    ``os._exit``) leaves what it had judged. Once the file takes more than 50 ms to
    write, it is rewritten less often: at most a twentieth of the run's time goes to it.
    The run's end writes the final file over it."""

    def __init__(self, path: str | None, run: CheckRun) -> None:
        self.path, self.run, self.last, self.cost = path, run, 0.0, 0.0

    def save(self) -> None:
        if self.path is None:
            return
        started = time.monotonic()
        try:
            write_json(self.path, self.run.as_dict(ended=False))
        except OSError as exc:  # checked as the arguments were read; say it, go on
            print(f"kforge check: could not save --results now: {exc}", file=sys.stderr)
        self.last = time.monotonic()
        self.cost = self.last - started

    def save_now_and_then(self) -> None:
        if self.cost < 0.05 or time.monotonic() - self.last >= 20 * self.cost:
            self.save()


def _open_while_preparing(session, chosen, asked, plan, options: CheckOptions):
    """``opened_backends``, waited for on a thread while this one makes the first
    items' inputs and references (``prepare_while``): the workers' start (their
    imports, the driver, the device) is no longer time the check spends idle."""
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="kforge-open")
    try:
        opening = pool.submit(opened_backends, session, chosen, asked)
        prepared = prepare_while(lambda: not opening.done(), plan, options)
        return opening.result(), prepared
    finally:  # on Ctrl-C the caller closes the session, which ends the wait: no join
        pool.shutdown(wait=False)


def _after_each(result: CrossCheck, args) -> None:
    """Per evaluation follow-ups the flags ask for: the sanitizer, saved failures."""
    if not (args.sanitize or args.save_failures):
        return
    from oracle._evaluate import input_set_expected, save_failure
    from oracle._expected import expected_outputs
    from oracle._inputs import make_case
    from oracle._sanitize import sanitize_evaluation

    for ev in result.evaluations.values():
        if ev.verdict == Verdict.UNSUPPORTED or not (args.sanitize or ev.failing):
            continue
        expected = expected_outputs(make_case(ev.kernel, ev.size, ev.seed))
        if args.sanitize:
            sanitize_evaluation(ev, expected, guard=1024, timeout_s=args.timeout)
        if args.save_failures and ev.failing:
            if ev.failed_input_set:
                expected = input_set_expected(expected, ev.failed_input_set)
            ev.saved = save_failure(ev, expected, args.save_failures)


def _check(args) -> int:
    if args.report:
        require_report_extra()  # before the run, not after it
    run = run_check(args)
    data = run.as_dict()
    if args.results:
        write_json(args.results, data)
    if args.junit:
        from ._junit import write_junit

        write_junit(args.junit, run)
    regressions = []
    if args.baseline:
        regressions = compare_with_baseline(args.baseline, data)
    if args.json:
        print_json(data)
    else:
        _print_run(run, regressions)
    if run.interrupted:
        print(
            f"kforge check: interrupted; {len(run.evaluations)} evaluations were judged and "
            "are shown above",
            file=sys.stderr,
        )
    if args.report:
        report_of(data, args.report, args.results or "this kforge check run")
    code = run.exit_code
    return 1 if regressions and code == 0 else code


def _row(kernel_id: str, backend: str, evaluations: list[Evaluation]) -> tuple:
    """One table row for a kernel on a backend over every size and seed checked: the
    worst verdict, the largest errors, element accounting, the time at the largest size
    that was timed, and the first problem."""
    worst = min(evaluations, key=lambda ev: Verdict(ev.verdict).severity)
    ulps = [ev.max_ulp for ev in evaluations if ev.max_ulp is not None]
    errors = [ev.max_abs for ev in evaluations if ev.max_abs is not None]
    timed = [ev for ev in evaluations if ev.timing is not None]
    last = max(timed, key=lambda ev: int(ev.size)) if timed else None
    timing = last.timing if last else None
    masked = sum(o.masked for ev in evaluations for o in ev.outputs.values())
    unjudged = sum(o.unjudged for ev in evaluations for o in ev.outputs.values())
    note = f"size {worst.size}: {worst.problems[0]}" if worst.problems else ""
    verdict = str(worst.verdict).upper() if worst.failing else str(worst.verdict)
    # "; " between sizes: a size of several dimensions has commas of its own (M=33,N=64)
    sizes = "; ".join(dict.fromkeys(str(ev.size) for ev in evaluations))
    judged = "all" if not masked else f"{masked} masked, {unjudged} never judged"
    return (
        kernel_id,
        backend,
        verdict,
        sizes,
        str(max(ulps)) if ulps else "-",
        f"{max(errors):.3g}" if errors else "-",
        judged,
        format_duration(timing.median) if timing else "-",
        timing.source if timing else "-",
        worst.schedule_text,
        note.split("\n")[0][:110],
    )


def _print_run(run: CheckRun, regressions: list[str]) -> None:
    by_pair: dict[tuple[str, str], list[Evaluation]] = {}
    for result in run.results:
        for name, ev in result.evaluations.items():
            by_pair.setdefault((result.kernel.id, name), []).append(ev)
    reference = run.results[0].reference if run.results else "numpy"
    rows = [_row(k, b, evs) for (k, b), evs in by_pair.items()]
    columns = [
        "kernel",
        "backend",
        "verdict",
        "sizes",
        "max ulp",
        "max abs err",
        "elements",
        "median (largest size)",
        "timing",
        "schedule",
        "note",
    ]
    if rows and not any(row[-1] for row in rows):
        columns, rows = columns[:-1], [row[:-1] for row in rows]
    title = f"kforge check: each backend against the {reference} reference"
    print_table(title, columns, rows, whole=2)
    for name, why in run.unavailable.items():
        print(f"{name}: not available: {why}")
    for name, why in run.refused.items():
        print(f"{name}: ERROR: asked for with --backend but not available: {why}")
    for ev in run.failed:
        print(f"\n{ev.report()}", file=sys.stderr)
    for result in run.results:
        if not result.passed:
            print(f"{result.kernel.id} at size {result.size}: {result.verdict()}", file=sys.stderr)
    for line in regressions:
        print(f"regression against the baseline: {line}", file=sys.stderr)
    missing = ", ".join(run.missing_device_backends)
    for kernel_id, why in run.unverified.items():
        if missing:
            print(
                f"{kernel_id}: NOT CHECKED here: no available backend could run its device "
                f"code ({why}); {missing} may, where available"
            )
        else:
            print(
                f"{kernel_id}: ERROR: no backend could run its device code, so nothing "
                f"checked it ({why})",
                file=sys.stderr,
            )
    total, failed = len(run.evaluations), len(run.failed)
    if not total and run.interrupted:
        print("no evaluation was judged before the run was interrupted")
    elif not total:
        print("no evaluation ran: no backend could run these kernels")
    elif failed:
        print(f"{failed} of {total} evaluations failed")
    elif run.unverified and not missing:
        print(f"{len(run.unverified)} kernel(s) ran on no backend that runs their device code")
    else:
        print(
            f"all {total} evaluations passed, or are unsupported where shown"
            + (
                f"; {len(run.unverified)} kernel(s) not checked here, where {missing} "
                "is not available"
                if run.unverified
                else ""
            )
        )
