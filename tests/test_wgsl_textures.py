"""Texture bindings: a kernel whose WGSL reads a ``texture_2d`` with ``textureLoad`` and
writes a ``texture_storage_2d`` with ``textureStore`` is checked like any other, its
textures held in buffers (``BufferSpec(texture=FORMAT, shape=(H, W))``, texels
row-major and tightly packed) that the wgpu backend copies into textures before the
launches and back after. Each format round-trips at widths whose rows are not a
multiple of 256 bytes (copied a row at a time) and at one whose rows are; an rgba8unorm
output is judged by Vulkan's float-to-unorm rule (either of the two nearest bytes,
the exact one for an integer) and no looser, so a wrong kernel still fails; a wrong
declaration is a typed error that leaves the context and its buffers as they were.
Each test runs on wgpu (lavapipe in CI) and in the browser (SwiftShader), a missing
backend a visible skip. Images are small: this file runs in seconds."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, KernelSpec, Schedule, Size, ceil_div
from forge.errors import InvalidArgument
from forge.textures import unorm8_codes, unorm8_values
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests._webgpu_contexts import close_webgpu_contexts, ctx  # noqa: F401  (fixtures)

_WG = (8, 8)


def _grid(schedule, size):
    return (ceil_div(size.dims["W"], 8), ceil_div(size.dims["H"], 8), 1)


def _image(kid: str, source: str, buffers: tuple, reference, **extra) -> KernelSpec:
    return KernelSpec(
        id=kid,
        entry_point="main",
        sources={"wgsl": source},
        buffers=buffers,
        reference=reference,
        dims=("H", "W"),
        grid=_grid,
        schedules=(Schedule(_WG),),
        **extra,
    )


def _tex(binding: int, fmt: str, access: str = "read", name: str = "", **extra) -> BufferSpec:
    return BufferSpec(binding, access=access, name=name, texture=fmt, shape=("H", "W"), **extra)


def _size(height: int, width: int) -> Size:
    return Size({"H": height, "W": width})


def _evaluate(ctx, kernel, height=5, width=13, samples=0):
    return oracle.evaluate(ctx, kernel, size=_size(height, width), samples=samples)


# -- every format round-trips ------------------------------------------------------------

_COPY = """
@group(0) @binding(0) var src: texture_2d<{sampled}>;
@group(0) @binding(1) var dst: texture_storage_2d<{fmt}, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {{ return; }}
    textureStore(dst, vec2<i32>(gid.xy), textureLoad(src, vec2<i32>(gid.xy), 0));
}}
"""

_FORMATS = {
    "r32float": "f32",
    "r32uint": "u32",
    "rgba32float": "f32",
    "rgba32uint": "u32",
    "rgba16float": "f32",
    "rgba8uint": "u32",
    "rgba8unorm": "f32",
}


# rows of 13 texels are copied a row at a time (not a multiple of 256 bytes); rows of 64
# rgba8 texels (256 bytes) and of 16 rgba32float ones (256) in one copy
_ROUND_TRIPS = [(fmt, 13) for fmt in sorted(_FORMATS)] + [("rgba8unorm", 64), ("rgba32float", 16)]


@pytest.mark.parametrize("fmt, width", _ROUND_TRIPS)
def test_each_format_round_trips_through_a_texture(ctx, fmt, width):
    kernel = _image(
        f"copy_{fmt}",
        _COPY.format(sampled=_FORMATS[fmt], fmt=fmt),
        (_tex(0, fmt, name="src"), _tex(1, fmt, "read_write", name="dst")),
        lambda src: src.copy(),
        domain={"src": (-4.0, 4.0)} if fmt in ("r32float", "rgba32float", "rgba16float") else {},
        nonfinite_inputs=False,
    )
    ev = _evaluate(ctx, kernel, height=5, width=width, samples=2)
    assert ev.verdict is Verdict.PASS, ev.report()
    assert len(ev.timing.samples_ns) == 2, ev.report()  # the dispatches are timed


_BYTES = """
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    dst[gid.y * size.x + gid.x] = textureLoad(src, vec2<i32>(gid.xy), 0).r * 3u + 1u;
}
"""


@pytest.mark.parametrize("width", [13, 256])
def test_a_one_byte_texture_is_read_as_u32s(ctx, width):
    """r8uint (round 79: a CUDA host's ``cudaCreateChannelDesc<unsigned char>()``
    array, cuda-samples' SobelFilter), which WebGPU's core makes no storage texture of:
    made as a texture_2d only, one byte a texel, rows of 13 bytes copied a row at a
    time and rows of 256 in one copy."""
    kernel = _image(
        "bytes_r8uint",
        _BYTES,
        (
            _tex(0, "r8uint", name="src"),
            BufferSpec(1, "u32", "read_write", name="dst", shape=("H", "W")),
        ),
        lambda src, dst: src.astype(np.uint32) * 3 + 1,
    )
    assert kernel.buffers[0].element == "u8" and kernel.buffers[0].shape == ("H", "W")
    ev = _evaluate(ctx, kernel, height=5, width=width)
    assert ev.verdict is Verdict.PASS, ev.report()
    wrong = _image(
        "bytes_r8uint_wrong",
        _BYTES.replace("* 3u + 1u", "* 3u"),
        kernel.buffers,
        kernel.reference,
    )
    assert _evaluate(ctx, wrong, height=5, width=width).verdict is Verdict.MISMATCH


def test_a_one_byte_storage_texture_is_unsupported_saying_why(ctx):
    kernel = _image(
        "bytes_r8uint_storage",
        _COPY.format(sampled="u32", fmt="r8uint"),
        (_tex(0, "r8uint", name="src"), _tex(1, "r8uint", "read_write", name="dst")),
        lambda src, dst: src.copy(),
    )
    ev = _evaluate(ctx, kernel)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "makes no storage texture of r8uint" in (ev.error or ev.report()), ev.report()


_DIMENSIONS = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32uint, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(dst);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    let other = textureDimensions(src);
    textureStore(dst, vec2<i32>(gid.xy), vec4<u32>(size.x * 1000u + other.y, 0u, 0u, 0u));
}
"""


def test_texture_dimensions_are_the_declared_extent(ctx):
    def reference(src, H, W):
        return np.full((H, W), W * 1000 + H, np.uint32)

    kernel = _image(
        "dimensions",
        _DIMENSIONS,
        (_tex(0, "rgba8unorm", name="src"), _tex(1, "r32uint", "read_write", name="dst")),
        reference,
    )
    ev = _evaluate(ctx, kernel, height=7, width=19)
    assert ev.verdict is Verdict.PASS, ev.report()


_READ_WRITE = """
@group(0) @binding(0) var img: texture_storage_2d<r32float, read_write>;
@group(0) @binding(1) var gain: texture_storage_2d<r32float, read>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(img);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    let p = vec2<i32>(gid.xy);
    textureStore(img, p, textureLoad(img, p) * textureLoad(gain, p).x);
}
"""


def test_read_write_and_read_storage_textures(ctx):
    kernel = _image(
        "in_place_gain",
        _READ_WRITE,
        (
            _tex(0, "r32float", "read_write", name="img", inout=True),
            _tex(1, "r32float", name="gain"),
        ),
        lambda img, gain: img * gain,
        domain={"img": (-8.0, 8.0), "gain": (-2.0, 2.0)},
        nonfinite_inputs=False,
    )
    ev = _evaluate(ctx, kernel, height=9, width=11)
    assert ev.verdict is Verdict.PASS, ev.report()


def test_a_read_write_texture_of_a_format_webgpu_does_not_allow_so_is_unsupported(ctx):
    kernel = _image(
        "rw_unorm",
        _READ_WRITE.replace("r32float, read_write", "rgba8unorm, read_write"),
        (
            _tex(0, "rgba8unorm", "read_write", name="img", inout=True),
            _tex(1, "r32float", name="gain"),
        ),
        lambda img, gain: img,
    )
    ev = _evaluate(ctx, kernel)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "unsupported, because WebGPU allows read_write access only to" in ev.error


# -- rgba8unorm is judged by the conversion rule -------------------------------------------

_SCALE = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    let c = textureLoad(src, vec2<i32>(gid.xy), 0);
    textureStore(dst, vec2<i32>(gid.xy), STORED);
}
"""


def _scaled(stored: str) -> KernelSpec:
    """src scaled by 0.3, as the reference stores it (the floats, before the device
    converts them), with the kernel storing ``stored``."""
    return _image(
        "unorm_scale",
        _SCALE.replace("STORED", stored),
        (_tex(0, "rgba8unorm", name="src"), _tex(1, "rgba8unorm", "read_write", name="dst")),
        lambda src: src * np.float32(0.3),
    )


@pytest.mark.parametrize(
    "stored, passes", [("c", True), ("c + 1.0 / 255.0", False), ("c - 1.0 / 255.0", False)]
)
def test_a_copied_byte_one_code_off_fails(ctx, stored, passes):
    """A copy's floats are exact (the float64 reference agrees), so no tolerance
    widens the codes allowed for them: one code up or down fails, though ``255 *
    k / 255`` is within f32's tolerance of a whole number everywhere."""
    kernel = _image(
        "unorm_copy",
        _SCALE.replace("STORED", stored),
        (_tex(0, "rgba8unorm", name="src"), _tex(1, "rgba8unorm", "read_write", name="dst")),
        lambda src: src.copy(),
    )
    ev = _evaluate(ctx, kernel, height=6, width=21)
    assert (ev.verdict is Verdict.PASS) is passes, ev.report()


