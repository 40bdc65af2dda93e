"""How each target spells types, literals, operations, loops and kernel scaffolding.

The lowerings write one program shape for both targets through these objects, so a
pattern is lowered once. Type names come from the dtype table (``forge.types``) and
operation names from the operation table (``forge.ir._ops``); what is here is how a
target writes them.

On CUDA, f16 and bf16 are ``__half`` and ``__nv_bfloat16`` with the arithmetic of
``cuda_fp16.h`` and ``cuda_bf16.h`` (on NVRTC's include path, from NVIDIA's wheels):
+, -, *, / and comparisons in half precision, each rounded once as numpy's float16 and
ml_dtypes' bfloat16 are (a float product then sum may be contracted into one half FMA,
as NVRTC does for float); the elementwise functions of a half value are the float
function, rounded once. WGSL has f16 (``enable f16``) and no bfloat16 type.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import Expr
from ..ir._dtypes import FLOATS, TYPES
from ..ir._ops import OPERATIONS, REDUCTIONS
from ._approx import f32_literal, wgsl_helper

__all__ = ["Dialect", "WGSL", "CUDA", "DIALECTS", "Unsupported"]


class Unsupported(Exception):
    """An operation the target cannot express (turned into UnsupportedFeature)."""


_NONFINITE_BITS = {
    "f32": {"inf": "0x7f800000", "-inf": "0xff800000", "nan": "0x7fc00000"},
    "f64": {"inf": "0x7ff0000000000000", "-inf": "0xfff0000000000000", "nan": "0x7ff8000000000000"},
}


def _nonfinite_name(value: float) -> str | None:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


def _f64_literal(value: float) -> str:
    text = repr(float(value))
    return text if any(ch in text for ch in ".e") else text + ".0"


def _f16_text(value: float) -> str:
    text = np.format_float_scientific(np.float16(value), unique=True, trim="0", exp_digits=2)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}e{exponent}" if int(exponent) else mantissa


class Dialect:
    """The spelling of one target; see WGSL and CUDA."""

    target = ""
    language = ""
    pointer_vectors = False  # vector loads reinterpret an aligned element pointer (CUDA)
    _VECTORS: dict[str, str] = {}  # dtypes with vector types: their element's spelling
    #: half dtypes a register array may hold packed, two to a 32-bit word: the
    #: functions to their bits and back (CUDA), and the unsigned vector moving a chunk
    HALF_BITS: dict[str, tuple[str, str]] = {}
    WORDS: dict[int, str] = {}
    u32 = ""  # the index type
    wide = ""  # grid-stride loop counters (64-bit where the target has it)
    barrier = ""
    local_x = local_y = local_index = group_linear = group_count = ""

    # -- types and literals --------------------------------------------------------
    def scalar(self, dtype: str) -> str:
        raise NotImplementedError

    def includes(self, dtypes: set[str]) -> list[str]:
        """The headers the kernel's dtypes need (CUDA C only)."""
        raise NotImplementedError

    def literal(self, value, dtype: str) -> str:
        if dtype == "bool":
            return "true" if value else "false"
        if dtype in FLOATS:
            special = _nonfinite_name(float(value))
            if special is not None:
                return self._nonfinite(special, dtype)
            return self._float_literal(float(value), dtype)
        return self._int_literal(int(value), dtype)

    def _float_literal(self, value: float, dtype: str) -> str:
        raise NotImplementedError

    def _int_literal(self, value: int, dtype: str) -> str:
        raise NotImplementedError

    def _nonfinite(self, name: str, dtype: str) -> str:
        raise NotImplementedError

    # -- declarations and statements -----------------------------------------------
    def let(self, name: str, dtype: str, text: str) -> str:
        raise NotImplementedError

    def var(self, name: str, dtype: str, text: str) -> str:
        raise NotImplementedError

    def let_wide(self, name: str, text: str) -> str:
        """A let of the wide index type."""
        return self.let(name, "u32", text)

    def widen(self, text: str) -> str:
        """A u32 value as the wide index type."""
        return text

    def narrow(self, text: str) -> str:
        """A wide index value as u32."""
        return text

    def array(self, name: str, dtype: str, size: int) -> str:
        raise NotImplementedError

    def loop(
        self,
        var: str,
        start: str,
        stop: str,
        step: str,
        *,
        unroll: bool = False,
        wide: bool = False,
    ) -> list[str]:
        raise NotImplementedError

    def shared(self, name: str, dtype: str, size: int) -> str:
        raise NotImplementedError

    # -- memory ----------------------------------------------------------------------
    def load(self, buffer: str, index: str, dtype: str) -> str:
        return f"{buffer}[{index}]"

    def store(self, buffer: str, index: str, dtype: str, value: str) -> str:
        return f"{buffer}[{index}] = {value};"

    def uniform(self, field: str, dtype: str) -> str:
        return f"fg_p.{field}"

    def vector(self, dtype: str, width: int) -> str | None:
        """The vector type for ``width``-wide loads and stores of ``dtype``, or None
        when loads stay scalar."""
        if width == 1 or dtype not in self._VECTORS:
            return None
        return self._vector(self._VECTORS[dtype], width)

    def _vector(self, element: str, width: int) -> str:
        raise NotImplementedError

    def make_vector(self, vector: str, values: list[str]) -> str:
        """A vector of type ``vector`` holding ``values``."""
        return f"{vector}({', '.join(values)})"

    def lanes(self, width: int) -> list[str]:
        """The names of a ``width``-wide vector's components: x, y, z, w, and s0 to s7
        for CUDA's 8-wide half structs."""
        return list("xyzw"[:width]) if width <= 4 else [f"s{i}" for i in range(width)]

    def vector_struct(self, dtype: str, width: int) -> str | None:
        """The declaration a vector type of ``dtype`` needs in the module (None: the
        target has the type)."""
        return None

    # -- operations --------------------------------------------------------------------
    def op(self, e: Expr, args: list[str]) -> str:
        """The text of ``e`` applied to the value texts ``args``: the IR's operator
        symbols are the targets' too; the rest are calls."""
        symbol = OPERATIONS[e.op].symbol
        if symbol and len(args) == 2:
            return f"({args[0]} {symbol} {args[1]})"
        if symbol:
            return f"({symbol}{args[0]})"
        if e.op == "select":
            return self.select(*args)
        if e.op == "cast":
            return self.cast(args[0], e.args[0].dtype, e.dtype)
        return self.function(e.op, e.dtype, args)

    def select(self, cond: str, if_true: str, if_false: str) -> str:
        raise NotImplementedError

    def cast(self, text: str, source: str, target: str) -> str:
        raise NotImplementedError

    def function(self, name: str, dtype: str, args: list[str]) -> str:
        raise NotImplementedError

    def combine(self, op: str, dtype: str, a: str, b: str) -> str:
        """The reduction step ``op`` ("sum" or "max") of two values."""
        return self.op(Expr(REDUCTIONS[op].combine, dtype), [a, b])

    def f32_bits(self, text: str) -> str:
        """The bits of an f32 value as a u32."""
        raise NotImplementedError

    def bits_f32(self, text: str) -> str:
        """The f32 value of the bits in a u32."""
        raise NotImplementedError

    def significant_bits(self, text: str) -> str:
        """The bits from the highest set bit of a nonzero u32 down to its lowest."""
        raise NotImplementedError

    def helpers(self, ops: set[tuple[str, str]], code: str = "") -> str:
        """Helper functions for the (op, dtype) pairs a kernel uses, and for the
        helpers its ``code`` calls."""
        return ""

    def check_ops(self, ops: set[tuple[str, str]]) -> None:
        """Raise ``Unsupported`` for an operation the target lacks."""

    def check_types(self, dtypes: set[str]) -> None:
        """Raise ``Unsupported`` for a dtype the target has no type for."""
        for name in sorted(dtypes):
            if getattr(TYPES[name], self.target) is None:
                raise Unsupported(
                    f"{name} is unsupported, because {self.language} has no "
                    f"{TYPES[name].numpy.name} type"
                )


