"""Round 29's findings (tests/wild/round29.py), each pinned by the smallest run that
shows it: two things nvcc gives a PyTorch extension without a word, which NVRTC did not
(fixed in backends/cuda/_headers.py), and one spec that cannot be written (open)."""

# ruff: noqa: E501  (the CUDA source keeps Megatron's long line)

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule
from forge.errors import InvalidArgument
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


# Megatron's scaled_masked_softmax.h, reduced to what it asks of the compiler: std::exp
# with only <limits> and <cfloat> included (nvcc's implicit <cuda_runtime.h> declares the
# std math functions), and CUDA_VERSION, which its translation unit gets from <cuda.h>
# (NVRTC cannot compile <cuda.h>: it declares host functions)
_MEGATRON_LIKE = r"""
#include <cfloat>
#include <limits>

template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR_NATIVE(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff)
{
#if CUDA_VERSION >= 9000
    return __shfl_xor_sync(mask, value, laneMask, width);
#else
    return __shfl_xor(value, laneMask, width);
#endif
}

extern "C" __global__ void softmax_row32(float *dst, const float *src) {
    float x = src[threadIdx.x];
    float m = x;
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, WARP_SHFL_XOR_NATIVE(m, offset, 32));
    float e = std::exp(x - m), s = e;
    for (int offset = 16; offset > 0; offset /= 2) s += WARP_SHFL_XOR_NATIVE(s, offset, 32);
    dst[threadIdx.x] = e / s;
}
"""


def test_std_exp_and_cuda_version_compile_with_nvrtc_as_nvcc_gives_them():
    """Round 29: Megatron's masked softmax, as written, did not compile ("namespace std
    has no member exp"; "__shfl_xor is undefined": CUDA_VERSION undefined took the
    pre-CUDA-9 branch). Now a source that calls std math functions without <cmath> gets
    it pre-included, and one that tests CUDA_VERSION without defining it gets nvcc's
    value for this NVRTC."""
    from backends.cuda._headers import implicit_options
    from backends.cuda._nvrtc import compile_module

    options = implicit_options(_MEGATRON_LIKE)
    assert "--pre-include=cmath" in options
    assert any(o.startswith("--define-macro=CUDA_VERSION=") for o in options)
    image, names = compile_module(_MEGATRON_LIKE, ["softmax_row32"], "sm_90")
    assert image and set(names) == {"softmax_row32"}


def test_a_source_that_defines_or_includes_its_own_cuda_version_is_left_alone():
    from backends.cuda._headers import implicit_options

    own = "#define CUDA_VERSION 12040\n" + _MEGATRON_LIKE
    assert not any("CUDA_VERSION" in o for o in implicit_options(own))
    with_cmath = "#include <cmath>\n" + _MEGATRON_LIKE
    assert implicit_options(with_cmath).count("--pre-include=cmath") == 0


_POINTERS_WGSL = """
struct Params { x: vec2<u32>, y: vec2<u32>, n: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (i32(gid.x) < p.n) { y[gid.x] = 2.0 * x[gid.x]; }
}
"""


def test_a_wgsl_port_may_read_a_cuda_pointer_field_as_two_words():
    """Round 29 (StyleGAN2-ADA's bias_act): a CUDA struct of pointers is described by
    u64 fields named like the buffers, and WGSL has no 64-bit integer, so a port sharing
    the spec reads each as vec2<u32>, the same 8 bytes. The layout check refused it
    ('x is a 64-bit integer at byte 0 ... reads x.x, a 32-bit integer'); two 32-bit
    integer words of a 64-bit integer field are now accepted, and a float read there,
    or a word at a third offset, is still refused."""
    from forge._bindings import check_uniform_layout

    kernel = KernelSpec(
        id="r29_pointer_fields_read_as_words",
        entry_point="main",
        sources={"wgsl": _POINTERS_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("x", "u64"), ("y", "u64"), ("n", "i32")), name="p"),
        ),
        reference=lambda x, y, p: 2.0 * x,
        params=lambda n: {"n": n},
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )
    check_uniform_layout(kernel, "wgsl", _POINTERS_WGSL)
    floats = _POINTERS_WGSL.replace("x: vec2<u32>", "x: vec2<f32>")
    with pytest.raises(InvalidArgument, match="reads x.x, a 32-bit float at byte 0"):
        check_uniform_layout(kernel, "wgsl", floats)


# Round 29's mutant as first written: ``2 * (...) >> shift``. WGSL's grammar takes a
# shift's operands as unary expressions; Chrome's Tint refuses it ("mixing '*' and '>>'
# requires parenthesis"), naga compiled it and wgpu ran it.
_MIXED_SHIFT = """
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&y)) { return; }
    y[i] = 2u * x[i] >> 1u;
}
"""


def _mixed_shift_kernel(source: str) -> KernelSpec:
    return KernelSpec(
        id="r29_mixed_shift",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "u32", "read", name="x"),
            BufferSpec(1, "u32", "read_write", name="y"),
        ),
        reference=lambda x, y: ((2 * x.astype(np.uint64)) % 2**32 >> 1).astype(np.uint32),
        grid=lambda s, n: ((n + 63) // 64, 1, 1),
        schedules=(Schedule(64),),
    )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_operators_mixed_without_the_parentheses_wgsl_needs_are_refused(request, backend, session):
    """The browser's Tint refuses it; wgpu (naga) ran it, and now refuses it too, naming
    the operators and the fix. With the parentheses, it passes on both."""
    require_available(request.config, backend)
    ev = oracle.evaluate(
        session.runner(backend), _mixed_shift_kernel(_MIXED_SHIFT), size=300, samples=0
    )
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "'*'" in ev.report() and ">>" in ev.report(), ev.report()
    fixed = _MIXED_SHIFT.replace("2u * x[i] >> 1u", "(2u * x[i]) >> 1u")
    ev = oracle.evaluate(session.runner(backend), _mixed_shift_kernel(fixed), size=300, samples=0)
    assert ev.passed, ev.report()


def test_the_portability_check_reads_wgsl_as_its_grammar_does():
    """No GPU: what WGSL refuses, and what it takes (templates, indexing, unary
    operators, one kind of operator repeated)."""
    from forge.sources import wgsl_unparenthesized_mix as mixed

    refused = {
        "let a = x * y >> 2u;": "'*' and '>>'",
        "let b = x & m == 0u;": "'&' and '=='",
        "let c = a & b | c;": "'&' and '|'",
        "let d = p && q || r;": "'&&' and '||'",
        "let e = a < b < c;": "'<' and '<'",
        "let g = a >> b >> c;": "'>>' and '>>'",
    }
    for text, operators in refused.items():
        found = mixed(text)
        assert found is not None and found[0] == operators, (text, found)
    taken = [
        "let a = (x * y) >> 2u;",
        "let b = vec3<f32>(1.0) * a + b - c / d;",
        "let c = a[i * 2u] >> 3u;",
        "let d = array<vec4<f32>, 4>();",
        "let e = -a * -b + c < d && e && !f;",
        "let f = bitcast<u32>(x) >> 16u;",
        "x = a & b & c;",
        "var p: ptr<function, f32> = &v; let q = *p * 2.0;",
        "for (var i = 0u; i < n; i++) { y[i] = x[i] << 1u; }",
    ]
    for text in taken:
        assert mixed(text) is None, text
