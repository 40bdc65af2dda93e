"""Samplers: a WGSL kernel that reads a ``texture_2d<f32>`` with ``textureSampleLevel``
through a ``sampler`` the kernel declares (``KernelSpec(samplers=(SamplerSpec(binding,
Sampler(...)),))``) is checked like any other, the sampler made with the declared
filter and address mode on wgpu (lavapipe in CI) and in the browser (SwiftShader).

A nearest sampler is judged exactly; a linear one within the error its weights' precision
makes (``Expected.filtering_bound``: lavapipe, like NVIDIA, filters rgba8unorm with 8-bit
weights), and exactly where the weights are exact in 8 bits, so a kernel one code off
there still fails. An undeclared sampler is an error naming the declaration to add; a
linear sampler over r32float (not filterable in WebGPU's core) is unsupported, saying
so. Images are small: this file runs in seconds."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Sampler, SamplerSpec, Schedule, Size, ceil_div
from forge.errors import InvalidArgument
from forge.textures import _WEIGHTS, filters_in_codes, sample
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests._webgpu_contexts import (  # noqa: F401  (fixtures)
    close_webgpu_contexts,
    ctx,
    webgpu_context,
)


@pytest.fixture
def wgpu(request):
    """wgpu alone, for what the backends share (the declarations' checks, the address
    modes past the first): the browser's page is opened only where its own code runs."""
    require_available(request.config, "wgpu")
    return webgpu_context("wgpu")


