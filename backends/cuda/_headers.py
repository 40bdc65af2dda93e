"""CUDA's headers for NVRTC, which ships none: where they are, the standard headers NVRTC
lacks, and a digest of the headers one compilation can read (for the disk cache).

The headers come from NVIDIA's wheels, installed with the ``cuda`` extra:
``nvidia-cuda-runtime`` (``cuda_fp16.h``, ``cuda_bf16.h``, ``mma.h``,
``cooperative_groups.h``), ``nvidia-cuda-crt`` (the ``crt/`` headers ``mma.h`` needs)
and ``nvidia-cuda-cccl`` (CUB, Thrust and libcu++'s ``cuda/std``, which
``cooperative_groups.h`` needs on CUDA 13). A toolkit (``CUDA_HOME``, ``CUDA_PATH``,
``/usr/local/cuda``) is the fallback, and last the headers NVRTC 13.5 and later carry
inside libnvrtc-builtins, extracted once into the cache (``nvrtc/headers-MAJOR.MINOR``).

NVRTC has no C++ standard library: ``#include <cstdint>`` fails. libcu++ has a
device-side twin of each header (``cuda/std/cstdint``), so NVRTC gets small in-memory
headers under the standard names (``STD_HEADERS``) that include the twin and make
``std::`` names resolve to ``cuda::std::`` (and, for the fixed-width integers, put them
in the global namespace too, as host toolchains do). The C headers CUDA files start
with are served too: ``stdint.h``, ``math.h``, ``stdlib.h``... by their C++ twin
(``memory.h``, glibc's old name for ``string.h``, by ``cstring``), and
``stdio.h``/``cstdio`` empty (NVRTC has ``printf`` built in), as are the host-only
headers a ``.cu`` file includes for its host code's timing and printing (``time.h``,
``sys/time.h``, ``unistd.h``: Rodinia's hotspot.cu; ``iostream``, ``iomanip``,
``fstream``, ``sstream``: GPU MODE's lectures), whose device code reads nothing from them, and
cuda-samples' host helpers (``helper_cuda.h``, ``helper_functions.h``...) as what
device code can take from them (their C headers and MIN/MAX macros).
(``cuda.h`` declares host functions, which NVRTC refuses; ``_nvrtc`` retries such a
compile with them as device declarations, as they are declarations only.)

nvcc declares ``int64_t`` and the other fixed-width integers without an include (its
implicit host headers do); ``implicit_options`` pre-includes ``cstdint`` for a source
that uses them and neither includes nor declares them itself, so a typedef of its own
(``typedef long int64_t;``, another type than ours) never meets ours.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from forge.cache import cache_root

__all__ = [
    "header_directories",
    "STD_HEADERS",
    "std_headers",
    "header_digest",
    "wheel_versions",
    "HEADER_WHEELS",
    "CURAND_WHEEL",
    "curand_directory",
    "INSTALL_HINT",
    "implicit_options",
]

#: NVIDIA's wheels that carry the headers (the ``cuda`` extra installs them).
HEADER_WHEELS = ("nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-cccl")
INSTALL_HINT = "pip install 'kernel-forge[cuda]'"

# C++ standard headers served by their libcu++ twin; the macro-only ones (limits,
# floats, assert) declare no names to bring into std.
_TWINS = (
    "cstdint",
    "cstddef",
    "cstdlib",
    "cstring",
    "cmath",
    "type_traits",
    "limits",
    "utility",
    "tuple",
    "array",
    "bit",
)
_MACRO_ONLY = ("climits", "cfloat", "cassert")
# C headers and the C++ header they are.
_C_HEADERS = {
    "stdint.h": "cstdint",
    "stddef.h": "cstddef",
    "limits.h": "climits",
    "float.h": "cfloat",
    "assert.h": "cassert",
    "math.h": "cmath",
    "stdlib.h": "cstdlib",
    "string.h": "cstring",
    # glibc's (and BSD's) legacy <memory.h> is <string.h>: memset and memcpy, which
    # mochimodev's cuda-hashing-algos includes it for (round 36)
    "memory.h": "cstring",
}
# Headers with nothing NVRTC needs: printf is built into NVRTC.
_EMPTY = ("cstdio", "stdio.h")
# Host-only headers a .cu file includes for its host code (timing, sleeps, and the
# C++ streams its main() prints with: ``#include <iostream>`` opens every reduction of
# GPU MODE's lecture 9, round 46): device code needs nothing from them (clock() and
# clock64() are NVRTC builtins, printf too; device code cannot use std::cout).
_HOST_ONLY = (
    "time.h",
    "ctime",
    "sys/time.h",
    "unistd.h",
    "iostream",
    "iomanip",
    "fstream",
    "sstream",
)
# cuda-samples' Common helpers, which nearly every sample's .cu file includes (the
# sortingNetworks kernels: ``#include <helper_cuda.h>``): error checks, timers, string
# and image parsing for the host, none of which NVRTC compiles (host functions with
# bodies, <string>, <fstream>). Served as what device code can take from them: the C
# headers they include, EXIT_WAIVED, and the MIN and MAX macros they define, each as
# its header writes it (helper_cuda.h's MAX, helper_image.h's MIN and MAX).
_SAMPLES_COMMON = "// kernel-forge: cuda-samples' {name}, as device code sees it\n#pragma once\n"
_SAMPLES_INCLUDES = "".join(
    f"#include <{h}>\n"
    for h in ("stdint.h", "stdio.h", "stdlib.h", "string.h", "math.h", "assert.h")
)
_WAIVED = "#ifndef EXIT_WAIVED\n#define EXIT_WAIVED 2\n#endif\n"
_IMAGE_MIN_MAX = (
    "#ifndef MIN\n#define MIN(a, b) ((a < b) ? a : b)\n#endif\n"
    "#ifndef MAX\n#define MAX(a, b) ((a > b) ? a : b)\n#endif\n"
)
_SAMPLES_HELPERS = {
    "helper_string.h": _SAMPLES_INCLUDES + _WAIVED,
    "helper_timer.h": _SAMPLES_INCLUDES + "#include <helper_string.h>\n",
    "helper_image.h": _SAMPLES_INCLUDES + _IMAGE_MIN_MAX + _WAIVED + "#include <helper_string.h>\n",
    "helper_functions.h": _SAMPLES_INCLUDES
    + "#include <helper_image.h>\n#include <helper_string.h>\n#include <helper_timer.h>\n"
    + _WAIVED,
    "helper_cuda.h": _SAMPLES_INCLUDES
    + "#include <helper_string.h>\n"
    + _WAIVED
    + "#ifndef MAX\n#define MAX(a, b) (a > b ? a : b)\n#endif\n",
}
# glibc's <sys/types.h> shorthands, which nvcc's implicit host headers declare and
# SGEMM_CUDA's kernels use (``const uint cRow = blockIdx.y;``): NVRTC said only
# 'identifier "uint" is undefined', twenty times.
_SYS_TYPES = """// kernel-forge: glibc's <sys/types.h> shorthands, for NVRTC
#pragma once
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
"""
_SYS_TYPE_NAME = re.compile(r"\b(?:uint|ushort|ulong)\b")
_DECLARES_SYS_TYPES = re.compile(
    r"\btypedef\b[^;]*\b(?:uint|ushort|ulong)\s*;|\busing\s+(?:uint|ushort|ulong)\b"
    r"|^\s*#\s*define\s+(?:uint|ushort|ulong)\b|^\s*#\s*include\s*<sys/types\.h>",
    re.M,
)
# <algorithm> for what device code takes from it (std::min, std::max, std::swap), self-
# contained: CUDA 13.0's CCCL on the H200 has no <cuda/std/algorithm> (2026-12-01). A
# name declared in std itself is found before those a using-directive brings in.
_ALGORITHM = """// kernel-forge: what device code takes from <algorithm>, for NVRTC
#pragma once
namespace std {
template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T> __host__ __device__ void swap(T& a, T& b) {
  T t = a;
  a = b;
  b = t;
}
}
"""
_GLOBAL_INTEGERS = (
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "intptr_t",
    "uintptr_t",
    "intmax_t",
    "uintmax_t",
)


# The limits a C header defines, where libcu++ leaves them undefined: FLT_MAX was
# undefined after <cfloat> with CUDA 13.0's toolkit headers and NVRTC 13.0 on the H200
# (2026-12-01 and 02, a Caffe max pool and llm.c's softmax did not compile), and neither
# NVRTC 13.0 nor 13.5 predefines __FLT_MAX__ to fall back on; NVIDIA's header wheels
# define them. IEEE 754's values, as <float.h> and <limits.h> give them.
_MACRO_FALLBACKS = {
    "cfloat": (
        ("FLT_MAX", "3.402823466e+38F"),
        ("FLT_MIN", "1.175494351e-38F"),
        ("FLT_EPSILON", "1.192092896e-07F"),
        ("FLT_MANT_DIG", "24"),
        ("DBL_MAX", "1.7976931348623158e+308"),
        ("DBL_MIN", "2.2250738585072014e-308"),
        ("DBL_EPSILON", "2.2204460492503131e-16"),
        ("DBL_MANT_DIG", "53"),
    ),
    "climits": (
        ("CHAR_BIT", "8"),
        ("SCHAR_MAX", "127"),
        ("SHRT_MAX", "32767"),
        ("INT_MAX", "2147483647"),
        ("INT_MIN", "(-2147483647 - 1)"),
        ("UINT_MAX", "4294967295U"),
        ("LONG_MAX", "9223372036854775807L"),
        ("LLONG_MAX", "9223372036854775807LL"),
    ),
}


def _std_header(name: str) -> str:
    lines = ["// kernel-forge: the C++ standard header for NVRTC, from libcu++", "#pragma once"]
    lines.append(f"#include <cuda/std/{name}>")
    if name == "cstddef":
        # libcu++'s fallback offsetof subtracts pointers, which is no constant expression
        # (static_assert(offsetof(...) == 8) fails): the compiler's builtin is one, where
        # it has it (NVRTC 13.5 does). NVRTC 13.0 has none ("type name is not allowed",
        # the H200, 2026-12-01) and folds no form of offsetof to a constant there: the
        # member-address form below gives the right offset at run time, and
        # static_assert on it needs a newer NVRTC.
        lines += [
            "#undef offsetof",
            "#if defined(__has_builtin)",
            "#if __has_builtin(__builtin_offsetof)",
            "#define offsetof(type, member) __builtin_offsetof(type, member)",
            "#endif",
            "#endif",
            "#ifndef offsetof",
            "#define offsetof(type, member) ((::cuda::std::size_t)&reinterpret_cast"
            "<const volatile char&>((((type*)0)->member)))",
            "#endif",
        ]
    for macro, value in _MACRO_FALLBACKS.get(name, ()):
        lines += [f"#ifndef {macro}", f"#define {macro} {value}", "#endif"]
    if name not in _MACRO_ONLY:
        lines.append("namespace std { using namespace ::cuda::std; }")
    if name == "cstdint":
        lines += [f"using ::cuda::std::{t};" for t in _GLOBAL_INTEGERS]
    return "\n".join(lines) + "\n"


#: Standard header name -> its text, given to NVRTC in memory.
STD_HEADERS: dict[str, str] = {
    **{name: _std_header(name) for name in (*_TWINS, *_MACRO_ONLY)},
    **{c: f"#pragma once\n#include <{cpp}>\n" for c, cpp in _C_HEADERS.items()},
    **{name: "// kernel-forge: printf is built into NVRTC\n#pragma once\n" for name in _EMPTY},
    **{name: "// kernel-forge: a host-only header\n#pragma once\n" for name in _HOST_ONLY},
    "algorithm": _ALGORITHM,
    "sys/types.h": _SYS_TYPES,
    **{name: _SAMPLES_COMMON.format(name=name) + text for name, text in _SAMPLES_HELPERS.items()},
}

_INTEGER_NAME = re.compile(r"\b(" + "|".join(_GLOBAL_INTEGERS) + r")\b")
# what declares the fixed-width integers: an include of a header that may (any quoted
# one, a C or C++ standard one), or a typedef or using of one of the names
_DECLARES_INTEGERS = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*(?:"|<(?:cstdint|stdint\.h|cuda/std/cstdint)>)'
    r"|\btypedef\b[^;]*\b(?:" + "|".join(_GLOBAL_INTEGERS) + r")\s*;"
    r"|\busing\s+(?:[\w:]*::)?(?:" + "|".join(_GLOBAL_INTEGERS) + r")\b",
    re.M,
)


# glibc's <math.h> constants, which nvcc's implicit <cuda_runtime.h> brings in (llm.c's
# GELU scales by sqrtf(2.0f / M_PI)); NVRTC has no host <math.h>.
_MATH_CONSTANTS = {
    "M_E": "2.7182818284590452354",
    "M_LOG2E": "1.4426950408889634074",
    "M_LOG10E": "0.43429448190325182765",
    "M_LN2": "0.69314718055994530942",
    "M_LN10": "2.30258509299404568402",
    "M_PI": "3.14159265358979323846",
    "M_PI_2": "1.57079632679489661923",
    "M_PI_4": "0.78539816339744830962",
    "M_1_PI": "0.31830988618379067154",
    "M_2_PI": "0.63661977236758134308",
    "M_2_SQRTPI": "1.12837916709551257390",
    "M_SQRT2": "1.41421356237309504880",
    "M_SQRT1_2": "0.70710678118654752440",
}
_MATH_CONSTANT = re.compile(r"\b(" + "|".join(_MATH_CONSTANTS) + r")\b")


# The macros nvcc's implicit <cuda_runtime.h> brings in through <math.h> and <limits.h>
# (llm.c's and most softmax kernels start their maximum at -INFINITY), by the standard
# header that defines them here (libcu++'s <cmath> gives INFINITY and NAN; ours <cfloat>
# and <climits> the limits, with the fallbacks above: CUDA 13.0's <cmath> defines no
# FLT_MAX where the wheels' newer one does), and the includes that already do.
_IMPLICIT_MACROS = (
    (
        "cmath",
        re.compile(r"\b(?:INFINITY|NAN|HUGE_VALF?)\b"),
        re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"|<(?:cmath|math\.h|cuda/std/cmath)>)', re.M),
    ),
    (
        "cfloat",
        re.compile(r"\b(?:FLT|DBL)_(?:MAX|MIN|EPSILON|MANT_DIG)\b"),
        re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"|<(?:cfloat|float\.h|cuda/std/cfloat)>)', re.M),
    ),
    (
        "climits",
        re.compile(r"\b(?:U?INT|U?LONG|U?LLONG|U?SHRT|S?CHAR)_(?:MAX|MIN)\b|\bCHAR_BIT\b"),
        re.compile(
            r'^[ \t]*#[ \t]*include[ \t]*(?:"|<(?:climits|limits\.h|cuda/std/climits)>)', re.M
        ),
    ),
)
# what <cmath> leaves out: C's HUGE_VALF and HUGE_VAL, as libcu++ spells infinity
_HUGE_VALUES = {
    "HUGE_VALF": "::cuda::std::numeric_limits<float>::infinity()",
    "HUGE_VAL": "::cuda::std::numeric_limits<double>::infinity()",
}


# The standard math functions nvcc's implicit <cuda_runtime.h> declares in std through
# its <cmath> (Megatron's softmax calls std::exp with <limits> and <cfloat> included);
# NVRTC declares none without an include (round 29: "namespace std has no member exp").
_STD_MATH = re.compile(
    r"\bstd::(?:exp|exp2|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|hypot|sin|cos|tan|asin|acos|"
    r"atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|tgamma|lgamma|fabs|floor|ceil|"
    r"trunc|round|rint|fmod|remainder|fmin|fmax|fma|copysign|ldexp|frexp|isinf|isnan|"
    r"isfinite|signbit)\s*\("
)
# CUDA_VERSION, which PyTorch extensions test (``#if CUDA_VERSION >= 9000`` picks
# __shfl_xor_sync over the __shfl_xor that CUDA 9 removed) and get from <cuda.h> through
# their translation unit's includes; <cuda.h> itself declares host functions NVRTC
# refuses, so the value is nvcc's: major * 1000 + minor * 10, from NVRTC's own version.
_CUDA_VERSION = re.compile(r"\bCUDA_VERSION\b")
_INCLUDES_CUDA_H = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]cuda\.h[>"]', re.M)


# The device runtime's programmatic dependent launch calls (Hopper's griddepcontrol),
# which nvcc's implicit <cuda_runtime.h> declares through <cuda_device_runtime_api.h>
# and NVRTC's does not: ggml's kernels call them under ``__CUDA_ARCH__ >= 900``
# (timestep_embedding_f32, round 38), and NVRTC said the identifier is undefined.
_DEVICE_RUNTIME_CALL = re.compile(
    r"\b(?:cudaGridDependencySynchronize|cudaTriggerProgrammaticLaunchCompletion)\s*\("
)
_INCLUDES_DEVICE_RUNTIME = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*[<\"]cuda_device_runtime_api\.h[>\"]", re.M
)
_DEVICE_RUNTIME_HEADER = "cuda_device_runtime_api.h"


# What a PyTorch extension's device code takes from ATen and c10 through
# <torch/extension.h>, which NVRTC cannot read (``_device_code`` blanks it): the packed
# tensor accessors its kernels take by value (PyTorch's own extension tutorial, LLTM,
# passes every tensor as a ``torch::PackedTensorAccessor32<scalar_t, N,
# torch::RestrictPtrTraits>``), laid out as ATen's GenericPackedTensorAccessorBase is
# (the data pointer, then N sizes and N strides of the index type), and the C10 macros
# device code uses. The backend fills an accessor from the buffer of its name and its
# declared shape (``forge.arguments.accessor_bytes``); at::Half and at::BFloat16 as
# c10 declares them for device code.
TORCH_DEVICE_HEADER = "kernel_forge_torch.h"
_TORCH_DEVICE = """// kernel-forge: what PyTorch device code takes from ATen and c10, for NVRTC
#pragma once
#if !defined(KFORGE_TORCH_HALF) && defined(__has_include)
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#define KFORGE_TORCH_HALF
#endif
#endif
#ifdef KFORGE_TORCH_HALF
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif
#ifndef C10_HOST_DEVICE
#define C10_HOST_DEVICE __host__ __device__
#endif
#ifndef C10_DEVICE
#define C10_DEVICE __device__
#endif
#ifndef C10_HOST
#define C10_HOST __host__
#endif
#ifndef C10_WARP_SIZE
#define C10_WARP_SIZE 32
#endif
#ifndef C10_LAUNCH_BOUNDS_0
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(256, 4)
#define C10_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__((max_threads))
#define C10_LAUNCH_BOUNDS_2(max_threads, min_blocks) __launch_bounds__((max_threads), (min_blocks))
#endif
#ifndef C10_RESTRICT
#define C10_RESTRICT __restrict__
#endif
// <torch/extension.h> brings in the C++ <cmath>, whose overloads take a float and a
// double together (the tutorial's ELU, fmax(0.0, z) with a float z): NVRTC declares
// fmax(double, double) and fmax(float, float) alone, and calls them ambiguously
namespace kforge_torch_detail {
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };
}  // namespace kforge_torch_detail
#define KFORGE_TORCH_MIXED(name)                                                        \
  template <class A, class B>                                                          \
  __host__ __device__ inline typename kforge_torch_detail::enable_if<                  \
      !kforge_torch_detail::same<A, B>::value, decltype(A() + B())>::type             \
  name(A a, B b) {                                                                     \
    typedef decltype(A() + B()) R;                                                     \
    return name(static_cast<R>(a), static_cast<R>(b));                                 \
  }
