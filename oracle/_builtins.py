"""What the kernel languages promise of their builtins, and what the oracle does
about it: one home for it.

A right kernel can differ from its numpy reference because the language allows its
builtins to. WGSL bounds ``sin``, ``cos`` and ``tan`` by 2**-11, absolute, and only
on [-pi, pi] (CUDA's fast intrinsics, ``__sinf`` and its kin, likewise); ``atan`` and
its kin by 4096 ULP; it specifies ``log`` and ``pow`` for normal inputs only, and
``pow`` as ``exp2(y * log2(x))``; and it gives ``tanh`` the accuracy of ``sinh(x) /
cosh(x)``, which overflows. Implementations use all of that: lavapipe's ``sin(9.9e8)``
is -1.0, its log of a subnormal -88 and its ``pow(NaN, y)`` 0; SwiftShader's sin is
1.7e-5 off at -0.42 and its tanh NaN past |x| = 89.

So, reading a kernel's source for the calls:

- ``builtin_limits``: the edge input families it is not drawn (``oracle._inputs``);
- ``builtin_floor``: the least tolerance its outputs get on a target (``oracle._judge``);
- ``builtin_notes``: what the report says of both, and of a tanh that overflowed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from forge.kernel import KernelSpec
from forge.sources import strip_comments
from forge.types import is_float_dtype

from ._results import Evaluation, Verdict, cuda_fast_math
from ._tolerance import Tolerance

__all__ = [
    "calls_trig",
    "approximated_calls",
    "divides_exactly",
    "calls_exp",
    "calls_inverse_trig",
    "packs_bits",
    "carries",
    "dividing_by_zero",
    "builtin_limits",
    "builtin_floor",
    "builtin_notes",
    "WGSL_TRIG_ERROR",
    "WGSL_ATAN_ULP",
    "nan_dropping",
    "nudging_every_operation",
    "RoundingPattern",
    "rounding_every_operation",
    "trig_erring",
    "inverse_trig_error",
    "undefined_in_wgsl",
    "widened",
]


#: Calls whose accuracy is bounded only near zero: WGSL's ``sin``, ``cos`` and ``tan``
#: (absolute error 2**-11 on [-pi, pi], nothing outside) and CUDA's fast intrinsics
#: ``__sinf``, ``__cosf``, ``__tanf`` and ``__sincosf`` (the same range), which
#: ``--use_fast_math`` makes of ``sinf``, ``cosf`` and ``tanf``.
_TRIG = {
    "wgsl": re.compile(r"\b(?:sin|cos|tan)\s*\("),
    "cuda": re.compile(r"\b__(?:sin|cos|tan|sincos)f\s*\("),
}
_TRIG_FAST_MATH = re.compile(r"\b(?:sin|cos|tan|sincos)f\s*\(")
#: WGSL's bound on the error of ``sin`` and ``cos`` (absolute, on [-pi, pi]).
WGSL_TRIG_ERROR = 2.0**-11


def _code(kernel: KernelSpec, target: str) -> str | None:
    """``kernel``'s source for ``target`` without its comments (``// cos(a)`` calls
    nothing), or None where it has none."""
    text = kernel.sources.get(target)
    return strip_comments(text) if isinstance(text, str) else None


def calls_trig(kernel: KernelSpec, target: str | None = None) -> bool:
    """Whether ``kernel``'s source for ``target`` (any target when None) calls a
    function accurate only near zero (``_TRIG``)."""
    for name in kernel.sources:
        pattern = _TRIG.get(name)
        text = _code(kernel, name)
        if pattern is None or text is None or target not in (None, name):
            continue
        if pattern.search(text):
            return True
        if name == "cuda" and _TRIG_FAST_MATH.search(text) and cuda_fast_math(kernel):
            return True
    return False


#: The calls whose results WGSL does not round correctly and the numpy functions a
#: reference computes them with (``_approximated``): WGSL's exp and exp2, log and
#: log2; CUDA's fast intrinsics, which err as WGSL's may (the CUDA C++ Programming
#: Guide: ``__expf`` within 2 + floor(|1.173 x|) ULP, ``__logf`` within 2**-21.41
#: absolute on [0.5, 2]; ``__powf`` is exp2 of a log2), and what ``--use_fast_math``
#: makes of ``expf`` and kin. A kernel that computes its exponential itself (cephes'
#: polynomial) gets no such allowance for the reference's ``np.exp``.
_EXPONENTIALS = frozenset({"exp", "exp2"})
_LOGARITHMS = frozenset({"log", "log2", "log10", "log1p"})
_APPROXIMATE_CALLS = {
    "wgsl": (
        (re.compile(r"\bexp2?\s*\("), _EXPONENTIALS),
        (re.compile(r"\blog2?\s*\("), _LOGARITHMS),
    ),
    "cuda": (
        (re.compile(r"\b__(?:exp|exp10|pow)f\s*\("), _EXPONENTIALS),
        (re.compile(r"\b__(?:log|log2|log10|pow)f\s*\("), _LOGARITHMS),
    ),
}
_FAST_MATH_CALLS = (
    (re.compile(r"\b(?:exp|exp2|exp10|pow)f\s*\("), _EXPONENTIALS),
    (re.compile(r"\b(?:log|log2|log10|log1p|pow)f\s*\("), _LOGARITHMS),
)


def approximated_calls(kernel: KernelSpec, target: str | None) -> frozenset[str]:
    """The numpy functions (``np.exp``, ``np.log``...) whose results ``kernel``'s source
    for ``target`` computes with calls WGSL or CUDA does not round correctly
    (``_APPROXIMATE_CALLS``; CUDA's ``expf`` and ``logf`` too under
    ``--use_fast_math``): its rounding bound moves those as WGSL lets them err."""
    text = _code(kernel, target) if target in _APPROXIMATE_CALLS else None
    if text is None:
        return frozenset()
    found: set[str] = set()
    for pattern, names in _APPROXIMATE_CALLS[str(target)]:
        if pattern.search(text):
            found |= names
    if target == "cuda" and cuda_fast_math(kernel):
        for pattern, names in _FAST_MATH_CALLS:
            if pattern.search(text):
                found |= names
    return frozenset(found)


#: CUDA's division that is not IEEE's: ``__fdividef`` (and ``/`` under
#: ``--use_fast_math`` or ``-prec-div=false``: ``div.approx.f32``, 2 ulp).
_CUDA_FAST_DIVISION = re.compile(r"\b__fdividef\s*\(")


def divides_exactly(kernel: KernelSpec, target: str | None) -> bool:
    """Whether ``kernel``'s source for ``target`` divides floats as IEEE does, so that a
    quotient that is a float32 number comes out exactly: CUDA's ``/`` as NVRTC compiles
    it by default (``-prec-div=true``, ``div.rn.f32``), unless the kernel calls
    ``__fdividef`` or is compiled with ``--use_fast_math`` or ``-prec-div=false``.
    WGSL's division may err by 2.5 ulp even there (never exact, here)."""
    text = _code(kernel, target) if target == "cuda" else None
    if text is None or _CUDA_FAST_DIVISION.search(text):
        return False
    options = " ".join(kernel.compile_options("cuda")).replace("=", " ")
    return not (cuda_fast_math(kernel) or re.search(r"prec-div\s+(?:false|0)\b", options))


#: A WGSL loop's opening: ``loop {``, ``while``, ``for (``.
_WGSL_LOOP = re.compile(r"\bloop\s*\{|\bwhile\b|\bfor\s*\(")
#: A read of what another invocation may write while the loop waits on it. Not
#: ``workgroupUniformLoad``: it is a barrier, and a loop around it is a block's vote or
#: broadcast, whose invocations go on together (round 73's port of the Gaussian
#: rasteriser's ``__syncthreads_count`` was told it might wait on other invocations).
_WGSL_WAIT = re.compile(r"\b(?:atomicLoad|atomicCompareExchangeWeak)\s*\(")


def _loop_bodies(text: str):
    """The text of each loop in WGSL ``text``, from its opening to its closing brace."""
    for match in _WGSL_LOOP.finditer(text):
        start = text.find("{", match.end() - 1)
        depth = 0
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                yield text[match.start() : end + 1]
                break


def wgsl_loops(kernel: KernelSpec) -> tuple[bool, bool]:
    """(whether ``kernel``'s hand-written WGSL has a loop, whether one of its loops reads
    what another invocation may write: a wait on a flag or a counter). False, False for
    a kernel with no WGSL of its own (forge's emitted loops are counted and short)."""
    text = _code(kernel, "wgsl")
    if text is None:
        return False, False
    bodies = list(_loop_bodies(text))
    return bool(bodies), any(_WGSL_WAIT.search(body) for body in bodies)


#: A loop's whole condition that no ``u32`` can make false: ``i >= 0u`` or ``0u <= i``
#: (WGSL converts no i32 to u32, so a comparison with ``0u`` is unsigned), the habit of
#: a countdown ported from signed code (``for (var i = n - 1u; i >= 0u; i--)``) or a
#: tree reduction's ``s >= 0u`` for ``s > 0u``.
_ALWAYS_TRUE = re.compile(r"\(?\s*(?:[\w.\[\]]+\s*>=\s*0u|0u\s*<=\s*[\w.\[\]]+)\s*\)?")
_FOR_CONDITION = re.compile(r"for\s*\([^;]*;([^;]*);")
_WHILE_CONDITION = re.compile(r"while\s*(.*?)\s*\{", re.DOTALL)
_EXIT = re.compile(r"\b(?:break|return)\b")


def endless_wgsl_loops(kernel: KernelSpec) -> list[str]:
    """The conditions of ``kernel``'s hand-written WGSL ``for`` and ``while`` loops that
    never end: a condition no ``u32`` can make false (``_ALWAYS_TRUE``) and no ``break``
    or ``return`` in the loop. On a GPU such a loop hangs; llvmpipe ends every loop after
    65535 iterations (``oracle._judge.LOOP_CAPS``), so there its results may well pass."""
    text = _code(kernel, "wgsl")
    if text is None:
        return []
    found = []
    for loop in _loop_bodies(text):
        head = _FOR_CONDITION.match(loop) or _WHILE_CONDITION.match(loop)
        if head is None:
            continue
        condition = head.group(1).strip()
        if _ALWAYS_TRUE.fullmatch(condition) and not _EXIT.search(loop[head.end() :]):
            found.append(condition)
    return found


#: A square root or its inverse, in either language (``__frsqrt_rn``, ``hrsqrt`` and
#: ``h2rsqrt`` for CUDA's halves), or a power (``powf(var + eps, -0.5f)``): where a
#: normalisation's epsilon meets its statistic.
_ROOT = re.compile(
    r"\b(?:sqrtf?|rsqrtf?|inverseSqrt|__frsqrt_rn|__fsqrt_r[nzdu]|h2?r?sqrt|__powf|powf?)\s*\("
)


def calls_root(kernel: KernelSpec) -> bool:
    """Whether any of ``kernel``'s sources takes a square root, its inverse or a power
    (``_ROOT``): the kernels the oracle also runs on its ``small`` input set."""
    return any(
        text is not None and _ROOT.search(text) is not None
        for text in (_code(kernel, target) for target in kernel.sources)
    )


#: An exponential in either language (WGSL's ``exp``/``exp2``, CUDA's ``expf``,
#: ``__expf``, ``exp2f``, ``hexp``, ``std::exp``): where a softmax's maximum meets
#: underflow.
_EXP = re.compile(r"\b(?:exp2?f?|__exp2?f|__expf|h2?exp2?|expm1f?|exp10f?)\s*\(")


def calls_exp(kernel: KernelSpec) -> bool:
    """Whether any of ``kernel``'s sources takes an exponential (``_EXP``): with a
    running maximum over a flat buffer, the kernels the oracle also runs on its
    far-negative set (``oracle._inputs.FAR_SET``), where a softmax whose maximum starts
    at 0 underflows everywhere."""
    return any(
        text is not None and _EXP.search(text) is not None
        for text in (_code(kernel, target) for target in kernel.sources)
    )


# A running maximum or minimum: ``m = max(m, x)`` (fmaxf, MAX, std::max; the variable
# either argument), ``m = m > x ? m : x`` or ``select(m, x, x > m)`` (tinygrad's
# ``acc0 = ((val0<acc0)?acc0:val0)``), and ``if (x > m) { m = x; }`` (an argmax's best),
# the best also a field or an element of what is assigned (ggml-webgpu's argmax: ``if
# (val > local_pair.value) { local_pair = Pair(val, i); }``, round 41; ``best.v = x``),
# or on the left of the comparison (``if (m < x) { m = x; }``, round 46), and the
# running value an element of workgroup memory (ratchet's and web-rwkv's softmax:
# ``smem[index] = max(smem[index], X[row_start + i])``, round 44).
_MEMBERS = r"(?:\s*\.\s*\w+|\s*\[[^\[\]{};]*\])*"
_EXTREMUM_CALL = re.compile(
    rf"\b(\w+{_MEMBERS})\s*=\s*(?:\w+::)?"
    r"(?:max|min|fmax|fmin|fmaxf|fminf|MAX|MIN|Max|Min|__hmax|__hmin)"
    r"\s*\(([^;]*)"
)
_EXTREMUM_PICK = re.compile(rf"\b(\w+{_MEMBERS})\s*=\s*(?:select\s*\(|[^;?]*\?)([^;]*)")
_EXTREMUM_IF = re.compile(
    rf"\bif\s*\(\s*[^(){{}};]*[<>]=?\s*(\w+){_MEMBERS}\s*\)\s*\{{?\s*\1\b{_MEMBERS}\s*=(?!=)"
    # the best on the left, the value compared assigned as written: ``if (m < S[i][j])
    # { m = S[i][j]; }`` (GPU MODE's flash attention, round 46), never ``if (x < 0) {
    # x = -x; }``
    rf"|\bif\s*\(\s*(\w+{_MEMBERS})\s*[<>]=?\s*([^(){{}};=]+?)\s*\)\s*\{{?\s*\2\s*=\s*\3\s*;"
)
# an atomic minimum or maximum into memory that starts at a sentinel the host set (ParEval's
# ``atomicMin(smallest, x[i])`` after ``INT_MAX``; WGSL's ``atomicMin(&m[0], v)``): in
# ``"all"`` some line holds a negative far below any sentinel a kernel could start from,
# so a kernel writing -1 or 0 for "none" passed there (round 58)
_EXTREMUM_ATOMIC = re.compile(r"\batomic(?:Min|Max)\s*\(")
# the larger or smaller of two values picked by comparing them, as generated code writes
# a max in SSA form, the running value through a temporary (tinygrad's
# ``alu1 = select(val1,val0,(val1<val0)); buf0[0] = alu1;``)
_PICK_OF_TWO = re.compile(
    r"\bselect\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*\(?\s*(?:\1|\2)\s*[<>]=?\s*(?:\1|\2)\s*\)?\s*\)"
    r"|\(?\s*(\w+)\s*[<>]=?\s*(\w+)\s*\)?\s*\?\s*(?:\3|\4)\s*:\s*(?:\3|\4)\b"
)


