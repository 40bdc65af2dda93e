"""``measure_ceilings(ctx)``: what an adapter can do at best, measured on it, for the
roofline of ``kforge report`` (``kforge profile-hardware --measure``).

Three kinds of probe, each a raw kernel run through the ``OracleContext`` contract
like any other (allocate, ``run_kernel``, read back) and checked for the values it
must compute before its time counts:

- ``copy``: every invocation copies 16-byte vectors; GB/s of bytes read + written.
- ``fp32-fma``: 16 independent chains of fused multiply-adds per invocation, with
  ``a = 1, b = 0`` read from the uniform so that no compiler can fold them; GFLOP/s.
- ``tensor-f16``, ``tensor-bf16``, ``tensor-tf32``: CUDA's warp-level ``mma.sync``
  (sm_80 and newer) with fp32 accumulation, four chains per warp; the A operand is
  zero, so each accumulator keeps its start value and the result is checkable.

Sizes: ``large`` keeps a big GPU busy for milliseconds per run (256 MiB copied each
way, 2^22 invocations of 16 x 1024 FMAs); ``small`` suits CPU adapters (lavapipe) and
the numpy reference, whose probes then measure numpy itself. ``auto`` picks ``small``
for the reference backend and CPU adapters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from forge.errors import ForgeError, InvalidArgument
from forge.kernel import Access, BufferSpec, KernelSpec
from forge.schedule import Schedule
from forge.types import BindingUsage

from ._results import Timing

__all__ = ["Ceiling", "Probe", "PROBES", "measure_ceilings", "probe_scale", "SCALES"]

SCALES = ("auto", "small", "large")
CHAINS = 16  # independent FMA chains per invocation (instruction-level parallelism)
FMA_ITERATIONS = 1024
MMA_CHAINS = 4  # independent mma.sync accumulators per warp
MMA_ITERATIONS = 256

# -- the probes' sources -------------------------------------------------------------------
_WGSL_HEAD = """\
struct Params {{ {fields} }}
@group(0) @binding(0) var<storage, read> x: array<{element}>;
@group(0) @binding(1) var<storage, read_write> y: array<{element}>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${{wg_x}})
fn ${{entry}}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {{
    let first = (wg.y * groups.x + wg.x) * ${{wg_x}}u * ${{ipt}}u + lid;
    for (var item = 0u; item < ${{ipt}}u; item++) {{
        let i = first + item * ${{wg_x}}u;
        if (i < p.n) {{
{body}
        }}
    }}
}}
"""

_CUDA_HEAD = """\
struct Params {{ {fields} }};