def test_unorm_codes_are_the_two_nearest_and_the_exact_one_for_an_integer():
    low, high = unorm8_codes(np.array([0.5, 1 / 255 * 3, -1.0, 2.0, np.nan]))
    assert low.tolist() == [127, 3, 0, 255, 0]
    assert high.tolist() == [128, 3, 0, 255, 255]  # NaN: unspecified, any byte
    assert unorm8_values(np.array([255], np.uint8)).tolist() == [1.0]


@pytest.mark.parametrize(
    "stored, passes",
    [
        ("c * 0.3", True),
        # a device that rounds toward zero: the lower of the two nearest codes, right
        ("floor(c * 0.3 * 255.0) / 255.0", True),
        ("ceil(c * 0.3 * 255.0) / 255.0", True),
        # one code further is no conversion the rule allows
        ("(floor(c * 0.3 * 255.0) - 1.0) / 255.0", False),
        ("c * 0.3 + 1.0 / 255.0", False),  # one code up: no rounding makes it
        ("c.bgra * 0.3", False),  # channels swapped
        ("c * 0.31", False),  # a wrong weight
    ],
)
def test_an_rgba8unorm_output_accepts_the_conversions_the_rule_allows_and_no_more(
    ctx, stored, passes
):
    ev = _evaluate(ctx, _scaled(stored), height=6, width=21)
    assert (ev.verdict is Verdict.PASS) is passes, ev.report()
    if not passes:
        assert ev.verdict is Verdict.MISMATCH, ev.report()


