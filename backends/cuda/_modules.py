"""What a CUDA kernel's launches compile to: one NVRTC module holding every launch's
entry point, built for the device's architecture (``module_build``). The context
compiles and loads it (``CudaComputeContext._compile``); ``compile_ahead`` compiles
exactly the same module into NVRTC's disk cache with no context and no GPU, so that a
context of that architecture on this host (in this process or in a worker process
sharing the cache root) later only loads it: the tuner's compile-ahead
(``OracleContext.compile_ahead``, ``BackendEntry.compile_ahead``).

Both paths go through ``module_build``, so the cache key the ahead compile writes is
the one the run reads: same source, entry points, options, architecture and output.
Both also compare each launch with what the compiled PTX declares of its entry point
(``check_steps``: the number and sizes of its parameters, its launch bounds), so a
launch whose arguments the source's declaration was misread for is refused with no GPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from forge import layout
from forge.arguments import FAISS_TENSOR, accessor_size
from forge.errors import CompileError, UnsupportedFeature
from forge.kernel import KernelSpec, Step
from forge.schedule import Schedule

from ._nvrtc import EntryInfo, compile_module_entries, target_for

__all__ = [
    "ModuleBuild",
    "module_build",
    "compile_ahead",
    "check_steps",
    "expected_size",
    "widened_field",
    "argument_text",
    "TARGET",
]

#: The ``KernelSpec.sources`` target the CUDA backend compiles.
TARGET = "cuda"


@dataclass(frozen=True)
class ModuleBuild:
    """One NVRTC compile: everything its disk-cache key is made of."""

    source: str
    entry_points: tuple[str, ...]
    arch: str
    output: str
    options: tuple[str, ...]
    variables: tuple[str, ...] = ()  # ``__constant__`` variables buffers are copied into

    def compile(self) -> tuple[bytes, dict[str, str]]:
        """The image and each entry point's symbol, and each variable's (keyed
        ``"&name"``), from the disk cache when it holds them; raises ``CompileError``
        with NVRTC's log."""
        return self.build()[:2]

    def build(self) -> tuple[bytes, dict[str, str], dict[str, EntryInfo]]:
        """``compile``'s answer and what the PTX declares of each entry point."""
        return compile_module_entries(
            self.source, self.entry_points, self.arch, self.output, self.options, self.variables
        )


def module_build(
    kernel: KernelSpec, steps: Sequence[Step], source: str, architecture: str, device: str = ""
) -> ModuleBuild:
    """The module ``kernel``'s ``steps`` run from ``source`` on a device of real
    architecture ``architecture`` (``"sm_90"``; ``device`` names it in errors)."""
    arch, output = target_for(architecture, device)
    entries = tuple(dict.fromkeys(step.entry_point for step in steps))
    variables = tuple(dict.fromkeys(name for step in steps for _, name in step.symbols))
    return ModuleBuild(source, entries, arch, output, kernel.compile_options(TARGET), variables)


def compile_ahead(
    kernel: KernelSpec,
    schedule: Schedule,
    size: Any,
    architecture: str,
    max_workgroups: int,
    source: str | None = None,
) -> None:
    """Compile into the disk cache the module a context of ``architecture`` (whose
    first grid dimension allows ``max_workgroups``) builds for ``kernel`` under
    ``schedule`` at ``size``: ``source`` is the text it compiles (default: the kernel's
    CUDA source, what ``kernel_source`` gives). Raises what the compile raises."""
    size = kernel.size(size if size is not None else kernel.largest_size())
    if source is None:
        source = kernel.source(TARGET, schedule, size)
    steps = kernel.steps(TARGET, schedule, size, max_workgroups, source)
    _, _, entries = module_build(kernel, steps, source, architecture).build()
    check_steps(kernel, steps, entries, source)


def check_steps(
    kernel: KernelSpec, steps: Sequence[Step], entries: dict[str, EntryInfo], source: str
) -> None:
    """Refuse, before any launch, a step its compiled entry point cannot take: a number
    or size of arguments other than the parameters the PTX declares (a declaration
    kernel-forge misread would pass the wrong values: ``CompileError``, as the
    driver's own check on the device), or a block larger than its
    ``__launch_bounds__`` (``.maxntid``) or other than its ``.reqntid``, or a grid that
    is no whole number of its ``__cluster_dims__`` clusters (``.reqnctapercluster``),
    which the driver refuses with no word of why (``UnsupportedFeature``)."""
    for step in steps:
        info = entries.get(step.entry_point)
        if info is None:
            continue
        check_sizes(kernel, step, info.param_sizes, source, "its PTX declares")
        threads = step.block[0] * step.block[1] * step.block[2]
        if info.max_threads and threads > info.max_threads:
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {step.entry_point} is compiled for at most "
                f"{info.max_threads} threads a block (its __launch_bounds__, .maxntid "
                f"{info.max_threads}), but the schedule launches blocks of "
                f"{'x'.join(map(str, step.block))} = {threads}; the driver refuses such a "
                f"launch: use a schedule of at most {info.max_threads} threads, or raise "
                "the bound"
            )
        cluster = tuple(info.cluster) + (1,) * (3 - len(info.cluster))
        if info.cluster and any(g % c for g, c in zip(step.workgroups, cluster)):
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {step.entry_point} runs in clusters of "
                f"{'x'.join(map(str, cluster[:3]))} blocks (its __cluster_dims__, "
                f".reqnctapercluster), but the grid of {'x'.join(map(str, step.workgroups))} "
                "blocks is not a whole number of them in each dimension; the driver refuses "
                "such a launch: round the grid up to a multiple of the cluster"
            )
        required = tuple(info.required_block) + (1,) * (3 - len(info.required_block))
        if info.required_block and tuple(step.block) != required[:3]:
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {step.entry_point} requires blocks of exactly "
                f"{'x'.join(map(str, required[:3]))} threads (.reqntid), but the schedule "
                f"launches {'x'.join(map(str, step.block))}"
            )


