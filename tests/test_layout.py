"""Types laid out as each target lays them out (``forge.layout``): WGSL's storage and
uniform rules checked against the WGSL specification's own tables and against a shader
that reads every field back on a real adapter; C's rules checked by NVRTC itself
(``static_assert`` on ``offsetof``/``sizeof``, no GPU needed) and by a CUDA kernel taking
the struct by value on the GPU machine."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, KernelSpec
from forge.layout import (
    TypeSpec,
    decode,
    encode,
    logical_dtype,
    parse_type,
    size_align,
    target_dtype,
)
from oracle.pytest_plugin import require_available


def _offsets(value, rules):
    dtype = target_dtype(value, rules)
    return {name: dtype.fields[name][1] for name in dtype.names}


# The WGSL specification's example (section "Alignment and Size"): structs A and B.
_A = parse_type((("u", "f32"), ("v", "f32"), ("w", "vec2<f32>"), ("x", "f32")))
_B = TypeSpec(
    "struct",
    fields=(
        ("a", parse_type("vec2<f32>")),
        ("b", parse_type("vec3<f32>")),
        ("c", parse_type("f32")),
        ("d", parse_type("f32")),
        ("e", _A),
        ("f", parse_type("vec3<f32>")),
        ("g", TypeSpec("array", count=3, element=_A)),
        ("h", parse_type("i32")),
    ),
)


def test_storage_layout_matches_the_wgsl_specification_example():
    assert size_align(_A, "wgsl-storage") == (24, 8)
    assert _offsets(_B, "wgsl-storage") == {
        "a": 0,
        "b": 16,
        "c": 28,
        "d": 32,
        "e": 40,
        "f": 64,
        "g": 80,
        "h": 152,
    }
    assert size_align(_B, "wgsl-storage") == (160, 16)


def test_uniform_layout_rounds_structs_and_arrays_up_to_16_bytes():
    inner = (("x", "vec2<f32>"), ("y", "f32"))
    uniform = (
        ("a", "f32"),
        ("b", "vec3<f32>"),
        ("c", "array<vec4<f32>, 2>"),
        ("d", inner),
        ("e", "u32"),
    )
    # a@0; b aligns to 16; c (stride 16) after b's 12 bytes at 32; d is a struct: its
    # alignment rounds up to 16 (64); e follows a struct at its offset + roundUp(16, 12).
    assert _offsets(uniform, "wgsl-uniform") == {"a": 0, "b": 16, "c": 32, "d": 64, "e": 80}
    assert size_align(uniform, "wgsl-uniform")[0] == 96
    assert _offsets(uniform, "wgsl-storage") == {"a": 0, "b": 16, "c": 32, "d": 64, "e": 80}


def test_c_layout_gives_float3_four_bytes_alignment_and_int64_eight():
    assert _offsets(_C_PARAMS, "c") == {
        "n": 0,
        "scale": 8,
        "offset": 24,
        "alpha": 32,
        "flag": 40,
        "pair": 48,
        "q": 64,
    }
    assert size_align(_C_PARAMS, "c") == (80, 16)


def test_encode_and_decode_round_trip_every_layout_and_zero_the_padding():
    fields = (
        ("a", "f32"),
        ("b", "vec3<f32>"),
        ("c", "array<vec4<f32>, 2>"),
        ("d", (("x", "vec2<f32>"), ("y", "f32"))),
        ("e", "u32"),
    )
    values = np.zeros(3, logical_dtype(fields))
    rng = np.random.default_rng(0)
    for name in ("a", "b", "c"):
        values[name] = rng.standard_normal(values[name].shape)
    values["d"]["x"] = rng.standard_normal((3, 2))
    values["d"]["y"] = [1, 2, 3]
    values["e"] = [7, 8, 9]
    for rules in ("wgsl-storage", "wgsl-uniform", "c"):
        raw = encode(values, fields, rules)
        assert raw.dtype.itemsize == size_align(fields, rules)[0]
        back = decode(raw, fields, rules)
        for name in ("a", "b", "c", "e"):
            np.testing.assert_array_equal(back[name], values[name])
        np.testing.assert_array_equal(back["d"]["x"], values["d"]["x"])
        with_data = np.frombuffer(encode(np.zeros_like(values), fields, rules).tobytes(), np.uint8)
        assert not with_data.any()


_UNIFORM_READBACK = """
struct Inner { x: vec2<f32>, y: f32 }
struct Params { a: f32, b: vec3<f32>, c: array<vec4<f32>, 2>, d: Inner, e: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(1)
fn main() {
    out[0] = p.a;
    out[1] = p.b.x; out[2] = p.b.y; out[3] = p.b.z;
    for (var i = 0u; i < 2u; i++) {
        for (var j = 0u; j < 4u; j++) { out[4u + i * 4u + j] = p.c[i][j]; }
    }
    out[12] = p.d.x.x; out[13] = p.d.x.y; out[14] = p.d.y;
    out[15] = f32(p.e);
}
"""

_UNIFORM_FIELDS = (
    ("a", "f32"),
    ("b", "vec3<f32>"),
    ("c", "array<vec4<f32>, 2>"),
    ("d", (("x", "vec2<f32>"), ("y", "f32"))),
    ("e", "u32"),
)


def _readback_reference(out, p):
    record = p
    out[:] = np.concatenate(
        [
            [record["a"]],
            record["b"],
            record["c"].ravel(),
            record["d"]["x"],
            [record["d"]["y"]],
            [record["e"]],
        ]
    )


@pytest.mark.parametrize("backend", ["reference", "wgpu"])
def test_a_shader_reads_every_uniform_field_where_wgsl_puts_it(request, backend):
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="uniform_readback",
        entry_point="main",
        sources={"wgsl": _UNIFORM_READBACK},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count=16),
            BufferSpec.uniform(1, _UNIFORM_FIELDS, name="p"),
        ),
        reference=_readback_reference,
        grid=(1, 1, 1),
        defaults={
            "a": 1.5,
            "b": (2.0, 3.0, 4.0),
            "c": ((5, 6, 7, 8), (9, 10, 11, 12)),
            "d": ((13.0, 14.0), 15.0),
            "e": 16,
        },
        test_sizes=(1,),
    )
    with forge.open_context(backend) as ctx:
        ev = oracle.evaluate(ctx, kernel, size=1)
        assert ev.passed, ev.report()
        out = oracle.run(ctx, kernel, {}, size=1)["out"]
    expected = np.arange(1, 17, dtype=np.float32)
    expected[0] = 1.5
    np.testing.assert_array_equal(out, expected)


_C_PARAMS = (
    ("n", "i64"),
    ("scale", "vec3<f32>"),
    ("offset", "u64"),
    ("alpha", "f64"),
    ("flag", "i32"),
    ("pair", "vec2<f32>"),
    ("q", "vec4<f32>"),
)

_C_STRUCT = """
#include <cstdint>
#include <cstddef>
struct Params {
    int64_t n;
    float3 scale;
    size_t offset;
    double alpha;
    int flag;
    float2 pair;
    float4 q;
};
#ifndef NO_CONSTANT_OFFSETOF  // NVRTC 13.0: offsetof is no constant expression there
static_assert(offsetof(Params, n) == %(n)d, "n");
static_assert(offsetof(Params, scale) == %(scale)d, "scale");
static_assert(offsetof(Params, offset) == %(offset)d, "offset");
static_assert(offsetof(Params, alpha) == %(alpha)d, "alpha");
static_assert(offsetof(Params, flag) == %(flag)d, "flag");
static_assert(offsetof(Params, pair) == %(pair)d, "pair");
static_assert(offsetof(Params, q) == %(q)d, "q");
#endif
static_assert(sizeof(Params) == %(size)d, "size");

extern "C" __global__ void by_value(double* out, Params p) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = (double)p.n; out[1] = p.scale.x; out[2] = p.scale.y; out[3] = p.scale.z;
        out[4] = (double)p.offset; out[5] = p.alpha; out[6] = p.flag;
        out[7] = p.pair.x; out[8] = p.pair.y;
        out[9] = p.q.x; out[10] = p.q.y; out[11] = p.q.z; out[12] = p.q.w;
    }
}
"""


def _c_source() -> str:
    return _C_STRUCT % {**_offsets(_C_PARAMS, "c"), "size": size_align(_C_PARAMS, "c")[0]}


def _offsetof_is_constant() -> bool:
    """Whether this NVRTC folds ``offsetof`` to a constant (13.5 does through
    ``__builtin_offsetof``; 13.0 has no such builtin and folds no form of it)."""
    from backends.cuda._nvrtc import compile_module

    probe = """#include <cstddef>