extern "C" __global__ void ${{entry}}({arguments}const Params p) {{
    const unsigned long long block = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned long long first = block * blockDim.x * ${{ipt}}u + threadIdx.x;
    for (unsigned int item = 0; item < ${{ipt}}u; ++item) {{
        const unsigned long long i = first + (unsigned long long)item * blockDim.x;
{body}
    }}
}}
"""


def _tree_sum(names: list[str]) -> str:
    """``((v0 + v1) + (v2 + v3))...``: pairwise, so that sums of exact terms stay exact."""
    while len(names) > 1:
        names = [f"({a} + {b})" for a, b in zip(names[0::2], names[1::2])]
    return names[0]


def _chains(prefix: str, start: str, step: str, declare: str) -> tuple[str, str, str]:
    """Chain start values, the loop of updates, and the tree sum into ``y[i]``."""
    starts = "\n".join(f"{declare} v{j} = {start} + {j}.0{prefix};" for j in range(CHAINS))
    steps = _indent("\n".join(step.format(v=f"v{j}") for j in range(CHAINS)), 4)
    return starts, steps, _tree_sum([f"v{j}" for j in range(CHAINS)])


def _fma_sources() -> dict[str, str]:
    starts, steps, total = _chains("", "x0", "{v} = fma({v}, a, b);", "var")
    wgsl_body = (
        f"let x0 = x[i];\nlet a = p.a;\nlet b = p.b;\n{starts}\n"
        f"for (var k = 0u; k < {{{{ITERS}}}}u; k++) {{\n"
        f"{steps}\n}}\ny[i] = {total};"
    )
    starts, steps, total = _chains("f", "x0", "{v} = fmaf({v}, a, b);", "float")
    cuda_body = (
        f"if (i >= p.n) return;\nconst float x0 = x[i], a = p.a, b = p.b;\n{starts}\n"
        f"#pragma unroll 4\nfor (int k = 0; k < {{{{ITERS}}}}; ++k) {{\n{steps}\n}}\n"
        f"y[i] = {total};"
    )
    return {
        "wgsl": _WGSL_HEAD.format(
            fields="a: f32, b: f32, n: u32", element="f32", body=_indent(wgsl_body, 12)
        ),
        "cuda": _CUDA_HEAD.format(
            fields="float a; float b; unsigned int n;",
            arguments="const float* __restrict__ x, float* __restrict__ y, ",
            body=_indent(cuda_body, 8),
        ),
    }


def _copy_sources() -> dict[str, str]:
    return {
        "wgsl": _WGSL_HEAD.format(
            fields="n: u32", element="vec4<f32>", body=_indent("y[i] = x[i];", 12)
        ),
        "cuda": _CUDA_HEAD.format(
            fields="unsigned int n;",
            arguments="const float4* __restrict__ x, float4* __restrict__ y, ",
            body=_indent("if (i < p.n) y[i] = x[i];", 8),
        ),
    }


# mma.sync per precision: (PTX shape and types, A registers, B registers, flops per mma).
_MMA = {
    "f16": ("m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 2 * 16 * 8 * 16),
    "bf16": ("m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 2 * 16 * 8 * 16),
    "tf32": ("m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 2 * 16 * 8 * 8),
}


def _mma_source(precision: str) -> str:
    """Each warp keeps ``MMA_CHAINS`` accumulators of 4 floats per lane; A and B come from
    ``x``'s bits ANDed with the uniform's ``zero`` (0: the compiler cannot know), so
    each mma adds 0 and the accumulators keep their start values ``x0 + 0..15``."""
    shape, a_regs, b_regs, _ = _MMA[precision]
    operands = [f"%{4 + r}" for r in range(a_regs)]
    b_operands = [f"%{4 + a_regs + r}" for r in range(b_regs)]
    asm = (
        f'asm volatile("mma.sync.aligned.{shape} {{%0,%1,%2,%3}}, '
        f'{{{",".join(operands)}}}, {{{",".join(b_operands)}}}, {{%0,%1,%2,%3}};"'
    )
    steps = []
    for c in range(MMA_CHAINS):
        regs = ", ".join(f'"+f"(v{4 * c + r})' for r in range(4))
        inputs = ", ".join(['"r"(a)'] * a_regs + ['"r"(b)'] * b_regs)
        steps.append(f"{asm} : {regs} : {inputs});")
    starts = "\n".join(f"float v{j} = x0 + {j}.0f;" for j in range(CHAINS))
    body = (
        f"const unsigned long long at = i < p.n ? i : 0;  // every lane of a warp takes "
        f"part in mma.sync\nconst float x0 = x[at];\n"
        f"const unsigned int a = __float_as_uint(x0) & p.zero, b = a;\n{starts}\n"
        f"for (int k = 0; k < {{{{ITERS}}}}; ++k) {{\n" + _indent("\n".join(steps), 4) + "\n}\n"
        f"if (i < p.n) y[i] = {_tree_sum([f'v{j}' for j in range(CHAINS)])};"
    )
    return _CUDA_HEAD.format(
        fields="unsigned int zero; unsigned int n;",
        arguments="const float* __restrict__ x, float* __restrict__ y, ",
        body=_indent(body, 8),
    )


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines())


# -- numpy meanings (the reference backend runs these: its ceilings are numpy's) -----------
def _copy_reference(x: np.ndarray, y: np.ndarray, p: np.void) -> None:
    np.copyto(y, x)


def _fma_reference(x: np.ndarray, y: np.ndarray, p: np.void) -> None:
    a, b = np.float32(p["a"]), np.float32(p["b"])
    chains = x[None, :] + np.arange(CHAINS, dtype=np.float32)[:, None]
    for _ in range(FMA_ITERATIONS):  # two roundings where a GPU has one: equal for a=1, b=0
        np.multiply(chains, a, out=chains)
        np.add(chains, b, out=chains)
    while len(chains) > 1:
        chains = chains[0::2] + chains[1::2]
    y[:] = chains[0]


def _chain_sums(x: np.ndarray) -> np.ndarray:
    """What the FMA and mma probes write: the sum of ``x + 0 .. x + 15`` (exact here)."""
    return (np.float32(CHAINS) * x + np.float32(CHAINS * (CHAINS - 1) // 2)).astype(np.float32)


# -- probes --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Probe:
    """One ceiling's kernel: its unit, the size per scale (in the kernel's own size
    units), its input, what it must write, and when a context cannot run it."""

    name: str
    unit: str  # "GB/s" or "GFLOP/s"
    what: str
    kernel: KernelSpec
    schedule: Schedule
    sizes: dict[str, int]
    lanes: int = 1  # floats per size unit (4 for the float4 copy)
    expected: Callable[[np.ndarray], np.ndarray] = lambda x: x
    uniform: dict[str, Any] = field(default_factory=dict)
    needs: Callable[[Any], str] = lambda ctx: ""

    def work(self, size: int) -> int:
        """Bytes (GB/s probes) or flops (GFLOP/s probes) of one run at ``size``."""
        work = self.kernel.work(size)["bytes_moved" if self.unit == "GB/s" else "flops"]
        assert work is not None, f"probe {self.kernel.id} declares no work"
        return work


def _buffers(uniform_fields) -> tuple[BufferSpec, ...]:
    return (
        BufferSpec(0, "f32", Access.READ, name="x", count=lambda n: 4 * n),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y", count=lambda n: 4 * n),
        BufferSpec.uniform(2, uniform_fields),
    )


def _tensor_cores(ctx: Any) -> str:
    """Why ``ctx`` cannot run the mma.sync probes ("" when it can)."""
    target = getattr(ctx, "target", None)
    if target is None:
        return f"the {ctx.backend_name} backend runs numpy on the host: no tensor cores"
    if target == "wgsl":
        return (
            f"WGSL has no tensor-core path on the {ctx.backend_name} backend: WebGPU's "
            "cooperative matrices are an experimental feature that wgpu-native refuses "
            "(only CUDA's mma.sync is measured)"
        )
    if target != "cuda":
        return f"no tensor-core probe for the {target} target"
    arch = ctx.adapter.architecture or ""
    digits = "".join(ch for ch in arch if ch.isdigit())
    if digits and int(digits) < 80:
        return f"mma.sync with these types needs sm_80 or newer; this device is {arch}"
    return ""


COPY = Probe(
    "copy",
    "GB/s",
    "device copy of 16-byte vectors, bytes read + written",
    KernelSpec(
        id="ceiling_copy",
        entry_point="ceiling_copy",
        buffers=_buffers((("n", "u32"),)),
        sources=_copy_sources(),
        reference=_copy_reference,
        params=lambda size: {"n": size},
        tags=("ceiling",),
        bytes_moved="32*n",
        flops=0,
    ),
    Schedule(256, items_per_invocation=4),
    {"small": 1 << 16, "large": 1 << 24},
    lanes=4,
)

FMA = Probe(
    "fp32-fma",
    "GFLOP/s",
    f"fp32 fused multiply-add, {CHAINS} chains x {FMA_ITERATIONS} per invocation",
    KernelSpec(
        id="ceiling_fma",
        entry_point="ceiling_fma",
        buffers=(
            BufferSpec(0, "f32", Access.READ, name="x"),
            BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
            BufferSpec.uniform(2, (("a", "f32"), ("b", "f32"), ("n", "u32"))),
        ),
        sources=_fma_sources(),
        reference=_fma_reference,
        params=lambda size: {"n": size},
        defaults={"a": 1.0, "b": 0.0},
        constants={"ITERS": FMA_ITERATIONS},
        tags=("ceiling",),
        bytes_moved="8*n",
        flops=f"2*{CHAINS}*{FMA_ITERATIONS}*n",
    ),
    Schedule(256),
    {"small": 1 << 12, "large": 1 << 22},
    expected=_chain_sums,
)


def _tensor_probe(precision: str) -> Probe:
    flops_per_mma = _MMA[precision][3]
    return Probe(
        f"tensor-{precision}",
        "GFLOP/s",
        f"tensor cores: mma.sync {_MMA[precision][0].split('.')[0]} {precision} inputs, fp32 "
        f"accumulation, {MMA_CHAINS} chains x {MMA_ITERATIONS} per warp",
        KernelSpec(
            id=f"ceiling_mma_{precision}",
            entry_point=f"ceiling_mma_{precision}",
            buffers=(
                BufferSpec(0, "f32", Access.READ, name="x"),
                BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
                BufferSpec.uniform(2, (("zero", "u32"), ("n", "u32"))),
            ),
            sources={"cuda": _mma_source(precision)},
            params=lambda size: {"n": size},
            defaults={"zero": 0},
            constants={"ITERS": MMA_ITERATIONS},
            tags=("ceiling",),
            bytes_moved="8*n",
            flops=f"{flops_per_mma}*{MMA_CHAINS}*{MMA_ITERATIONS}*(n//32)",
        ),
        Schedule(256),
        {"small": 1 << 12, "large": 1 << 20},
        expected=_chain_sums,
        needs=_tensor_cores,
    )


PROBES: tuple[Probe, ...] = (COPY, FMA, *(_tensor_probe(p) for p in _MMA))


# -- measuring -----------------------------------------------------------------------------
@dataclass
class Ceiling:
    """One measured ceiling: the rate (``value`` in ``unit``; None when not measured,
    with ``reason``), the work per run and every sample behind the median."""

    name: str
    unit: str
    what: str
    value: float | None = None
    kernel: str = ""
    size: int = 0
    work: int = 0
    timing: Timing | None = None
    reason: str = ""

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "unit": self.unit,
            "what": self.what,
            "value": self.value,
            "kernel": self.kernel,
            "size": self.size,
            "work": self.work,
            "timing": self.timing.as_dict() if self.timing else None,
            "reason": self.reason,
        }


def probe_scale(ctx: Any, scale: str = "auto") -> str:
    """``small`` or ``large``: ``scale`` itself, or for ``auto`` small on the reference
    backend (numpy) and on CPU adapters (lavapipe, SwiftShader), large elsewhere."""
    if scale not in SCALES:
        raise InvalidArgument(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if scale != "auto":
        return scale
    cpu = getattr(ctx, "target", None) is None or ctx.adapter.device_type.lower() == "cpu"
    return "small" if cpu else "large"


def capacity_for(scale: str) -> int:
    """Bytes a context needs to run every probe at ``scale`` (the copy's two buffers)."""
    return 2 * 16 * COPY.sizes[scale] + (16 << 20)


def _input(probe: Probe, size: int) -> np.ndarray:
    """Values whose chain sums stay exact in float32: multiples of 1/128 in [-1, 1)."""
    count = probe.lanes * size
    return ((np.arange(count, dtype=np.int64) % 256 - 128) / 128).astype(np.float32)


def _fitted(ctx: Any, probe: Probe, scale: str) -> int:
    """The probe's size at ``scale``, shrunk to fit one storage binding of ``ctx``."""
    size = probe.sizes[scale]
    limit = ctx.constraints.max_storage_binding_size
    while size > 1024 and limit is not None and 4 * probe.lanes * size > limit:
        size //= 2
    return size


def _run_probe(ctx: Any, probe: Probe, size: int, warmups: int, samples: int) -> Timing:
    """Run ``probe`` at ``size`` through the contract; raise ``OracleMismatch`` when it
    computed anything but its expected values."""
    from forge.errors import OracleMismatch

    kernel, target = probe.kernel, getattr(ctx, "target", None)
    x = _input(probe, size)
    spec = kernel.uniform
    assert spec is not None, f"probe {kernel.id} has no uniform block"
    uniform = kernel.buffer_bytes(spec, kernel.pack_uniform(size), target)
    try:
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(
                uniform.view(np.uint8).reshape(-1), 2, usage=BindingUsage.UNIFORM
            ),
        ]
        samples_ns = ctx.run_kernel(
            kernel, probe.schedule, views, size, warmups=warmups, samples=samples
        )
        got = ctx.read_buffer_f32(views[1])[: x.size]
    finally:
        ctx.clear_transient_allocations()
    want = probe.expected(x)
    wrong = np.flatnonzero(got != want)
    if wrong.size:
        first = int(wrong[0])
        raise OracleMismatch(
            f"the {probe.name} probe wrote wrong values in {wrong.size} of "
            f"{x.size} elements (first at {first}: got {got[first]}, want "
            f"{want[first]}); its time is not a ceiling"
        )
    return Timing(tuple(int(s) for s in samples_ns), ctx.timing_source)


