"""The README's "Bringing your own kernel" example works as printed: the code block is
taken from the README itself and its kernel is judged on the reference and wgpu, and
its CUDA source compiles."""

from __future__ import annotations

import re
from pathlib import Path

import oracle
from oracle.pytest_plugin import require_available

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> dict:
    text = README.read_text()
    section = text[text.index("## Bringing your own kernel") : text.index("## Python API")]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


def test_the_readme_kernel_passes_on_the_reference_and_wgpu(request):
    kernel = _example()["FMA"]
    assert oracle.evaluate("reference", kernel, size=10007, samples=0).passed
    require_available(request.config, "wgpu")
    ev = oracle.evaluate("wgpu", kernel, size=10007, samples=0)
    assert ev.passed, ev.report()


def test_the_readme_kernel_s_cuda_source_compiles():
    from backends.cuda import compile_module

    kernel = _example()["FMA"]
    steps = kernel.steps(
        "cuda", kernel.schedules[0], 100, 2**31 - 1, kernel.source("cuda", kernel.schedules[0], 100)
    )
    assert steps[0].entry_point == "fma_kernel"
    assert [kind for kind, _ in steps[0].arguments] == [
        "buffer",
        "buffer",
        "field",
        "field",
        "field",
    ]
    compile_module(kernel.source("cuda", kernel.schedules[0]), ["fma_kernel"], "sm_90")