class WGSL(Dialect):
    target = "wgsl"
    language = "WGSL"
    u32 = "u32"
    wide = "u32"
    barrier = "workgroupBarrier();"
    local_x, local_y, local_index = "fg_lid3.x", "fg_lid3.y", "fg_lidx"
    group_linear = "(fg_wid.y * fg_nwg.x + fg_wid.x)"
    group_count = "(fg_nwg.x * fg_nwg.y)"

    def scalar(self, dtype: str) -> str:
        spelled = TYPES[dtype].wgsl
        assert spelled is not None, f"WGSL has no {dtype}"  # such kernels are refused earlier
        return spelled

    def _float_literal(self, value: float, dtype: str) -> str:
        if dtype == "f32":
            return f32_literal(value)
        if dtype == "f16":
            return _f16_text(value) + "h"
        return _f64_literal(value) + "lf"

    def _int_literal(self, value: int, dtype: str) -> str:
        if dtype == "i32" and value == -(2**31):
            return "(-2147483647i - 1i)"
        return f"{value}{'i' if dtype == 'i32' else 'u'}"

    # A bitcast of a constant is a const-expression, and WGSL makes a const-expression
    # that evaluates to an infinity or NaN a shader-creation error: Tint (Chromium)
    # refuses `bitcast<f32>(0xff800000u)`, naga accepts it. A call of a user-declared
    # function is never a const-expression, so through one the value is made at run time.
    BITS_HELPER = "fg_f32_from_bits"

    def _nonfinite(self, name: str, dtype: str) -> str:
        bits = f"{self.BITS_HELPER}({_NONFINITE_BITS['f32'][name]}u)"
        return bits if dtype == "f32" else f"{dtype}({bits})"

    # WGSL spells every IR dtype by its IR name, so declarations take the dtype (or a
    # vector type's text) as it is.
    def let(self, name: str, dtype: str, text: str) -> str:
        return f"let {name}: {dtype} = {text};"

    def var(self, name: str, dtype: str, text: str) -> str:
        return f"var {name}: {dtype} = {text};"

    def array(self, name: str, dtype: str, size: int) -> str:
        # The explicit zero initializer matters: naga zero-fills a local declared
        # without one only once, at function entry, not each time a loop reaches it.
        return f"var {name}: array<{dtype}, {size}> = array<{dtype}, {size}>();"

    def loop(self, var, start, stop, step, *, unroll=False, wide=False) -> list[str]:
        return [f"for (var {var}: u32 = {start}; {var} < {stop}; {var} += {step}) {{"]

    def shared(self, name: str, dtype: str, size: int) -> str:
        return f"var<workgroup> {name}: array<{dtype}, {size}>;"

    _VECTORS = {"f32": "f32", "i32": "i32", "u32": "u32", "f16": "f16"}

    def _vector(self, element: str, width: int) -> str:
        return f"vec{width}<{element}>"

    def select(self, cond, if_true, if_false) -> str:
        return f"select({if_false}, {if_true}, {cond})"

    def f32_bits(self, text: str) -> str:
        return f"bitcast<u32>({text})"

    def bits_f32(self, text: str) -> str:
        return f"bitcast<f32>({text})"

    def significant_bits(self, text: str) -> str:
        return f"(firstLeadingBit({text}) - firstTrailingBit({text}) + 1u)"

    def cast(self, text: str, source: str, target: str) -> str:
        if source in FLOATS and target in ("i32", "u32"):
            # Saturate explicitly: WGSL's own conversion clamps to the range both types
            # can represent (+-65504 from f16, 2^31 - 128 from f32), not to the integer's.
            if source == "f16":
                text, source = f"f32({text})", "f32"
            lowest, highest = (-(2**31), 2**31 - 1) if target == "i32" else (0, 2**32 - 1)
            above = f"{text} >= {self.literal(float(highest + 1), source)}"
            below = f"{text} < {self.literal(float(lowest), source)}"
            inner = f"select({target}({text}), {self.literal(highest, target)}, {above})"
            return f"select({inner}, {self.literal(lowest, target)}, {below})"
        return f"{target}({text})"

    def function(self, name: str, dtype: str, args: list[str]) -> str:
        operation = OPERATIONS[name]
        if operation.wgsl_helper:  # float32 helpers; an f16 argument goes through f32
            argument = args[0] if dtype == "f32" else f"f32({args[0]})"
            call = f"{operation.wgsl}({argument})"
            return call if dtype == "f32" else f"{dtype}({call})"
        return f"{operation.wgsl}({', '.join(args)})"

    def check_ops(self, ops: set[tuple[str, str]]) -> None:
        for name, dtype in sorted(ops):
            if dtype == "f64" and name in OPERATIONS and not OPERATIONS[name].wgsl_f64:
                raise Unsupported(
                    f"WGSL has no f64 {name} (naga lowers it through "
                    "GLSL.std.450, which has it for 16 and 32-bit floats only)"
                )

    def helpers(self, ops: set[tuple[str, str]], code: str = "") -> str:
        names = sorted(
            {name for name, _ in ops if name in OPERATIONS and OPERATIONS[name].wgsl_helper}
        )
        found = [wgsl_helper(name) for name in names]
        if f"{self.BITS_HELPER}(" in code:
            found.insert(
                0, f"fn {self.BITS_HELPER}(bits: u32) -> f32 {{ return bitcast<f32>(bits); }}"
            )
        return "\n".join(found)