def measure_ceilings(
    ctx: Any,
    scale: str = "auto",
    samples: int | None = None,
    on_probe: Callable[[Ceiling], None] | None = None,
) -> dict[str, Ceiling]:
    """Every probe of ``PROBES`` on ``ctx`` (an open context), by name. A probe the
    context cannot run, or that fails, is a ``Ceiling`` with no value and the reason;
    the others go on. ``samples`` defaults to 5 (small) or 10 (large) timed runs."""
    scale = probe_scale(ctx, scale)
    samples = samples or (5 if scale == "small" else 10)
    found: dict[str, Ceiling] = {}
    for probe in PROBES:
        ceiling = Ceiling(probe.name, probe.unit, probe.what, kernel=probe.kernel.id)
        ceiling.reason = probe.needs(ctx)
        if not ceiling.reason:
            try:
                ceiling.size = _fitted(ctx, probe, scale)
                ceiling.work = probe.work(ceiling.size)
                ceiling.timing = _run_probe(ctx, probe, ceiling.size, 2, samples)
                ceiling.value = ceiling.work / ceiling.timing.median  # per ns = G per s
            except ForgeError as exc:
                ceiling.reason = f"{type(exc).__name__}: {exc}"
        found[probe.name] = ceiling
        if on_probe is not None:
            on_probe(ceiling)
    return found
