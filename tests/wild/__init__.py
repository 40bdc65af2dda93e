"""Kernels written the way people write them elsewhere, taken as written, each with
mutants: copies with one realistic bug. The oracle must pass every original on every
backend that can run it and fail every mutant (issue 11: no false alarm, no silent
pass, no missed mutant; issue 13: expressible without edits).

WGSL, in the styles of web ML runtimes and WebGPU samples: ``arrayLength`` bounds and
inputs declared ``read_write``, a tiled transpose with workgroup memory, ``override``
constants and size templates, a histogram with atomics accumulating into zeros, padded
``vec3`` outputs and struct inputs with a ``vec3`` uniform, and a two-pass reduction
made of two entry points. CUDA, in the styles of LLM training code: scalars by value
after the pointers, softmax with dynamic shared memory, a C++ template instantiation
with ``size_t`` and a scalar of the element type, doubles and 64-bit integers. And a
port: the same kernel in WGSL and CUDA with no numpy reference at all.

Six of these kernels follow public code and are written for this corpus after it:
read, not copied (the project's rule for public code: they were first taken verbatim,
and rewritten on 2026-12-06). What is theirs is kept: the entry points and parameters
(names, types, order), the workgroup and block sizes, the workgroup and shared memory
(never-cleared atomic bins, a float a thread), the barriers where they stand (the
softmax's at the top of each tree level, and one before the max is read), the idioms
(``unpack4x8unorm`` and ``saturate(dot(...))``, ``fmaxf`` trees, cooperative groups'
``tiled_partition<32>`` and ``shfl_down``, ``__hfma2`` over ``half2``), the launches
and the numerics (GELU's tanh form and constants, eps 1e-5 inside the root and the
biased variance, the order of every sum). What is ours: the comments, the macros',
helpers', constants' and locals' names, the order of equivalent statements and the
formatting; the softmax's rows are pointers, the statistics a kernel of their own.
Each says its source beside it (repository, commit, path, licence):
webgpufundamentals' histogram (BSD 3-clause), llm.c's GELU, softmax and layernorm
(MIT), the CUDA samples' cooperative-groups reduction and NVIDIA's half2 haxpy (BSD
3-clause). The others are the project's own, written in the styles named (ONNX
Runtime Web's Where, a bitonic pass a pipeline, Hillis-Steele's double buffer, warp
shuffles): no upstream file they copy.

``Wild.mutants`` maps a description to (target, text in the source, its replacement);
``Wild.invisible`` names backends where a mutant cannot be seen and why (a write past
the end that WGSL's robust access drops, a race that only the sanitizer sees).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from forge import Access, BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div  # noqa: F401

__all__ = ["Wild", "CORPUS", "cuda_mutants", "mutant", "wgsl_twin", "RACE_HIDDEN", "I32_REMAINDER"]


@dataclass(frozen=True)
class Wild:
    kernel: KernelSpec
    mutants: dict[str, tuple[str, str, str]]
    invisible: dict[tuple[str, str], str] = field(default_factory=dict)
    nonfinite_only: frozenset[str] = frozenset()  # mutants wrong only on NaN or Inf
    # (mutant, target, adapter name part): a mutant these adapters' values do not show
    # (a race their scheduling hides), seen there; still expected to fail elsewhere
    invisible_on: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # CUDA mutants that are a race (a dropped or misplaced barrier): where the GPU's
    # values hide one, compute-sanitizer must find it (tests/wild/nvidia.py)
    races: frozenset[str] = frozenset()
    # (backend, adapter name part, outputs joined by "+"): a driver that computes the
    # original's outputs against the language's definition (seen on that adapter), and how
    platform: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # (mutant, target): a mutant the backend refuses before it runs, a declaration it
    # can check against the source; the text its ERROR must hold (the fix it names)
    refused: dict[tuple[str, str], str] = field(default_factory=dict)
    # (backend, adapter name part, outputs joined by "+"): a right kernel the oracle
    # fails there, its own known defect (tests/wild/nvidia.py): an expected failure
    false_alarms: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # adapter name part -> why: a CPU adapter that takes minutes to compile the entry's
    # WGSL cold (lavapipe's LLVM); without KFORGE_SLOW_TESTS its runs go to the other
    # CPU adapter where both are here (tests/test_wild_kernels.py)
    slow_on: dict[str, str] = field(default_factory=dict)


#: Why a dropped barrier may pass on NVIDIA's Vulkan driver (``Wild.invisible_on``).
RACE_HIDDEN = (
    "a race NVIDIA's Vulkan driver runs in an order that hides it, in some runs or all "
    "(H200 and H100, 2026-12-01 to 07); "
    "lavapipe shows it"
)

#: What NVIDIA's Vulkan driver computes for WGSL's i32 ``%`` (``Wild.platform``, and
#: ``Wild.invisible_on`` for a mutant it hides).
I32_REMAINDER = (
    "NVIDIA's Vulkan driver (580.159.04, H200, 2026-12-01) computes WGSL's i32 `%` of a "
    "negative dividend as the unsigned remainder (-1 % 7 = 3, -5 % 7 = 6; WGSL and "
    "lavapipe: -1, -5); `>>` and `/` are right there"
)


def cuda_mutants(round_: dict[str, Wild]) -> list[tuple[str, str]]:
    """(kernel, mutant) of every CUDA mutant of a round's kernels that have CUDA."""
    return [
        (name, what)
        for name, wild in round_.items()
        if "cuda" in wild.kernel.targets
        for what, (target, _, _) in wild.mutants.items()
        if target == "cuda"
    ]


def wgsl_twin(name: str, old: str, new: str) -> KernelSpec:
    """The WGSL of corpus kernel ``name`` with ``old`` (found once) made ``new``: a CUDA
    mutant's bug written into its WebGPU port, a WGSL-only kernel."""
    kernel = CORPUS[name].kernel
    text = kernel.sources["wgsl"]
    assert text.count(old) == 1, (name, old)
    return dataclasses.replace(
        kernel, id=f"{kernel.id}__twin", sources={"wgsl": text.replace(old, new)}
    )


def mutant(wild: Wild, name: str) -> KernelSpec:
    """``wild.kernel`` with mutant ``name`` applied to its source."""
    target, old, new = wild.mutants[name]
    text = wild.kernel.sources[target]
    assert text.count(old) >= 1, (wild.kernel.id, name)
    sources = {**wild.kernel.sources, target: text.replace(old, new, 1)}
    return dataclasses.replace(
        wild.kernel, id=f"{wild.kernel.id}__{name.replace(' ', '_')}", sources=sources
    )


# -- WGSL --------------------------------------------------------------------------------
_FMA = """
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&o)) {
        o[i] = fma(a[i], 1.5, -0.25);
    }
}
"""


def _fma_reference(a, o):
    return (a.astype(np.float64) * 1.5 - 0.25).astype(np.float32)


FMA = Wild(
    KernelSpec(
        id="wild_fma",
        entry_point="main",
        sources={"wgsl": _FMA},
        buffers=(
            BufferSpec(0, "f32", "read", name="a"),
            BufferSpec(1, "f32", "read_write", name="o"),
        ),
        reference=_fma_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(10007, 1, 64),
    ),
    {
        "last element unwritten": (
            "wgsl",
            "if (i < arrayLength(&o))",
            "if (i + 1u < arrayLength(&o))",
        ),
        "wrong constant": ("wgsl", "1.5, -0.25", "1.25, -0.25"),
        "writes its input": (
            "wgsl",
            "o[i] = fma(a[i], 1.5, -0.25);",
            "o[i] = fma(a[i], 1.5, -0.25); a[i] = 0.0;",
        ),
    },
)