def _names_itself(target: str, picked: str) -> bool:
    """Whether the value assigned, ``target`` (a name, or a name with fields and
    indices: ``smem[index]``), is one of what ``picked`` chooses between, spaces aside."""
    if re.fullmatch(r"\w+", target):
        return re.search(rf"\b{re.escape(target)}\b", picked) is not None
    bare = re.sub(r"\s+", "", target)
    return re.search(rf"(?<![\w.]){re.escape(bare)}", re.sub(r"\s+", "", picked)) is not None


def running_extremum(kernel: KernelSpec) -> bool:
    """Whether any of ``kernel``'s sources keeps a running maximum or minimum
    (``_EXTREMUM_CALL``, ``_EXTREMUM_PICK``, ``_EXTREMUM_IF``, ``_PICK_OF_TWO``): the
    kernels the oracle also runs on its one-sign input sets, where every line of every
    axis is of one sign and a maximum started at 0 (a minimum at 0) is wrong. In ``"all"`` the
    families take whole rows, and a max over a middle axis, over few rows or over a
    flat buffer never met an all-negative line (round 33: candle's ``fast_max`` and
    ggml's softmax with ``-INFINITY`` written 0 passed), and an ``atomicMin`` over a
    line that always held a negative never met a minimum above a sentinel of -1 (round
    58: ParEval's smallest odd number with -1 for "none" passed)."""
    for text in (_code(kernel, target) for target in kernel.sources):
        if text is None:
            continue
        if _EXTREMUM_IF.search(text) or _PICK_OF_TWO.search(text) or _EXTREMUM_ATOMIC.search(text):
            return True
        for pattern in (_EXTREMUM_CALL, _EXTREMUM_PICK):
            for match in pattern.finditer(text):
                picked = match.group(2)
                compared = text[match.end(1) : match.end()].split("=", 1)[1]
                if _names_itself(match.group(1), picked) and (
                    pattern is _EXTREMUM_CALL or re.search(r"[<>]", compared)
                ):
                    return True
    return False


#: Tensor-core TF32: WMMA's ``precision::tf32`` fragments, ``__float_to_tf32`` and PTX's
#: ``.tf32`` operands (``mma.sync....tf32.tf32``, ``cvt.rna.tf32.f32``) keep 10 of a
#: float32's 23 mantissa bits of each input: rounded, or truncated where a fragment is
#: loaded from float32 unconverted, each input moves by less than 2**-10 of itself.
_TF32 = re.compile(r"precision::tf32\b|\b__float_to_tf32\s*\(|\.tf32\b")
TF32_UNIT = 2.0**-10


def rounds_to_tf32(kernel: KernelSpec, target: str | None) -> bool:
    """Whether ``kernel``'s CUDA source, on ``target`` "cuda", multiplies its float32
    inputs as TF32 (``_TF32``)."""
    text = _code(kernel, "cuda") if target == "cuda" else None
    return text is not None and _TF32.search(text) is not None


#: Tensor cores accumulating in float32: WMMA's ``fragment<accumulator, M, N, K, float>``,
#: PTX's ``mma.sync`` with f32 D (``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32``)
#: and Hopper's ``wgmma`` with f32 D. Their float32 sums are not rounded to nearest: an
#: MMA step's products are added to the accumulator with its alignment truncated, so a
#: long sum's errors all go one way and do not average out as a loop's do (a right bf16
#: WMMA GEMM at K = 2048 on the H100, 2026-12-06, was 2.9e-5 below the exact sum, past
#: ``8 sqrt(K)`` float32 roundings): such a sum of k terms (all of them, however small)
#: gets the deterministic bound of a k-term sum, ``k u M`` (``Expected.rounding_bound(
#: one_way=True)``: 4 times the H100's error there), still far below a dropped K
#: tile's or a half accumulator's error.
_TENSOR_FLOAT = re.compile(
    r"\baccumulator\s*,[^;<>]*?,\s*float\s*>"
    r"|\bmma\.sync\.aligned\.m\d+n\d+k\d+(?:\.row\.col)?\.f32\."
    r"|\bwgmma\.mma_async\.sync\.aligned\.m\d+n\d+k\d+\.f32\."
)


def accumulates_on_tensor_cores(kernel: KernelSpec, target: str | None) -> bool:
    """Whether ``kernel``'s CUDA source, on ``target`` "cuda", sums products on tensor
    cores into a float32 accumulator (``_TENSOR_FLOAT``)."""
    text = _code(kernel, "cuda") if target == "cuda" else None
    return text is not None and _TENSOR_FLOAT.search(text) is not None


#: WGSL's inverse trigonometric functions: ``atan`` and ``atan2`` err by up to 4096 ULP,
#: and ``asin`` and ``acos`` inherit that from ``atan2``.
_INVERSE_TRIG = re.compile(r"\ba(?:sin|cos|tan2|tan)\s*\(")
WGSL_ATAN_ULP = 4096


def builtin_floor(
    tolerance: Tolerance, kernel: KernelSpec, target: str | None, dtype: Any = np.float32
) -> Tolerance:
    """``tolerance`` widened, on ``target``, to the error bounds the language gives the
    builtins ``kernel``'s source calls, for a float output of ``dtype`` whose reference
    the oracle cannot carry those errors through. On WGSL: ``sin``, ``cos`` and ``tan``
    may err by 2**-11 absolute (SwiftShader's sin is 1.7e-5 off at -0.42, inside that
    bound), so atol and rtol are at least that; ``atan``, ``atan2``, ``asin`` and
    ``acos`` by 4096 ULP, so ulp is at least that. Only atol, rtol and ulp change.

    Where the reference calls numpy's counterparts (``np.sin``, ``np.arctan2``...), the
    error is carried through them instead, to the elements it reaches
    (``Expected.trig_bound``, ``Expected.inverse_trig_bound``), and nothing is widened
    here: a blanket widening passed an output no sine reaches that was off by 2500 ulp.
    An integer output is never widened (an index off by 7 is wrong whatever else the
    kernel computes with atan2); where a builtin's error may move one (a bin chosen by
    an angle), the reference run with those errors says which values are right
    (``Expected.unstable_integers``)."""
    if target != "wgsl" or not is_float_dtype(np.dtype(dtype)):
        return tolerance
    if (
        calls_trig(kernel, "wgsl")
        and tolerance.atol < WGSL_TRIG_ERROR
        and not carries(kernel.reference, _TRIG_NAMES)
    ):
        tolerance = replace(
            tolerance, atol=WGSL_TRIG_ERROR, rtol=max(tolerance.rtol, WGSL_TRIG_ERROR)
        )
    if calls_inverse_trig(kernel) and not carries(kernel.reference, _INVERSE_NAMES):
        tolerance = replace(tolerance, ulp=max(tolerance.ulp, WGSL_ATAN_ULP))
    return tolerance


def calls_inverse_trig(kernel: KernelSpec) -> bool:
    """Whether ``kernel``'s WGSL calls ``atan``, ``atan2``, ``asin`` or ``acos``."""
    source = _code(kernel, "wgsl")
    return source is not None and _INVERSE_TRIG.search(source) is not None


#: numpy's functions the oracle carries WGSL's sin, cos and tan error through (``exp``
#: of an imaginary angle is a twiddle factor), and its inverse trigonometric ones (by
#: both of numpy 2's names).
_TRIG_NAMES = frozenset({"sin", "cos", "tan", "exp"})
_INVERSE_NAMES = frozenset(
    {"arctan", "arctan2", "arcsin", "arccos", "atan", "atan2", "asin", "acos"}
)


def carries(reference, names: frozenset[str]) -> bool:
    """Whether the oracle can carry a builtin's error through ``reference``: it calls
    one of numpy's ``names`` (``_numpy_calls``; ``exp`` only with a complex constant in
    its code, as twiddle factors ``np.exp(-2j * np.pi * k / n)`` are written: a real
    exponential carries no sine)."""
    if any(reference is getattr(np, name, None) for name in names):  # reference=np.sin
        return True
    named = _numpy_calls(reference, names)
    if named == {"exp"} and not _complex_constants(reference):
        return False
    return bool(named)


#: What a reference that takes a running sum or product calls: ``np.cumsum(x)``,
#: ``x.cumsum()``, ``np.add.accumulate(x)`` (and the products and NaN-skipping forms).
_ACCUMULATIONS = frozenset({"cumsum", "cumprod", "nancumsum", "nancumprod", "accumulate"})


def accumulates(reference) -> bool:
    """Whether ``reference`` takes a running sum or product (``_ACCUMULATIONS``, as a
    method or an attribute of anything, read from the bytecode of the code it reaches):
    a scan. In the ``all`` input set every running total after the ``large`` block is of
    that block's magnitude, whose rounding swallows a later element left out or counted
    twice (round 52: a domino scan that dropped the last element passed, the element
    below half an ulp of 4e8), so the oracle also runs such a kernel on the ``normal``
    set, moderate values throughout."""
    import dis

    if getattr(reference, "__name__", None) in _ACCUMULATIONS:  # reference=np.cumsum
        return True
    for code, _ in _reached_code(reference):
        for instruction in dis.get_instructions(code):
            if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                if instruction.argval in _ACCUMULATIONS:
                    return True
    return False


#: What a reference that packs bits into words calls: numpy's shifts and ``packbits``
#: (its ``<<`` operator is read from the bytecode).
_PACKING = frozenset({"left_shift", "packbits", "bitwise_left_shift"})


def packs_bits(reference) -> bool:
    """Whether ``reference`` shifts bits into place (``<<``, ``<<=``, ``np.left_shift``,
    ``np.packbits``, in the code it reaches): its integer outputs are bit fields (an NMS
    mask of 64 boxes a word), whose bits are each decided apart, where a count's value is
    one number."""
    import dis

    if getattr(reference, "__name__", None) in _PACKING:
        return True
    if _numpy_calls(reference, _PACKING):
        return True
    for code, _ in _reached_code(reference):
        for instruction in dis.get_instructions(code):
            if instruction.opname in ("BINARY_LSHIFT", "INPLACE_LSHIFT"):  # Python 3.10
                return True
            if instruction.opname == "BINARY_OP" and instruction.argrepr in ("<<", "<<="):
                return True
    return False


def _numpy_calls(function, names: frozenset[str]) -> set[str]:
    """Which of numpy's ``names`` ``function`` reads: as attributes of the numpy module
    (``np.sin``; ``math.sin`` is not numpy's) or as numpy's functions bound to a name
    (``from numpy import sin``), in the code it reaches (``_reached_code``). Read from
    the bytecode, never run."""
    import dis

    by_identity = {id(getattr(np, n)): n for n in names if hasattr(np, n)}
    found: set[str] = set()
    for code, module in _reached_code(function):
        after_numpy = False
        for instruction in dis.get_instructions(code):
            if after_numpy and instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                if instruction.argval in names:
                    found.add(instruction.argval)
            after_numpy = False
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                value = module.get(instruction.argval)
                after_numpy = value is np
                if id(value) in by_identity:
                    found.add(by_identity[id(value)])
    return found


def _reached_code(function):
    """(code, module globals) of ``function``, of the code nested in it (lambdas,
    comprehensions) and of the functions of its module it names, however deep (an
    element's helper): what running it may run of the user's code."""
    import dis
    import types

    if not isinstance(function, types.FunctionType):
        return
    module = function.__globals__
    seen: set = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        if code in seen:
            continue
        seen.add(code)
        yield code, module
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for instruction in dis.get_instructions(code):
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                value = module.get(instruction.argval)
                if isinstance(value, types.FunctionType) and value.__globals__ is module:
                    codes.append(value.__code__)


#: Edge families a kernel is not drawn because a function its source calls has no
#: defined result there: (the WGSL calls, what is left out, why). sin, cos and tan are
#: handled by ``calls_trig`` (WGSL and CUDA's fast intrinsics).
_WGSL_LIMITS = (
    (
        re.compile(r"\b(?:log|log2|pow)\s*\("),
        "subnormal",
        "WGSL specifies log, log2 and pow for normal inputs (lavapipe's log of a subnormal "
        "is -88 where it is -90 to -103)",
    ),
    (
        re.compile(r"\bpow\s*\("),
        "nonfinite",
        "WGSL's pow is exp2(y * log2(x)), undefined at NaN and -Inf (lavapipe's pow(NaN, y) is 0)",
    ),
    (
        re.compile(r"\b(?:pack2x16float|quantizeToF16)\s*\("),
        "large",
        "WGSL leaves pack2x16float and quantizeToF16 indeterminate outside f16's finite "
        "range (+-65504; SwiftShader packs 0xFFFF where numpy rounds to Inf)",
    ),
    (
        re.compile(r"\b(?:pack2x16float|quantizeToF16)\s*\("),
        "nonfinite",
        "WGSL leaves pack2x16float and quantizeToF16 indeterminate outside f16's finite "
        "range, Inf and NaN included",
    ),
    (
        re.compile(r"\bfrexp\s*\("),
        "nonfinite",
        "frexp's exponent of Inf and NaN is unspecified (C; SwiftShader's is 129, numpy's 0)",
    ),
)
_TRIG_LIMIT = "sin, cos and tan are accurate only on [-pi, pi] (WGSL, and CUDA's __sinf family)"


