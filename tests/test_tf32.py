"""TF32 as a declared input precision (issue 18): ``ir.matmul("f32", input_dtype="tf32")``
means f32 buffers whose values are rounded to TF32 as ``cvt.rna.tf32.f32`` rounds them
before they multiply, and the library's ``gemm_tf32`` is judged against exactly that.

Here: the evaluator's rounding (``forge.ir.to_tf32``) against a model of its own (the
value rounded to 10 mantissa bits in float64 arithmetic, ties away from zero) on every
low 13-bit pattern under a spread of signs, exponents and mantissas, specials included;
the WGSL rounding the SIMT matmul stages its tiles through, bit for bit on wgpu
(lavapipe in CI); the CUDA ones compiled; the declaration, the reference and the library
kernel; and the library kernel's own source with a planted bug (truncation instead of
rounding) failing on wgpu. On the GPU machine: the CUDA roundings bit for bit on the
device (``cvt.rna.tf32.f32`` itself and the SIMT path's bit operations), and the
tensor-core schedules of gemm_tf32 with their fragments left unrounded or their last,
partial k tile dropped, each caught (``tests/test_emit_mma_tf32.py`` runs the correct
ones, and ``tests/test_oracle_broken_low_precision.py`` the hand-written planted bugs).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import forge
import oracle
from forge import Access, BufferSpec, KernelSpec, Schedule, ir
from forge.emit import _tf32
from forge.ir import to_tf32
from forge.ir._kernel import IRBody
from forge.kernels.linalg import GEMM, GEMM_TF32, GEMM_TF32_NT, GEMM_TF32RZ_NT, MMA_TF32_SCHEDULES
from oracle.pytest_plugin import require_available


# -- the rounding ------------------------------------------------------------------------
def _model(bits: np.ndarray) -> np.ndarray:
    """The TF32 rounding of float32 ``bits`` by value, in float64: the nearest multiple
    of the value's TF32 ulp (2**(e - 10) for 2**e <= |x| < 2**(e + 1), e at least
    -126: subnormals keep their top 10 fraction bits), ties away from zero, an infinity
    from 2**128 up; infinities and NaNs as they are. Returns float32 bits."""
    with np.errstate(invalid="ignore"):  # signalling NaNs widen with a warning
        x = bits.view(np.float32).astype(np.float64)
    nonzero = np.isfinite(x) & (x != 0)
    _, exponent = np.frexp(x[nonzero])  # x = m * 2**exponent, 0.5 <= |m| < 1
    ulp = np.ldexp(1.0, np.maximum(exponent - 1, -126) - 10)
    magnitude = np.floor(np.abs(x[nonzero]) / ulp + 0.5) * ulp  # exact in float64
    magnitude[magnitude >= 2.0**128] = np.inf
    out = x.copy()
    out[nonzero] = np.copysign(magnitude, x[nonzero])
    rounded = out.astype(np.float32).view(np.uint32)  # exact: a float32 value or Inf
    return np.where(np.isfinite(x), rounded, bits)


_SPECIALS = [
    0x7F800000,  # +Inf
    0x7F800001,  # a NaN whose payload is all below the rounding bit
    0x7F801000,  # ... at it
    0x7FBFF000,
    0x7FC00000,  # the quiet NaN
    0x7FFFF000,  # adding 0x1000 would carry into the sign bit
    0x7FFFFFFF,
]


def _tricky(random: int = 0) -> np.ndarray:
    """Every low 13-bit pattern under each of 2 signs x 8 exponents (0: subnormals; 0xFE:
    the largest binade, where rounding up overflows) x 4 top mantissas (0x3FF: rounding
    up carries into the exponent), the specials of both signs, and ``random`` random
    words."""
    highs = np.array(
        [
            sign | exponent << 23 | mantissa << 13
            for sign in (0, 1 << 31)
            for exponent in (0, 1, 0x66, 0x7E, 0x7F, 0x80, 0xFD, 0xFE)
            for mantissa in (0, 1, 0x1FF, 0x3FF)
        ],
        np.uint32,
    )
    low = np.arange(1 << 13, dtype=np.uint32)
    specials = np.array(_SPECIALS, np.uint32)
    words = [(highs[:, None] | low[None, :]).ravel(), specials, specials | np.uint32(1 << 31)]
    words.append(np.random.default_rng(18).integers(0, 1 << 32, random, dtype=np.uint32))
    return np.concatenate(words)


def test_to_tf32_rounds_to_nearest_ties_away_on_every_low_pattern():
    bits = _tricky(random=1 << 16)
    got = to_tf32(bits.view(np.float32)).view(np.uint32)
    want = _model(bits)
    assert got.dtype == np.uint32 and got.shape == bits.shape
    wrong = np.flatnonzero(got != want)
    assert not wrong.size, [(hex(bits[i]), hex(got[i]), hex(want[i])) for i in wrong[:8]]


@pytest.mark.parametrize(
    "bits, rounded",
    [
        (0x3F801000, 0x3F802000),  # 1 + 2**-11, a tie: away from zero, to 1 + 2**-10
        (0xBF801000, 0xBF802000),  # the same, negative: away from zero too
        (0x3F800FFF, 0x3F800000),  # just below the tie: down
        (0x3F803000, 0x3F804000),  # a tie above an odd last bit: away (no ties to even)
        (0x3FFFF000, 0x40000000),  # 2 - 2**-11: carries into the next binade
        (0x7F7FEFFF, 0x7F7FE000),  # just below the largest TF32's tie: stays finite
        (0x7F7FF000, 0x7F800000),  # its tie: an infinity
        (0xFF7FFFFF, 0xFF800000),
        (0x00001000, 0x00002000),  # a subnormal tie
        (0x007FF000, 0x00800000),  # the largest subnormals round up to the least normal
        (0x80000000, 0x80000000),  # -0 stays -0
        (0x7F800000, 0x7F800000),  # Inf and NaNs are kept
        (0x7F800001, 0x7F800001),
        (0xFFFFFFFF, 0xFFFFFFFF),
    ],
)
def test_to_tf32_on_the_documented_cases(bits, rounded):
    got = to_tf32(np.array([bits], np.uint32).view(np.float32)).view(np.uint32)
    assert hex(int(got[0])) == hex(rounded)


def _model_rz(bits: np.ndarray) -> np.ndarray:
    """TF32 by truncation, by value in float64: the multiple of the value's TF32 ulp
    nearest zero; infinities and NaNs as they are. Returns float32 bits."""
    with np.errstate(invalid="ignore"):
        x = bits.view(np.float32).astype(np.float64)
    nonzero = np.isfinite(x) & (x != 0)
    _, exponent = np.frexp(x[nonzero])
    ulp = np.ldexp(1.0, np.maximum(exponent - 1, -126) - 10)
    out = x.copy()
    out[nonzero] = np.copysign(np.floor(np.abs(x[nonzero]) / ulp) * ulp, x[nonzero])
    return np.where(np.isfinite(x), out.astype(np.float32).view(np.uint32), bits)


_MODELS = {"rna": _model, "rz": _model_rz}


def test_to_tf32_rz_truncates_toward_zero_on_every_low_pattern():
    bits = _tricky(random=1 << 16)
    got = to_tf32(bits.view(np.float32), "rz").view(np.uint32)
    wrong = np.flatnonzero(got != _model_rz(bits))
    assert not wrong.size, [(hex(bits[i]), hex(got[i])) for i in wrong[:8]]
    # 1 + 2**-11 and just below 2: down, never into the next binade or to an infinity
    cases = np.array([0x3F801000, 0xBF801FFF, 0x3FFFFFFF, 0x7F7FFFFF], np.uint32)
    got = to_tf32(cases.view(np.float32), "rz").view(np.uint32)
    assert [hex(int(x)) for x in got] == ["0x3f800000", "0xbf800000", "0x3fffe000", "0x7f7fe000"]
    with pytest.raises(ValueError, match="'rna'.*'rz'"):
        to_tf32(cases.view(np.float32), "rne")


# -- the declaration and its reference ---------------------------------------------------
def test_a_tf32_matmul_has_f32_buffers_and_declares_its_precision():
    body = ir.matmul("f32", input_dtype="tf32")
    assert [(b.name, b.dtype) for b in body.buffers()] == [("a", "f32"), ("b", "f32"), ("c", "f32")]
    assert body.operand_dtype == "f32" and body.rounds_inputs
    assert body.describe()["input_dtype"] == "tf32"
    assert "tf32 a and b rounded from f32 in memory, f32 accumulation" in body.summary()[0]
    assert GEMM_TF32.semantic_hash != GEMM.semantic_hash  # not the f32 GEMM
    assert "tf32" not in forge.ir.DTYPES  # a precision, not a buffer's dtype
    with pytest.raises(ir.IRTypeError, match="matmul"):
        ir.matmul("f64", input_dtype="tf32")
    truncated = ir.matmul("f32", input_dtype="tf32rz")
    assert truncated.operand_dtype == "f32" and truncated.tf32_rounding == "rz"
    assert (body.tf32_rounding, ir.matmul("f32").tf32_rounding) == ("rna", None)
    assert "tf32rz a and b truncated from f32 in memory" in truncated.summary()[0]
    assert GEMM_TF32RZ_NT.semantic_hash != GEMM_TF32_NT.semantic_hash
    assert GEMM_TF32RZ_NT.buffer("a").element == "f32"


def test_the_tf32_reference_multiplies_rounded_inputs_and_sums_them_exactly():
    kernel = ir.kernel(
        "g", ir.matmul("f32", input_dtype="tf32"), defaults={"alpha": 1.0, "beta": 0.0}
    )
    # 2 x 2, k = 2: a tie that rounds up, a value that rounds down, exact ones
    a = np.array([1 + 2.0**-11, 1 + 2.0**-12, 1.0, 2.0**-20], np.float32)
    b = np.array([1.0, 0.0, 1 + 2.0**-11, 1.0], np.float32)
    c = np.zeros(4, np.float32)
    kernel.run_reference([a, b, c, kernel.pack_uniform(2)[0]])
    t = 1 + 2.0**-10  # 1 + 2**-11 rounded; 1 + 2**-12 rounds to 1
    want = np.array([t + t, 1.0, 1.0 + t * 2.0**-20, 2.0**-20]).astype(np.float32)
    assert c.tolist() == want.tolist()


def test_gemm_tf32_on_the_reference_is_the_product_of_the_rounded_inputs():
    size = 67
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-2, 2, size * size).astype(np.float32) for _ in range(3))
    with forge.open_context("reference") as ctx:
        got = oracle.run(ctx, GEMM_TF32, {"a": a, "b": b, "c": c}, size)["c"].reshape(size, size)
    rounded = [_model(x.view(np.uint32)).view(np.float32).astype(np.float64) for x in (a, b)]
    want = 1.5 * (rounded[0].reshape(size, size) @ rounded[1].reshape(size, size))
    want = want + 0.5 * c.reshape(size, size)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-5)
    raw = 1.5 * (a.astype(np.float64).reshape(size, size) @ b.reshape(size, size))
    assert np.abs(got - raw - 0.5 * c.reshape(size, size)).max() > 1e-3  # it did round


def test_gemm_tf32rz_nt_on_the_reference_is_the_product_of_the_truncated_inputs():
    size = 67
    rng = np.random.default_rng(4)
    a, w, c = (rng.uniform(-2, 2, size * size).astype(np.float32) for _ in range(3))
    with forge.open_context("reference") as ctx:
        got = oracle.run(ctx, GEMM_TF32RZ_NT, {"a": a, "b": w, "c": c}, size)["c"]
    ta, tw = (_model_rz(x.view(np.uint32)).view(np.float32).astype(np.float64) for x in (a, w))
    want = 1.5 * (ta.reshape(size, size) @ tw.reshape(size, size).T) + 0.5 * c.reshape(size, size)
    np.testing.assert_allclose(got.reshape(size, size), want, rtol=2e-6, atol=1e-5)


# -- the generated roundings -------------------------------------------------------------
def test_the_simt_sources_round_each_element_as_they_stage_it():
    for schedule in GEMM_TF32.schedules[:3]:
        for target in ("wgsl", "cuda"):
            source = GEMM_TF32.source(target, schedule)
            assert "fn fg_tf32(" in source or "float fg_tf32(" in source
            assert re.search(r"fg_[ab]s\[.*\] = fg_tf32\(|= fg_tf32x4\(", source), target
            assert "fg_tf32" not in GEMM.source(target, schedule)  # f32 GEMM: untouched


_WGSL_ROUNDING = """\
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@group(0) @binding(2) var<storage, read_write> z: array<u32>;
@ROUNDING@
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&y)) { y[i] = bitcast<u32>(fg_tf32(bitcast<f32>(x[i]))); }
    if (4u * i + 3u < arrayLength(&z)) {
        let v = vec4<u32>(x[4u * i], x[4u * i + 1u], x[4u * i + 2u], x[4u * i + 3u]);
        let r = bitcast<vec4<u32>>(fg_tf32x4(bitcast<vec4<f32>>(v)));
        z[4u * i] = r.x;
        z[4u * i + 1u] = r.y;
        z[4u * i + 2u] = r.z;
        z[4u * i + 3u] = r.w;
    }
}
"""

_CUDA_ROUNDING = """\
@ROUNDING@
@PRIMITIVE@
extern "C" __global__ void round_tf32(const unsigned int* x, unsigned int* y, unsigned int* z,
                                      unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = __float_as_uint(fg_tf32(__uint_as_float(x[i])));  // the SIMT path's bits
        z[i] = fg_cvt_tf32(x[i]);  // the tensor-core path's cvt.rna.tf32.f32
    }
}
"""


def _rounding_kernel(target: str, rounding: str = "rna") -> KernelSpec:
    """y (and z: the vec4 function on WGSL, ``cvt.rna.tf32.f32`` on CUDA) = the bits of
    x reduced to TF32 by the functions the emitters write for ``rounding``."""
    cvt = re.search(
        r"__device__ __forceinline__ unsigned int fg_cvt_tf32.*?^\}\n",
        forge.emit._mma_pipeline.TF32_PRIMITIVES,
        re.M | re.S,
    )
    assert cvt is not None
    words = [BufferSpec(0, "u32", Access.READ, name="x")] + [
        BufferSpec(i, "u32", Access.READ_WRITE, name=name) for i, name in ((1, "y"), (2, "z"))
    ]
    uniform = (BufferSpec.uniform(3, (("n", "u32"),)),) if target == "cuda" else ()
    text = {
        "wgsl": _WGSL_ROUNDING.replace("@ROUNDING@", _tf32.functions("wgsl", rounding)),
        "cuda": _CUDA_ROUNDING.replace("@ROUNDING@", _tf32.functions("cuda", rounding)).replace(
            "@PRIMITIVE@", cvt.group(0)
        ),
    }[target]
    return KernelSpec(
        id=f"tf32_{rounding}_{target}",
        entry_point="main" if target == "wgsl" else "round_tf32",
        sources={target: text},
        buffers=tuple(words) + uniform,
        schedules=(Schedule(64),),
        template=False,
    )


def _assert_rounded(
    bits: np.ndarray,
    got: np.ndarray,
    what: str,
    low_nan_to_infinity: bool = False,
    rounding: str = "rna",
) -> None:
    """Bit for bit as the model, a NaN as any NaN (a device may quiet it). With
    ``low_nan_to_infinity`` a NaN whose payload lies in the 13 dropped bits alone may also
    come out as the infinity of its sign: the hardware's ``cvt.rna.tf32.f32`` clears
    those bits of a NaN too (its sm_86 lowering: no half ulp added at or past infinity,
    then the mask), which the reference, the SIMT paths and the library's TF32 GEMM
    (drawn no NaN) need not follow."""
    want = _MODELS[rounding](bits)
    nan = np.isnan(bits.view(np.float32))
    result = got.view(np.float32)
    excused = np.zeros_like(nan)
    if low_nan_to_infinity:
        low = nan & ((bits & np.uint32(0x007FE000)) == 0)
        excused = low & (got == (bits & np.uint32(0xFF800000)))
    assert (np.isnan(result[nan]) | excused[nan]).all(), what
    wrong = np.flatnonzero((got != want) & ~nan)
    assert not wrong.size, (what, [(hex(bits[i]), hex(got[i]), hex(want[i])) for i in wrong[:8]])


@pytest.mark.parametrize("rounding", ["rna", "rz"])
def test_the_wgsl_rounding_is_bit_exact_on_wgpu(request, rounding):
    require_available(request.config, "wgpu")
    bits = _tricky(random=4096)
    bits = bits[: len(bits) // 4 * 4]
    with forge.open_context("wgpu") as ctx:
        out = oracle.run(ctx, _rounding_kernel("wgsl", rounding), {"x": bits}, len(bits))
    _assert_rounded(bits, out["y"].view(np.uint32), "fg_tf32", rounding=rounding)
    _assert_rounded(bits, out["z"].view(np.uint32), "fg_tf32x4", rounding=rounding)


def test_the_cuda_roundings_compile():
    from backends.cuda import compile_cuda

    for rounding in ("rna", "rz"):
        kernel = _rounding_kernel("cuda", rounding)
        ptx = compile_cuda(kernel.sources["cuda"], kernel.entry_point, arch="sm_90", output="ptx")
        assert b"cvt.rna.tf32.f32" in ptx


def test_the_cuda_roundings_are_bit_exact_on_the_device(request):
    """``cvt.rna.tf32.f32`` (what the tensor-core path rounds its fragments with) and the
    SIMT path's bit operations, against the model the reference rounds by."""
    require_available(request.config, "cuda")
    bits = _tricky(random=1 << 16)
    with forge.open_context("cuda") as ctx:
        out = oracle.run(ctx, _rounding_kernel("cuda"), {"x": bits}, len(bits))
    _assert_rounded(bits, out["y"].view(np.uint32), "fg_tf32 (bit operations)")
    _assert_rounded(bits, out["z"].view(np.uint32), "cvt.rna.tf32.f32", low_nan_to_infinity=True)
    with forge.open_context("cuda") as ctx:
        out = oracle.run(ctx, _rounding_kernel("cuda", "rz"), {"x": bits}, len(bits))
    _assert_rounded(bits, out["y"].view(np.uint32), "fg_tf32 (truncating)", rounding="rz")