_TRANSPOSE = """
override TILE: u32 = 16u;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
var<workgroup> tile: array<array<f32, 17>, 16>;

@compute @workgroup_size(16, 16)
fn transpose(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let R = {{R}}u;
    let C = {{C}}u;
    let x = wg.x * TILE + l.x;
    let y = wg.y * TILE + l.y;
    if (x < C && y < R) { tile[l.y][l.x] = src[y * C + x]; }
    workgroupBarrier();
    let tx = wg.y * TILE + l.x;
    let ty = wg.x * TILE + l.y;
    if (tx < R && ty < C) { dst[ty * R + tx] = tile[l.x][l.y]; }
}
"""


def _transpose_reference(src, dst):
    return src.T.copy()


TRANSPOSE = Wild(
    KernelSpec(
        id="wild_transpose",
        entry_point="transpose",
        sources={"wgsl": _TRANSPOSE},
        dims=("R", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src", count="R*C", shape=("R", "C")),
            BufferSpec(1, "f32", "read_write", name="dst", count="R*C", shape=("C", "R")),
        ),
        reference=_transpose_reference,
        grid=lambda s, size: (ceil_div(size.C, 16), ceil_div(size.R, 16), 1),
        overrides={"TILE": 16},
        schedules=(Schedule((16, 16)),),
        test_sizes=("33x70", "1x1", "64x64"),
    ),
    {
        "no barrier": ("wgsl", "workgroupBarrier();", ""),
        "tile read untransposed": ("wgsl", "tile[l.x][l.y]", "tile[l.y][l.x]"),
        "bound on the wrong dimension": ("wgsl", "if (tx < R && ty < C)", "if (tx < C && ty < C)"),
    },
    invisible={},
)

_HISTOGRAM = """
@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;

@compute @workgroup_size(64)
fn hist(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&values)) {
        atomicAdd(&bins[values[gid.x] % 16u], 1u);
    }
}
"""


def _histogram_reference(values, bins):
    bins += np.bincount(values % 16, minlength=16).astype(np.uint32)


def _histogram_values(rng, count, size):
    return rng.integers(0, 1000, count, dtype=np.uint32)


HISTOGRAM = Wild(
    KernelSpec(
        id="wild_histogram",
        entry_point="hist",
        sources={"wgsl": _HISTOGRAM},
        buffers=(
            BufferSpec(0, "u32", "read", name="values", fill=_histogram_values),
            BufferSpec(1, "u32", "read_write", name="bins", count=16, initial=0),
        ),
        reference=_histogram_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1000, 1, 4099),
    ),
    {
        "wrong bin": ("wgsl", "% 16u", "% 15u"),
        "misses the last value": (
            "wgsl",
            "gid.x < arrayLength(&values)",
            "gid.x + 1u < arrayLength(&values)",
        ),
    },
)

# After webgpufundamentals' chunked histogram (greggman/webgpufundamentals at d7873718,
# BSD 3-clause, webgpu/lessons/webgpu-compute-shaders-histogram.md): read, not copied. Workgroup-
# private bins that rely on WGSL's zeroed workgroup memory (never cleared), merged into
# the global bins by one atomicAdd a bin; packed RGBA pixels in a storage buffer stand
# for the lesson's texture.
_LUMA_HISTOGRAM = """
const BINS = 256u;
const LUMA_WEIGHTS = vec3f(0.2126, 0.7152, 0.0722);  // sRGB's relative luminance

@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> pixels: array<u32>;
var<workgroup> tally: array<atomic<u32>, BINS>;  // starts at zero: WGSL says so

fn luma(rgb: vec3f) -> f32 {
    return saturate(dot(rgb, LUMA_WEIGHTS));
}

@compute @workgroup_size(256)
fn cs(@builtin(global_invocation_id) gid: vec3u,
      @builtin(local_invocation_index) lane: u32) {
    let p = gid.x;
    if (p < arrayLength(&pixels)) {
        let level = luma(unpack4x8unorm(pixels[p]).rgb);
        atomicAdd(&tally[min(u32(level * f32(BINS)), BINS - 1u)], 1u);
    }
    workgroupBarrier();
    // one invocation a bin adds the workgroup's count to the global one
    let got = atomicLoad(&tally[lane]);
    if (got > 0u) {
        atomicAdd(&bins[lane], got);
    }
}
"""


def _luma_reference(bins, pixels):
    rgb = np.stack([(pixels >> (8 * k)) & 0xFF for k in range(3)], axis=1).astype(np.float32)
    luma = np.clip(
        (rgb / np.float32(255) * np.array([0.2126, 0.7152, 0.0722], np.float32)).sum(
            axis=1, dtype=np.float32
        ),
        0,
        1,
    )
    index = np.minimum((luma * np.float32(256)).astype(np.uint32), 255)
    bins += np.bincount(index, minlength=256).astype(np.uint32)


def _rgba_pixels(rng, count, size):
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


LUMA_HISTOGRAM = Wild(
    KernelSpec(
        id="wild_luma_histogram",
        entry_point="cs",
        sources={"wgsl": _LUMA_HISTOGRAM},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="bins", count=256, initial=0),
            BufferSpec(1, "u32", "read", name="pixels", fill=_rgba_pixels),
        ),
        reference=_luma_reference,
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000, 1, 4099),
    ),
    {
        "merges before every invocation counted": (
            "wgsl",
            "    workgroupBarrier();\n    // one invocation",
            "    // one invocation",
        ),
        "wrong bin width": (
            "wgsl",
            "min(u32(level * f32(BINS)), BINS - 1u)",
            "min(u32(level * f32(BINS - 1u)), BINS - 1u)",
        ),
    },
)

# ONNX Runtime Web's Where: the bool condition is a uint8 tensor, bound packed (WGSL has
# no 8-bit type) and unpacked four to a word; the data as vec4<f32>.
_WHERE = """
struct Uniforms { vec_size: u32 };
@group(0) @binding(0) var<storage, read> c_data: array<u32>;
@group(0) @binding(1) var<storage, read> a_data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b_data: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
  let global_idx = global_id.x;
  if (global_idx >= uniforms.vec_size) { return; }
  let c = vec4<bool>(unpack4xU8(c_data[global_idx]));
  output[global_idx] = select(b_data[global_idx], a_data[global_idx], c);
}
"""


def _where_reference(c, a, b, output, uniforms):
    return np.where(c != 0, a, b)


WHERE = Wild(
    KernelSpec(
        id="wild_ort_where",
        entry_point="main",
        sources={"wgsl": _WHERE},
        buffers=(
            BufferSpec(
                0, "u8", "read", name="c", fill=lambda rng, n, size: rng.integers(0, 2, n, np.uint8)
            ),
            BufferSpec(1, "f32", "read", name="a"),
            BufferSpec(2, "f32", "read", name="b"),
            BufferSpec(3, "f32", "read_write", name="output"),
            BufferSpec.uniform(4, (("vec_size", "u32"),), name="uniforms"),
        ),
        reference=_where_reference,
        params=lambda n: {"vec_size": ceil_div(n, 4)},
        grid=lambda s, n: (ceil_div(ceil_div(n, 4), 64), 1, 1),
        test_sizes=(1024, 4, 4100),
    ),
    {
        "operands swapped": (
            "wgsl",
            "select(b_data[global_idx], a_data[global_idx], c)",
            "select(a_data[global_idx], b_data[global_idx], c)",
        ),
        "reads the condition one word late": (
            "wgsl",
            "unpack4xU8(c_data[global_idx])",
            "unpack4xU8(c_data[global_idx + 1u])",
        ),
    },
)