# -- wrong declarations are typed errors, and nothing is lost ------------------------------

_BUFFER_NOT_TEXTURE = """
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(dst);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    textureStore(dst, vec2<i32>(gid.xy), vec4<f32>(src[gid.y * size.x + gid.x]));
}
"""


def _copy_r32(source: str, src: BufferSpec, dst: BufferSpec) -> KernelSpec:
    return _image("bad_declaration", source, (src, dst), lambda src: src.copy())


@pytest.mark.parametrize(
    "source, src, dst, message",
    [
        (
            _BUFFER_NOT_TEXTURE,
            _tex(0, "r32float", name="src"),
            _tex(1, "r32float", "read_write", name="dst"),
            "is a r32float texture, but the WGSL declares `src` there as",
        ),
        (
            _COPY.format(sampled="f32", fmt="rgba8unorm"),
            _tex(0, "rgba8unorm", name="src"),
            _tex(1, "rgba32float", "read_write", name="dst"),
            "of format rgba8unorm, but the kernel's texture is rgba32float",
        ),
        (
            _COPY.format(sampled="f32", fmt="r32uint"),
            _tex(0, "r32uint", name="src"),
            _tex(1, "r32uint", "read_write", name="dst"),
            "but a r32uint texture is read as texture_2d<u32>",
        ),
        (
            _COPY.format(sampled="f32", fmt="r32float"),
            BufferSpec(0, "f32", "read", name="src", shape=("H", "W")),
            _tex(1, "r32float", "read_write", name="dst"),
            "texture='rgba8unorm', shape=(height, width)",
        ),
    ],
)
def test_a_wrong_texture_declaration_is_a_typed_error(ctx, source, src, dst, message):
    ev = _evaluate(ctx, _copy_r32(source, src, dst))
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert ev.error_type == "InvalidArgument", ev.report()
    assert message in ev.error, ev.error