struct P { char c; int i; };
static_assert(offsetof(P, i) == 4, "folded");
extern "C" __global__ void k() {}"""
    try:
        compile_module(probe, ["k"], "sm_90")
    except forge.CompileError:
        return False
    return True


def test_nvrtc_agrees_with_the_c_layout_of_int64_size_t_and_vector_members():
    """The offsets forge computes are asserted by NVRTC's own compiler."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from backends.cuda._nvrtc import compile_module, nvrtc_version

    if not _offsetof_is_constant():
        pytest.skip(
            f"NVRTC {'.'.join(map(str, nvrtc_version()))} folds no offsetof to a constant, "
            "so it cannot assert offsets at compile time; the kernel taking the struct by "
            "value checks them on the GPU (the next test)"
        )

    image, names = compile_module(_c_source(), ["by_value"], "sm_90")
    assert image and "by_value" in names
    wrong = _c_source().replace("offsetof(Params, alpha) == 32", "offsetof(Params, alpha) == 28")
    with pytest.raises(forge.CompileError, match="alpha"):
        compile_module(wrong, ["by_value"], "sm_90")


def _by_value_reference(out, p):
    r = p
    out[:] = [r["n"], *r["scale"], r["offset"], r["alpha"], r["flag"], *r["pair"], *r["q"]]


