"""Round 26's findings (tests/wild/round26.py), each pinned by the smallest run that
shows it: the one gap it found (a struct by value beside scalars by value) is fixed, and
its test states the behaviour."""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

_STRUCT_AND_SCALARS = r"""
struct rope_corr_dims {
    float v[2];
};

// ggml's rope_neox passes a struct by value beside nine scalars by value
__global__ void ramp(const float * x, float * dst, const int n, const float ext_factor,
                     const rope_corr_dims corr_dims) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = x[i] * ext_factor + corr_dims.v[0] - corr_dims.v[1];
}
"""


def _struct_and_scalars(**given) -> KernelSpec:
    return KernelSpec(
        id="r26_struct_and_scalars",
        entry_point="ramp",
        sources={"cuda": _STRUCT_AND_SCALARS},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="dst"),
            BufferSpec.uniform(2, (("v", "array<f32, 2>"),), name="corr_dims"),
        ),
        reference=lambda x, dst, corr_dims, ext_factor: (
            x * ext_factor + corr_dims["v"].ravel()[0] - corr_dims["v"].ravel()[1]
        ),
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        **given,
    )


def test_a_struct_by_value_beside_scalars_by_value_takes_the_scalars_from_params():
    """A CUDA kernel whose one struct parameter is the uniform block and whose other
    scalars are by value (ggml's ``rope_neox``: ``const rope_corr_dims corr_dims``
    among nine ints and floats) gets the struct from the uniform and each scalar from
    ``defaults``/``params(size)`` by name, as a kernel without a uniform block does.
    Round 26 found any ``defaults``/``params`` value that is no field of the uniform
    refused ("unknown uniform fields ['ext_factor']"), so the struct and the scalars
    could not both be given; a value named like a CUDA parameter by value is no
    mistake now."""
    from forge._bindings import pack_uniform
    from forge.arguments import cuda_arguments

    kernel = _struct_and_scalars(defaults={"v": (2.0, 8.0), "ext_factor": 0.5})
    args = cuda_arguments(kernel, "ramp", None, _STRUCT_AND_SCALARS, size=kernel.size(1000))
    assert args[:3] == (("buffer", 0), ("buffer", 1), ("value", ("n", np.int32(1000).tobytes())))
    assert args[3] == ("value", ("ext_factor", np.float32(0.5).tobytes()))
    assert args[4] == ("uniform", None)
    record = pack_uniform(kernel, 1000)
    assert tuple(record["v"].ravel()) == (2.0, 8.0)