# Each invocation samples its texel's position scaled and moved (``SCALE``, ``SHIFT``), so
# that reads fall outside the image (the address mode decides what they read) and between
# texels (the filter decides); ``EXTRA`` is added to what is stored (a wrong kernel).
_RESAMPLE = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<{fmt}, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let size = textureDimensions(dst);
    if (gid.x >= size.x || gid.y >= size.y) {{ return; }}
    let uv = (vec2<f32>(gid.xy) + vec2<f32>({dx}, {dy})) / vec2<f32>(size) * {scale} - {shift};
    textureStore(dst, vec2<i32>(gid.xy), textureSampleLevel(src, samp, uv, 0.0){extra});
}}
"""


def _resample(
    sampler: Sampler,
    *,
    fmt: str = "rgba8unorm",
    offset: tuple[float, float] = (0.3, 0.65),
    scale: float = 2.0,
    shift: float = 0.4,
    extra: str = "",
    reference_sampler: Sampler | None = None,
    by_hand: bool = False,
    samplers: tuple | None = None,
    reference_offset: tuple[float, float] | None = None,
) -> KernelSpec:
    seen_as = reference_sampler or sampler
    seen_at = reference_offset or offset

    def reference(src, dst):
        height, width = dst.shape[:2]
        y, x = np.mgrid[0:height, 0:width]
        uv = np.stack(
            [(x + seen_at[0]) / width * scale - shift, (y + seen_at[1]) / height * scale - shift],
            -1,
        )
        if by_hand:  # bilinear, clamped, as a user's own reference would filter
            px, py = uv[..., 0] * src.shape[1] - 0.5, uv[..., 1] * src.shape[0] - 0.5
            x0, y0 = np.floor(px).astype(int), np.floor(py).astype(int)
            a, b = (px - x0)[..., None], (py - y0)[..., None]

            def at(j, i):
                return src[np.clip(j, 0, src.shape[0] - 1), np.clip(i, 0, src.shape[1] - 1)]

            top = (1 - a) * at(y0, x0) + a * at(y0, x0 + 1)
            bottom = (1 - a) * at(y0 + 1, x0) + a * at(y0 + 1, x0 + 1)
            dst[...] = (1 - b) * top + b * bottom
        else:
            dst[...] = sample(src, uv, seen_as)
        if extra:
            dst[...] += 1.0 / 255.0

    source = _RESAMPLE.format(
        fmt=fmt, dx=offset[0], dy=offset[1], scale=scale, shift=shift, extra=extra
    )
    return KernelSpec(
        id="resample",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, name="src", texture=fmt, shape=("H", "W")),
            BufferSpec(2, access="read_write", name="dst", texture=fmt, shape=("H", "W")),
        ),
        samplers=(SamplerSpec(1, sampler, name="samp"),) if samplers is None else samplers,
        reference=reference,
        dims=("H", "W"),
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8)),),
    )


def _evaluate(ctx, kernel, height=11, width=13):
    return oracle.evaluate(ctx, kernel, size=Size({"H": height, "W": width}), samples=0)


# -- the declared state is the state bound ------------------------------------------------


def test_a_nearest_sampler_reads_the_texel_its_address_mode_says(ctx):
    ev = _evaluate(ctx, _resample(Sampler("nearest", "mirror")))
    assert ev.verdict is Verdict.PASS, ev.report()


@pytest.mark.parametrize("address", ["clamp", "repeat"])
def test_each_address_mode_is_the_one_bound(wgpu, address):
    ev = _evaluate(wgpu, _resample(Sampler("nearest", address)))
    assert ev.verdict is Verdict.PASS, ev.report()


def test_a_sampler_declared_with_another_address_mode_than_the_kernel_is_made_with_fails(wgpu):
    # the same WGSL as the test before: a pipeline cached by its source alone kept the
    # first sampler's state
    kernel = _resample(Sampler("nearest", "repeat"), reference_sampler=Sampler("nearest", "clamp"))
    ev = _evaluate(wgpu, kernel)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_a_nearest_sampler_over_r32float_is_bound_non_filtering(ctx):
    ev = _evaluate(ctx, _resample(Sampler("nearest", "mirror"), fmt="r32float"))
    assert ev.verdict is Verdict.PASS, ev.report()


# -- linear filtering: the weights' precision, and no more ---------------------------------


@pytest.mark.parametrize("by_hand", [False, True], ids=["forge-sample", "by-hand"])
def test_a_linear_sampler_passes_within_its_weights_precision(ctx, by_hand):
    # lavapipe filters rgba8unorm with 8-bit weights: one code off the float64 blend here
    ev = _evaluate(ctx, _resample(Sampler("linear", "clamp"), by_hand=by_hand))
    assert ev.verdict is Verdict.PASS, ev.report()


def test_a_linear_read_a_sixteenth_of_a_texel_off_fails(wgpu):
    wrong = _resample(
        Sampler("linear", "clamp"), offset=(0.3 + 1 / 16, 0.65), reference_offset=(0.3, 0.65)
    )
    ev = _evaluate(wgpu, wrong)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


def test_at_exact_weights_a_linear_read_one_code_off_fails(ctx):
    # quarter texels (the image blur's sample points): weights exact in 8 bits, no
    # filtering error allowed; the reference adds the code too, the kernel does not
    right = _resample(Sampler("linear", "clamp"), offset=(0.25, 0.75), scale=1.0, shift=0.0)
    assert _evaluate(ctx, right).verdict is Verdict.PASS
    off = _resample(
        Sampler("linear", "clamp"), offset=(0.25, 0.75), scale=1.0, shift=0.0, extra=" "
    )
    ev = _evaluate(ctx, off)
    assert ev.verdict is Verdict.MISMATCH, ev.report()


# -- what is refused, and how ---------------------------------------------------------------


def test_an_undeclared_sampler_is_an_error_naming_the_declaration_to_add(ctx):
    ev = _evaluate(ctx, _resample(Sampler(), samplers=()))
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert ev.error_type == "InvalidArgument", ev.report()
    assert "`samp: sampler` at @group(0) @binding(1)" in ev.error, ev.error
    assert "samplers=(SamplerSpec(1, Sampler(filter=" in ev.error, ev.error
    assert "name='samp'" in ev.error, ev.error


def test_a_sampler_declared_where_the_wgsl_binds_none_is_an_error(wgpu):
    extra = (SamplerSpec(1, Sampler(), name="samp"), SamplerSpec(3, Sampler(), name="other"))
    ev = _evaluate(wgpu, _resample(Sampler(), samplers=extra))
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "sampler other at @group(0) @binding(3)" in ev.error, ev.error


def test_unnormalised_coordinates_are_refused_for_wgsl(wgpu):
    ev = _evaluate(wgpu, _resample(Sampler("nearest", normalized=False)))
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "normalised coordinates" in ev.error, ev.error


def test_a_linear_sampler_over_an_unfilterable_format_is_unsupported_saying_why(ctx):
    ev = _evaluate(ctx, _resample(Sampler("linear"), fmt="r32float"))
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "float32-filterable" in ev.error and "`src` (r32float)" in ev.error, ev.error


# -- no device ------------------------------------------------------------------------------


def test_sampler_state_and_bindings_are_checked():
    with pytest.raises(InvalidArgument, match="filter"):
        Sampler(filter="cubic")
    with pytest.raises(InvalidArgument, match="address"):
        Sampler(address="border")
    with pytest.raises(InvalidArgument, match="shares a"):
        _resample(Sampler(), samplers=(SamplerSpec(2, Sampler()),))
    with pytest.raises(InvalidArgument, match="read-only texture"):
        BufferSpec(0, "f32", name="x", sampler=Sampler())
    kernel = _resample(Sampler("linear"))
    assert kernel.describe()["samplers"] == [
        {"binding": 1, "group": 0, "name": "samp", "filter": "linear", "address": "clamp"}
        | {"normalized": True}
    ]
    assert kernel.describe() != _resample(Sampler("nearest")).describe()


def test_sample_filters_and_wraps_as_webgpu_defines():
    texels = np.arange(12.0).reshape(3, 4)
    centres = np.array([[0.5 / 4, 0.5 / 3], [3.5 / 4, 2.5 / 3]])
    np.testing.assert_array_equal(sample(texels, centres, Sampler("linear")), [0.0, 11.0])
    # a quarter texel up and left of texel (1, 1): 0.75 of it, 0.25 of each neighbour
    quarter = np.array([[1.25 / 4, 1.25 / 3]])
    want = 0.75 * (0.75 * 5 + 0.25 * 4) + 0.25 * (0.75 * 1 + 0.25 * 0)
    np.testing.assert_allclose(sample(texels, quarter, Sampler("linear")), [want])
    outside = np.array([[-0.1, 0.5], [1.1, 0.5]])  # x of -0.4 and 4.4 texels
    np.testing.assert_array_equal(sample(texels, outside, Sampler("nearest", "clamp")), [4, 7])
    np.testing.assert_array_equal(sample(texels, outside, Sampler("nearest", "repeat")), [7, 4])
    np.testing.assert_array_equal(sample(texels, outside, Sampler("nearest", "mirror")), [4, 7])
    texel_units = Sampler("nearest", normalized=False)
    np.testing.assert_array_equal(sample(texels, np.array([[2.5, 1.5]]), texel_units), [6])


def test_the_oracle_rounds_sample_weights_to_eight_bits_only_when_asked():
    texels = np.array([[0.0, 1.0]])
    point = np.array([[(0.5 + 0.3) / 2, 0.5]])  # a weight of 0.3: 76.8 / 256
    calls: list = []
    assert sample(texels, point, Sampler("linear"))[0] == pytest.approx(0.3)
    token = _WEIGHTS.set(("floor", calls))
    try:
        assert sample(texels, point, Sampler("linear"))[0] == 76 / 256
        # a quarter texel in normalised coordinates reaches the device as a float32
        # quotient, which a texture unit truncating to 8 bits may take a step down
        # (a CUDA blur on the H100, 2026-12-06); in texels it is exact
        quarter = np.array([[(0.5 + 0.25) / 2, 0.5]])
        assert sample(texels, quarter, Sampler("linear"))[0] == 63 / 256
        in_texels = np.array([[0.5 + 0.25, 0.5]])
        assert sample(texels, in_texels, Sampler("linear", normalized=False))[0] == 0.25
    finally:
        _WEIGHTS.reset(token)
    assert len(calls) == 3


# -- llvmpipe blends 8-bit unorm texels in codes ------------------------------------------

_FLOAT_READ = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {{ return; }}
    let uv = (vec2<f32>(gid.xy) + vec2<f32>(0.37, 0.61)) / vec2<f32>(size) * 0.9 + 0.03;
    out[gid.y * size.x + gid.x] = textureSampleLevel(src, samp, uv, 0.0){extra};
}}
"""