def builtin_limits(kernel: KernelSpec) -> dict[str, str]:
    """The edge families ``kernel`` is not drawn, each with why: those where a function
    its source calls has no defined result (large magnitudes for sin, cos and tan, and
    for WGSL's f16 packing; subnormals for WGSL's log and pow; NaN and Inf for WGSL's
    pow)."""
    limits: dict[str, str] = {}
    if calls_trig(kernel):
        limits["large"] = _TRIG_LIMIT
    source = _code(kernel, "wgsl")
    if source is not None:
        constant = _constant_names(source)
        for pattern, family, why in _WGSL_LIMITS:
            if any(not _on_constants(source, m.end(), constant) for m in pattern.finditer(source)):
                limits.setdefault(family, why)
    return limits


_NUMBER = re.compile(
    r"^(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[fhiu]?$"
)
_CONST_DECL = re.compile(r"\b(?:const|override)\s+(\w+)")
# a loop counter started at a literal and stepped by a literal: ``for (var i = 1; ...;
# i++)``, the only variable whose values a call on it can be sure of
_COUNTER = re.compile(
    r"\bfor\s*\(\s*var\s+(\w+)\s*(?::\s*\w+\s*)?=\s*[\d.]+[fiu]?\s*;[^;]*;\s*"
    r"(?:\1\s*(?:\+\+|--|[+-]=\s*[\d.]+[fiu]?)|(?:\+\+|--)\s*\1)\s*\)"
)
_CASTS = frozenset("f32 f16 i32 u32 abs".split())


def _constant_names(source: str) -> frozenset[str]:
    """Names whose values come from no input: ``const`` and ``override`` declarations,
    and loop counters stepped from a literal by a literal (``_COUNTER``)."""
    return frozenset(_CONST_DECL.findall(source)) | frozenset(
        m.group(1) for m in _COUNTER.finditer(source)
    )


def _on_constants(source: str, start: int, constant: frozenset[str]) -> bool:
    """Whether the call whose arguments open at ``source[start - 1]`` reads only
    literals, ``constant`` names, casts and arithmetic of them (Rodinia backprop's
    ``pow(2.0, f32(i))`` over its tree's levels, ``log2(f32(HEIGHT))``): such a call
    meets no input value, and the families it has no defined result for may be drawn."""
    depth, end = 1, start
    while end < len(source) and depth:
        depth += {"(": 1, ")": -1}.get(source[end], 0)
        end += 1
    if depth:
        return False
    for token in re.findall(r"[A-Za-z_]\w*|[\d.][\w.]*", source[start : end - 1]):
        if token[0].isdigit() or token[0] == ".":
            if not _NUMBER.match(token):
                return False
        elif token not in constant and token not in _CASTS:
            return False
    return True


def limits_note(limits: Mapping[str, str]) -> str:
    """What ``builtin_limits`` left out, for the report."""
    names = {"large": "large magnitudes", "subnormal": "subnormals", "nonfinite": "NaN and Inf"}
    return "; ".join(f"{names[f]} were not drawn: {why}" for f, why in limits.items())


_TANH = re.compile(r"\btanh\s*\(")
_FMA = re.compile(r"\bfma\s*\(")


# half arithmetic as CUDA writes it: the intrinsics (__hadd2, __hfma2, __hmul...) and
# locals of a half type (``half2 value(0.f, 0.f)``, ``__half acc = ...``), whose
# operators compute in half; WGSL: an f16 module
_CUDA_HALF_MATH = re.compile(
    r"\b__h(?:add|sub|mul|fma|div)2?(?:_rn|_sat|_relu)?\s*\("
    r"|\b(?:__)?half2?\s+[A-Za-z_]\w*\s*(?:=|\()"
)
_WGSL_F16 = re.compile(r"\benable\s+f16\s*;")
# relative errors up to this many f16 roundings (2**-11 each) are "a few": past it, more
# than half arithmetic is wrong
_HALF_ROUNDINGS = 64
# a tensor core's accumulator in half: WMMA's ``fragment<accumulator, M, N, K, half>``
# and PTX's ``mma.sync`` with f16 C and D (``.row.col.f16.f16.f16.f16``), which round
# each MMA step's sum to half (round 61: cuda_hgemm's HGEMM)
_TENSOR_HALF_ACCUMULATOR = re.compile(
    r"\baccumulator\s*,[^;<>]*?,\s*(?:__)?half\s*>"
    r"|\bmma\.sync\.aligned\.m\w+\.row\.col\.f16\.f16\.f16\.f16\b"
)


def _half_arithmetic_note(ev: Evaluation, kernel: KernelSpec, target: str | None) -> list[str]:
    """On a mismatch of outputs wider than f16 within a few f16 roundings of the
    reference, in a kernel that computes in half (round 40: cuda-samples'
    fp16ScalarProduct adds its products with ``__hfma2`` and ``__hadd2``, whole numbers
    past 2048 round to even, and an f32 result was off by 3 in 5310 with no word of
    why): the precision the kernel computes in, and the two ways to a pass."""
    source = _code(kernel, target) if target in ("cuda", "wgsl") else None
    if target == "cuda" and source is not None and _TENSOR_HALF_ACCUMULATOR.search(source):
        return _tensor_half_note(ev)
    pattern = _CUDA_HALF_MATH if target == "cuda" else _WGSL_F16
    if source is None or not pattern.search(source):
        return []
    unit = 2.0**-11
    wide = [
        check
        for check in ev.outputs.values()
        if not check.passed
        and check.comparison.dtype[1] in ("f32", "f64")
        and 0 < check.comparison.max_rel <= _HALF_ROUNDINGS * unit
    ]
    if not wide:
        return []
    worst = max(check.comparison.max_rel for check in wide)
    labels = ", ".join(check.label for check in wide)
    ops, widen = (
        ("__hadd2, __hfma2, half operators", "__half2float or __low2float, then fmaf")
        if target == "cuda"
        else ("enable f16", "f32(x) of each f16 operand")
    )
    return [
        f"the kernel computes in half (f16 arithmetic: {ops}), "
        f"and {labels} differ from the reference by at most {worst:.2g} relative, "
        f"{worst / unit:.1f} f16 roundings (2**-11 each: a sum of whole numbers past 2048 "
        "rounds to even): a float reference holds it to its own precision. If half "
        "arithmetic is the kernel's design, the reference must round as it does (each "
        f"step .astype(np.float16), in the kernel's order); if not, the kernel should "
        f"accumulate in float ({widen})"
    ]


def _tensor_half_note(ev: Evaluation) -> list[str]:
    """On a mismatch of float outputs of a kernel whose tensor-core accumulator is half
    (``_TENSOR_HALF_ACCUMULATOR``): the precision it sums in and the two ways to a pass.
    Errors of any size: a half accumulator's, against a reference that rounds the
    exact product once, reach half the value where the sum cancels (tens of f16 ulps
    at K = 256), so no bound tells them from a wrong kernel's."""
    wrong = [
        check
        for check in ev.outputs.values()
        if not check.passed and check.comparison.dtype[1] in ("f16", "f32", "f64")
    ]
    if not wrong:
        return []
    labels = ", ".join(check.label for check in wrong)
    return [
        f"the kernel accumulates on tensor cores in half (a half accumulator fragment, or "
        f"mma.sync with f16 C and D): each MMA step's sum is rounded to half, and {labels} "
        "differ from the reference: one that rounds the exact product once holds the "
        "kernel to more than half precision. If a half accumulator is the kernel's design "
        "(an HGEMM), the reference must sum as it does, per K step of the MMA's depth "
        "(16 for m16n16k16 and m16n8k16): acc = (acc + A[:, k:k+16].astype(np.float64) @ "
        "B[k:k+16]).astype(np.float16); if not, the accumulator should be float "
        "(fragment<accumulator, ..., float>, mma.sync's .f32 C and D)"
    ]


def _tanh_overflow(ev: Evaluation, kernel: KernelSpec) -> bool:
    """Whether ``ev`` has NaN where the reference is finite, from a WGSL tanh."""
    source = _code(kernel, "wgsl")
    if source is None or not _TANH.search(source):
        return False
    return any(
        np.isnan(m.got) and np.isfinite(m.want)
        for check in ev.outputs.values()
        for m in check.comparison.first_mismatches
        if isinstance(m.got, (float, np.floating)) and isinstance(m.want, (float, np.floating))
    )


def builtin_notes(
    ev: Evaluation, kernel: KernelSpec, target: str | None, generated: bool
) -> list[str]:
    """What the report says of the builtins ``kernel`` calls: the input families left
    out (where the oracle drew the inputs), the tolerance widened on WGSL, and on a
    mismatch a tanh that overflowed to NaN or an fma WGSL may leave unfused."""
    notes: list[str] = []
    limits = builtin_limits(kernel) if generated else {}
    if limits:
        notes.append(limits_note(limits))
    if ev.verdict == Verdict.MISMATCH and target == "wgsl" and _tanh_overflow(ev, kernel):
        notes.append(
            "NaN where the reference is finite, in a kernel calling tanh: WGSL gives tanh "
            "the accuracy of sinh(x) / cosh(x), which some implementations (SwiftShader) "
            "overflow to NaN for |x| > 89; tanh(clamp(x, -15.0, 15.0)) is the same in f32 "
            "and portable"
        )
    if (
        ev.verdict == Verdict.MISMATCH
        and target == "wgsl"
        and _FMA.search(_code(kernel, "wgsl") or "")
    ):
        notes.append(
            "the kernel calls fma: WGSL gives fma(a, b, c) the accuracy of a * b + c, and "
            "some implementations (lavapipe, SwiftShader) round a * b before adding. Where "
            "the sum cancels (a lerp written fma(-w, s, s) is s - w * s), that rounding of "
            "a * b is all that is left: such elements are off by it here and not where fma "
            "is fused (CUDA)"
        )
    if ev.verdict == Verdict.MISMATCH:
        notes += _half_arithmetic_note(ev, kernel, target)
    if target == "wgsl" and calls_trig(kernel, "wgsl"):
        if carries(kernel.reference, _TRIG_NAMES):
            notes.append(
                "WGSL bounds sin, cos and tan's error at 2**-11 only: that "
                "error was carried through the reference's np.sin, np.cos and np.tan to the "
                "float elements it reaches, where a mismatch was within it"
            )
        else:
            notes.append(
                "WGSL bounds sin, cos and tan's error at 2**-11 only, and the reference calls "
                "no np.sin, np.cos or np.tan to carry it through: float outputs were judged "
                f"with atol and rtol of at least {WGSL_TRIG_ERROR:.2g} on this target"
            )
    if target == "wgsl" and calls_inverse_trig(kernel):
        notes.append(
            "WGSL lets atan, atan2, asin and acos err by 4096 ulp (asin and acos also by "
            "what they inherit from atan2(sqrt(1 - x * x), x)): "
            + (
                "that error was carried through the reference's np.arctan2 and kin to the "
                "float elements it reaches, and to integer ones it may move"
                if carries(kernel.reference, _INVERSE_NAMES)
                else "the reference calls none of np.arctan, np.arctan2, np.arcsin or "
                "np.arccos to carry it through, so float outputs were judged within 4096 ulp"
            )
        )
    return notes


# -- min and max: IEEE 754-2008's minNum and maxNum ----------------------------------------
# WGSL's min, max and clamp and C's fminf, fmaxf drop a NaN operand (they return the other
# one); numpy's minimum, maximum, clip, min and max propagate it. A reference written with
# numpy's is run once more with the dropping twins, for ``Expected.nan_alternatives``;
# with them ``sign`` as comparisons make it (0 for NaN, as lavapipe's WGSL sign gives).
def _clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None, **kwargs):
    low = a_min if a_min is not None else min
    high = a_max if a_max is not None else max
    result = np.asarray(a)
    if low is not None:
        result = np.fmax(result, low)
    if high is not None:
        result = np.fmin(result, high)
    if out is None:
        return result
    out[...] = result
    return out


def _sign(x, *args, **kwargs):  # by comparisons, as WGSL's sign is: 0 for NaN
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return np.sign(x, *args, **kwargs)
    return np.where(np.isnan(x), x.dtype.type(0), np.sign(x, *args, **kwargs))


_DROPPING = {
    "maximum": np.fmax,
    "minimum": np.fmin,
    "max": np.nanmax,
    "amax": np.nanmax,
    "min": np.nanmin,
    "amin": np.nanmin,
    "clip": _clip,
    "sign": _sign,
}


class _NumpyWith:
    """numpy, with some of its functions replaced."""

    def __init__(self, replaced: Mapping) -> None:
        self._replaced = replaced
        # numpy 2's aliases (np.atan2 is np.arctan2) are replaced with their originals
        self._by_identity = {id(getattr(np, name)): twin for name, twin in replaced.items()}

    def __getattr__(self, name: str):
        if name in self._replaced:
            return self._replaced[name]
        value = getattr(np, name)
        return self._by_identity.get(id(value), value)