# WebGPU samples' bitonic sort: one pipeline per (k, j) pass through override constants,
# log2(n) * (log2(n) + 1) / 2 passes, so the launches are a function of the size.
_BITONIC = """
override k: u32 = 2u;
override j: u32 = 1u;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn bitonic_step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let partner = i ^ j;
    if (partner > i && partner < arrayLength(&data)) {
        let ascending = (i & k) == 0u;
        let a = data[i];
        let b = data[partner];
        if ((a > b) == ascending) {
            data[i] = b;
            data[partner] = a;
        }
    }
}
"""


def _bitonic_passes(n):
    passes, k = [], 2
    while k <= n:
        j = k // 2
        while j >= 1:
            passes.append(
                Dispatch(
                    "bitonic_step",
                    grid=lambda s, n: (ceil_div(n, 64), 1, 1),
                    overrides={"k": k, "j": j},
                )
            )
            j //= 2
        k *= 2
    return tuple(passes)


BITONIC = Wild(
    KernelSpec(
        id="wild_bitonic_sort",
        entry_point="bitonic_step",
        sources={"wgsl": _BITONIC},
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="data",
                inout=True,
                fill=lambda rng, n, size: (
                    rng.permutation(n).astype(np.float32) - np.float32(n // 2)
                ),
            ),
        ),
        reference=lambda data: np.sort(data),
        launches=_bitonic_passes,
        schedules=(Schedule(64),),
        test_sizes=(1024, 2, 64),
    ),
    {
        "sorts one half the wrong way": (
            "wgsl",
            "let ascending = (i & k) == 0u;",
            "let ascending = (i & k) != 0u;",
        ),
        "skips the last partner": (
            "wgsl",
            "partner < arrayLength(&data)",
            "partner + 1u < arrayLength(&data)",
        ),
    },
)

_PARTICLES = """
struct Params { gravity: vec3<f32>, dt: f32, n: u32 }
struct Particle { pos: vec3<f32>, mass: f32 }
@group(0) @binding(0) var<storage, read> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> moved: array<vec3<f32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) { return; }
    moved[i] = particles[i].pos + params.gravity * params.dt * particles[i].mass;
}
"""


def _particles_reference(particles, moved, params):
    moved[:] = particles["pos"] + params["gravity"] * params["dt"] * particles["mass"][:, None]


PARTICLES = Wild(
    KernelSpec(
        id="wild_particles",
        entry_point="step",
        sources={"wgsl": _PARTICLES},
        buffers=(
            BufferSpec(
                0,
                (("pos", "vec3<f32>"), ("mass", "f32")),
                "read",
                name="particles",
                fill=(-10.0, 10.0),
            ),
            BufferSpec(1, "vec3<f32>", "read_write", name="moved"),
            BufferSpec.uniform(2, (("gravity", "vec3<f32>"), ("dt", "f32"), ("n", "u32"))),
        ),
        reference=_particles_reference,
        params=lambda n: {"n": n},
        defaults={"gravity": (0.0, -9.8, 0.0), "dt": 0.01},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(100, 1, 1000),
        tolerance={"f32": {"atol": 1e-5}},
    ),
    {
        "ignores the mass": ("wgsl", "params.dt * particles[i].mass", "params.dt"),
        "skips the last particle": ("wgsl", "if (i >= params.n)", "if (i + 1u >= params.n)"),
    },
)

_TWO_PASS = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> total: array<f32>;
var<workgroup> s: array<f32, 64>;

@compute @workgroup_size(64)
fn pass1(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let i = wg.x * 64u + l;
    s[l] = select(0.0, x[i], i < arrayLength(&x));
    workgroupBarrier();
    for (var k = 32u; k > 0u; k = k / 2u) {
        if (l < k) { s[l] += s[l + k]; }
        workgroupBarrier();
    }
    if (l == 0u) { partial[wg.x] = s[0]; }
}

@compute @workgroup_size(1)
fn pass2() {
    var acc = 0.0;
    for (var i = 0u; i < arrayLength(&partial); i++) { acc += partial[i]; }
    total[0] = acc;
}
"""


def _sum_reference(x, partial, total):
    return np.array([x.astype(np.float64).sum()], np.float32)


TWO_PASS = Wild(
    KernelSpec(
        id="wild_two_pass_sum",
        entry_point="pass1",
        sources={"wgsl": _TWO_PASS},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", fill=(-1.0, 1.0)),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="partial",
                count=lambda n: ceil_div(n, 64),
                scratch=True,
            ),
            BufferSpec(2, "f32", "read_write", name="total", count=1),
        ),
        reference=_sum_reference,
        launches=(
            Dispatch("pass1", grid=lambda s, n: (ceil_div(n, 64), 1, 1)),
            Dispatch("pass2", grid=(1, 1, 1), schedule=Schedule(1)),
        ),
        schedules=(Schedule(64),),
        test_sizes=(1000, 1, 4099),
        tolerance={"f32": {"atol": 1e-4, "rtol": 1e-4}},
    ),
    {
        "drops the last partial": (
            "wgsl",
            "i < arrayLength(&partial)",
            "i + 1u < arrayLength(&partial)",
        ),
        "reduction one step short": (
            "wgsl",
            "for (var k = 32u; k > 0u;",
            "for (var k = 32u; k > 1u;",
        ),
    },
)

_MIN_CLAMP = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn double_it(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) {
        y[gid.x] = x[gid.x] * 2.0;
    }
}
"""


def _double_reference(x, y):
    y[:] = x * np.float32(2)


DOUBLE = Wild(
    KernelSpec(
        id="wild_double",
        entry_point="double_it",
        sources={"wgsl": _MIN_CLAMP},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=_double_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(4099,),
    ),
    # Wrong only where the input is not finite: +Inf becomes the largest float.
    {
        "clamps infinity": (
            "wgsl",
            "y[gid.x] = x[gid.x] * 2.0;",
            "y[gid.x] = min(x[gid.x] * 2.0, 3.0e38);",
        )
    },
    nonfinite_only=frozenset({"clamps infinity"}),
)

_AXPY_F16 = """
enable f16;

struct Uniforms { vec_size: u32, alpha: f32 }
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f16>>;
@group(0) @binding(3) var<uniform> uniforms: Uniforms;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let global_idx = global_id.x;
    if (global_idx >= uniforms.vec_size) { return; }
    output[global_idx] = x[global_idx] * f16(uniforms.alpha) + y[global_idx];
}
"""


def _axpy_f16_reference(x, y, output, uniforms):
    # Half arithmetic rounds after each operation: the product, then the sum.
    alpha = np.float16(uniforms["alpha"])
    return (x * alpha).astype(np.float16) + y