def check_sizes(
    kernel: KernelSpec, step: Step, sizes: Sequence[int], source: str, where: str
) -> None:
    """Refuse a step whose arguments do not fit ``sizes``, its entry point's parameter
    sizes in bytes (``where`` says who declared them: the PTX, the driver): a buffer is
    an 8-byte pointer, a field its scalar's size, a value its packed bytes, the uniform
    block at least its C struct's size (more when the struct is declared with a larger
    alignment, ``__align__(16)``)."""
    passed = [argument_text(kernel, kind, key) for kind, key in step.arguments]
    hint = (
        "name the buffers and uniform fields as the function's parameters, or give "
        "the order with arguments=(...)"
    )
    if len(sizes) != len(step.arguments):
        raise CompileError(
            f"kernel {kernel.id}: CUDA entry point {step.entry_point} takes "
            f"{len(sizes)} parameters ({where}), but its launch passes "
            f"{len(step.arguments)} ({', '.join(passed)}); {hint}",
            source=source,
            target=TARGET,
        )
    for index, ((kind, key), size) in enumerate(zip(step.arguments, sizes)):
        ok, want = expected_size(kernel, kind, key, size)
        if not ok:
            raise CompileError(
                f"kernel {kernel.id}: parameter {index} of {step.entry_point} is {size} "
                f"bytes ({where}), but the launch passes {passed[index]} of {want} bytes; "
                f"{hint}",
                source=source,
                target=TARGET,
            )


def expected_size(kernel: KernelSpec, kind: str, key: Any, size: int) -> tuple[bool, str]:
    """Whether a parameter of ``size`` bytes takes argument (``kind``, ``key``), and the
    size it should have, in words."""
    if kind in ("buffer", "offset", "texture", "surface"):  # a pointer, or a 64-bit handle
        return size == 8, "8"
    if kind in ("value", "default"):
        return size == len(key[1]), str(len(key[1]))
    if kind == "accessor":  # the pointer, then the sizes and strides (accessor_bytes)
        need = accessor_size(key[1], key[2])
        return size == need, str(need)
    uniform = kernel.uniform
    assert uniform is not None  # the argument is the kernel's uniform block or a field
    if kind == "field":
        fields = layout.target_dtype(uniform.fields, "c").fields
        assert fields is not None  # a uniform block is a struct
        dtype = fields[key][0]
        need = dtype.itemsize
        return size == need or widened_field(dtype, size) is not None, str(need)
    need = layout.target_dtype(uniform.fields, "c").itemsize
    ok = size >= need and any(size == -(-need // a) * a for a in (1, 2, 4, 8, 16, 32, 64, 128, 256))
    return ok, f"{need} (or that rounded up to its alignment)"


def widened_field(dtype: np.dtype, size: int) -> np.dtype | None:
    """The dtype a uniform field of ``dtype`` is passed as to a scalar parameter of
    ``size`` bytes that is wider, as C converts an argument to its parameter's type: a
    u32 or i32 field (a spec shared with WGSL, which has no 64-bit integers) to llm.c's
    ``long num_parameters`` or a ``size_t n``, sign- or zero-extended by the field's
    own signedness; an f32 field to a ``double``. None where no such widening fits."""
    if size <= dtype.itemsize or dtype.subdtype is not None or dtype.names is not None:
        return None
    if dtype.kind in "iu" and size == 8:
        return np.dtype(f"{dtype.kind}8")
    if dtype == np.float32 and size == 8:
        return np.dtype(np.float64)
    return None


def argument_text(kernel: KernelSpec, kind: str, key: Any) -> str:
    """An argument in words, for errors."""
    if kind in ("texture", "surface"):
        return f"a {kind} object over buffer {kernel.buffers[key].label} (by value)"
    if kind == "buffer":
        return f"buffer {kernel.buffers[key].label} (pointer)"
    if kind == "accessor":
        what = "FAISS tensor" if FAISS_TENSOR in key[3:] else "PyTorch accessor"
        return f"buffer {kernel.buffers[key[0]].label} as a {key[1]}-D {what} (by value)"
    if kind == "offset":
        return f"buffer {kernel.buffers[key[0]].label} + {key[1]} bytes (pointer)"
    if kind == "default" and key[0] in ("NULL", "nullptr"):
        return f"{key[0]} (pointer)"
    if kind == "default":
        return f"{key[0]}'s default (by value)"
    if kind == "field":
        return f"field {key} (by value)"
    if kind == "value":
        return f"value {key[0]} (by value)"
    uniform = kernel.uniform
    assert uniform is not None  # the argument is the kernel's uniform block
    return f"uniform block {uniform.label} (struct by value)"
