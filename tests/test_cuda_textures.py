"""CUDA texture and surface objects (``cudaTextureObject_t``, ``cudaSurfaceObject_t``):
the backend makes them over the kernel's buffers with the driver API
(backends/cuda/_textures.py) as the host's ``cudaCreateTextureObject`` would: a 1-D
texture over a plain buffer's memory (``tex1Dfetch``), a 2-D one over an array copied
from a texture buffer with the buffer's declared ``Sampler`` (``tex2D``), and a surface
over an array copied back into its buffer after the launches (``surf2Dwrite``).

Each kernel compiles with NVRTC here (no GPU needed, as CI runs it) and is checked on
the GPU under ``--require-backend cuda`` (a missing backend is a visible skip):
``pytest tests/test_cuda_textures.py --require-backend cuda``. The image blur's CUDA
twin reads through a linear filter at quarter texels with normalised coordinates, as
webgpu-samples' blur.wgsl does (tests/wild/round60.py)."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Sampler, Schedule, ceil_div
from forge.textures import sample
from oracle import Verdict
from oracle.pytest_plugin import require_available

# -- tex1Dfetch over a plain buffer ----------------------------------------------------------

_FETCH = r"""
extern "C" __global__ void scale_fetch(cudaTextureObject_t x, float* y, int n, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale * tex1Dfetch<float>(x, i);
}
"""

FETCH = KernelSpec(
    id="cuda_tex1dfetch_scale",
    entry_point="scale_fetch",
    sources={"cuda": _FETCH},
    buffers=(BufferSpec(0, "f32", "read", name="x"), BufferSpec(1, "f32", "read_write", name="y")),
    reference=lambda x, y, scale: (np.float32(scale) * x).astype(np.float32),
    defaults={"scale": np.float32(2.5)},
    grid=lambda s, n: (ceil_div(n, 128), 1, 1),
    schedules=(Schedule(128),),
    test_sizes=(1000, 4099),
)

# -- tex2D, point filtered, coordinates in texels ------------------------------------------

_POINT = r"""
extern "C" __global__ void shifted_copy(cudaTextureObject_t img, float* out, int H, int W)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    // two texels left and one up of the texel, clamped at the edges by the texture
    out[y * W + x] = tex2D<float>(img, x - 1.5f, y - 0.5f);
}
"""

_POINT_SAMPLER = Sampler("nearest", "clamp", normalized=False)


def _shifted(img, out):
    height, width = out.shape
    y, x = np.mgrid[0:height, 0:width]
    at = np.stack([x - 1.5, y - 0.5], axis=-1)
    return sample(img, at, _POINT_SAMPLER).astype(np.float32)


def _image_grid(s, size):
    return (ceil_div(size.W, 16), ceil_div(size.H, 16), 1)


POINT = KernelSpec(
    id="cuda_tex2d_point_shifted_copy",
    entry_point="shifted_copy",
    sources={"cuda": _POINT},
    buffers=(
        BufferSpec(0, name="img", texture="r32float", shape=("H", "W"), sampler=_POINT_SAMPLER),
        BufferSpec(1, "f32", "read_write", name="out", shape=("H", "W")),
    ),
    reference=_shifted,
    dims=("H", "W"),
    grid=_image_grid,
    schedules=(Schedule((16, 16)),),
    test_sizes=("H=41,W=67",),
)

# -- surf2Dwrite into a texture buffer -------------------------------------------------------

_SURFACE = r"""
extern "C" __global__ void write_surface(const float* src, cudaSurfaceObject_t dst, int H, int W)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    // a surface is addressed in bytes along x
    surf2Dwrite(src[y * W + x] * 0.5f + 1.0f, dst, x * (int)sizeof(float), y);
}
"""

SURFACE = KernelSpec(
    id="cuda_surf2dwrite",
    entry_point="write_surface",
    sources={"cuda": _SURFACE},
    buffers=(
        BufferSpec(0, "f32", "read", name="src", shape=("H", "W")),
        BufferSpec(1, access="read_write", name="dst", texture="r32float", shape=("H", "W")),
    ),
    reference=lambda src, dst: (src * np.float32(0.5) + np.float32(1.0)).astype(np.float32),
    dims=("H", "W"),
    grid=_image_grid,
    schedules=(Schedule((16, 16)),),
    test_sizes=("H=41,W=67",),
)

# -- the image blur's CUDA twin: tex2D<float4>, linear, normalised ----------------------------

_BLUR = r"""
extern "C" __global__ void blur_rows(cudaTextureObject_t inputTex, float* out, int H, int W,
                                     int filterDim)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    int reach = (filterDim - 1) / 2;
    float3 sum = make_float3(0.0f, 0.0f, 0.0f);
    for (int tap = 0; tap < filterDim; ++tap) {
        // a quarter texel short of the centre, as blur.wgsl samples
        float u = ((float)(x + tap - reach) + 0.25f) / (float)W;
        float v = ((float)y + 0.25f) / (float)H;
        float4 c = tex2D<float4>(inputTex, u, v);
        float w = 1.0f / (float)filterDim;
        sum.x += w * c.x;
        sum.y += w * c.y;
        sum.z += w * c.z;
    }
    float* o = out + 4 * (y * W + x);
    o[0] = sum.x;
    o[1] = sum.y;
    o[2] = sum.z;
    o[3] = 1.0f;
}
"""

_LINEAR = Sampler("linear", "clamp", normalized=True)


def _blur(inputTex, out, filterDim):
    height, width = inputTex.shape[:2]
    y, x = np.mgrid[0:height, 0:width]
    half = (int(filterDim) - 1) // 2
    weight = np.float32(1.0) / np.float32(filterDim)
    total = np.zeros((height, width, 3), np.float32)
    for tap in range(int(filterDim)):
        uv = np.stack([(x + tap - half + 0.25) / width, (y + 0.25) / height], axis=-1)
        total = total + weight * sample(inputTex, uv, _LINEAR)[..., :3].astype(np.float32)
    result = np.ones((height, width, 4), np.float32)
    result[..., :3] = total
    return result


BLUR = KernelSpec(
    id="cuda_tex2d_linear_image_blur",
    entry_point="blur_rows",
    sources={"cuda": _BLUR},
    buffers=(
        BufferSpec(0, name="inputTex", texture="rgba8unorm", shape=("H", "W"), sampler=_LINEAR),
        BufferSpec(1, "f32", "read_write", name="out", shape=("H", "W", 4)),
    ),
    reference=_blur,
    defaults={"filterDim": 15},
    dims=("H", "W"),
    grid=_image_grid,
    schedules=(Schedule((16, 16)),),
    test_sizes=("H=41,W=67",),
)

KERNELS = {k.id: k for k in (FETCH, POINT, SURFACE, BLUR)}


def _mutant(kernel: KernelSpec, old: str, new: str) -> KernelSpec:
    source = kernel.sources["cuda"]
    assert old in source
    return KernelSpec(
        **{
            **{f: getattr(kernel, f) for f in kernel.__dataclass_fields__},
            "id": kernel.id + "_mutant",
            "sources": {"cuda": source.replace(old, new)},
            "body": None,
        }
    )


#: A wrong kernel for each: the GPU must fail it.
MUTANTS = {
    "fetch one element on": (FETCH, "tex1Dfetch<float>(x, i)", "tex1Dfetch<float>(x, i + 1)"),
    "point read a texel off": (POINT, "x - 1.5f, y - 0.5f", "x - 0.5f, y - 0.5f"),
    "surface fed the source transposed": (SURFACE, "src[y * W + x]", "src[x * H + y]"),
    "blur sampled at the centre": (BLUR, "+ 0.25f) / (float)W", "+ 0.5f) / (float)W"),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_each_texture_kernel_compiles_with_nvrtc_and_binds_its_objects(name):
    """No GPU needed: the kernel compiles as the CUDA context builds it, and each launch
    passes a 64-bit object where the PTX declares its texture or surface parameter."""
    from backends.cuda._modules import check_steps, module_build

    kernel = KERNELS[name]
    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    image, names, entries = module_build(kernel, steps, source, "sm_90").build()
    assert image and kernel.entry_point in names
    check_steps(kernel, steps, entries, source)
    assert any(kind in ("texture", "surface") for kind, _ in steps[0].arguments)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_texture_kernel_passes_on_the_gpu(request, name):
    require_available(request.config, "cuda")
    ev = oracle.evaluate("cuda", KERNELS[name], samples=0)
    assert ev.verdict is Verdict.PASS, ev.report()


@pytest.mark.parametrize("what", sorted(MUTANTS), ids=lambda what: what.replace(" ", "_"))
def test_a_wrong_texture_kernel_fails_on_the_gpu(request, what):
    require_available(request.config, "cuda")
    kernel, old, new = MUTANTS[what]
    ev = oracle.evaluate("cuda", _mutant(kernel, old, new), samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_each_wrong_texture_kernel_compiles_with_nvrtc():
    """The mutants the GPU must fail are kernels NVRTC takes (no GPU needed)."""
    from backends.cuda._modules import module_build

    for kernel, old, new in MUTANTS.values():
        wrong = _mutant(kernel, old, new)
        schedule, size = wrong.schedules[0], wrong.largest_size()
        source = wrong.source("cuda", schedule, size)
        steps = wrong.steps("cuda", schedule, size, 2**31 - 1, source)
        assert module_build(wrong, steps, source, "sm_90").build()[0]