def _smooth_codes(rng, count, size):
    """A smooth image of codes (neighbours one to three codes apart), as photographs and
    rendered frames are: the weights' 8 bits move a blend of such texels by a hundredth
    of a code, llvmpipe's roundings by up to one."""
    y, x = np.mgrid[0 : int(size.H), 0 : int(size.W)]
    base = 128 + 60 * np.sin(x / 7.0) + 50 * np.cos(y / 9.0)
    wobble = (x[..., None] * 7 + y[..., None] * 13 + np.arange(4) * 5) % 2  # no draw
    codes = np.rint(base[..., None] + np.arange(4) * 11 + wobble)
    return (np.clip(codes, 0, 255) / 255.0).astype(np.float32).reshape(-1)[:count]


def _float_read(extra: str = "") -> KernelSpec:
    def reference(src, out):
        height, width = src.shape[:2]
        y, x = np.mgrid[0:height, 0:width]
        uv = np.stack([(x + 0.37) / width * 0.9 + 0.03, (y + 0.61) / height * 0.9 + 0.03], -1)
        out[...] = sample(src, uv, Sampler("linear", "clamp")).reshape(-1, 4)

    return KernelSpec(
        id="float_read",
        entry_point="main",
        sources={"wgsl": _FLOAT_READ.format(extra=extra)},
        buffers=(
            BufferSpec(0, name="src", texture="rgba8unorm", shape=("H", "W"), fill=_smooth_codes),
            BufferSpec(2, "vec4<f32>", "read_write", name="out", count=lambda s: s.H * s.W),
        ),
        samplers=(SamplerSpec(1, Sampler("linear", "clamp"), name="samp"),),
        reference=reference,
        dims=("H", "W"),
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8)),),
    )