AXPY_F16 = Wild(
    KernelSpec(
        id="wild_axpy_f16",
        entry_point="main",
        sources={"wgsl": _AXPY_F16},
        buffers=(
            BufferSpec(0, "vec4<f16>", "read", name="x", fill=(-4.0, 4.0)),
            BufferSpec(1, "vec4<f16>", "read", name="y", fill=(-4.0, 4.0)),
            BufferSpec(2, "vec4<f16>", "read_write", name="output"),
            BufferSpec.uniform(3, (("vec_size", "u32"), ("alpha", "f32")), name="uniforms"),
        ),
        reference=_axpy_f16_reference,
        params=lambda n: {"vec_size": n},
        defaults={"alpha": 0.75},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1000, 1, 257),
    ),
    {
        "adds x twice": ("wgsl", "+ y[global_idx]", "+ x[global_idx]"),
        "skips the last vector": (
            "wgsl",
            "global_idx >= uniforms.vec_size",
            "global_idx + 1u >= uniforms.vec_size",
        ),
    },
)

_SUBGROUP_SUM = """
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> block_sums: array<f32>;
var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(256)
fn reduce(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(local_invocation_index) lid: u32,
          @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(subgroup_invocation_id) lane: u32,
          @builtin(subgroup_size) sg_size: u32) {
    var v = 0.0;
    if (gid.x < arrayLength(&input)) { v = input[gid.x]; }
    let s = subgroupAdd(v);
    if (lane == 0u) { partial[lid / sg_size] = s; }
    workgroupBarrier();
    if (lid == 0u) {
        var total = 0.0;
        for (var k = 0u; k < 256u / sg_size; k++) { total += partial[k]; }
        block_sums[wid.x] = total;
    }
}
"""


def _block_sums_reference(input, block_sums):
    padded = np.zeros(block_sums.shape[0] * 256)
    padded[: input.shape[0]] = input
    return padded.reshape(-1, 256).sum(axis=1).astype(np.float32)


SUBGROUP_SUM = Wild(
    KernelSpec(
        id="wild_subgroup_sum",
        entry_point="reduce",
        sources={"wgsl": _SUBGROUP_SUM},
        buffers=(
            BufferSpec(0, "f32", "read", name="input", fill=(-1.0, 1.0)),
            BufferSpec(1, "f32", "read_write", name="block_sums", count=lambda n: ceil_div(n, 256)),
        ),
        reference=_block_sums_reference,
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        test_sizes=(10007, 256, 1),
        tolerance={"f32": {"atol": 1e-5, "rtol": 1e-5}},
    ),
    {
        "counts only the first subgroup": ("wgsl", "k < 256u / sg_size", "k < 1u"),
        "drops the tail": (
            "wgsl",
            "gid.x < arrayLength(&input)",
            "gid.x + 1u < arrayLength(&input)",
        ),
    },
)

# -- CUDA --------------------------------------------------------------------------------
# After llm.c's gelu_forward_kernel (karpathy/llm.c at bf4ac57, MIT, train_gpt2.cu):
# read, not copied. The tanh approximation, its scale written out as a float literal.
_GELU = """
// sqrt(2 / pi), the tanh approximation's scale
#define GELU_TANH_SCALE 0.7978845608028654f

__global__ void gelu_forward_kernel(float* out, const float* inp, int N) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= N) return;
    float v = inp[j];
    float cube = 0.044715f * v * v * v;
    out[j] = 0.5f * v * (1.0f + tanhf(GELU_TANH_SCALE * (v + cube)));
}
"""


def _gelu_reference(out, inp, params):
    x = inp.astype(np.float64)
    out[:] = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


GELU = Wild(
    KernelSpec(
        id="wild_gelu",
        entry_point="gelu_forward_kernel",
        sources={"cuda": _GELU},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out"),
            BufferSpec(1, "f32", "read", name="inp"),
            BufferSpec.uniform(2, (("N", "i32"),)),
        ),
        reference=_gelu_reference,
        params=lambda n: {"N": n},
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(128),),
        domain={"inp": (-10.0, 10.0)},
        tolerance={"f32": {"atol": 1e-6, "rtol": 1e-5, "ulp": 8}},
        test_sizes=(1000, 1, 4099),
    ),
    {
        "writes one past the end": ("cuda", "if (j >= N) return;", "if (j > N) return;"),
        "drops the cube": ("cuda", "(v + cube)", "(v)"),
    },
)

# After llm.c's softmax_forward_kernel2 (karpathy/llm.c at 00010c71, MIT,
# dev/cuda/softmax_forward.cu): read, not copied. A block a row, dynamic shared memory
# of a float a thread, the max and the sum each a tree over it with the barrier at the
# top of every level; here also one before the max is read (llm.c reads it before).
_SOFTMAX = """
extern "C" __global__ void softmax_forward_kernel(float* out, const float* inp, int N, int C) {
    extern __shared__ float scratch[];
    const int row = blockIdx.x;
    const int lane = threadIdx.x;
    const int width = blockDim.x;
    const float* src = inp + row * C;
    float* dst = out + row * C;

    // the row's max: a strided pass, then a tree in shared memory
    float hi = __int_as_float(0xff800000);  // -inf, with no math header
    for (int k = lane; k < C; k += width) hi = fmaxf(hi, src[k]);
    scratch[lane] = hi;
    __syncthreads();
    for (int half = width / 2; half >= 1; half /= 2) {
        __syncthreads();
        if (lane < half) scratch[lane] = fmaxf(scratch[lane], scratch[lane + half]);
    }
    __syncthreads();
    const float row_max = scratch[0];
    for (int k = lane; k < C; k += width) dst[k] = expf(src[k] - row_max);
    __syncthreads();

    // the exponentials' sum, read back from out, the same way
    float part = 0.0f;
    for (int k = lane; k < C; k += width) part += dst[k];
    scratch[lane] = part;
    __syncthreads();
    for (int half = width / 2; half >= 1; half /= 2) {
        __syncthreads();
        if (lane < half) scratch[lane] += scratch[lane + half];
    }
    __syncthreads();
    const float total = scratch[0];
    for (int k = lane; k < C; k += width) dst[k] = dst[k] / total;
}
"""


def _softmax_reference(out, inp, params):
    x = inp.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    out[...] = e / e.sum(axis=1, keepdims=True)


SOFTMAX = Wild(
    KernelSpec(
        id="wild_softmax",
        entry_point="softmax_forward_kernel",
        sources={"cuda": _SOFTMAX},
        dims=("N", "C"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count="N*C", shape=("N", "C")),
            BufferSpec(1, "f32", "read", name="inp", count="N*C", shape=("N", "C")),
            BufferSpec.uniform(2, (("N", "i32"), ("C", "i32"))),
        ),
        reference=_softmax_reference,
        params=lambda size: dict(size.dims),
        grid=lambda s, size: (size.N, 1, 1),
        shared_bytes="wg_x * 4",
        schedules=(Schedule(128), Schedule(256)),
        domain={"inp": (-20.0, 20.0)},
        nonfinite_inputs=False,
        tolerance={"f32": {"rtol": 1e-5, "atol": 1e-7, "ulp": 16}},
        test_sizes=("4x1000", "1x1", "7x257"),
    ),
    {
        "multiplies by the sum": ("cuda", "dst[k] / total", "dst[k] * total"),
        "no barrier after the max": (
            "cuda",
            "scratch[lane] = hi;\n    __syncthreads();",
            "scratch[lane] = hi;",
        ),
    },
    invisible={
        ("no barrier after the max", "cuda"): "a race the values may not show; "
        "racecheck (kforge check --sanitize) finds it"
    },
)

