"""What a CUDA kernel's launches compile to: one NVRTC module holding every launch's
entry point, built for the device's architecture (``module_build``). The context
compiles and loads it (``CudaComputeContext._compile``); ``compile_ahead`` compiles
exactly the same module into NVRTC's disk cache with no context and no GPU, so that a
context of that architecture on this host (in this process or in a worker process
sharing the cache root) later only loads it: the tuner's compile-ahead
(``OracleContext.compile_ahead``, ``BackendEntry.compile_ahead``).

Both paths go through ``module_build``, so the cache key the ahead compile writes is
the one the run reads: same source, entry points, options, architecture and output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from forge.kernel import KernelSpec, Step
from forge.schedule import Schedule

from ._nvrtc import compile_module, target_for

__all__ = ["ModuleBuild", "module_build", "compile_ahead", "TARGET"]

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
        return compile_module(
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
    module_build(kernel, steps, source, architecture).compile()