KFORGE_TORCH_MIXED(fmax)
KFORGE_TORCH_MIXED(fmin)
KFORGE_TORCH_MIXED(pow)
KFORGE_TORCH_MIXED(atan2)
KFORGE_TORCH_MIXED(fmod)
KFORGE_TORCH_MIXED(hypot)
KFORGE_TORCH_MIXED(copysign)
KFORGE_TORCH_MIXED(fdim)
#undef KFORGE_TORCH_MIXED
namespace c10 {
#ifdef KFORGE_TORCH_HALF
// c10's Half and BFloat16 as ATen's device code sees them: two bytes, converted to and
// from float, arithmetic with a float or a double in that type and with another of
// their own or an int in float, rounded back (c10/util/Half-inl.h); no conversion to
// __half, as PyTorch's extension builds define __CUDA_NO_HALF_CONVERSIONS__ and a
// comparison would find both
#define KFORGE_TORCH_LOW(Name, Raw, ToFloat, FromFloat)                                   \
  struct alignas(2) Name {                                                              \
    unsigned short x;                                                                    \
    Name() = default;                                                                    \
    __host__ __device__ Name(float value) {                                              \
      Raw raw = FromFloat(value);                                                        \
      x = *reinterpret_cast<unsigned short*>(&raw);                                      \
    }                                                                                    \
    __host__ __device__ Name(const Raw& raw)                                             \
        : x(*reinterpret_cast<const unsigned short*>(&raw)) {}                           \
    __host__ __device__ operator float() const {                                          \
      return ToFloat(*reinterpret_cast<const Raw*>(&x));                                  \
    }                                                                                    \
  };                                                                                     \
  __host__ __device__ inline Name operator+(Name a, Name b) { return float(a) + float(b); } \
  __host__ __device__ inline Name operator-(Name a, Name b) { return float(a) - float(b); } \
  __host__ __device__ inline Name operator*(Name a, Name b) { return float(a) * float(b); } \
  __host__ __device__ inline Name operator/(Name a, Name b) { return float(a) / float(b); } \
  __host__ __device__ inline Name operator-(Name a) { return -float(a); }                \
  __host__ __device__ inline Name& operator+=(Name& a, Name b) { return a = a + b; }      \
  __host__ __device__ inline Name& operator-=(Name& a, Name b) { return a = a - b; }      \
  __host__ __device__ inline Name& operator*=(Name& a, Name b) { return a = a * b; }      \
  __host__ __device__ inline Name& operator/=(Name& a, Name b) { return a = a / b; }      \
  __host__ __device__ inline float operator+(Name a, float b) { return float(a) + b; }    \
  __host__ __device__ inline float operator-(Name a, float b) { return float(a) - b; }    \
  __host__ __device__ inline float operator*(Name a, float b) { return float(a) * b; }    \
  __host__ __device__ inline float operator/(Name a, float b) { return float(a) / b; }    \
  __host__ __device__ inline float operator+(float a, Name b) { return a + float(b); }    \
  __host__ __device__ inline float operator-(float a, Name b) { return a - float(b); }    \
  __host__ __device__ inline float operator*(float a, Name b) { return a * float(b); }    \
  __host__ __device__ inline float operator/(float a, Name b) { return a / float(b); }    \
  __host__ __device__ inline double operator+(Name a, double b) { return float(a) + b; }  \
  __host__ __device__ inline double operator-(Name a, double b) { return float(a) - b; }  \
  __host__ __device__ inline double operator*(Name a, double b) { return float(a) * b; }  \
  __host__ __device__ inline double operator/(Name a, double b) { return float(a) / b; }  \
  __host__ __device__ inline double operator+(double a, Name b) { return a + float(b); }  \
  __host__ __device__ inline double operator-(double a, Name b) { return a - float(b); }  \
  __host__ __device__ inline double operator*(double a, Name b) { return a * float(b); }  \
  __host__ __device__ inline double operator/(double a, Name b) { return a / float(b); }  \
  __host__ __device__ inline Name operator+(Name a, int b) { return a + Name(float(b)); } \
  __host__ __device__ inline Name operator-(Name a, int b) { return a - Name(float(b)); } \
  __host__ __device__ inline Name operator*(Name a, int b) { return a * Name(float(b)); } \
  __host__ __device__ inline Name operator/(Name a, int b) { return a / Name(float(b)); } \
  __host__ __device__ inline Name operator+(int a, Name b) { return Name(float(a)) + b; } \
  __host__ __device__ inline Name operator-(int a, Name b) { return Name(float(a)) - b; } \
  __host__ __device__ inline Name operator*(int a, Name b) { return Name(float(a)) * b; } \
  __host__ __device__ inline Name operator/(int a, Name b) { return Name(float(a)) / b; }
KFORGE_TORCH_LOW(Half, __half, __half2float, __float2half)
KFORGE_TORCH_LOW(BFloat16, __nv_bfloat16, __bfloat162float, __float2bfloat16)
#undef KFORGE_TORCH_LOW
#endif
}
namespace at {
#ifdef KFORGE_TORCH_HALF
using c10::Half;
using c10::BFloat16;
#endif
template <typename T> struct DefaultPtrTraits { typedef T* PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };

template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = long long>
class TensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  __host__ __device__ index_t stride(index_t i) const { return strides_[i]; }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }
  __host__ __device__ PtrType data() { return data_; }
  __host__ __device__ const PtrType data() const { return data_; }
 protected:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = long long>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, N, PtrTraits, index_t>(data, sizes, strides) {}
  __host__ __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
  __host__ __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](
      index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t>
    : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, 1, PtrTraits, index_t>(data, sizes, strides) {}
  __host__ __device__ T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  __host__ __device__ const T& operator[](index_t i) const {
    return this->data_[this->strides_[0] * i];
  }
};