def test_an_extent_of_zero_is_refused():
    spec = _tex(0, "r32float", name="src")
    with pytest.raises(InvalidArgument, match="width and height are at least 1"):
        spec.texture_extent(_size(0, 4))
    with pytest.raises(InvalidArgument, match=r"shape=\(height, width\)"):
        BufferSpec(0, access="read", texture="r32float")
    with pytest.raises(InvalidArgument, match="texture format must be one of"):
        BufferSpec(0, access="read", texture="bgra8unorm", shape=(2, 2))


def test_after_a_refused_texture_kernel_the_context_and_its_buffers_are_intact(ctx):
    from forge.types import BindingUsage

    kept = np.arange(64, dtype=np.float32)
    view = ctx.allocate_and_write(kept, binding=7, usage=BindingUsage.STORAGE_READ_RESIDENT)
    bad = _copy_r32(
        _BUFFER_NOT_TEXTURE,
        _tex(0, "r32float", name="src"),
        _tex(1, "r32float", "read_write", name="dst"),
    )
    assert _evaluate(ctx, bad).verdict is Verdict.ERROR
    np.testing.assert_array_equal(ctx.read_buffer_f32(view), kept)
    good = _image(
        "copy_after_error",
        _COPY.format(sampled="f32", fmt="r32float"),
        (_tex(0, "r32float", name="src"), _tex(1, "r32float", "read_write", name="dst")),
        lambda src: src.copy(),
    )
    assert _evaluate(ctx, good).verdict is Verdict.PASS
    np.testing.assert_array_equal(ctx.read_buffer_f32(view), kept)


_SAMPLED = """
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var samp: sampler;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) { return; }
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size);
    textureStore(dst, vec2<i32>(gid.xy), textureSampleLevel(src, samp, uv, 0.0));
}
"""


def test_a_comparison_sampler_is_still_unsupported_saying_what_is(ctx):
    # a plain sampler is bound where the kernel declares it (tests/test_wgsl_samplers.py)
    kernel = _image(
        "sampled",
        _SAMPLED.replace("var samp: sampler;", "var samp: sampler_comparison;"),
        (_tex(0, "rgba8unorm", name="src"), _tex(1, "rgba8unorm", "read_write", name="dst")),
        lambda src: src.copy(),
    )
    ev = _evaluate(ctx, kernel)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "`samp: sampler_comparison`" in ev.error and "comparison samplers" in ev.error
    assert "texture_storage_2d<FORMAT, write>" in ev.error, ev.error


def test_a_texture_past_the_devices_largest_side_is_unsupported(ctx):
    kernel = _image(
        "too_wide",
        _COPY.format(sampled="f32", fmt="r32float"),
        (_tex(0, "r32float", name="src"), _tex(1, "r32float", "read_write", name="dst")),
        lambda src: src.copy(),
    )
    ev = _evaluate(ctx, kernel, height=1, width=1 << 16)
    assert ev.verdict is Verdict.UNSUPPORTED, ev.report()
    assert "maxTextureDimension2D" in ev.error, ev.error


def test_backends_that_store_either_allowed_byte_agree_pairwise(request):
    """A cross-check compares the backends pairwise too: an rgba8unorm output of the
    reference (unquantised floats) and of a device (bytes), or of two devices that
    round the other way, agree where both are bytes the rule allows; a wrong kernel
    still disagrees with the reference."""
    backends = ["reference"]
    for backend in ("wgpu", "browser"):
        if forge.available_backends().get(backend, (False, ""))[0]:
            backends.append(backend)
    if len(backends) == 1:
        require_available(request.config, "wgpu")  # a visible skip naming why
    size = _size(6, 21)
    right = oracle.cross_check(_scaled("floor(c * 0.3 * 255.0) / 255.0"), backends, size=size)
    assert right.passed and all(p.agree for p in right.pairs), right.report()
    wrong = oracle.cross_check(_scaled("c.bgra * 0.3"), backends, size=size)
    assert not wrong.passed, wrong.report()
    assert not any(p.agree for p in wrong.pairs if p.first == "reference"), wrong.report()