_SCALE = """
template <typename T, int BLOCK>
__global__ void scale_kernel(T* __restrict__ y, const T* __restrict__ x, T alpha, size_t n) {
    size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i];
    }
}
"""


def _scale_reference(y, x, params):
    y[:] = np.float32(params["alpha"]) * x


SCALE = Wild(
    KernelSpec(
        id="wild_scale",
        entry_point="scale_kernel<float, {{wg_x}}>",
        sources={"cuda": _SCALE},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="y"),
            BufferSpec(1, "f32", "read", name="x"),
            BufferSpec.uniform(2, (("alpha", "f32"), ("n", "u64"))),
        ),
        reference=_scale_reference,
        params=lambda n: {"n": n},
        defaults={"alpha": -2.5},
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(256), Schedule(128)),
        test_sizes=(1000, 1, 4099),
    ),
    {"misses the last element": ("cuda", "if (i < n)", "if (i + 1 < n)")},
)

_AXPBY = """
extern "C" __global__ void axpby(double* y, const double* x, double a, double b, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b * y[i];
}
"""


def _axpby_reference(y, x, params):
    y[:] = params["a"] * x + params["b"] * y


AXPBY = Wild(
    KernelSpec(
        id="wild_axpby",
        entry_point="axpby",
        sources={"cuda": _AXPBY},
        buffers=(
            BufferSpec(0, "f64", "read_write", name="y", inout=True),
            BufferSpec(1, "f64", "read", name="x"),
            BufferSpec.uniform(2, (("a", "f64"), ("b", "f64"), ("n", "i64"))),
        ),
        reference=_axpby_reference,
        params=lambda n: {"n": n},
        defaults={"a": 0.75, "b": -1.25},
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(1000, 1, 4099),
    ),
    {"reads y after writing it": ("cuda", "a * x[i] + b * y[i]", "a * x[i] + b * y[i + 1]")},
)

# After llm.c's layernorm forward (karpathy/llm.c at 836ec640, MIT,
# dev/cuda/layernorm_forward.cu: layernorm_forward_kernel1's statistics as a kernel of
# their own, then normalization_kernel): read, not copied. A thread a row for the statistics (biased
# variance, eps 1e-5 inside the root), a thread an element for the normalisation.
_LAYERNORM = """
__global__ void mean_rstd_kernel(float* mean, float* rstd, const float* inp, int N, int C) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const float* x = inp + row * C;
    float mu = 0.0f;
    for (int c = 0; c < C; c++) mu += x[c];
    mu = mu / C;
    float ss = 0.0f;
    for (int c = 0; c < C; c++) {
        float dev = x[c] - mu;
        ss += dev * dev;
    }
    ss = ss / C;
    mean[row] = mu;
    rstd[row] = 1.0f / sqrtf(ss + 1e-5f);
}

__global__ void normalization_kernel(float* out, const float* inp, const float* mean,
                                     const float* rstd, const float* weight,
                                     const float* bias, int N, int C) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= N * C) return;
    int row = e / C, col = e % C;
    out[e] = (inp[e] - mean[row]) * rstd[row] * weight[col] + bias[col];
}
"""


def _layernorm_reference(out, mean, rstd, inp, weight, bias, params):
    x = inp.astype(np.float64)
    m = x.mean(axis=1)
    r = 1 / np.sqrt(x.var(axis=1) + 1e-5)
    mean[:], rstd[:] = m, r
    out[...] = (x - m[:, None]) * r[:, None] * weight + bias


LAYERNORM = Wild(
    KernelSpec(
        id="wild_layernorm_two_kernels",
        entry_point="mean_rstd_kernel",
        sources={"cuda": _LAYERNORM},
        dims=("N", "C"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count="N*C", shape=("N", "C")),
            BufferSpec(1, "f32", "read_write", name="mean", count="N"),
            BufferSpec(2, "f32", "read_write", name="rstd", count="N"),
            BufferSpec(3, "f32", "read", name="inp", count="N*C", shape=("N", "C")),
            BufferSpec(4, "f32", "read", name="weight", count="C"),
            BufferSpec(5, "f32", "read", name="bias", count="C"),
            BufferSpec.uniform(6, (("N", "i32"), ("C", "i32"))),
        ),
        reference=_layernorm_reference,
        params=lambda size: dict(size.dims),
        launches=(
            Dispatch(
                "mean_rstd_kernel",
                grid=lambda s, size: (ceil_div(size.N, s.workgroup_size[0]), 1, 1),
            ),
            Dispatch(
                "normalization_kernel",
                grid=lambda s, size: (ceil_div(size.N * size.C, s.workgroup_size[0]), 1, 1),
            ),
        ),
        schedules=(Schedule(128),),
        domain={"inp": (-4.0, 4.0), "weight": (-2.0, 2.0), "bias": (-2.0, 2.0)},
        nonfinite_inputs=False,
        tolerance={"f32": {"rtol": 1e-4, "atol": 2e-5}},
        test_sizes=("8x768", "1x1", "5x257"),
    ),
    {
        "unbiased variance": ("cuda", "ss = ss / C;", "ss = ss / (C - 1 > 0 ? C - 1 : 1);"),
        "eps outside the root": (
            "cuda",
            "rstd[row] = 1.0f / sqrtf(ss + 1e-5f);",
            "rstd[row] = 1.0f / (sqrtf(ss) + 1e-5f);",
        ),
        "second launch misses the last row": (
            "cuda",
            "if (e >= N * C) return;",
            "if (e >= (N - 1) * C) return;",
        ),
    },
)

_SCALAR_FIRST = """
extern "C" __global__ void saxpy_scalar_first(int n, const float* __restrict__ x, float alpha,
                                               float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = alpha * x[i] + y[i];
    }
}
"""


def _saxpy_reference(x, y, params):
    y[:] = np.float32(params["alpha"]) * x + y


SAXPY = Wild(
    KernelSpec(
        id="wild_saxpy_scalar_first",
        entry_point="saxpy_scalar_first",
        sources={"cuda": _SCALAR_FIRST},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", inout=True),
            BufferSpec.uniform(2, (("n", "i32"), ("alpha", "f32"))),
        ),
        reference=_saxpy_reference,
        params=lambda n: {"n": n},
        defaults={"alpha": 3.0},
        grid=lambda s, n: (min(ceil_div(n, 256), 64), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(100000, 1, 4099),
    ),
    {
        "grid stride too short": (
            "cuda",
            "i += blockDim.x * gridDim.x",
            "i += blockDim.x * gridDim.x + 1",
        )
    },
)