# -- the library kernel with a planted bug -----------------------------------------------
class _Planted(IRBody):
    """gemm_tf32's own generated source with one change (``plant(target, text)``)."""

    def __init__(self, pattern, name: str, plant) -> None:
        super().__init__(pattern)
        self.name, self.plant = name, plant

    def source(self, kernel, target, schedule, size):
        text = super().source(kernel, target, schedule, size)
        planted = self.plant(target, text)
        assert planted != text, f"{self.name}: the planted change no longer applies"
        return planted

    def describe(self, kernel) -> dict:
        return {**super().describe(kernel), "planted": self.name}


def _planted(name: str, plant, kernel: KernelSpec = GEMM_TF32) -> KernelSpec:
    body = _Planted(kernel.body.pattern, name, plant)
    return dataclasses.replace(kernel, id=f"{kernel.id}_{name}", body=body)


def _truncating(target: str, text: str) -> str:
    """The SIMT rounding made a truncation: the low 13 bits cleared, no half ulp added."""
    return text.replace("bits + 0x1000u", "bits + 0u").replace(
        "bits + vec4<u32>(0x1000u)", "bits + vec4<u32>(0u)"
    )


def _unrounded_fragments(target: str, text: str) -> str:
    """The tensor-core fragments given to mma.sync as loaded: the tensor core truncates."""
    return text.replace("= fg_cvt_tf32(", "= (")