@pytest.mark.parametrize("backend", ["reference", "cuda"])
def test_a_cuda_kernel_takes_a_struct_with_64_bit_and_vector_members_by_value(request, backend):
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="struct_by_value",
        entry_point="by_value",
        sources={"cuda": _c_source()},
        buffers=(
            BufferSpec(0, "f64", "read_write", name="out", count=13),
            BufferSpec.uniform(1, _C_PARAMS, name="p"),
        ),
        reference=_by_value_reference,
        grid=(1, 1, 1),
        template=False,
        defines={"NO_CONSTANT_OFFSETOF": 1}
        if backend == "cuda" and not _offsetof_is_constant()
        else {},
        defaults={
            "n": 2**40 + 3,
            "scale": (0.5, 1.5, 2.5),
            "offset": 2**33,
            "alpha": 0.1,
            "flag": -7,
            "pair": (3.0, 4.0),
            "q": (5.0, 6.0, 7.0, 8.0),
        },
        test_sizes=(1,),
    )
    with forge.open_context(backend) as ctx:
        ev = oracle.evaluate(ctx, kernel, size=1)
        assert ev.passed, ev.report()
        out = oracle.run(ctx, kernel, {}, size=1)["out"]
    assert out[0] == 2**40 + 3 and out[4] == 2**33 and out[5] == 0.1 and out[6] == -7


def test_sub_word_integers_and_bf16_are_bound_packed_in_wgsl_storage_only():
    """WGSL has no u8, i16 or bf16, but a storage buffer is bytes: a tensor of them is
    bound packed (the shader declares array<u32>); a uniform field cannot be one."""
    from forge import UnsupportedFeature

    for scalar, size in (("u8", 1), ("i8", 1), ("u16", 2), ("i16", 2)):
        assert size_align(scalar, "wgsl-storage") == (size, size)
        with pytest.raises(UnsupportedFeature, match="bound packed"):
            size_align(scalar, "wgsl-uniform")
    with pytest.raises(UnsupportedFeature, match="WGSL has no u8"):
        size_align("vec4<u8>", "wgsl-storage")