# -- a port: WGSL and CUDA, no numpy reference --------------------------------------------
# After the CUDA samples' reduction with cooperative groups (NVIDIA/cuda-samples at
# 2e41896e, BSD 3-clause, Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu,
# reduce6): read, not copied. On CUDA 13 (CCCL's cuda/std headers): a template block
# size, __launch_bounds__, extern __shared__, a grid-stride loop over size_t n, a
# shared-memory tree down to 64 sums, the first warp's shfl_down through a 32-thread
# tile, and one atomicAdd a block into a zeroed total where the sample writes a sum a
# block.
_REDUCE_CG = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <unsigned int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_sum(const float* __restrict__ g_idata,
                                                   float* __restrict__ g_odata, size_t n) {
    extern __shared__ float partial[];
    cg::thread_block block = cg::this_thread_block();
    const unsigned int t = threadIdx.x;
    const size_t stride = (size_t)BLOCK * gridDim.x;

    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK + t; i < n; i += stride) acc += g_idata[i];
    partial[t] = acc;
    cg::sync(block);

    // halve in shared memory while more than a warp's worth of threads take part
    for (unsigned int half = BLOCK / 2; half > 32; half >>= 1) {
        if (t < half) partial[t] = acc = acc + partial[t + half];
        cg::sync(block);
    }

    // the last 64 sums: the first warp adds its upper half, then shuffles down
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    if (block.thread_rank() < 32) {
        if (BLOCK >= 64) acc += partial[t + 32];
        for (int d = warp.size() / 2; d > 0; d /= 2) acc += warp.shfl_down(acc, d);
    }
    if (block.thread_rank() == 0) atomicAdd(g_odata, acc);
}
"""

REDUCE_CG = Wild(
    KernelSpec(
        id="wild_reduce_cooperative_groups",
        entry_point="reduce_sum<{{wg_x}}>",
        sources={"cuda": _REDUCE_CG},
        buffers=(
            BufferSpec(0, "f32", "read", name="g_idata", fill=(-1.0, 1.0)),
            BufferSpec(1, "f32", "read_write", name="g_odata", count=1, initial=0),
            BufferSpec.uniform(2, (("n", "u64"),)),
        ),
        reference=lambda g_idata, g_odata, params: np.array(
            [g_idata.astype(np.float64).sum()], np.float32
        ),
        params=lambda n: {"n": n},
        shared_bytes="wg_x * 4",
        grid=lambda s, n: (min(ceil_div(n, s.workgroup_size[0]), 64), 1, 1),
        schedules=(Schedule(256), Schedule(128)),
        tolerance={"f32": {"atol": 1e-3, "rtol": 1e-4}},
        test_sizes=(100000, 1, 4099),
    ),
    {"stops the warp stage early": ("cuda", "d > 0; d /= 2", "d > 1; d /= 2")},
)

# After NVIDIA's haxpy (NVIDIA-developer-blog/code-samples at f32282ca, BSD 3-clause,
# posts/mixed-precision/haxpy.cu): read, not copied. cuda_fp16.h's half2 axpy, its
# scalars first, a grid-stride loop over pairs and the odd tail done by the grid's first
# thread; real half arithmetic (__hfma2, __hfma).
_HAXPY = r"""
#include <cuda_fp16.h>
extern "C" __global__ void haxpy(int n, half a, const half* x, half* y) {
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    const int step = gridDim.x * blockDim.x;
    const half2 aa = __halves2half2(a, a);
    const half2* xv = reinterpret_cast<const half2*>(x);
    half2* yv = reinterpret_cast<half2*>(y);
    for (int p = first; p < n / 2; p += step) yv[p] = __hfma2(aa, xv[p], yv[p]);
    // an odd n leaves one element outside the pairs
    if (first == 0 && n % 2 != 0) y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);
}
"""


def _haxpy_reference(x, y, params):
    a = np.float16(params["a"])
    y[:] = (a.astype(np.float64) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float16)


HAXPY = Wild(
    KernelSpec(
        id="wild_haxpy_half2",
        entry_point="haxpy",
        sources={"cuda": _HAXPY},
        buffers=(
            BufferSpec(0, "f16", "read", name="x", fill=(-2.0, 2.0)),
            BufferSpec(1, "f16", "read_write", name="y", inout=True, fill=(-2.0, 2.0)),
            BufferSpec.uniform(2, (("n", "i32"), ("a", "f16"))),
        ),
        reference=_haxpy_reference,
        params=lambda n: {"n": n},
        defaults={"a": 0.5},
        grid=lambda s, n: (min(ceil_div(n, 2 * s.workgroup_size[0]), 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(1000, 1, 4099),
    ),
    {"forgets the odd tail": ("cuda", "if (first == 0 && n % 2 != 0)", "if (false)")},
)

_ADD_WGSL = """
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(256)
fn vector_add(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&c)) { c[id.x] = a[id.x] + b[id.x]; }
}
"""
_ADD_CUDA = """
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""

PORT = Wild(
    KernelSpec(
        id="wild_port_add",
        entry_point="vector_add",
        sources={"wgsl": _ADD_WGSL, "cuda": _ADD_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="a"),
            BufferSpec(1, "f32", "read", name="b"),
            BufferSpec(2, "f32", "read_write", name="c"),
            BufferSpec.uniform(3, (("n", "i32"),)),
        ),
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000, 4099),
    ),
    {"port subtracts": ("wgsl", "a[id.x] + b[id.x]", "a[id.x] - b[id.x]")},
)

# A block-wise inclusive scan, as WebGPU samples (Hillis-Steele over a double buffer in
# workgroup memory) and CUDA code (warp shuffles, then the warps' totals) write it; its
# numpy reference casts its result to the output's dtype, as numpy code does. The sums
# run in another order than numpy's: a right scan differs from the reference by up to
# a long sum's rounding (issue 11: no false alarm).
_SCAN_WGSL = """
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

const LANES: u32 = 256u;
var<workgroup> buf: array<f32, 512>;  // two halves of LANES: read one, write the other

@compute @workgroup_size(256)
fn block_scan(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = arrayLength(&input);
    let t = lid.x;
    var wr = 0u;
    buf[t] = select(0.0, input[gid.x], gid.x < n);
    workgroupBarrier();
    for (var d = 1u; d < LANES; d = d * 2u) {
        let rd = wr;
        wr = 1u - wr;
        var v = buf[rd * LANES + t];
        if (t >= d) {
            v = v + buf[rd * LANES + t - d];
        }
        buf[wr * LANES + t] = v;
        workgroupBarrier();
    }
    if (gid.x < n) {
        output[gid.x] = buf[wr * LANES + t];
    }
}
"""

_SCAN_CUDA = """
extern "C" __global__ void block_scan(const float* __restrict__ in,
                                      float* __restrict__ out, int n) {
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    float v = (i < n) ? in[i] : 0.0f;
    #pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        float t = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += t;
    }
    if (lane == 31) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float s = (lane < (blockDim.x >> 5)) ? warp_sums[lane] : 0.0f;
        #pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
            float t = __shfl_up_sync(0xffffffff, s, offset);
            if (lane >= offset) s += t;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();
    if (warp > 0) v += warp_sums[warp - 1];
    if (i < n) out[i] = v;
}
"""


def _block_scan_reference(input):
    out = np.empty(input.shape, np.float64)
    for start in range(0, input.size, 256):
        out[start : start + 256] = np.cumsum(input[start : start + 256].astype(np.float64))
    return out.astype(np.float32)


BLOCK_SCAN = Wild(
    KernelSpec(
        id="wild_block_scan",
        entry_point="block_scan",
        sources={"wgsl": _SCAN_WGSL, "cuda": _SCAN_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="input"),
            BufferSpec(1, "f32", "read_write", name="output"),
        ),
        reference=_block_scan_reference,
        grid=lambda schedule, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 256, 1),
    ),
    {
        "the scan stops a round early": ("wgsl", "d < LANES;", "d < LANES / 2u;"),
        "a lane skips its first neighbour": (
            "cuda",
            "if (lane >= offset) v += t;",
            "if (lane > offset) v += t;",
        ),
        "adds its own warp's total": ("cuda", "v += warp_sums[warp - 1];", "v += warp_sums[warp];"),
    },
)