def _dropped_k_tile(target: str, text: str) -> str:
    """The pipeline's k tiles counted by floor division: a last, partial tile never runs."""
    return re.sub(
        r"(fg_steps = \(fg_p\.k / \d+u) \+ \(fg_p\.k % \d+u != 0u \? 1u : 0u\)\)", r"\1)", text
    )


def _assert_caught(ev: oracle.Evaluation, margin: float) -> None:
    assert not ev.passed, ev.report()
    c = ev.outputs["c"].comparison
    assert c is not None and not c.passed, ev.report()
    assert c.max_abs > margin * GEMM_TF32.tolerance_at(ev.size)["f32"]["atol"], ev.report()


def test_gemm_tf32_that_truncates_instead_of_rounding_fails_on_wgpu(request):
    """The library kernel's WGSL (its 16x16 baseline and its unrolled vec4 twin) with
    the rounding turned into a truncation: about a TF32 ulp per input, biased toward
    zero, 20 and more times the accumulation tolerance at k = 130."""
    require_available(request.config, "wgpu")
    kernel = _planted("truncating", _truncating)
    with forge.open_context("wgpu") as ctx:
        for schedule in (GEMM_TF32.schedules[0], GEMM_TF32.schedules[2]):
            _assert_caught(oracle.evaluate(ctx, kernel, schedule, size=130, samples=0), 10)