template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = long long>
class GenericPackedTensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  __host__ __device__ index_t stride(index_t i) const { return strides_[i]; }
  __host__ __device__ index_t size(index_t i) const { return sizes_[i]; }
  __host__ __device__ PtrType data() { return data_; }
  __host__ __device__ const PtrType data() const { return data_; }
 protected:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = long long>
class GenericPackedTensorAccessor
    : public GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  __device__ TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
  __device__ const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t>
    : public GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  __device__ T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  __device__ const T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int>;
template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, long long>;
template <typename T, unsigned long N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = long long>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;
}  // namespace at
namespace torch {
using namespace at;
}
"""
# a use of what _TORCH_DEVICE declares, and what declares it already (ATen's own header
# where a source brings it some other way)
_TORCH_DEVICE_NAMES = re.compile(
    r"\b(?:(?:Generic)?PackedTensorAccessor(?:32|64)?|RestrictPtrTraits|DefaultPtrTraits|"
    r"(?:at|c10)::(?:Half|BFloat16)|C10_(?:HOST_DEVICE|DEVICE|HOST|WARP_SIZE|RESTRICT|"
    r"LAUNCH_BOUNDS_[012]))\b"
)
_DECLARES_ACCESSORS = re.compile(r"\bclass\s+(?:Generic)?PackedTensorAccessor")
STD_HEADERS[TORCH_DEVICE_HEADER] = _TORCH_DEVICE

# CUB's umbrella header as nvcc's device pass uses it: <cub/cub.cuh> refuses NVRTC
# (CCCL's own #error: its device-wide algorithms are host code), where a PyTorch
# extension includes it for cub::BlockReduce (PyTorch3D's farthest point sampling,
# round 76). Device code needs only the block-, warp- and thread-level headers, each
# taken where this CCCL has it (NVRTC compiled all of them from CCCL 3's wheel on
# 2026-12-07); host code that calls cub::DeviceReduce is left out of the device part.
_CUB_DEVICE_HEADERS = (
    *(
        f"block/{name}.cuh"
        for name in (
            "block_adjacent_difference block_discontinuity block_exchange block_histogram "
            "block_load block_merge_sort block_radix_rank block_radix_sort block_reduce "
            "block_run_length_decode block_scan block_shuffle block_store"
        ).split()
    ),
    *(
        f"warp/{name}.cuh"
        for name in (
            "warp_exchange warp_load warp_merge_sort warp_reduce warp_scan warp_store"
        ).split()
    ),
    "thread/thread_load.cuh",
    "thread/thread_operators.cuh",
    "thread/thread_reduce.cuh",
    "thread/thread_scan.cuh",
    "thread/thread_store.cuh",
    "iterator/cache_modified_input_iterator.cuh",
    "util_ptx.cuh",
    "util_type.cuh",
)
STD_HEADERS["cub/cub.cuh"] = (
    "// kernel-forge: CUB's umbrella header, its device-level part, for NVRTC\n#pragma once\n"
    + "".join(
        f"#if __has_include(<cub/{h}>)\n#include <cub/{h}>\n#endif\n" for h in _CUB_DEVICE_HEADERS
    )
)


def implicit_options(source: str, names: Sequence[str] = ()) -> tuple[str, ...]:
    """What nvcc users expect without writing it: ``--pre-include=cstdint`` when
    ``source`` uses ``int64_t``, ``uint32_t``... and does not include or declare them
    itself (a quoted include may: left alone; nothing when CCCL, which the header
    includes, is not installed); ``--pre-include=cmath`` (``cfloat``, ``climits``) when
    it uses ``INFINITY`` or ``NAN`` (``FLT_MAX``, ``INT_MAX``...) and includes nothing
    that defines them, as nvcc's implicit ``<math.h>`` (``<limits.h>``) would, and
    ``cmath`` when it calls ``std::exp``, ``std::sqrt``... without including it, as nvcc's
    implicit ``<cmath>`` would; glibc's ``M_PI``, ``M_SQRT2``... for those it uses and does
    not ``#define``; and ``CUDA_VERSION`` (nvcc's value for this NVRTC) where it tests it
    without defining it or including ``<cuda.h>``; glibc's
    ``uint``, ``ushort`` and ``ulong`` where it uses them without declaring them; and
    ``cuda_device_runtime_api.h`` where it calls ``cudaGridDependencySynchronize()`` or
    ``cudaTriggerProgrammaticLaunchCompletion()`` without including it; and PyTorch's
    packed tensor accessors, ``at::Half`` and the C10 macros where a PyTorch
    extension's device code uses them, or an entry point's ``names`` do
    (``k<at::Half>``: ``TORCH_DEVICE_HEADER``)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    options: list[str] = []
    torch = _TORCH_DEVICE_NAMES.search(text) or _TORCH_DEVICE_NAMES.search(" ".join(names))
    if torch and not _DECLARES_ACCESSORS.search(text):
        options.append(f"--pre-include={TORCH_DEVICE_HEADER}")
    if _INTEGER_NAME.search(text) and not _DECLARES_INTEGERS.search(text) and std_headers():
        options.append("--pre-include=cstdint")
    defined = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, flags=re.M))
    for header, uses, includes in _IMPLICIT_MACROS:
        used = set(uses.findall(text)) - defined
        if not used or not std_headers():
            continue
        if not includes.search(text):
            options.append(f"--pre-include={header}")
        if header == "cmath":
            for name in sorted(used & set(_HUGE_VALUES)):
                options.append(f"--define-macro={name}={_HUGE_VALUES[name]}")
    cmath = next(includes for header, _, includes in _IMPLICIT_MACROS if header == "cmath")
    pre = "--pre-include=cmath"
    if _STD_MATH.search(text) and not cmath.search(text) and pre not in options and std_headers():
        options.append(pre)
    if _CUDA_VERSION.search(text) and "CUDA_VERSION" not in defined:
        if not _INCLUDES_CUDA_H.search(text):
            options.append(
                "--define-macro=CUDA_VERSION=(__CUDACC_VER_MAJOR__*1000+__CUDACC_VER_MINOR__*10)"
            )
    for name in sorted(set(_MATH_CONSTANT.findall(text)) - defined):
        options.append(f"--define-macro={name}={_MATH_CONSTANTS[name]}")
    if _SYS_TYPE_NAME.search(text) and not _DECLARES_SYS_TYPES.search(text):
        options.append("--pre-include=sys/types.h")
    if (
        _DEVICE_RUNTIME_CALL.search(text)
        and not _INCLUDES_DEVICE_RUNTIME.search(text)
        and any(
            os.path.isfile(os.path.join(d, _DEVICE_RUNTIME_HEADER)) for d in header_directories()
        )
    ):
        options.append(f"--pre-include={_DEVICE_RUNTIME_HEADER}")
    return tuple(options)