# A row argmax as people write it (a strict > over the row, NaN never wins), judged
# against numpy's argmax, for which a NaN is the maximum: the two agree wherever the
# row holds no NaN, and where it does the kernel's answer is numpy's with the NaN taken
# as missing (issue 11: no false alarm on the NaN the default inputs hold).
_ARGMAX = """
struct Params { cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> idx: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn argmax(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= arrayLength(&idx)) { return; }
    var best = x[row * p.cols];
    var bi = 0u;
    for (var c = 1u; c < p.cols; c++) {
        let v = x[row * p.cols + c];
        if (v > best) { best = v; bi = c; }
    }
    idx[row] = bi;
}
"""


def _argmax_reference(x, idx, p):
    return np.argmax(x.reshape(len(idx), -1), axis=1).astype(np.uint32)


ROW_ARGMAX = Wild(
    KernelSpec(
        id="wild_row_argmax",
        entry_point="argmax",
        sources={"wgsl": _ARGMAX},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols"),
            BufferSpec(1, "u32", "read_write", name="idx", count="rows"),
            BufferSpec.uniform(2, (("cols", "u32"),), name="p"),
        ),
        reference=_argmax_reference,
        grid=lambda schedule, size: (ceil_div(size.rows, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("100x37", "1x1", "7x1000"),
    ),
    {
        "skips the second column": ("wgsl", "for (var c = 1u;", "for (var c = 2u;"),
        "keeps the first column's index": ("wgsl", "best = v; bi = c;", "best = v;"),
    },
)

CORPUS = {
    w.kernel.id: w
    for w in (
        FMA,
        TRANSPOSE,
        HISTOGRAM,
        PARTICLES,
        TWO_PASS,
        DOUBLE,
        AXPY_F16,
        SUBGROUP_SUM,
        LUMA_HISTOGRAM,
        WHERE,
        BITONIC,
        GELU,
        SOFTMAX,
        SCALE,
        AXPBY,
        LAYERNORM,
        SAXPY,
        REDUCE_CG,
        HAXPY,
        PORT,
        BLOCK_SCAN,
        ROW_ARGMAX,
    )
}

from tests.wild.more import MORE  # noqa: E402  (more kernels from the wild: tests/wild/more.py)

CORPUS.update(MORE)

from tests.wild.round2 import ROUND2  # noqa: E402  (round 2: tests/wild/round2.py)

CORPUS.update(ROUND2)

from tests.wild.round3 import ROUND3  # noqa: E402  (round 3: tests/wild/round3.py)

CORPUS.update(ROUND3)

from tests.wild.round4 import ROUND4  # noqa: E402  (round 4: tests/wild/round4.py)

CORPUS.update(ROUND4)

from tests.wild.round5_wgsl import ROUND5_WGSL  # noqa: E402  (round 5, WGSL: tests/wild/round5_wgsl.py)

CORPUS.update(ROUND5_WGSL)

from tests.wild.round5_cuda import ROUND5_CUDA  # noqa: E402  (round 5, CUDA: tests/wild/round5_cuda.py)

CORPUS.update(ROUND5_CUDA)

from tests.wild.round6 import ROUND6  # noqa: E402  (round 6, numerics: tests/wild/round6.py)

CORPUS.update(ROUND6)

from tests.wild.round7 import ROUND7  # noqa: E402  (round 7, around the maths: tests/wild/round7.py)

CORPUS.update(ROUND7)

from tests.wild.round8 import ROUND8  # noqa: E402  (round 8, WebGPU samples and ONNX ops: tests/wild/round8.py)

CORPUS.update(ROUND8)

from tests.wild.round9 import ROUND9  # noqa: E402  (round 9, ML operators of web runtimes: tests/wild/round9.py)

CORPUS.update(ROUND9)

from tests.wild.round10 import ROUND10  # noqa: E402  (round 10, WGSL idioms of graphics code: tests/wild/round10.py)

CORPUS.update(ROUND10)

from tests.wild.round11 import ROUND11  # noqa: E402  (round 11, f16, subgroups, atomics and overrides: tests/wild/round11.py)

CORPUS.update(ROUND11)

from tests.wild.round12 import ROUND12  # noqa: E402  (round 12, CUDA __constant__ memory: tests/wild/round12.py)

CORPUS.update(ROUND12)

from tests.wild.round13 import ROUND13  # noqa: E402  (round 13: tests/wild/round13.py)

CORPUS.update(ROUND13)

from tests.wild.round14 import ROUND14  # noqa: E402  (round 14: tests/wild/round14.py)

CORPUS.update(ROUND14)

from tests.wild.round15 import ROUND15  # noqa: E402  (round 15: tests/wild/round15.py)

CORPUS.update(ROUND15)

from tests.wild.round16 import ROUND16  # noqa: E402  (round 16: tests/wild/round16.py)

CORPUS.update(ROUND16)

from tests.wild.round17 import ROUND17  # noqa: E402  (round 17: tests/wild/round17.py)

CORPUS.update(ROUND17)

from tests.wild.round18 import ROUND18  # noqa: E402  (round 18: tests/wild/round18.py)

CORPUS.update(ROUND18)

from tests.wild.round19 import ROUND19  # noqa: E402  (round 19: tests/wild/round19.py)

CORPUS.update(ROUND19)

from tests.wild.round20 import ROUND20  # noqa: E402  (round 20: tests/wild/round20.py)

CORPUS.update(ROUND20)

from tests.wild.round21 import ROUND21  # noqa: E402  (round 21: tests/wild/round21.py)

CORPUS.update(ROUND21)

from tests.wild.round23 import ROUND23  # noqa: E402  (round 23: tests/wild/round23.py)

CORPUS.update(ROUND23)

from tests.wild.round22 import ROUND22  # noqa: E402  (round 22: tests/wild/round22.py)

CORPUS.update(ROUND22)

from tests.wild.round24 import ROUND24  # noqa: E402  (round 24: tests/wild/round24.py)

CORPUS.update(ROUND24)

from tests.wild.round25 import ROUND25  # noqa: E402  (round 25: tests/wild/round25.py)

CORPUS.update(ROUND25)

from tests.wild.round26 import ROUND26  # noqa: E402  (round 26: tests/wild/round26.py)

CORPUS.update(ROUND26)

from tests.wild.round27 import ROUND27  # noqa: E402  (round 27: tests/wild/round27.py)

CORPUS.update(ROUND27)

from tests.wild.round28 import ROUND28  # noqa: E402  (round 28: tests/wild/round28.py)

CORPUS.update(ROUND28)

from tests.wild.round29 import ROUND29  # noqa: E402  (round 29: tests/wild/round29.py)

CORPUS.update(ROUND29)

from tests.wild.round30 import ROUND30  # noqa: E402  (round 30: tests/wild/round30.py)

CORPUS.update(ROUND30)

from tests.wild.round32 import ROUND32  # noqa: E402  (round 32: tests/wild/round32.py)

CORPUS.update(ROUND32)

from tests.wild.round31 import ROUND31  # noqa: E402  (round 31: tests/wild/round31.py)

CORPUS.update(ROUND31)

from tests.wild.round33 import ROUND33  # noqa: E402  (round 33: tests/wild/round33.py)

CORPUS.update(ROUND33)

from tests.wild.round35 import ROUND35  # noqa: E402  (round 35: tests/wild/round35.py)

CORPUS.update(ROUND35)

from tests.wild.round34 import ROUND34  # noqa: E402  (round 34: tests/wild/round34.py)

CORPUS.update(ROUND34)

from tests.wild.round36 import ROUND36  # noqa: E402  (round 36: tests/wild/round36.py)

CORPUS.update(ROUND36)

from tests.wild.round37 import ROUND37  # noqa: E402  (round 37: tests/wild/round37.py)

CORPUS.update(ROUND37)

from tests.wild.round38 import ROUND38  # noqa: E402  (round 38: tests/wild/round38.py)

CORPUS.update(ROUND38)

from tests.wild.round39 import ROUND39  # noqa: E402  (round 39: tests/wild/round39.py)

CORPUS.update(ROUND39)

from tests.wild.round40 import ROUND40  # noqa: E402  (round 40: tests/wild/round40.py)

CORPUS.update(ROUND40)

from tests.wild.round41 import ROUND41  # noqa: E402  (round 41: tests/wild/round41.py)

CORPUS.update(ROUND41)

from tests.wild.round42 import ROUND42  # noqa: E402  (round 42: tests/wild/round42.py)

CORPUS.update(ROUND42)

from tests.wild.round43 import ROUND43  # noqa: E402  (round 43: tests/wild/round43.py)

CORPUS.update(ROUND43)

from tests.wild.round44 import ROUND44  # noqa: E402  (round 44: tests/wild/round44.py)

CORPUS.update(ROUND44)

from tests.wild.round46 import ROUND46  # noqa: E402  (round 46: tests/wild/round46.py)

CORPUS.update(ROUND46)

from tests.wild.round47 import ROUND47  # noqa: E402  (round 47: tests/wild/round47.py)

CORPUS.update(ROUND47)

from tests.wild.round48 import ROUND48  # noqa: E402  (round 48: tests/wild/round48.py)

CORPUS.update(ROUND48)

from tests.wild.round49 import ROUND49  # noqa: E402  (round 49: tests/wild/round49.py)

CORPUS.update(ROUND49)

from tests.wild.round50 import ROUND50  # noqa: E402  (round 50: tests/wild/round50.py)

CORPUS.update(ROUND50)

from tests.wild.round51 import ROUND51  # noqa: E402  (round 51: tests/wild/round51.py)

CORPUS.update(ROUND51)

from tests.wild.round52 import ROUND52  # noqa: E402  (round 52: tests/wild/round52.py)

CORPUS.update(ROUND52)

from tests.wild.round53 import ROUND53  # noqa: E402  (round 53: tests/wild/round53.py)

CORPUS.update(ROUND53)

from tests.wild.round54 import ROUND54  # noqa: E402  (round 54: tests/wild/round54.py)

CORPUS.update(ROUND54)

from tests.wild.round55 import ROUND55  # noqa: E402  (round 55: tests/wild/round55.py)

CORPUS.update(ROUND55)

from tests.wild.round56 import ROUND56  # noqa: E402  (round 56: tests/wild/round56.py)

CORPUS.update(ROUND56)

from tests.wild.round57 import ROUND57  # noqa: E402  (round 57, quantisation and rounding: tests/wild/round57.py)

CORPUS.update(ROUND57)

from tests.wild.round58 import ROUND58  # noqa: E402  (round 58: tests/wild/round58.py)

CORPUS.update(ROUND58)

from tests.wild.round59 import ROUND59  # noqa: E402  (round 59: tests/wild/round59.py)

CORPUS.update(ROUND59)

from tests.wild.round60 import ROUND60  # noqa: E402  (round 60, samplers: tests/wild/round60.py)

CORPUS.update(ROUND60)

from tests.wild.round61 import ROUND61  # noqa: E402  (round 61: tests/wild/round61.py)

CORPUS.update(ROUND61)

from tests.wild.round62 import ROUND62  # noqa: E402  (round 62, subgroup operations: tests/wild/round62.py)

CORPUS.update(ROUND62)

from tests.wild.round63 import ROUND63  # noqa: E402  (round 63, vision and graph operators: tests/wild/round63.py)

CORPUS.update(ROUND63)

from tests.wild.round64 import ROUND64  # noqa: E402  (round 64, coordinates and distances: tests/wild/round64.py)

CORPUS.update(ROUND64)

from tests.wild.round65 import ROUND65  # noqa: E402  (round 65, vLLM serving: tests/wild/round65.py)

CORPUS.update(ROUND65)

from tests.wild.round66 import ROUND66  # noqa: E402  (round 66, dynamic programming: tests/wild/round66.py)

CORPUS.update(ROUND66)

from tests.wild.round67 import ROUND67  # noqa: E402  (round 67, compiler-generated kernels: tests/wild/round67.py)

CORPUS.update(ROUND67)

from tests.wild.round68 import ROUND68  # noqa: E402  (round 68, image labels and comparisons: tests/wild/round68.py)

CORPUS.update(ROUND68)

from tests.wild.round69 import ROUND69  # noqa: E402  (round 69, spatial structures and geometry: tests/wild/round69.py)

CORPUS.update(ROUND69)

from tests.wild.round70 import ROUND70  # noqa: E402  (round 70, CUDA course homework: tests/wild/round70.py)

CORPUS.update(ROUND70)

from tests.wild.round71 import ROUND71  # noqa: E402  (round 71, CUDA 11 to 13 idioms: tests/wild/round71.py)

CORPUS.update(ROUND71)

from tests.wild.round72 import ROUND72  # noqa: E402  (round 72, GPU-driven rendering: tests/wild/round72.py)

CORPUS.update(ROUND72)

from tests.wild.round73 import ROUND73  # noqa: E402  (round 73, neural graphics: tests/wild/round73.py)

CORPUS.update(ROUND73)

from tests.wild.round74 import ROUND74  # noqa: E402  (round 74, speech and audio, and ggml ops: tests/wild/round74.py)

CORPUS.update(ROUND74)

from tests.wild.round75 import ROUND75  # noqa: E402  (round 75, PyTorch's accessors: tests/wild/round75.py)

CORPUS.update(ROUND75)

from tests.wild.round76 import ROUND76  # noqa: E402  (round 76, PyTorch extensions as written: tests/wild/round76.py)

CORPUS.update(ROUND76)

from tests.wild.round77 import ROUND77  # noqa: E402  (round 77, RAPIDS and FAISS: tests/wild/round77.py)

CORPUS.update(ROUND77)

from tests.wild.round78 import ROUND78  # noqa: E402  (round 78, JavaScript engines' WGSL compute: tests/wild/round78.py)

CORPUS.update(ROUND78)

from tests.wild.round79 import ROUND79  # noqa: E402  (round 79, CUDA texture objects: tests/wild/round79.py)

CORPUS.update(ROUND79)

from tests.wild.round80 import ROUND80  # noqa: E402  (round 80, camera and video processing: tests/wild/round80.py)

CORPUS.update(ROUND80)

from tests.wild.round81 import ROUND81  # noqa: E402  (round 81, cryptographic hashing: tests/wild/round81.py)

CORPUS.update(ROUND81)

from tests.wild.round82 import ROUND82  # noqa: E402  (round 82, counter-based random numbers and Monte Carlo: tests/wild/round82.py)

CORPUS.update(ROUND82)

from tests.wild.nvidia import seen_on_nvidia  # noqa: E402  (what the GPU run saw)

seen_on_nvidia(CORPUS)