class CUDA(Dialect):
    target = "cuda"
    language = "CUDA C"
    pointer_vectors = True
    u32 = "unsigned int"
    wide = "unsigned long long"
    barrier = "__syncthreads();"
    local_x, local_y = "threadIdx.x", "threadIdx.y"
    local_index = "fg_lidx"
    group_linear = "(blockIdx.y * gridDim.x + blockIdx.x)"
    group_count = "(gridDim.x * gridDim.y)"

    _TYPES = {name: t.cuda for name, t in TYPES.items()}
    # f16 and bf16 chunks move as structs of 2, 4 or 8 halves, aligned to their size (one
    # 4-, 8- or 16-byte access: NVRTC loads an aligned 16-byte struct of halves with one
    # ld.global.v4.u32), declared by the module (``vector_struct``).
    _VECTORS = {"f32": "float", "i32": "int", "u32": "uint", "f16": "fg_half", "bf16": "fg_bfloat"}
    #: The header that declares each half type and its arithmetic.
    HEADERS = {"f16": "cuda_fp16.h", "bf16": "cuda_bf16.h"}

    # a half type's bits as an unsigned short, and back (cuda_fp16.h, cuda_bf16.h)
    HALF_BITS = {
        "f16": ("__half_as_ushort", "__ushort_as_half"),
        "bf16": ("__bfloat16_as_ushort", "__ushort_as_bfloat16"),
    }
    WORDS = {2: "unsigned int", 4: "uint2", 8: "uint4"}

    def scalar(self, dtype: str) -> str:
        return self._TYPES[dtype]

    def _float_literal(self, value: float, dtype: str) -> str:
        if dtype == "f64":
            return _f64_literal(value)
        if dtype in self.HEADERS:  # exact: the IR stores a constant as its dtype holds it
            return f"{self._TYPES[dtype]}({f32_literal(value)})"
        return f32_literal(value)

    def _int_literal(self, value: int, dtype: str) -> str:
        if dtype == "i32":
            return "(-2147483647 - 1)" if value == -(2**31) else str(value)
        return f"{value}u"

    def _nonfinite(self, name: str, dtype: str) -> str:
        if dtype == "f64":
            return f"__longlong_as_double({_NONFINITE_BITS['f64'][name]}ll)"
        text = f"__int_as_float((int){_NONFINITE_BITS['f32'][name]}u)"
        return f"{self._TYPES[dtype]}({text})" if dtype in self.HEADERS else text

    def let(self, name: str, dtype: str, text: str) -> str:
        return f"const {self._TYPES[dtype]} {name} = {text};"

    def var(self, name: str, dtype: str, text: str) -> str:
        return f"{self._TYPES[dtype]} {name} = {text};"

    def array(self, name: str, dtype: str, size: int) -> str:
        return f"{self._TYPES[dtype]} {name}[{size}] = {{}};"

    def let_wide(self, name: str, text: str) -> str:
        return f"const unsigned long long {name} = {text};"

    def widen(self, text: str) -> str:
        return f"(unsigned long long)({text})"

    def narrow(self, text: str) -> str:
        return f"(unsigned int)({text})"

    def loop(self, var, start, stop, step, *, unroll=False, wide=False) -> list[str]:
        kind = self.wide if wide else self.u32
        header = f"for ({kind} {var} = {start}; {var} < {stop}; {var} += {step}) {{"
        return (["#pragma unroll"] if unroll else []) + [header]

    def shared(self, name: str, dtype: str, size: int) -> str:
        return f"__shared__ __align__(16) {self._TYPES[dtype]} {name}[{size}];"

    def _vector(self, element: str, width: int) -> str:
        return f"{element}{width}"

    def make_vector(self, vector: str, values: list[str]) -> str:
        if vector.startswith("fg_"):
            return f"{vector}{{{', '.join(values)}}}"
        return f"make_{vector}({', '.join(values)})"

    def vector(self, dtype: str, width: int) -> str | None:
        # no vector type is wider than 16 bytes (float4, or 8 halves)
        if TYPES[dtype].size * width > 16:
            return None
        return super().vector(dtype, width)

    def vector_struct(self, dtype: str, width: int) -> str | None:
        if dtype not in self.HEADERS:
            return None
        lanes = ", ".join(self.lanes(width))
        return (
            f"struct __align__({TYPES[dtype].size * width}) {self.vector(dtype, width)} "
            f"{{ {self._TYPES[dtype]} {lanes}; }};"
        )

    def select(self, cond, if_true, if_false) -> str:
        return f"({cond} ? {if_true} : {if_false})"

    def f32_bits(self, text: str) -> str:
        return f"__float_as_uint({text})"

    def bits_f32(self, text: str) -> str:
        return f"__uint_as_float({text})"

    def significant_bits(self, text: str) -> str:
        # __clz and __ffs (1 + the lowest set bit's index) take and give ints
        return f"((unsigned int)(33 - __clz((int)({text})) - __ffs((int)({text}))))"

    def cast(self, text: str, source: str, target: str) -> str:
        if source in self.HEADERS:
            # a half type converts to float exactly; go on from there
            text = f"(float)({text})"
            if target == "f32":
                return f"({text})"
            source = "f32"
        if source in FLOATS and target in ("i32", "u32"):
            # cvt.rzi saturates and sends NaN to 0, matching the IR's cast.
            kind = "double" if source == "f64" else "float"
            return f"__{kind}2{'int' if target == 'i32' else 'uint'}_rz({text})"
        if target in self.HEADERS:
            # the half type's constructor rounds once, from any of the IR's types
            return f"{self._TYPES[target]}({text})"
        return f"(({self._TYPES[target]})({text}))"

    def function(self, name: str, dtype: str, args: list[str]) -> str:
        operation = OPERATIONS[name]
        if dtype in self.HEADERS and operation.cuda_half:
            return f"{operation.cuda_half}({', '.join(args)})"
        cuda = operation.cuda
        if dtype in self.HEADERS:
            # a float function of the value, rounded once to the half type
            assert cuda is not None, name  # every float function has its CUDA spellings
            value = cuda[0] + f"((float)({args[0]}))"
            return f"{self._TYPES[dtype]}({value})"
        if dtype in FLOATS:
            assert cuda is not None, name
            spelled = cuda[1 if dtype == "f64" else 0]
        else:
            spelled = name  # abs, min, max of int and unsigned int
        return f"{spelled}({', '.join(args)})"

    def includes(self, dtypes: set[str]) -> list[str]:
        """The headers the kernel's dtypes need (cuda_fp16.h, cuda_bf16.h)."""
        return [f"#include <{self.HEADERS[d]}>" for d in sorted(self.HEADERS) if d in dtypes]

    def helpers(self, ops: set[tuple[str, str]], code: str = "") -> str:
        parts = []
        if any(name == "sigmoid" and dtype != "f64" for name, dtype in ops):
            parts.append(
                "__device__ __forceinline__ float fg_sigmoid_f32(float x) {\n"
                "    return 1.0f / (1.0f + expf(-x));\n}\n"
            )
        if ("sigmoid", "f64") in ops:
            parts.append(
                "__device__ __forceinline__ double fg_sigmoid_f64(double x) {\n"
                "    return 1.0 / (1.0 + exp(-x));\n}\n"
            )
        return "\n".join(parts)


DIALECTS = {"wgsl": WGSL(), "cuda": CUDA()}