def test_matrices_and_wgsl_aliases_lay_out_as_wgsl_says():
    """matCxR is C columns of vecR: mat4x4<f32> 64 bytes aligned 16; mat3x3<f32> pads
    each column to 16 (48 bytes); mat2x2<f32> keeps 8-byte columns even in a uniform
    (unlike an array, whose uniform stride rounds to 16). vec4f, mat4x4f are WGSL's
    aliases."""
    assert size_align("mat4x4<f32>", "wgsl-uniform") == (64, 16)
    assert size_align("mat3x3<f32>", "wgsl-storage") == (48, 16)
    assert size_align("mat2x2<f32>", "wgsl-uniform") == (16, 8)
    assert size_align("array<vec2<f32>, 2>", "wgsl-uniform") == (32, 16)
    assert parse_type("mat4x4f") == parse_type("mat4x4<f32>")
    assert parse_type("vec3u") == parse_type("vec3<u32>")
    assert np.zeros(1, logical_dtype("mat3x2<f32>")).shape == (1, 3, 2)  # 3 columns of 2
    uniform = (("transform", "mat4x4f"), ("tint", "vec3f"), ("scale", "f32"))
    assert _offsets(uniform, "wgsl-uniform") == {"transform": 0, "tint": 64, "scale": 76}


# -- @size / @align on a shader's uniform struct members (round 5 of WGSL from the wild) --
_SIZED = """
const WIDE = 16u;
struct Params {
  @size(8) count: u32,   // host: count: u32, _pad: u32
  gain: f32,
}
@group(0) @binding(0) var<storage, read> samples: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x >= params.count) { return; }
  out[gid.x] = samples[gid.x] * params.gain;
}
"""
_ALIGNED = _SIZED.replace("@size(8) count: u32,", "count: u32,").replace(
    "  gain: f32,", "  @align(WIDE) gain: f32,"
)