def _rounding(target: str, text: str) -> str:
    """The SIMT truncation made a rounding: half a TF32 ulp added first."""
    return text.replace("select(bits & 0xffffe000u", "select((bits + 0x1000u) & 0xffffe000u")


def test_gemm_tf32rz_nt_that_rounds_instead_of_truncating_fails_on_wgpu(request):
    """The other way round: gemm_tf32rz_nt's WGSL (the 16x16 baseline) rounding to
    nearest where it declares truncation is as far off, and caught."""
    require_available(request.config, "wgpu")
    kernel = _planted("rounding", _rounding, GEMM_TF32RZ_NT)
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, kernel, GEMM_TF32RZ_NT.schedules[0], size=130, samples=0)
    assert not ev.passed, ev.report()
    c = ev.outputs["c"].comparison
    assert c is not None and c.max_abs > 10 * GEMM_TF32.tolerance_at(130)["f32"]["atol"]


@pytest.mark.parametrize(
    "name, plant, margin",
    [("unrounded", _unrounded_fragments, 10), ("dropped_k_tile", _dropped_k_tile, 100)],
)
def test_gemm_tf32_tensor_cores_with_a_planted_bug_fail_on_cuda(request, name, plant, margin):
    """The tensor-core schedules of gemm_tf32, fragments left unrounded (the tensor core
    truncates them) or the last partial k tile dropped, at k = 130 (register path) and
    136 (cp.async): each far outside the tolerance its correct twin meets."""
    require_available(request.config, "cuda")
    kernel = _planted(name, plant)
    with forge.open_context("cuda") as ctx:
        for schedule in MMA_TF32_SCHEDULES[:2]:
            for size in (130, 136):
                _assert_caught(oracle.evaluate(ctx, kernel, schedule, size=size, samples=0), margin)