# Where NVIDIA's CUDA 13 wheels put their headers, below a site-packages folder.
_WHEEL_LAYOUT = {
    "cudart": ("nvidia", "cu13", "include"),
    "cccl": ("nvidia", "cu13", "include", "cccl"),
    "curand": ("nvidia", "cu13", "include"),
}
#: The wheel that carries cuRAND's headers (``curand_kernel.h``), in the ``cuda`` extra.
CURAND_WHEEL = "nvidia-curand"


def _wheel_directory(name: str) -> str | None:
    """The header folder of wheel ``name`` ("cudart", "cccl" or "curand"): as cuda.pathfinder
    finds it, else (an older pathfinder, wheels installed with --target) on sys.path."""
    try:
        from cuda import pathfinder

        found = pathfinder.find_nvidia_header_directory(name)
        if found:
            return found
    except Exception:  # noqa: BLE001 - no pathfinder, an older one, or nothing found
        pass
    for entry in sys.path:
        candidate = os.path.join(entry, *_WHEEL_LAYOUT[name])
        if entry and os.path.isdir(candidate):
            return candidate
    return None


def cache_dir() -> Path:
    """Where NVRTC's work is kept: the ``nvrtc`` folder of the cache root (compiled
    images, and the headers a bundled NVRTC extracts)."""
    return cache_root() / "nvrtc"