def _gain_kernel(fields, source=_SIZED):
    return KernelSpec(
        id="sized_uniform",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="samples"),
            BufferSpec(1, "f32", "read_write", name="out"),
            BufferSpec.uniform(2, fields),
        ),
        reference=lambda samples, params: samples * np.float32(params["gain"]),
        params=lambda n: {"count": n},
        defaults={"gain": 0.5},
        grid=lambda s, n: (-(-n // 64), 1, 1),
    )


def test_size_and_align_attributes_lay_a_struct_out_as_wgsl_says():
    """WGSL's @size(N) makes a member N bytes and @align(N) starts it at a multiple of
    N; the struct's alignment is its widest member's. Read from the source, literals or
    module-scope constants."""
    from forge.layout import _struct_offsets
    from forge.sources import WgslMember, wgsl_structs

    assert wgsl_structs(_SIZED)["Params"] == (
        WgslMember("count", "u32", size=8),
        WgslMember("gain", "f32"),
    )
    assert wgsl_structs(_ALIGNED)["Params"][1] == WgslMember("gain", "f32", align=16)
    u32, f32 = parse_type("u32"), parse_type("f32")
    sized = TypeSpec(
        "struct", fields=(("count", u32), ("gain", f32)), attrs=((8, None), (None, None))
    )
    aligned = TypeSpec(
        "struct", fields=(("count", u32), ("gain", f32)), attrs=((None, None), (None, 16))
    )
    assert _struct_offsets(sized, "wgsl-storage") == ([0, 8], 12, 4)
    assert _struct_offsets(aligned, "wgsl-storage") == ([0, 16], 32, 16)
    # a struct whose attribute is no constant the module fixes is not read
    assert "Params" not in wgsl_structs(_SIZED.replace("@size(8)", "@size(WHO)"))


def test_a_uniform_spec_without_the_shaders_padding_is_refused_naming_the_fields_to_add():
    """``@size(8) count`` puts gain at byte 8: a spec of (count, gain) wrote it at byte 4
    and the kernel read padding (a MISMATCH pointing at the arithmetic). @align(16)
    moved gain to byte 16 and wgpu refused the 16-byte binding with its own error. Both
    are refused before a run, saying which padding fields to add."""
    from forge import InvalidArgument

    plain = (("count", "u32"), ("gain", "f32"))
    with pytest.raises(InvalidArgument) as info:
        _gain_kernel(plain).check_uniform_layout("wgsl", _SIZED)
    message = str(info.value)
    assert "params's gain is a 32-bit float at byte 4" in message, message
    assert "reads gain, a 32-bit float at byte 8 (struct Params sets @size(8) on count)" in message
    assert '("_pad0", "u32") after count' in message, message
    assert 'BufferSpec.uniform(2, (("count", "u32"), ("_pad0", "u32"), ("gain", "f32")))' in message
    with pytest.raises(InvalidArgument) as info:
        _gain_kernel(plain, _ALIGNED).check_uniform_layout("wgsl", _ALIGNED)
    message = str(info.value)
    assert "at byte 16 (struct Params sets @align(16) on gain)" in message, message
    assert '("_pad0", "u32"), ("_pad1", "u32"), ("_pad2", "u32") after count' in message
    # a wrong type gets the whole spec to write
    with pytest.raises(InvalidArgument, match=r"count is a 64-bit integer.*declare the fields"):
        _gain_kernel((("count", "i64"), ("gain", "f32"))).check_uniform_layout("wgsl", _SIZED)
    padded = (("count", "u32"), ("_pad0", "u32"), ("gain", "f32"))
    _gain_kernel(padded).check_uniform_layout("wgsl", _SIZED)
    aligned = (
        ("count", "u32"),
        ("_pad0", "u32"),
        ("_pad1", "u32"),
        ("_pad2", "u32"),
        ("gain", "f32"),
    )
    _gain_kernel(aligned, _ALIGNED).check_uniform_layout("wgsl", _ALIGNED)
    # a padding field holds zero unless given
    assert _gain_kernel(padded).pack_uniform(10)["_pad0"][0] == 0


def test_a_uniform_record_smaller_than_the_shaders_struct_is_refused():
    """Every field agrees where both declare it, but the shader's struct is longer
    than the spec's record: wgpu refused the short binding with a raw error."""
    from forge import InvalidArgument

    source = _SIZED.replace("@size(8) count: u32,", "count: u32,").replace(
        "  gain: f32,", "  gain: f32,\n  @align(16) bias: vec4<f32>,"
    )
    with pytest.raises(InvalidArgument) as info:
        _gain_kernel((("count", "u32"), ("gain", "f32"))).check_uniform_layout("wgsl", source)
    message = str(info.value)
    assert "record is 16 bytes as the spec declares it" in message, message
    assert "reads 32 bytes (struct Params sets @align(16) on bias)" in message, message
    assert '("bias", "vec4<f32>")' in message, message


@pytest.mark.parametrize("source", [_SIZED, _ALIGNED], ids=["size", "align"])
def test_a_kernel_whose_uniform_uses_size_or_align_passes_with_padding_fields(request, source):
    require_available(request.config, "wgpu")
    pads = 1 if source is _SIZED else 3
    fields = (("count", "u32"), *((f"_pad{i}", "u32") for i in range(pads)), ("gain", "f32"))
    ev = oracle.evaluate("wgpu", _gain_kernel(fields, source), size=1000, samples=0)
    assert ev.passed, ev.report()
    ev = oracle.evaluate("wgpu", _gain_kernel(fields[:1] + fields[-1:], source), size=100)
    assert ev.verdict == oracle.Verdict.ERROR and "_pad0" in ev.report(), ev.report()