def test_sample_in_codes_is_what_lavapipe_returns(wgpu):
    """forge.textures' "codes" mode (8-bit weights, each blend of two rounded to a code,
    half up) is what llvmpipe returns for every read of a smooth rgba8unorm image, bit
    for bit; the exact blend is up to a code away (the kernel's outputs are taken from
    a run judged against a reference 9 codes off, which fails and keeps them)."""
    ev = _evaluate(wgpu, _float_read(" + 9.0 / 255.0"), height=37, width=29)
    if not filters_in_codes(ev.adapter.name if ev.adapter else ""):
        pytest.skip(f"not an adapter that filters in codes: {ev.adapter}")
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    got = np.asarray(ev.got["out"], np.float64).reshape(37, 29, 4) - 9.0 / 255.0
    texels = _smooth_codes(None, 37 * 29 * 4, Size({"H": 37, "W": 29}))
    texels = texels.reshape(37, 29, 4).astype(np.float64)
    y, x = np.mgrid[0:37, 0:29]
    uv = np.stack([(x + 0.37) / 29 * 0.9 + 0.03, (y + 0.61) / 37 * 0.9 + 0.03], -1)
    token = _WEIGHTS.set(("codes", []))
    try:
        codes = sample(texels, uv, Sampler("linear", "clamp"))
    finally:
        _WEIGHTS.reset(token)
    assert np.abs(got - codes).max() * 255 < 1e-3
    assert np.abs(got - sample(texels, uv, Sampler("linear", "clamp"))).max() * 255 > 0.3


def test_a_float_read_of_a_smooth_unorm_image_passes_where_blends_are_codes(ctx):
    """A right kernel's float reads of a smooth rgba8unorm image: on lavapipe up to a
    code from the exact blend, which the weights' 8 bits alone (a hundredth of a code
    here) did not allow; on SwiftShader within float32 of it."""
    ev = _evaluate(ctx, _float_read(), height=37, width=29)
    assert ev.verdict is Verdict.PASS, ev.report()


@pytest.mark.parametrize("codes", ["2.0", "0.5"])
def test_a_float_read_off_by_codes_fails(ctx, codes):
    """Half a code off fails on lavapipe too: the bound there is what its own roundings
    move each read (exactly what it returns), not a code everywhere."""
    ev = _evaluate(ctx, _float_read(f" + {codes} / 255.0"), height=37, width=29)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