def _bundled_directory() -> str | None:
    """Where NVRTC's own copy of the headers is extracted (done once, in the cache), or
    None when this NVRTC carries none (before 13.5) or the extraction fails."""
    try:
        from cuda.bindings import nvrtc

        status, info, *_ = nvrtc.nvrtcGetBundledHeadersInfo()
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS or not info.available:
            return None
        status, major, minor = nvrtc.nvrtcVersion()
        target = cache_dir() / f"headers-{major}.{minor}"
        flags = nvrtc.NVRTC_INSTALL_HEADERS_SKIP_IF_EXISTS
        status, *_ = nvrtc.nvrtcInstallBundledHeaders(str(target).encode(), flags)
        if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None
        return str(target)
    except Exception:  # noqa: BLE001 - no cuda-python, an older NVRTC, a read-only cache
        return None


@functools.cache
def header_directories() -> tuple[str, ...]:
    """The directories on NVRTC's include path: CUDA's runtime headers (wheel, else a
    toolkit, else NVRTC's bundled copy) and CCCL's (wheel, else the toolkit's or the
    bundle's ``cccl``). Empty when none is installed."""
    toolkits = [
        os.path.join(os.environ[env], "include")
        for env in ("CUDA_HOME", "CUDA_PATH")
        if os.environ.get(env)
    ] + ["/usr/local/cuda/include"]
    # A runtime directory without crt/ (a torch environment's nvidia/cu13 without the
    # nvidia-cuda-crt wheel) cannot compile mma.h: one with crt/ wins over it.
    found = [
        d
        for d in [_wheel_directory("cudart"), *toolkits]
        if d and os.path.isfile(os.path.join(d, "cuda_fp16.h"))
    ]
    runtime = next(
        (d for d in found if os.path.isfile(os.path.join(d, "crt", "mma.h"))),
        found[0] if found else None,
    )
    if runtime is None:
        runtime = _bundled_directory()
    cccl_candidates = [_wheel_directory("cccl")] + [os.path.join(d, "cccl") for d in toolkits]
    if runtime:
        cccl_candidates.append(os.path.join(runtime, "cccl"))
    cccl = next(
        (
            d
            for d in cccl_candidates
            if d and os.path.isfile(os.path.join(d, "cuda", "std", "cstdint"))
        ),
        None,
    )
    # cuRAND's device API (curand_kernel.h: dropout and sampling kernels) comes with the
    # nvidia-curand wheel, in the runtime's folder when both are installed alike; its
    # own folder is added where it is elsewhere (another site-packages, a --target)
    curand = curand_directory()
    extra = (curand,) if curand and curand != runtime else ()
    return tuple(d for d in (runtime, cccl) if d) + extra


