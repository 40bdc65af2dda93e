"""``kforge generate`` and ``kforge validate``: a kernel's source for a target, and how
far each kernel's sources are proven without running them (docs/DESIGN.md section 3).

``validate`` emits each kernel for each target under each of its schedules, then asks
naga (through wgpu; it also builds a compute pipeline) and NVRTC. Neither needs a GPU;
the validators are imported when the command runs, so ``import forge`` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass

from forge.errors import CompileError, ForgeError, GpuUnavailable, UnsupportedFeature
from forge.kernel import TARGETS, KernelSpec
from forge.schedule import Schedule
from forge.types import ValidationLevel

from ._kernels import add_kernel_arguments, resolve_kernels
from ._output import add_json_flag, print_json, print_table, progress, schedule_arg


def register(subparsers) -> None:
    parser = subparsers.add_parser("generate", help="print a kernel's source for a target")
    add_kernel_arguments(parser, many=False)
    parser.add_argument("--target", required=True, choices=TARGETS)
    parser.add_argument(
        "--schedule",
        type=schedule_arg,
        help="e.g. wg=128,ipt=4,vec=4 (default: the kernel's first schedule)",
    )
    parser.add_argument(
        "--size",
        help="problem size, for sources that depend on it "
        "(default: the kernel's largest checked size)",
    )
    parser.set_defaults(run=_generate)

    parser = subparsers.add_parser(
        "validate", help="emit every kernel and check it with naga (WGSL) and NVRTC (CUDA C)"
    )
    add_kernel_arguments(parser)
    parser.add_argument(
        "--target",
        dest="targets",
        action="append",
        choices=TARGETS,
        help="target to validate (repeatable; default: every target)",
    )
    parser.add_argument(
        "--schedule",
        type=schedule_arg,
        help="validate under this schedule only (default: each kernel's schedules)",
    )
    add_json_flag(parser)
    parser.set_defaults(run=_validate)


def _generate(args) -> int:
    kernel = resolve_kernels(args.kernels, args.kernel_ids)[0]
    schedule = args.schedule or kernel.schedules[0]
    size = kernel.size(args.size) if args.size else kernel.largest_size()
    print(kernel.source(args.target, schedule, size), end="")
    return 0


@dataclass
class Validation:
    """How far one kernel's source for one target and schedule got."""

    kernel: str
    target: str
    schedule: str
    role: str
    level: ValidationLevel
    failed: bool = False
    message: str = ""

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel,
            "target": self.target,
            "schedule": self.schedule,
            "role": self.role,
            "level": self.level.name,
            "failed": self.failed,
            "message": self.message,
        }


def _validate_wgsl(kernel: KernelSpec, source: str, steps) -> tuple[ValidationLevel, str]:
    from backends.wgpu import validate_wgsl

    try:
        for step in steps:
            validate_wgsl(source, step.entry_point, dict(step.overrides))
        return ValidationLevel.PIPELINE_CREATED, ""
    except CompileError as pipeline_error:
        validate_wgsl(source)  # a CompileError here means naga rejected the module itself
        return ValidationLevel.VALIDATED, f"pipeline creation failed: {pipeline_error}"


def _validate_cuda(kernel: KernelSpec, source: str, steps) -> tuple[ValidationLevel, str]:
    """NVRTC compiles it, and every launch passes what its PTX declares (the number and
    size of the arguments, a block within ``__launch_bounds__``), as the CUDA backend
    checks before it loads the module: validated means a GPU would take the launch."""
    from backends.cuda._modules import check_steps
    from backends.cuda._nvrtc import compile_module_entries

    _, _, entries = compile_module_entries(
        source,
        [s.entry_point for s in steps],
        output="cubin",
        options=kernel.compile_options("cuda"),
    )
    check_steps(kernel, steps, entries, source)
    return ValidationLevel.VALIDATED, ""


_VALIDATORS = {"wgsl": _validate_wgsl, "cuda": _validate_cuda}


def validate_source(kernel: KernelSpec, target: str, schedule: Schedule) -> Validation:
    """Emit ``kernel`` for ``target`` under ``schedule`` and validate it; the result
    holds the highest level reached and, on failure, the compiler's message."""
    result = Validation(
        kernel.id, target, str(schedule), kernel.schedule_role(schedule), ValidationLevel.NONE
    )
    try:
        size = kernel.largest_size()
        source = kernel.source(target, schedule, size)
        steps = kernel.steps(target, schedule, size, 2**31 - 1, source)
    except ForgeError as exc:
        result.failed, result.message = True, f"{type(exc).__name__}: {exc}"
        return result
    result.level = ValidationLevel.GENERATED
    try:
        result.level, result.message = _VALIDATORS[target](kernel, source, steps)
    except GpuUnavailable as exc:
        result.message = f"not validated: {exc}"
    except CompileError as exc:
        result.failed, result.message = True, (exc.log or str(exc)).strip()
    except UnsupportedFeature as exc:  # a block past the kernel's __launch_bounds__
        result.message = f"unsupported: {exc}"
    return result


def _validate(args) -> int:
    kernels = resolve_kernels(args.kernels, args.kernel_ids)
    targets = args.targets or list(TARGETS)
    jobs = [
        (kernel, target, schedule)
        for kernel in kernels
        for target in targets
        if target in kernel.targets
        for schedule in ([args.schedule] if args.schedule else kernel.schedules)
    ]
    results = []
    with progress(len(jobs), args.json) as advance:
        for kernel, target, schedule in jobs:
            results.append(validate_source(kernel, target, schedule))
            advance(f"{kernel.id} {target} {schedule}: {results[-1].level.name}")
    failed = sum(r.failed for r in results)
    if args.json:
        print_json({"passed": not failed, "results": [r.as_dict() for r in results]})
    else:
        rows = [
            (
                r.kernel,
                r.target,
                r.schedule,
                r.role,
                r.level.name.lower(),
                ("FAILED: " if r.failed else "") + r.message,
            )
            for r in results
        ]
        print_table(
            "kforge validate: generated source, naga (WGSL) and NVRTC (CUDA C)",
            ["kernel", "target", "schedule", "role", "level", "note"],
            rows,
            caption=f"{len(results) - failed} of {len(results)} sources validated "
            "or skipped with a reason"
            if results
            else "nothing to validate",
        )
    return 1 if failed else 0