def _rebound(reference, replaced: Mapping):
    """``reference`` (a plain function, or one inside a ``functools.partial``, a bound
    method or an instance's ``__call__``; or the numpy function itself) reading
    ``replaced`` numpy functions by name: where it, or a function of its module it
    calls, names numpy (``np.maximum``) or such a function directly; None where its
    module names none (or it is none of those)."""
    import inspect
    import types

    by_identity = {id(getattr(np, name)): twin for name, twin in replaced.items()}
    if id(reference) in by_identity:  # the numpy function itself: ``reference=np.sign``
        return by_identity[id(reference)]
    if isinstance(reference, functools.partial):  # the function inside, its arguments kept
        inner = _rebound(reference.func, replaced)
        return (
            None
            if inner is None
            else functools.partial(inner, *reference.args, **reference.keywords)
        )
    if isinstance(reference, types.MethodType):  # a bound method: bound again
        inner = _rebound(reference.__func__, replaced)
        return None if inner is None else types.MethodType(inner, reference.__self__)
    call = inspect.getattr_static(type(reference), "__call__", None)
    if not isinstance(reference, types.FunctionType) and isinstance(call, types.FunctionType):
        inner = _rebound(call, replaced)  # an instance with __call__: its method, bound
        return None if inner is None else types.MethodType(inner, reference)
    if not isinstance(reference, types.FunctionType):
        return None
    module = reference.__globals__
    globals_: dict = {}
    changed = False
    for name, value in module.items():
        if value is np:
            globals_[name], changed = _NumpyWith(replaced), True
        elif isinstance(value, _NumpyWith):  # rebound before (widened): both replaced
            globals_[name], changed = _NumpyWith({**value._replaced, **replaced}), True
        elif id(value) in by_identity and callable(value):
            globals_[name], changed = by_identity[id(value)], True
        else:
            globals_[name] = value
    if not changed:
        return None

    def rebound(fn):  # the same function, reading the replaced globals
        copy = types.FunctionType(
            fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__
        )
        copy.__kwdefaults__ = fn.__kwdefaults__
        return copy

    for name, value in module.items():  # helpers of the same module read them too
        if isinstance(value, types.FunctionType) and value.__globals__ is module:
            globals_[name] = rebound(value)
    return rebound(reference)


def nan_dropping(reference):
    """``reference`` as C's ``fmaxf`` and WGSL's ``max`` would compute it: numpy's
    NaN-propagating min and max (``np.maximum``, ``np.clip``, ``np.max``, ...) replaced
    by their NaN-dropping twins (``_rebound``); None where its module names none."""
    return _rebound(reference, _DROPPING)


# -- a zero times Inf or NaN: skipped padding -------------------------------------------
# A convolution's reference pads with zeros (``np.pad``) and multiplies them in; a kernel
# skips the padded taps (it reads no padding). At a tap that meets only padding, an
# infinite or NaN weight makes the reference NaN (0 * Inf) where the kernel, rightly,
# stays finite. The reference run with such products zero is one more alternative.
class _AnnihilatingArray(np.ndarray):
    """An array of a reference run whose products (``*``, ``@``, ``einsum``, ``dot``...)
    give 0 where an exact zero meets Inf or NaN, as a kernel that skips the term does;
    everything else as numpy computes it. Arrays derived from it stay such arrays."""

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        result = _contracting(self, func, types, args, kwargs, _annihilated)
        if isinstance(result, np.ndarray) and not isinstance(result, _AnnihilatingArray):
            return result.view(_AnnihilatingArray)
        return result

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain, outs, result = _plain_call(_AnnihilatingArray, ufunc, method, inputs, kwargs)
        if method == "__call__" and ufunc in (np.multiply, np.matmul):
            rest = {k: v for k, v in kwargs.items() if k != "out"}
            result = _annihilated(ufunc, plain, rest, result)
        return _rewrapped(_AnnihilatingArray, result, outs, kwargs)


#: In float64, what stands for an infinite float32 (or float16) element in a product:
#: zero times it is zero, a finite number times it is far above any finite result.
_HUGE = 1e200
_HUGE_SEEN = 1e120  # a result this large took an infinite element with a non-zero one
_FINITE_ROOM = 1e60  # operands below this in magnitude leave that gap