def curand_directory() -> str | None:
    """The folder of the nvidia-curand wheel holding ``curand_kernel.h``, as
    cuda.pathfinder or sys.path finds it; None when it is not installed. (A toolkit's
    cuRAND is on the path already where the toolkit gives the runtime headers; it is not
    added beside a wheel's, whose versions it need not match.)"""
    candidates = [_wheel_directory("curand")] + [
        os.path.join(entry, *_WHEEL_LAYOUT["curand"]) for entry in sys.path if entry
    ]  # the runtime wheel shares the folder name: the one holding the header wins
    return next(
        (d for d in candidates if d and os.path.isfile(os.path.join(d, "curand_kernel.h"))),
        None,
    )


def std_headers() -> dict[str, str]:
    """The in-memory standard headers, when CCCL (which they include) is on the path."""
    directories = header_directories()
    if any(os.path.isfile(os.path.join(d, "cuda", "std", "cstdint")) for d in directories):
        return STD_HEADERS
    return {TORCH_DEVICE_HEADER: _TORCH_DEVICE}  # needs none of CCCL


@functools.cache
def wheel_versions() -> tuple[tuple[str, str], ...]:
    """(distribution, version) of each installed header wheel."""
    found = []
    for name in HEADER_WHEELS:
        try:
            found.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            pass
    return tuple(found)


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def _scan(path: str, mtime_ns: int, size: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A header file's sha256 and the (quote, name) of each ``#include`` it holds;
    memoized by its modification time and size, so a changed file is read again."""
    data = Path(path).read_bytes()
    includes = tuple((q.decode(), n.decode().strip()) for q, n in _INCLUDE.findall(data))
    return hashlib.sha256(data).hexdigest(), includes


def _resolve(name: str, quote: str, here: str | None, directories: tuple[str, ...]) -> str | None:
    searched = ([here] if quote == '"' and here else []) + list(directories)
    for directory in searched:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return os.path.normpath(path)
    return None


def header_digest(source: str, directories: tuple[str, ...], headers: dict[str, str]) -> str:
    """sha256 over every header ``source`` can read, followed through their own
    ``#include`` lines: in-memory ``headers`` by text, files by content, and names that
    resolve nowhere by name. Includes are followed whatever the preprocessor
    conditions around them, so the set can only be larger than the one a compile reads:
    any change to a header the compile read changes the digest."""
    digest = hashlib.sha256()
    seen: set[tuple[str, str | None]] = set()
    pending: list[tuple[str, str, str | None]] = [
        (q, n, None)
        for q, n in ((q.decode(), n.decode().strip()) for q, n in _INCLUDE.findall(source.encode()))
    ]
    while pending:
        quote, name, here = pending.pop()
        path = None if name in headers else _resolve(name, quote, here, directories)
        key = (name, path)
        if key in seen:
            continue
        seen.add(key)
        if name in headers:
            text = headers[name]
            digest.update(f"memory:{name}:".encode() + hashlib.sha256(text.encode()).digest())
            pending += [
                (q.decode(), n.decode().strip(), None) for q, n in _INCLUDE.findall(text.encode())
            ]
        elif path is None:
            digest.update(f"missing:{name};".encode())
        else:
            stat = os.stat(path)
            content, includes = _scan(path, stat.st_mtime_ns, stat.st_size)
            digest.update(f"file:{path}:{content};".encode())
            pending += [(q, n, os.path.dirname(path)) for q, n in includes]
    return digest.hexdigest()