def _annihilated(function: Any, operands: tuple, kwargs: dict, result: Any) -> Any:
    """``result`` (``function`` of two array ``operands``, a product or a sum of
    products) with the terms where an exact zero meets Inf or NaN left out: computed
    in float64 with each Inf as ``+-_HUGE`` (and NaN apart), so that the terms where a
    non-finite element meets a non-zero one still make the result infinite (or NaN).
    Where the operands' finite values leave no room for that, ``result`` is kept where
    a non-finite element meets a non-zero one, else the operands' finite part."""
    array = np.asarray(result)
    places = [i for i, a in enumerate(operands) if isinstance(a, (np.ndarray, float, np.floating))]
    if array.dtype.kind != "f" or len(places) != 2:
        return result
    a, b = (np.asarray(operands[i]) for i in places)
    if a.dtype.kind not in "fiub" or b.dtype.kind not in "fiub":
        return result
    if np.isfinite(a).all() and np.isfinite(b).all():
        return result

    def call(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        args = list(operands)
        args[places[0]], args[places[1]] = x, y
        return np.asarray(function(*args, **kwargs))

    def indicator(x: np.ndarray) -> np.ndarray:
        return x.astype(np.float64)

    with np.errstate(all="ignore"):
        nan = [indicator(np.isnan(x)) for x in (a, b)]
        nonzero = [indicator(x != 0) for x in (a, b)]
        nan_met = call(nan[0], nonzero[1]) + call(nonzero[0], nan[1]) > 0
        finite = [np.where(np.isfinite(x), x, 0).astype(np.float64) for x in (a, b)]
        if max(float(np.abs(x).max(initial=0.0)) for x in finite) < _FINITE_ROOM:
            huge = [
                np.where(np.isinf(x), np.sign(x, dtype=np.float64) * _HUGE, f)
                for x, f in zip((a, b), finite)
            ]
            kept = call(*huge)
            kept = np.where(np.abs(kept) >= _HUGE_SEEN, np.sign(kept) * np.inf, kept)
        else:
            infinite = [indicator(np.isinf(x)) for x in (a, b)]
            met = call(infinite[0], nonzero[1]) + call(nonzero[0], infinite[1]) > 0
            kept = np.where(met, array, call(*finite))
        if kept.shape != array.shape or nan_met.shape != array.shape:
            return result
        kept = np.where(nan_met, np.nan, kept).astype(array.dtype)
    return kept if isinstance(result, np.ndarray) else kept[()]


def zeros_annihilating(reference):
    """``reference`` with its arrays, and those its numpy calls create, as
    ``_AnnihilatingArray``: a zero times Inf or NaN is zero, as where a kernel skips
    padded taps. None where its module names no numpy."""
    return _with_arrays_as(reference, _AnnihilatingArray, lambda: None)


#: The relative error of a float32 argument a kernel computes for sin or cos (an angle
#: t * freq with freq = 10000**(-2i/D)): two roundings.
ARGUMENT_ERROR = 2.0 * 2.0**-24


def trig_erring(reference, rng, absolute: float = 0.0, inverse: bool = False):
    """``reference`` with numpy's sin, cos and tan (and ``exp`` of an imaginary angle, a
    twiddle factor) taken at arguments off by
    ``ARGUMENT_ERROR``, relative, and their values off by ``absolute`` (WGSL's bound
    ``2**-11``, or 0 for an accurate sinf), each at random per element (from ``rng``):
    how far a right float32 kernel's results may move through what it computes from
    them (a rotary embedding's angle of 127 radians rounds by 1.5e-5, which x
    multiplies). With ``inverse``, numpy's arctan, arctan2, arcsin and arccos instead,
    their values off by what WGSL allows (``inverse_trig_error``). None where its module
    names none of them."""

    def erring(function):
        def off(x, *args, **kwargs):
            x = np.asarray(x)
            moved = x * (1.0 + ARGUMENT_ERROR * rng.choice((-1.0, 1.0), size=x.shape))
            value = function(moved, *args, **kwargs)
            return value + absolute * rng.choice((-1.0, 1.0), size=np.shape(value))

        return off

    def erring_exp(x, *args, **kwargs):  # exp(1j * theta) is cos(theta) + 1j * sin(theta)
        if not np.iscomplexobj(x):
            return np.exp(x, *args, **kwargs)
        x = np.asarray(x)
        signs = rng.choice((-1.0, 1.0), size=x.shape)
        moved = x.real + 1j * x.imag * (1.0 + ARGUMENT_ERROR * signs)
        value = np.exp(moved, *args, **kwargs)
        off = rng.choice((-1.0, 1.0), size=np.shape(value))
        return value + absolute * (off + 1j * rng.choice((-1.0, 1.0), size=np.shape(value)))

    def erring_inverse(name):
        function = getattr(np, name)

        def off(*args, **kwargs):
            value = function(*args, **kwargs)
            error = inverse_trig_error(name, value, *args)
            return value + error * rng.choice((-1.0, 1.0), size=np.shape(value))

        return off

    if not carries(reference, _INVERSE_NAMES if inverse else _TRIG_NAMES):
        return None  # it calls none of them: nothing moves
    if inverse:
        names = ("arctan", "arctan2", "arcsin", "arccos")
        return _rebound(reference, {name: erring_inverse(name) for name in names})
    replaced = {name: erring(getattr(np, name)) for name in ("sin", "cos", "tan")}
    return _rebound(reference, {**replaced, "exp": erring_exp})


#: float32's unit roundoff, for what WGSL's asin and acos inherit from their formula.
_U32 = 2.0**-24


def inverse_trig_error(name: str, value: Any, *args: Any) -> np.ndarray:
    """The error WGSL allows a float32 ``name`` (numpy's arctan, arctan2, arcsin or
    arccos) whose exact result is ``value`` at arguments ``args``: 4096 ULP of the
    result, and for asin and acos what they inherit from ``atan2(sqrt(1 - x * x), x)``
    (WGSL: "inherited from atan2(...)"): ``1 - x * x`` rounded in float32 moves the
    angle by about ``|x| * u * (0.75 / sqrt(1 - x * x) + sqrt(1 - x * x))``, which near
    x = +-1 (the angle between two near-parallel unit vectors) is hundreds of ulp, and
    never more than the angle a rounding of ``1 - x * x`` can make, ``sqrt(3 u)``."""
    value = np.asarray(value, np.float64)
    with np.errstate(all="ignore"):
        ulps = WGSL_ATAN_ULP * np.spacing(np.abs(value).astype(np.float32)).astype(np.float64)
        if name not in ("arcsin", "arccos") or not args:
            return np.where(np.isfinite(ulps), ulps, 0.0)
        x = np.abs(np.asarray(args[0], np.float64))
        y = np.sqrt(np.maximum(1.0 - x * x, 0.0))
        inherited = np.minimum(x * _U32 * (0.75 / y + y), np.sqrt(3.0 * _U32))
        total = ulps + np.where(np.isfinite(inherited), inherited, np.sqrt(3.0 * _U32))
    return np.where(np.isfinite(total), total, 0.0)


# -- where WGSL defines no result ----------------------------------------------------
# numpy (IEEE 754) gives atan2(+-0, +-0) a value (0 or +-pi) and pow(-2, 2) one (4);
# WGSL lowers both to GLSL.std.450 on Vulkan, which leaves Atan2 undefined where both
# arguments are 0 and Pow where x < 0, or x = 0 and y <= 0 (pow is exp2(y * log2(x))):
# lavapipe's atan2(0, 0) is 3 pi / 4. An output element that comes from such a call may
# hold anything on a right kernel.
_UNDEFINED_CALLS = {
    "arctan2": re.compile(r"\batan2\s*\("),
    "power": re.compile(r"\bpow\s*\("),
}


def _filled_where(function, undefined, fill: float):
    def twin(*args, **kwargs):
        value = function(*args, **kwargs)
        if len(args) < 2:
            return value
        where = undefined(np.asarray(args[0]), np.asarray(args[1]))
        return np.where(where, fill, value) if np.any(where) else value

    return twin


_UNDEFINED_WHERE = {
    "arctan2": (np.arctan2, lambda y, x: (y == 0) & (x == 0)),
    "power": (
        np.power,
        lambda x, y: (
            (x.dtype.kind == "f" or y.dtype.kind == "f") & ((x < 0) | ((x == 0) & (y <= 0)))
        ),
    ),
}


def undefined_in_wgsl(reference, kernel: KernelSpec, fill: float = np.nan):
    """``reference`` with each numpy function whose WGSL builtin ``kernel``'s WGSL source
    calls (``atan2``, ``pow``) giving ``fill`` (NaN, or a finite value: a NaN compared
    lands where numpy's value does) where WGSL defines no result; None where the source
    calls none of them or the reference's module names none."""
    source = _code(kernel, "wgsl")
    if source is None:
        return None
    twins = {
        name: _filled_where(*_UNDEFINED_WHERE[name], fill)
        for name, call in _UNDEFINED_CALLS.items()
        if call.search(source)
    }
    return _rebound(reference, twins) if twins else None


# -- float32 names read as float64 -------------------------------------------------------
# A reference run on float64 arrays still rounds where it makes its own float32 arrays
# (``out = np.zeros(shape, np.float32)``, then ``out += ...``): a convolution accumulated
# so was no polynomial in its inputs to the oracle, its float64 runs at 1x..5x the inputs
# off by the float32 roundings of its partial sums.
_NARROW = ("float32", "float16", "single", "half")
_NARROW_STRINGS = {"float32", "f4", "<f4", "float16", "f2", "<f2", "single", "half"}


def widened(reference):
    """``reference`` with numpy's float32 and float16 (by those names, or as a creator's
    ``dtype=`` string) read as float64; None where its module names no numpy."""

    def widening(function):
        def create(*args, **kwargs):
            dtype = kwargs.get("dtype")
            if isinstance(dtype, str) and dtype in _NARROW_STRINGS:
                kwargs["dtype"] = np.float64
            return function(*args, **kwargs)

        return create

    replaced: dict[str, Any] = {name: np.float64 for name in _NARROW}
    replaced.update({name: widening(getattr(np, name)) for name in _CREATORS})
    return _rebound(reference, replaced)


# -- every operation rounded: Monte Carlo arithmetic ------------------------------------
# A float32 kernel rounds every intermediate it computes, also those that come from no
# input (a bilinear resize's sample coordinate, from its output index); a reference in
# float64 rounds none. Run with each float result of its numpy operations moved by one
# float32 rounding (a random direction per element), it shows how far those roundings
# may carry an element.
class _RoundingArray(np.ndarray):
    """An array whose every ufunc's float result is moved by ``unit`` relative, in a
    direction drawn per element from ``rng`` (``_EXACT`` ufuncs' results not at all, and
    a correctly rounded ``+``, ``-`` or ``*`` only where its result is not a ``narrow``
    number; a quotient by ``_QUOTIENT_UNITS`` units); its other results stay such arrays."""

    rng: Any = None
    unit: float = 2.0**-24
    narrow: Any = None  # the dtype ``unit`` is half an ulp of (None: round every result)
    either_f16: bool = False  # a conversion to f16 may round either way (WGSL)
    quotient_units: float = 5.0  # how far a quotient moves (WGSL's 2.5 ulp; see below)
    # numpy functions moved as far as WGSL lets their builtins err (``_approximated``)
    approximated: frozenset = frozenset()
    counts: bool = False  # this array (a view of it) counts true elements (``_counted``)
    # equal operands moved alike (``_alike``): set for the runs that judge integers
    alike: bool = False
    operands: Any = None  # the operands of the ufunc call being moved, for ``_alike``
    # a quotient exact in float64 of its operands stays, an inexact one moves by
    # ``quotient_units`` (the runs that judge integers: ``x / 0.25 = k + 0.5`` is a tie
    # the kernel rounds as written, while NVIDIA's ``x * (1 / y)`` may move any other)
    exact_quotients: bool = False
    # only quotients move (the other results are as the reference computes them)
    only_quotients: bool = False
    # a float taken out of one (``lo, hi = range``) stays a 0-d one (``_kept_scalar``)
    keeps_scalars: bool = False

    def __array_finalize__(self, obj: Any) -> None:
        # a view of a count (``count[:, None]``) is a count; a ufunc's result is not
        self.counts = bool(getattr(obj, "counts", False))

    def __getitem__(self, key: Any) -> Any:
        """A float taken out (``nearest = range[0]``) as a 0-d array of this class,
        so that what the reference computes from it in scalars (a histogram's ``scale =
        (n - 1) / (hi - lo)``) is moved as the kernel's arithmetic may move it."""
        return _kept_scalar(super().__getitem__(key))

    def __iter__(self) -> Any:
        """Unpacking (``lo, hi = range``) gives 0-d arrays too (``__getitem__``)."""
        if self.ndim == 1 and _RoundingArray.keeps_scalars:
            return (self[i] for i in range(len(self)))
        return super().__iter__()

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        """A conversion to float16 that is not exact rounds down or up, as WGSL allows
        (its conversions to f16, ``quantizeToF16`` and ``f16(x)``, name no rounding
        mode: SwiftShader truncates), the direction drawn like an operation's; other
        conversions as numpy makes them."""
        wide = np.asarray(self)
        result = wide.astype(dtype, *args, **kwargs)
        if (
            _RoundingArray.either_f16
            and _RoundingArray.rng is not None
            and result.dtype == np.float16
            and wide.dtype.kind == "f"
            and wide.dtype.itemsize > 2
        ):
            with np.errstate(all="ignore"):
                inexact = np.isfinite(result) & (result.astype(wide.dtype) != wide)
                other = np.nextafter(
                    result, np.where(result > wide, -np.inf, np.inf).astype(np.float16)
                )
            signs = _signs(np.shape(result))
            result = np.where(inexact & (signs > 0), other, result).astype(np.float16)
        return result.view(_RoundingArray) if isinstance(result, np.ndarray) else result

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """A contraction (``einsum``, ``dot``, ``tensordot``...) computed on the plain
        arrays, its result moved as a float32 sum of its terms may be
        (``_summed``); any other function as numpy runs it on these arrays. Either way
        a float array comes back as one of them: ``einsum`` returned a plain array, and
        nothing computed from an attention's scores was rounded after it."""
        return _still_rounding(_contracting(self, func, types, args, kwargs, _summed))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__" and ufunc.__name__ not in _EXACT:
            inputs = tuple(_held_in_float32(x) for x in inputs)
        plain, outs, result = _plain_call(_RoundingArray, ufunc, method, inputs, kwargs)
        if method == "at":
            return result
        if (ufunc is np.add and method in ("reduce", "accumulate")) or ufunc is np.matmul:
            # a sum (``x.sum()``, ``np.cumsum``, ``a @ b``) rounds once per term
            call = getattr(ufunc, method)
            rest = {k: v for k, v in kwargs.items() if k != "out"}
            result = _summed(lambda *a, **k: call(*a, **k), plain, rest, result)
            return _counted(
                _still_rounding(_rewrapped(_RoundingArray, result, outs, kwargs)), plain
            )
        if ufunc is np.multiply and method == "__call__" and outs is None:
            counts = [x for x in inputs if isinstance(x, _RoundingArray) and x.counts]
            if counts:
                return _still_rounding(_repeated(result, np.asarray(counts[0])))
        if method != "__call__" or ufunc.__name__ in _EXACT:
            how = _EXACT_RESULT
        elif _RoundingArray.only_quotients and ufunc.__name__ not in _QUOTIENTS:
            how = _EXACT_RESULT
        elif ufunc.__name__ in _CORRECTLY_ROUNDED:
            how = _INEXACT_RESULT
        else:
            how = _RoundingArray.quotient_units if ufunc.__name__ in _QUOTIENTS else 1.0
        if method == "__call__":
            _RoundingArray.operands = plain
        try:
            if method == "__call__" and outs is None:
                if ufunc.__name__ in _RoundingArray.approximated:
                    return _kept_scalar(_approximated(ufunc.__name__, plain[0], result))
                if ufunc.__name__ in _QUOTIENTS and _RoundingArray.exact_quotients:
                    moved = _rounded(result, _RoundingArray.quotient_units)
                    return _kept_scalar(_exact_kept(plain, result, moved))
            return _kept_scalar(_rounded_results(result, outs, kwargs, how))
        finally:
            _RoundingArray.operands = None


def _kept_scalar(value: Any) -> Any:
    """A float scalar of a ``_RoundingArray`` run as a 0-d one of them, in a run that
    keeps them (``keeps_scalars``)."""
    if isinstance(value, np.floating) and _RoundingArray.keeps_scalars:
        return np.asarray(value).view(_RoundingArray)
    return value


def _exact_kept(operands: tuple, result: Any, moved: Any) -> Any:
    """``moved`` (a quotient's result moved), but ``result`` where the quotient of the
    operands in float64 is the result exactly."""
    with np.errstate(all="ignore"):
        wide = [np.asarray(x, np.float64) for x in operands]
        exact = wide[0] / wide[1] if len(wide) == 2 else 1.0 / wide[0]
        kept = np.asarray(exact == np.asarray(result, np.float64))
    if not kept.any():
        return moved
    return np.where(kept, result, moved).astype(np.asarray(result).dtype).view(_RoundingArray)


def _rounded_results(result: Any, outs: Any, kwargs: dict, how: float) -> Any:
    """A ``_RoundingArray`` ufunc's results, each moved by ``_rounded``."""
    if outs is not None:
        # a result written in place (``acc += x``, and numpy's own ``mean`` and
        # ``var``, which divide with ``out=``) is rounded there, and the caller gets
        # its own array back, still rounding: ``x.mean()`` over one element divided
        # exactly, and a right instance norm of a single value (its mean off by
        # WGSL's 2.5 ulp on NVIDIA, times 1/sqrt(eps)) was a false alarm
        for o in kwargs["out"]:
            if isinstance(o, np.ndarray) and o.dtype.kind == "f":
                o[...] = _rounded(o, how)
        return outs if isinstance(result, tuple) else outs[0]
    if isinstance(result, tuple):
        return tuple(_rounded(r, how) for r in result)
    return _rounded(result, how)


#: Ufuncs whose result is exact (a floor, a sign, a larger operand): a float32 kernel
#: computes the same from the same operands. Rounding their results made an index of
#: ``np.floor(x).astype(int)`` one less at every element (5.0 moved to 4.9999997), and
#: the bound of a resize or a noise lookup took in the neighbouring texel's value.
_EXACT = frozenset(
    "floor ceil trunc rint negative positive absolute fabs sign copysign maximum minimum "
    "fmax fmin clip fmod remainder floor_divide divmod modf frexp ldexp nextafter spacing "
    "conjugate heaviside".split()
)
#: Correctly rounded in IEEE arithmetic: a result that is a float32 number is exact.
_CORRECTLY_ROUNDED = frozenset("add subtract multiply square".split())
#: WGSL's division is accurate to 2.5 ulp (``x / y`` as ``x * (1 / y)``), five half-ulps.
_QUOTIENTS = frozenset("divide true_divide reciprocal".split())
_QUOTIENT_UNITS = 5.0
_EXACT_RESULT, _INEXACT_RESULT = 0.0, -1.0
#: The exponentials and logarithms WGSL does not round correctly, with the absolute
#: error it allows a logarithm near 1 (WGSL's accuracy table, f32 and f16): exp and exp2
#: within 3 + 2|x| ULP (f16: 1 + 2|x|); log and log2 within 3 ULP, but for x in
#: [0.5, 2], where the result nears 0 and its ULP shrinks, within an absolute 2**-21
#: (f16: 2**-7). numpy's log10 and log1p are kernels' log times a constant and log(1 +
#: x). NVIDIA's Vulkan driver computes them with its approximate ex2 and lg2: a right
#: soft-DTW port, each cell a log of a sum of exponentials of the cells before it, carried
#: that absolute error along 200 anti-diagonals (3.8e-6 at a value of 0.05, H100,
#: 2026-12-07), past a bound that moved each log by half an ULP of its result.
_WGSL_LOG_ERROR = {np.dtype(np.float32): 2.0**-21, np.dtype(np.float16): 2.0**-7}


def _approximated(name: str, operand: Any, result: Any) -> Any:
    """A ``_RoundingArray`` call of ``name`` (an exponential or a logarithm, which WGSL
    bounds as ``_WGSL_LOG_ERROR`` says) at ``operand``, its ``result`` moved as far as
    WGSL lets the builtin err, in the direction ``_signs`` draws; one rounding where
    the narrow dtype is neither f32 nor f16."""
    narrow = _RoundingArray.narrow
    value = np.asarray(result)
    if narrow is None or value.dtype.kind != "f":
        return _rounded(result, 1.0)
    half = np.dtype(narrow) == np.float16
    x = np.asarray(operand, np.float64)
    signs = _signs(np.shape(value))
    unit = _RoundingArray.unit  # half an ULP, relative
    with np.errstate(all="ignore"):
        if name in _EXPONENTIALS:  # (3 + 2|x|) ULP
            ulps = (1.0 if half else 3.0) + 2.0 * np.abs(x)
            moved = value * (1.0 + 2.0 * ulps * unit * signs)
        else:  # a logarithm: 3 ULP, or the absolute error near 1
            near = x + 1.0 if name == "log1p" else x
            inside = (near >= 0.5) & (near <= 2.0)
            absolute = _WGSL_LOG_ERROR[np.dtype(narrow)]
            relative = 6.0 * unit * np.abs(value)
            error = np.where(inside, np.maximum(relative, absolute), relative)
            moved = value + np.asarray(signs) * error
        moved = np.where(np.isfinite(value), moved, value).astype(value.dtype)
    moved = _underflow(moved, signs, narrow)
    if isinstance(result, np.ndarray):
        return np.asarray(moved).view(_RoundingArray)
    return np.asarray(moved, value.dtype)[()]


def _contracting(
    array: np.ndarray, func: Any, types: Any, args: Any, kwargs: Any, change: Any
) -> Any:
    """``func`` called on ``array``'s class of arrays: a contraction (``_CONTRACTIONS``,
    with no ``out``) on the plain arrays, its result passed through
    ``change(func, plain_args, kwargs, result)``; any other function as numpy runs it."""
    cls = type(array)
    if func in _CONTRACTIONS and "out" not in kwargs:
        plain = tuple(np.asarray(a) if isinstance(a, cls) else a for a in args)
        return change(func, plain, kwargs, func(*plain, **kwargs))
    return np.ndarray.__array_function__(array, func, types, args, kwargs)


def _still_rounding(result: Any) -> Any:
    """``result`` as a ``_RoundingArray``, a float scalar (a whole sum: ``x.sum()``,
    ``np.einsum("i,i->", ...)``) as a 0-d one, so that what is computed from it rounds
    too; anything else as it is."""
    if isinstance(result, np.floating):
        return np.asarray(result).view(_RoundingArray)
    if isinstance(result, np.ndarray) and not isinstance(result, _RoundingArray):
        return result.view(_RoundingArray)
    return result


#: Functions whose every result element is a sum of products of their operands'
#: elements (multilinear in them): a float32 kernel accumulates each in some order.
_CONTRACTIONS = frozenset(
    (np.einsum, np.dot, np.tensordot, np.inner, np.vdot, np.trace, np.convolve, np.correlate)
)


# The error a correct float sum of k terms is about sqrt(k) * u * sum|term| (Higham and
# Mary's probabilistic bound); a naive loop's partial sums make it about 1.5 times that,
# and the largest of millions of elements some 4 times more. A factor of 8 accepts those
# and still fails a sum accumulated in f16 or bf16 (u 2**-11, 2**-8 against float32's
# 2**-24), a dropped term or a wrong index by orders of magnitude.
_BOUND_FACTOR = 8.0
# Up to this many terms a sum gets the deterministic bound k * u * M: in a short sum whose
# partial sums stay near M the roundings need not average out (a right 144-term NCHW
# convolution on NVIDIA's Vulkan driver was off by 106 u M, past 8 sqrt(k) = 96).
_SHORT_SUM = 256.0


def summed_growth(magnitude: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sums whose terms' magnitudes add up to ``magnitude`` (M) and their squares to
    ``squares``: how many terms count, ``k = M**2 / squares`` (1 where there are none),
    and how many roundings of M a correct float accumulation of them may be off by,
    ``min(max(8 sqrt(k), 256), k)`` (never above a k-term sum's deterministic bound)."""
    with np.errstate(all="ignore"):
        terms = np.where(squares > 0, magnitude * magnitude / squares, 1.0)
        return terms, np.minimum(np.maximum(_BOUND_FACTOR * np.sqrt(terms), _SHORT_SUM), terms)


def _summed(function: Any, operands: tuple, kwargs: dict, result: Any) -> Any:
    """``result`` (``function`` of ``operands``: a sum of products of their elements)
    moved, per element, as a float32 accumulation of its terms may move it:
    ``min(max(8 sqrt(k), 256), k) * u * M`` in a direction from ``_signs``, with ``M``
    the sum of the terms' magnitudes (``function`` of the operands' magnitudes), ``k``
    how many terms count (``M**2`` over ``function`` of their squares) and ``u`` float32's
    unit roundoff (or the outputs', if finer): the bound ``Expected.rounding_bound`` puts
    on an output that is such a sum, here on a sum a kernel computes on the way (an
    attention's scores, before their exp: a right split-KV decode was off by 780 ulp of
    its output, from its scores' rounding carried through exp)."""
    array = np.asarray(result)
    if array.dtype.kind != "f" or array.size == 0:
        return result

    def each(transform: Any) -> tuple:
        return tuple(
            transform(np.asarray(a))
            if isinstance(a, np.ndarray) or isinstance(a, (float, np.floating))
            else a
            for a in operands
        )

    try:
        with np.errstate(all="ignore"):
            magnitude = np.abs(np.asarray(function(*each(np.abs), **kwargs), np.float64))
            squares = np.asarray(function(*each(np.square), **kwargs), np.float64)
    except (TypeError, ValueError):  # operands that have no magnitudes (booleans, objects)
        return result
    if magnitude.shape != array.shape:
        return result
    _, growth = summed_growth(magnitude, squares)
    unit = min(_RoundingArray.unit, 2.0**-24)
    with np.errstate(all="ignore"):
        move = np.where(np.isfinite(magnitude), growth * unit * magnitude, 0.0)
        moved = array + (_signs(array.shape) * move).astype(array.dtype)
    return moved if isinstance(result, np.ndarray) else moved[()]


def _counted(result: Any, plain: tuple) -> Any:
    """``result`` (a sum) marked as a count where it sums booleans (``mask.sum(axis=1)``:
    how many neighbours are near, how many elements a row keeps)."""
    if (
        isinstance(result, _RoundingArray)
        and len(plain) == 1
        and isinstance(plain[0], np.ndarray)
        and plain[0].dtype == np.bool_
    ):
        result.counts = True
    return result


def _repeated(result: Any, counts: np.ndarray) -> Any:
    """``result`` (``n * x`` with ``n`` a count) moved as a float32 sum of n copies of x
    may be: a reference writes ``mask @ pos - count * pos`` for what a kernel sums as
    (pos_j - pos_i) over the n neighbours, and n equal terms round alike, not at random
    (a right boids step summed 851 offsets of 0.0199 to 16.9, off by 110 roundings of
    it, where ``count * pos`` rounds once). The move is ``_summed``'s for n terms of
    equal magnitude, ``min(max(8 sqrt(n), 256), n) * u * |n x|``."""
    array = np.asarray(result)
    if array.dtype.kind != "f" or array.size == 0:
        return result
    with np.errstate(all="ignore"):
        n = np.broadcast_to(np.abs(counts.astype(np.float64)), array.shape)
        magnitude = np.abs(array.astype(np.float64))
        _, growth = summed_growth(magnitude, np.where(n > 0, magnitude * magnitude / n, 0.0))
        growth = np.where(n > 1, growth, 1.0)  # one term (or none): a product's rounding
        move = np.where(
            np.isfinite(magnitude), growth * min(_RoundingArray.unit, 2.0**-24) * magnitude, 0.0
        )
        moved = array + (_signs(array.shape) * move).astype(array.dtype)
    return moved if isinstance(result, np.ndarray) else moved[()]


def _rounded(result: Any, units: float = 1.0) -> Any:
    """``result`` moved by ``units`` roundings (``_EXACT_RESULT``: none;
    ``_INEXACT_RESULT``: one, where it is not a ``_RoundingArray.narrow`` number), and
    where it lies below the narrow dtype's smallest normal, by as much as a flush to
    zero (``_underflow``)."""
    if units != _EXACT_RESULT and (
        isinstance(result, np.floating)
        or (isinstance(result, np.ndarray) and result.dtype.kind == "f")
    ):
        signs = _signs(np.shape(result))
        narrow = _RoundingArray.narrow
        if units == _INEXACT_RESULT:
            units = 1.0
            if narrow is not None:
                with np.errstate(all="ignore"):
                    signs = np.where(np.asarray(result, narrow) == result, 0.0, signs)
        moved = result * (1.0 + units * _RoundingArray.unit * signs).astype(result.dtype)
        result = moved if narrow is None else _underflow(moved, signs, narrow)
    if isinstance(result, np.ndarray):
        return result.view(_RoundingArray)
    return result


def _underflow(result: Any, signs: Any, narrow: Any) -> Any:
    """``result`` where it is not 0 but lies below ``narrow``'s smallest normal,
    flushed to a zero of the sign ``signs`` draws (of its own where they draw none):
    WGSL lets any operation flush a subnormal operand or result, a float32 result below
    2**-149 is 0 in any arithmetic, and ``-0 - -0`` is ``+0``, so there a float32
    computation keeps neither the value nor its sign. A relative move alone left a
    float64 product of two small inputs (-0.0127 * -6.5e-38) what it is; lavapipe's
    ``atan2`` took it as 0 (though its ``*`` and ``+`` keep subnormals, as the probe
    measures), and signalforge's FM discriminator, ``atan2(im, re)`` of such products,
    was a false alarm off by up to 2 pi (round 37). Only elements computed from values
    that small move."""
    tiny = float(np.finfo(narrow).tiny)
    plain = np.asarray(result)
    with np.errstate(all="ignore"):
        below = (np.abs(plain) < tiny) & (plain != 0)
        if not np.any(below):
            return result
        zero = np.copysign(np.zeros((), plain.dtype), np.where(signs != 0, signs, plain))
        moved = np.where(below, zero, plain).astype(plain.dtype)
    return moved[()] if isinstance(result, np.floating) else moved


def _spaced(made: Any) -> Any:
    """``np.linspace``'s points as a kernel computes them, ``start + i * step`` with
    ``step`` a quotient of sizes: each moved by a quotient's error and two roundings
    (WGSL's 2.5 ulp makes that 7 half-ulps; 3 where quotients are correctly rounded).
    A resize's sample coordinates, ``r * ((in - 1) / (out - 1))`` in the kernel, were
    off by 3 half-ulps of themselves on lavapipe, and a bound that moved only what the
    reference computed from them failed a right align-corners resize."""
    if not isinstance(made, np.ndarray) or made.dtype.kind != "f" or _RoundingArray.rng is None:
        return made
    units = _RoundingArray.quotient_units
    units = (1.0 if units == _INEXACT_RESULT else units) + 2.0
    return made * (1.0 + units * _RoundingArray.unit * _signs(made.shape)).astype(made.dtype)


def _held_in_float32(value: Any) -> Any:
    """A float scalar of the reference (a Python float, a float64 number) that the
    narrow dtype cannot hold, as the kernel may hold it: moved, in one direction for the
    whole operation, by a quotient's error (WGSL's 2.5 ulp; one rounding where
    quotients are correctly rounded). Such a scalar is a ratio of sizes or parameters
    (a resize's ``in_h / out_h``, computed in Python from ints, out of numpy's sight)
    or a constant the kernel rounds: on NVIDIA's Vulkan driver a right bilinear
    resize's scale, a WGSL quotient off by 2.5 ulp, moved its sample coordinates near
    62 by 1.3e-5, and its outputs by as much, past a bound that rounded only the
    products made with it."""
    if not isinstance(value, (float, np.floating)) or isinstance(value, (np.float32, np.float16)):
        return value
    narrow = _RoundingArray.narrow
    if _RoundingArray.rng is None or not np.isfinite(value):
        return value
    if narrow is not None and float(np.asarray(value, narrow)) == float(value):
        return value
    units = _RoundingArray.quotient_units
    units = 1.0 if units == _INEXACT_RESULT else units
    return float(value) * (1.0 + units * _RoundingArray.unit * float(_signs(())))


def _signs(shape: tuple) -> np.ndarray:
    """A direction (+-1) per element, drawn from ``_RoundingArray.rng``: at random, one
    for the whole operation from a ``RoundingPattern``, or by an ``IndexBit`` or an
    ``IndexResidue``."""
    rng = _RoundingArray.rng
    if rng is None:  # outside a run (an array it returned): nothing moves
        return np.zeros(shape)
    if isinstance(rng, RoundingPattern):
        return np.full(shape, rng.next_sign())
    if isinstance(rng, (IndexBit, IndexResidue)):
        return _alike(rng.signs(shape))
    return _alike(rng.choice((-1.0, 1.0), size=shape))


def _alike(signs: np.ndarray) -> np.ndarray:
    """``signs`` with every element whose operands (``_RoundingArray.operands``, the
    current ufunc call's) equal an earlier element's moved as that one is, where
    ``_RoundingArray.alike`` is set. A device computes an operation on the same operands
    the same way, however it rounds: two equal gating logits give equal probabilities
    on every device, and an index chosen among them is a tie the kernel's rule decides
    (round 65: directions drawn per element, or by index, moved one of two equal
    probabilities apart, and a top-k that takes the higher of equal experts passed as
    an index float32 cannot decide). Operands that differ, however little, keep their
    own directions. Operands are told apart by a hash of their float64 values."""
    operands = _RoundingArray.operands
    if not _RoundingArray.alike or operands is None or signs.size < 2:
        return signs
    arrays = [np.asarray(x) for x in operands]
    if not arrays or any(a.dtype.kind not in "biuf" or a.dtype.itemsize > 8 for a in arrays):
        return signs
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return signs
    if shape != signs.shape:
        return signs
    members, heads = _repeated_elements(arrays, shape)
    if members.size == 0:
        return signs
    flat = signs.reshape(-1).copy()
    flat[members] = flat[heads]
    return flat.reshape(signs.shape)


def _repeated_elements(arrays: list[np.ndarray], shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The elements of an operation's result (of ``shape``, its operands ``arrays``)
    whose operands an earlier element has, and for each that first element.

    Each operand is looked at on its own array first: the axes it does not broadcast
    along are its own. Where no two operands share an axis (a pairwise operation of
    points by edges, ``p[:, None] - e[None, :]``) the elements alike are products of
    each operand's repeats, found on arrays of thousands and not on their millions of
    pairs. Where two operands share an axis (``x * y`` of equal shapes), their values
    are hashed per element of the result and grouped (``_repeated_keys``)."""
    ndim, size = len(shape), int(np.prod(shape))
    owned = []  # (the operand's own values, the axes it owns)
    for a in arrays:
        a = a.reshape((1,) * (ndim - a.ndim) + a.shape)
        axes = tuple(i for i in range(ndim) if shape[i] > 1 and a.shape[i] == shape[i])
        if axes:
            owned.append((a.reshape([shape[i] for i in axes]), axes))
    if not owned:  # every operand a scalar: every element is the first one's alike
        return np.arange(1, size), np.zeros(size - 1, np.intp)
    claimed = [axis for _, axes in owned for axis in axes]
    if len(claimed) != len(set(claimed)):
        return _repeated_keys(_hashed(np.broadcast_arrays(*arrays)))
    strides = [int(np.prod(shape[i + 1 :])) for i in range(ndim)]
    head = np.zeros((1,) * ndim, np.intp)
    for own, axes in owned:
        first = np.arange(own.size)
        members, heads = _repeated_keys(_hashed([own]))
        first[members] = heads
        coords = np.unravel_index(first, own.shape)
        offset = sum(c * strides[axis] for c, axis in zip(coords, axes))
        keep = [shape[i] if i in axes else 1 for i in range(ndim)]
        head = head + np.asarray(offset, np.intp).reshape(keep)
    if len(owned) == 1 and head.size == size:  # one operand owns every axis
        later = np.flatnonzero(first != np.arange(size))
        return later, first[later]
    head = np.broadcast_to(head, shape).reshape(-1)
    later = np.flatnonzero(head != np.arange(size))
    return later, head[later]


def _hashed(arrays) -> np.ndarray:
    """A 64-bit hash per element of the equally shaped ``arrays`` (flattened) of their
    float64 values together: equal values, equal hashes."""
    key = np.zeros(arrays[0].size, np.uint64)
    with np.errstate(all="ignore"):
        for a in arrays:  # in place: these run on every operation of a judge's reruns
            key ^= np.ascontiguousarray(a, np.float64).reshape(-1).view(np.uint64)
            key *= np.uint64(0x9E3779B97F4A7C15)
            key ^= key >> np.uint64(29)
    return key


def _repeated_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The elements of ``key`` whose key an earlier element holds, and for each that
    first element. One plain sort of the keys' high bits packed with the index:
    ``np.unique``'s indices sort with an argsort, many times slower, which a pairwise
    operation of millions of elements (a point-in-polygon test's 3001 points by 600
    edges) ran 348 times in one failing verdict, 45 of its 50 s. A run of equal bits
    that holds more than one key (rare) is grouped by ``np.unique``."""
    bits = max(int(key.size - 1).bit_length(), 1)
    low = np.uint64((1 << bits) - 1)
    packed = key & ~low  # (new arrays filled in place: a pairwise operation's are large)
    packed |= np.arange(key.size, dtype=np.uint64)
    packed.sort()
    high = packed >> np.uint64(bits)
    starts = np.ones(key.size, bool)
    np.not_equal(high[1:], high[:-1], out=starts[1:])
    if starts.all():
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    packed &= low
    index = packed.view(np.intp)  # each element's index (below 2**63)
    run = np.cumsum(starts) - 1
    later = np.flatnonzero(~starts)
    # the least index of each run is its first element
    members, heads = index[later], index[starts][run[later]]
    same = key[members] == key[heads]
    if same.all():
        return members, heads
    # runs that hold more than one key (rare): those elements grouped by np.unique
    mixed = np.zeros(int(run[-1]) + 1, bool)
    mixed[run[later[~same]]] = True
    inside = index[mixed[run]]
    _, first, inverse = np.unique(key[inside], return_index=True, return_inverse=True)
    leads = inside[first[inverse.reshape(-1)]]
    repeated = leads != inside
    keep = ~mixed[run[later]]
    return (
        np.concatenate([members[keep], inside[repeated]]),
        np.concatenate([heads[keep], leads[repeated]]),
    )


class IndexBit:
    """Directions for ``rounding_every_operation`` by element: up where bit ``bit`` of
    the element's flat index in its operation's result is ``up``, down elsewhere. Two
    elements less than ``2**m`` apart differ in one of the bits below m, so over bits
    0..m-1 and both polarities any two of them (two candidates' distances before an
    argmin) are moved once each way apart, which random directions do only by chance."""

    def __init__(self, bit: int, up: int) -> None:
        self.bit, self.up = bit, up

    def signs(self, shape: tuple) -> np.ndarray:
        return np.where((_flat_index(shape) >> self.bit) & 1 == self.up, 1.0, -1.0)


class IndexResidue:
    """Directions for ``rounding_every_operation`` by element: down where the element's
    flat index in its operation's result is ``residue`` modulo ``modulus``, up
    elsewhere. Over residues modulo 2, 4, 8 and 16, each of up to 16 consecutive
    candidates (an argmin among several centroids of zeros and of 1e-35s, which a
    float64 reference ties and a float32 kernel tells apart by their dot products) is
    moved below all the others once: ``IndexBit`` moves two apart, not one below many."""

    def __init__(self, modulus: int, residue: int) -> None:
        self.modulus, self.residue = modulus, residue

    def signs(self, shape: tuple) -> np.ndarray:
        return np.where(_flat_index(shape) % self.modulus == self.residue, -1.0, 1.0)


def _flat_index(shape: tuple) -> np.ndarray:
    """Each element's flat (C-order) index in an array of ``shape``."""
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)


class _SaturatingArray(np.ndarray):
    """An input of a reference run whose float-to-integer conversions (``astype``)
    saturate as the GPU's do: toward zero, clamped to the integer's range, NaN to 0
    (PTX's ``cvt.rzi``; WGSL clamps to the source type's values inside the range:
    ``i32(3e9)`` is 2147483520). numpy leaves such conversions undefined (x86 gives
    INT_MIN, and a negative float to uint32 wraps). Arrays derived from it by ufuncs,
    indexing and reshaping stay such arrays; the rest is numpy's."""

    wgsl: bool = False

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        plain = np.asarray(self)
        target = np.dtype(dtype)
        if plain.dtype.kind != "f" or target.kind not in "iu":
            out = plain.astype(dtype, *args, **kwargs)
            return out.view(_SaturatingArray) if isinstance(out, np.ndarray) else out
        info = np.iinfo(target)
        lo, hi = float(info.min), float(info.max)
        if _SaturatingArray.wgsl:  # the largest source values inside the range
            source = plain.dtype.type
            hi = float(np.nextafter(source(hi), source(0))) if float(source(hi)) > hi else hi
        with np.errstate(invalid="ignore"):
            wide = np.trunc(plain.astype(np.float64))
            wide = np.where(np.isnan(wide), 0.0, np.clip(wide, lo, hi))
        return wide.astype(target).view(_SaturatingArray)


def saturating_casts(reference, wgsl: bool):
    """``reference`` run with its array arguments as ``_SaturatingArray`` (WGSL's bounds
    with ``wgsl``); None where it is no function."""
    if not callable(reference):
        return None

    def run(*args, **kwargs):
        _SaturatingArray.wgsl = wgsl

        def wrap(a):
            return a.view(_SaturatingArray) if type(a) is np.ndarray else a

        return reference(*map(wrap, args), **{k: wrap(v) for k, v in kwargs.items()})

    return functools.wraps(reference)(run)


class _DividingArray(np.ndarray):
    """An input of a reference run whose integer divisions by zero (``//``, ``%``,
    ``np.divide`` of integers and the rest of ``_INTEGER_DIVISIONS``) give ``at_zero``
    there, or with ``at_zero`` None what WGSL defines: the dividend for a quotient, 0
    for a remainder. numpy defines no result for them (it warns, and gives 0 or an
    infinity) and CUDA C++ leaves them undefined: two runs with two fills show which
    elements of the outputs depend on such a division."""

    at_zero: int | None = 0
    divided: bool = False  # whether the run divided an integer by zero at all

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain, outs, result = _plain_call(_DividingArray, ufunc, method, inputs, kwargs)
        if method != "__call__":
            return result
        if ufunc.__name__ in _INTEGER_DIVISIONS and len(plain) == 2:
            a, b = np.asarray(plain[0]), np.asarray(plain[1])
            if a.dtype.kind in "iu" and b.dtype.kind in "iu" and (b == 0).any():
                zero = np.broadcast_to(b == 0, np.broadcast_shapes(a.shape, b.shape))
                _DividingArray.divided = True
                name = ufunc.__name__
                # WGSL's value at a zero divisor: the dividend, and 0 for a remainder
                dividends = (a, None) if name == "divmod" else (None if name in _REMAINDERS else a,)
                results = result if isinstance(result, tuple) else (result,)
                filled = tuple(_filled(r, zero, d) for r, d in zip(results, dividends))
                result = filled if isinstance(result, tuple) else filled[0]
        return _rewrapped(_DividingArray, result, outs, kwargs)


def _filled(result: Any, where: np.ndarray, dividend: np.ndarray | None) -> Any:
    """``result`` with ``at_zero`` where ``where``; with ``at_zero`` None, WGSL's value:
    the ``dividend`` for a quotient (None for a remainder: 0)."""
    array = np.asarray(result)
    at_zero = _DividingArray.at_zero
    if at_zero is None:
        value = np.zeros((), array.dtype) if dividend is None else dividend.astype(array.dtype)
    else:
        value = np.asarray(at_zero).astype(array.dtype)
    filled = np.where(where, value, array)
    return filled if isinstance(result, np.ndarray) else filled[()]


#: Ufuncs that divide: by an integer zero, numpy defines no result.
_INTEGER_DIVISIONS = frozenset("divide true_divide floor_divide remainder fmod divmod".split())
_REMAINDERS = frozenset(("remainder", "fmod"))


def dividing_by_zero(reference, at_zero: int | None):
    """``reference`` run with its integer arrays as ``_DividingArray`` (divisions by
    zero give ``at_zero``; None: WGSL's values); None where it is no function."""
    if not callable(reference):
        return None

    def run(*args, **kwargs):
        _DividingArray.at_zero, _DividingArray.divided = at_zero, False

        def wrap(a):
            if type(a) is np.ndarray and a.dtype.kind in "iu":
                return a.view(_DividingArray)
            return a

        return reference(*map(wrap, args), **{k: wrap(v) for k, v in kwargs.items()})

    return functools.wraps(reference)(run)


class RoundingPattern:
    """Directions for ``rounding_every_operation`` by operation rather than by element:
    every operation up (``bit`` None), or the n-th operation up where bit ``bit`` of n
    is set, down elsewhere. Random directions per element cancel where two roundings
    carry an element the same way; over the patterns, any two operations among the
    first ``2**bits`` are moved both alike and apart."""

    def __init__(self, bit: int | None = None) -> None:
        self.bit, self.calls = bit, 0

    def next_sign(self) -> float:
        n, self.calls = self.calls, self.calls + 1
        return 1.0 if self.bit is None or (n >> self.bit) & 1 else -1.0


_CREATORS = (
    "arange", "linspace", "array", "asarray", "asanyarray", "ones", "zeros", "full",
    "empty", "ones_like", "zeros_like", "full_like", "empty_like", "indices", "meshgrid",
)  # fmt: skip


class _NudgedArray(np.ndarray):
    """An array of a reference run in its own precision whose every inexact float
    result moves one ulp of its own dtype (up or down, from ``_RoundingArray.rng``):
    another correct rounding of the same operation. A result that is exact (the
    operation recomputed in long double agrees) stays, except a quotient on WGSL
    (``wgsl``: its division may err by 2.5 ulp). Unlike ``_RoundingArray``, which
    moves float64 runs by float32 roundings, a computation the reference makes in
    float64 on purpose (an integer quotient emulated as ``np.trunc(a / b)``) moves by
    float64's, and one in float32 by float32's."""

    wgsl: bool = False

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain, outs, result = _plain_call(_NudgedArray, ufunc, method, inputs, kwargs)
        if method == "__call__" and ufunc.__name__ not in _EXACT:
            if isinstance(result, tuple):
                result = tuple(_nudged(ufunc, plain, r) for r in result)
            else:
                result = _nudged(ufunc, plain, result)
        return _rewrapped(_NudgedArray, result, outs, kwargs)


class _WidenedArray(np.ndarray):
    """An array of a reference run in float64 throughout: every float operand narrower
    than float64 (a ``np.float32(0.21)`` constant, an ``astype(np.float32)`` array) is
    widened exactly before each ufunc, and a conversion to a narrower float keeps
    float64. What a float32 reference rounds onto an integer before a cast truncates
    it (26.0 for the 25.9999993 of ``0.21f * 26 + 0.71f * 24 + 0.07f * 50``) is then
    computed as the real numbers it stands for would give it."""

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        target = np.dtype(dtype)
        if target.kind == "f" and target.itemsize < 8:
            target = np.dtype(np.float64)
        result = np.asarray(self).astype(target, *args, **kwargs)
        return result.view(_WidenedArray) if isinstance(result, np.ndarray) else result

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        wide = tuple(_widened(x) for x in inputs)
        plain, outs, result = _plain_call(_WidenedArray, ufunc, method, wide, kwargs)
        return _rewrapped(_WidenedArray, result, outs, kwargs)


def _widened(value: Any) -> Any:
    """``value`` in float64 where it is a narrower float (array or scalar)."""
    array = np.asarray(value) if isinstance(value, (np.ndarray, np.floating)) else None
    if array is not None and array.dtype.kind == "f" and array.dtype.itemsize < 8:
        wide = array.astype(np.float64)
        return wide if isinstance(value, np.ndarray) else np.float64(wide)
    return value


def widening_every_operation(reference):
    """``reference`` run with every float computation in float64 (``_WidenedArray``):
    None where its module names no numpy."""
    return _with_arrays_as(reference, _WidenedArray, lambda: None)


def _plain_call(cls: type, ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> tuple:
    """(the inputs as plain arrays, the caller's ``out`` arrays or None, the result):
    ``ufunc`` called as numpy would without ``cls``, whose arrays it unwraps, ``out``
    included (``kwargs`` is changed to hold the plain ones). An input that is also an
    ``out`` (``a -= b``) is copied first, so that the inputs returned are the operands
    as they were: read after the call, ``a`` held the difference, a correctly rounded
    ``a - b`` recomputed from it was never exact, and every in-place operation was moved
    as inexact (round 66: a Viterbi step's alphas, sums on a grid of 1/4 shifted by
    their maximum with ``-=``, moved apart at their exact ties)."""
    plain = tuple(np.asarray(x) if isinstance(x, cls) else x for x in inputs)
    outs = kwargs.get("out")
    if outs is not None:
        kwargs["out"] = tuple(np.asarray(o) if isinstance(o, np.ndarray) else o for o in outs)
        targets = [o for o in kwargs["out"] if isinstance(o, np.ndarray)]
        plain = tuple(
            x.copy()
            if isinstance(x, np.ndarray) and any(np.may_share_memory(x, o) for o in targets)
            else x
            for x in plain
        )
    return plain, outs, getattr(ufunc, method)(*plain, **kwargs)


def _rewrapped(cls: type, result: Any, outs: Any, kwargs: dict) -> Any:
    """What a ``cls`` ufunc returns: its (changed) ``result`` written into the caller's
    ``out`` arrays and those returned, else the result's arrays as ``cls``."""
    if outs is not None:
        for o, r in zip(kwargs["out"], result if isinstance(result, tuple) else (result,)):
            if isinstance(o, np.ndarray) and o is not r:
                o[...] = r
        return outs if isinstance(result, tuple) else outs[0]
    if isinstance(result, tuple):
        return tuple(r.view(cls) if isinstance(r, np.ndarray) else r for r in result)
    return result.view(cls) if isinstance(result, np.ndarray) else result


def _nudged(ufunc: Any, operands: tuple, result: Any) -> Any:
    """``result`` moved one ulp where it is an inexact float (see ``_NudgedArray``)."""
    array = np.asarray(result)
    if array.dtype.kind != "f" or array.size == 0:
        return result
    exact = np.zeros(array.shape, bool)
    name = ufunc.__name__
    if name in _CORRECTLY_ROUNDED or (name in _QUOTIENTS and not _NudgedArray.wgsl):
        try:
            with np.errstate(all="ignore"):
                wide = ufunc(*(np.asarray(x, np.longdouble) for x in operands))
                exact = np.broadcast_to(wide == array, array.shape)
        except (TypeError, ValueError):
            pass
    _RoundingArray.operands = operands
    try:
        signs = _signs(array.shape)
    finally:
        _RoundingArray.operands = None
    with np.errstate(all="ignore"):
        away = np.where(signs > 0, np.inf, -np.inf).astype(array.dtype)
        moved = np.where(exact | ~np.isfinite(array), array, np.nextafter(array, away))
    return moved if isinstance(result, np.ndarray) else moved[()]


# -- every operation in float32: what a float32 kernel cannot tell apart ----------------
# A reference in float64 decides an index (an argmin over distances, a bin) between
# values that float32 rounds to the same number: a point's distance to a centroid of
# zeros and to one of 1e-5s (x - c is x in float32). Every float32 kernel ties there and
# takes the first; the float64 reference takes the other.
class _SingleArray(np.ndarray):
    """An array whose every ufunc's and contraction's float result is rounded to the
    nearest float32 (its range too: past it an infinity, below it a subnormal or zero),
    as a float32 computation of the same operations holds it; its dtype stays."""

    fuses = False  # products exact (``_ContractedArray``)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        result = _contracting(self, func, types, args, kwargs, _single_result)
        return _as_single(result, type(self))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        cls = type(self)
        fused = cls.fuses and ufunc is np.multiply and method == "__call__" and "out" not in kwargs
        if fused:
            inputs = tuple(_widened_float(x) for x in inputs)
        plain, outs, result = _plain_call(cls, ufunc, method, inputs, kwargs)
        if method == "at":
            return result
        if isinstance(result, tuple):
            result = tuple(r if fused else _to_single(r) for r in result)
        elif not fused:
            result = _to_single(result)
        return _rewrapped(cls, result, outs, kwargs)


def _to_single(result: Any) -> Any:
    array = np.asarray(result)
    if array.dtype.kind != "f" or array.dtype.itemsize <= 4:
        return result
    with np.errstate(all="ignore"):
        single = array.astype(np.float32).astype(array.dtype)
    return single if isinstance(result, np.ndarray) else single[()]


def _single_result(function: Any, operands: tuple, kwargs: dict, result: Any) -> Any:
    return _to_single(result)


def _as_single(result: Any, cls: type = _SingleArray) -> Any:
    if isinstance(result, np.floating):
        return np.asarray(result).view(cls)
    if isinstance(result, np.ndarray) and not isinstance(result, cls):
        return result.view(cls)
    return result


# -- products fused into the sums: what a contracting compiler computes -----------------
# NVIDIA's compilers contract ``a * b + c`` into one FMA by default (nvcc's and NVRTC's
# ``--fmad=true``; its Vulkan driver does for WGSL too): the product is not rounded. A
# depth ``cx * x + cy * y + cz * z + w`` came out one float32 ulp from both the float64
# reference and its float32 twin on the H100 (2026-12-07, Babylon.js's sort), and the
# range's words (the float's bits) were judged exactly.
class _ContractedArray(_SingleArray):
    """A ``_SingleArray`` whose products are exact (float operands widened to float64,
    the product kept there): every other float result rounded to float32, so ``a * b +
    c`` rounds once, as one FMA does."""

    fuses = True


def _widened_float(x: Any) -> Any:
    """``x`` in float64 where it is a float array or scalar narrower (a product of two
    such is exact there)."""
    if isinstance(x, (np.ndarray, np.floating)) and x.dtype.kind == "f" and x.dtype.itemsize < 8:
        return np.asarray(x, np.float64)
    return x


class _UnroundedArray(np.ndarray):
    """An array of a reference run whose conversions to a one-byte float
    (``.astype(ml_dtypes.float8_e4m3fn)``) keep the value in float64 instead: what the
    reference rounds to FP8, before it rounds."""

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        wanted = np.dtype(dtype)
        if wanted.itemsize == 1 and wanted.kind not in "iub":
            return np.asarray(self, np.float64).view(type(self))
        return super().astype(dtype, *args, **kwargs)


def before_fp8_rounding(reference):
    """``reference`` run with its arrays as ``_UnroundedArray``: its FP8 results before
    their rounding. None where its module names no numpy."""
    return _with_arrays_as(reference, _UnroundedArray, lambda: None)


def in_single_precision(reference):
    """``reference`` run with its arrays, and those its numpy calls create, as
    ``_SingleArray``: every float result of its operations rounded to float32, also
    where it widened its inputs to float64. None where its module names no numpy."""
    return _with_arrays_as(reference, _SingleArray, lambda: None)


def contracted(reference):
    """``reference`` run as ``in_single_precision`` runs it, but with its products exact
    (``_ContractedArray``): ``a * b + c`` rounded once, as a device that fuses it into an
    FMA computes it. None where its module names no numpy."""
    return _with_arrays_as(reference, _ContractedArray, lambda: None)


# -- an index chosen between near-equal values: the operands of argmin and argmax ------
class _ChoosingArray(np.ndarray):
    """An array of a reference run whose ``argmin`` and ``argmax`` (numpy's functions
    and the methods) record (operand as float64, axis, result, whether argmax) in
    ``_ChoosingArray.seen``.
    With ``magnitudes`` set, its arithmetic adds magnitudes instead: ``a - b`` is
    ``|a| + |b|``, a product ``|a| |b|``, a sum or a contraction that of its terms'
    magnitudes; the operand is then the sum of the magnitudes of its terms, before any
    cancels (for ``sum((x - c)**2)``, ``sum((|x| + |c|)**2)``: what ``x**2 - 2 x c +
    c**2``, the way GPU k-means expands it, rounds relative to)."""

    seen: list = []
    magnitudes = False

    def argmin(self, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        return _chosen(np.argmin, self, axis)

    def argmax(self, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        return _chosen(np.argmax, self, axis)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in (np.argmin, np.argmax) and args:
            axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
            return _chosen(func, args[0], axis)
        if _ChoosingArray.magnitudes and func in _CONTRACTIONS and "out" not in kwargs:
            plain = tuple(np.abs(np.asarray(a)) if isinstance(a, np.ndarray) else a for a in args)
            return _as_choosing(func(*plain, **kwargs))
        return _as_choosing(np.ndarray.__array_function__(self, func, types, args, kwargs))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if _ChoosingArray.magnitudes and ufunc.__name__ in _MAGNITUDE_UFUNCS:
            if method in ("__call__", "reduce", "accumulate"):
                inputs = tuple(_magnitude(x) for x in inputs)
                ufunc = _MAGNITUDE_UFUNCS[ufunc.__name__]
        plain, outs, result = _plain_call(_ChoosingArray, ufunc, method, inputs, kwargs)
        if method == "at":
            return result
        return _rewrapped(_ChoosingArray, result, outs, kwargs)


#: How magnitudes combine (``_ChoosingArray.magnitudes``): a difference or a negation
#: adds them, a product, a quotient, a square, a power and a matmul take them as they are.
_MAGNITUDE_UFUNCS = {
    "add": np.add,
    "subtract": np.add,
    "negative": np.positive,
    "positive": np.positive,
    "absolute": np.positive,
    "multiply": np.multiply,
    "divide": np.divide,
    "true_divide": np.divide,
    "square": np.square,
    "power": np.power,
    "matmul": np.matmul,
}


def _magnitude(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return np.abs(np.asarray(x))
    if isinstance(x, (float, np.floating)):
        return abs(x)
    return x


def _as_choosing(result: Any) -> Any:
    if isinstance(result, np.ndarray) and not isinstance(result, _ChoosingArray):
        return result.view(_ChoosingArray)
    return result


def _chosen(function: Any, operand: Any, axis: Any) -> Any:
    plain = np.asarray(operand)
    result = function(plain, axis=axis)
    if plain.dtype.kind == "f" and plain.dtype.names is None:
        largest = function is np.argmax
        _ChoosingArray.seen.append((plain.astype(np.float64), axis, np.asarray(result), largest))
    return result


def choosing(reference, magnitudes: bool, seen: list):
    """``reference`` run with its arrays, and those its numpy calls create, as
    ``_ChoosingArray``: each argmin and argmax it takes appends (operand, axis, result)
    to ``seen``; with ``magnitudes``, computed on its terms' magnitudes. None where its
    module names no numpy."""

    def configure() -> None:
        _ChoosingArray.seen, _ChoosingArray.magnitudes = seen, magnitudes

    return _with_arrays_as(reference, _ChoosingArray, configure)


class _RoundingGrid:
    """``np.mgrid`` or ``np.ogrid`` whose arrays are of class ``cls`` (a pixel grid made
    with ``np.mgrid[0:h, 0:w]``, then scaled, rounds or nudges)."""

    def __init__(self, grid: Any, cls: type) -> None:
        self._grid, self._cls = grid, cls

    def __getitem__(self, key: Any) -> Any:
        made = self._grid[key]
        if isinstance(made, np.ndarray):
            return made.view(self._cls)
        return type(made)(m.view(self._cls) for m in made)


def _keeping(scalar: type) -> type:
    """``scalar`` (``np.float32``...), whose conversion of a 0-d ``_RoundingArray``
    gives one; a dtype of that precision everywhere else, and every number of it an
    instance (``isinstance(x, np.float32)`` in a reference still holds)."""

    class Instances(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, scalar)

    class Keeping(scalar, metaclass=Instances):
        def __new__(cls, *args: Any) -> Any:
            kept = args and isinstance(args[0], _RoundingArray) and args[0].ndim == 0
            if kept and _RoundingArray.keeps_scalars:
                return args[0].astype(scalar)
            return scalar(*args)

    Keeping.__name__ = Keeping.__qualname__ = scalar.__name__
    return Keeping


_KEEPING = {name: _keeping(getattr(np, name)) for name in ("float16", "float32", "float64")}


def _with_arrays_as(reference, cls: type, configure: Any, keeping: bool = False):
    """``reference`` run with its arrays, and those its numpy calls create (``arange``,
    ``linspace``, ``np.mgrid``...), as ``cls``, after ``configure()`` set ``cls``'s
    class state for the run; ``_RoundingArray.rng`` is cleared after it; with
    ``keeping``, its ``np.float16``, ``np.float32`` and ``np.float64`` keep a 0-d one
    (``_keeping``). None where its module names no numpy."""

    def creating(function):
        def create(*args, **kwargs):
            made = function(*args, **kwargs)
            if cls is _RoundingArray and function is np.linspace:
                made = _spaced(made)
            if isinstance(made, np.ndarray):
                return made.view(cls)
            if isinstance(made, (list, tuple)):
                return type(made)(m.view(cls) for m in made)
            return made

        return create

    creators: dict[str, Any] = {name: creating(getattr(np, name)) for name in _CREATORS}
    creators.update({name: _RoundingGrid(getattr(np, name), cls) for name in ("mgrid", "ogrid")})
    if keeping:  # np.float32(x) of a 0-d one stays one (``keeps_scalars``)
        creators.update({name: _KEEPING[name] for name in _KEEPING})
    rebound = _rebound(reference, creators)
    if rebound is None:
        return None

    def run(*args, **kwargs):
        configure()

        def wrap(a):
            return a.view(cls) if isinstance(a, np.ndarray) else a

        try:
            return rebound(*map(wrap, args), **{k: wrap(v) for k, v in kwargs.items()})
        finally:
            _RoundingArray.rng, _RoundingArray.alike = None, False
            _RoundingArray.approximated = frozenset()
            _RoundingArray.exact_quotients = False
            _RoundingArray.only_quotients = _RoundingArray.keeps_scalars = False

    return functools.wraps(reference)(run)


def rounding_every_operation(
    reference,
    rng,
    unit: float,
    either_f16: bool = False,
    correct_quotients: bool = False,
    alike: bool = False,
    approximated: frozenset = frozenset(),
    exact_quotients: bool = False,
    only_quotients: bool = False,
):
    """``reference`` run with its arrays, and those its numpy calls create (``arange``,
    ``linspace``...), as ``_RoundingArray``: every float result of its operations off
    by ``unit`` relative at random (from ``rng``, or by operation from a
    ``RoundingPattern``); with ``either_f16`` (WGSL), its inexact conversions to float16
    rounded either way; a quotient by WGSL's 2.5 ulp, or with ``correct_quotients``
    (IEEE division, CUDA's) like a product, or with ``exact_quotients`` by WGSL's 2.5
    ulp only where it is inexact; with ``only_quotients``, nothing else, and the floats
    the reference takes out of its arrays kept as 0-d ones (``keeps_scalars``: its
    arithmetic in scalars moves too); with ``alike``, an operation's elements whose
    operands are equal moved alike (``_alike``); the numpy functions in ``approximated``
    as far as WGSL lets their builtins err (``_approximated``). None where its module
    names no numpy."""
    narrow = {2.0**-24: np.float32, 2.0**-11: np.float16}.get(unit)

    def configure() -> None:
        _RoundingArray.rng, _RoundingArray.unit, _RoundingArray.narrow = rng, unit, narrow
        _RoundingArray.either_f16 = either_f16
        _RoundingArray.quotient_units = _INEXACT_RESULT if correct_quotients else _QUOTIENT_UNITS
        _RoundingArray.alike = alike
        _RoundingArray.approximated = frozenset(approximated)
        _RoundingArray.exact_quotients = exact_quotients
        _RoundingArray.only_quotients = _RoundingArray.keeps_scalars = only_quotients

    return _with_arrays_as(reference, _RoundingArray, configure, keeping=only_quotients)


def nudging_every_operation(reference, rng, wgsl: bool = False):
    """``reference`` run in its own precision with its arrays, and those its numpy calls
    create, as ``_NudgedArray``: every inexact float result one ulp of its dtype off,
    in a direction from ``rng`` (random, or a ``RoundingPattern``), elements whose
    operands are equal alike (``_alike``). None where its module names no numpy."""

    def configure() -> None:
        _RoundingArray.rng, _NudgedArray.wgsl = rng, wgsl
        _RoundingArray.alike = True

    return _with_arrays_as(reference, _NudgedArray, configure)


def _complex_constants(function) -> bool:
    """Whether the code ``function`` reaches (``_reached_code``) has a complex literal
    (``2j``)."""
    return any(
        any(isinstance(c, complex) for c in code.co_consts) for code, _ in _reached_code(function)
    )
