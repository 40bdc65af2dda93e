"""Lowering of ``map``: a grid-stride loop over chunks of ``vector_width`` consecutive
elements; each invocation loads ``items_per_invocation`` chunks (all loads first, for
memory-level parallelism), then computes and stores them. A whole chunk of 32-bit
elements moves as one vector and a partial last chunk lane by lane: on CUDA a
float4/float2 (int4, uint4...) through an aligned pointer; on WGSL, which cannot view
an ``array<f32>`` as vectors, the buffers are declared as arrays of ``vec4<f32>``
(``vec2``...) and a partial chunk is read and written by component (on Vulkan a
component store writes only that component's bytes; the WGSL spec allows it to write
back the whole vector, whose other components, past ``n`` and written by no other
invocation, then keep their values)."""

from __future__ import annotations

from ..ir import index
from ._code import Emission, ScheduleRefused, plus, refuse_eight, refuse_unroll

__all__ = ["PATTERN", "VECTOR_WIDTHS", "check", "storage_bytes", "workgroup_count", "lower"]

PATTERN = "map"  # the ``Body.kind`` this module lowers
#: vec=8: 16-byte loads and stores of 2-byte elements (f16, bf16) on CUDA
VECTOR_WIDTHS = (1, 2, 4, 8)

_INDEX = index()


def check(body, schedule, target: str) -> None:
    refuse_unroll(schedule, "map")
    if schedule.vector_width == 8:
        refuse_eight(body.buffers(), target, "map")
    if schedule.tile is not None:
        tile = "x".join(map(str, schedule.tile))
        raise ScheduleRefused(
            f"a map takes no tile (got tile={tile}): use items per invocation and vector width"
        )


def storage_bytes(body, schedule, target: str) -> int:
    return 0


def workgroup_count(body, schedule, dims) -> int:
    return -(-dims["n"] // schedule.elements_per_workgroup)


def lower(em: Emission) -> None:
    body, s, d, code, v = em.body, em.schedule, em.d, em.code, em.values
    threads, items, width = s.invocations, s.items_per_invocation, s.vector_width
    em.bind_uniforms()
    exprs = body.expressions()
    v.hoist(exprs, ("uniform",))
    loads = body.loads()
    n = em.uniform("n")
    chunks = em.let("fg_chunks", "u32", em.ceil_div(n, width))
    buffers = list(loads) + [name for name, _ in body.outputs]
    vec_ok = em.vec_ok(buffers, width)
    em.vectorize(buffers, width)
    per_group = threads * items
    slot = "fg_k" if width == 1 else f"fg_k * {width}u"
    code.comment(
        f"each workgroup takes {per_group} chunks of {width} per pass; grid-stride over the rest"
    )
    with code.block(
        d.loop(
            "fg_first",
            f"{d.widen(d.group_linear)} * {per_group}u",
            chunks,
            f"{d.widen(d.group_count)} * {per_group}u",
            wide=True,
        )
    ):
        for name, load in loads.items():
            code.line(d.array(f"fg_v_{name}", load.dtype, items * width))

        def each_chunk(inner) -> None:
            def chunk() -> None:
                j = em.wide(v.fresh("j"), f"fg_first + fg_k * {threads}u + fg_lidx")
                with code.block(f"if ({j} < {chunks}) {{"):
                    inner(j, j if width == 1 else f"{j} * {width}u")

            em.unrolled("fg_k", items, chunk)

        def load(j: str, first: str) -> None:
            for name in loads:
                em.load_chunk(name, f"fg_v_{name}", slot, first, first, n, width, vec_ok, j)

        def compute(j: str, first: str) -> None:
            for name, expr in body.outputs:
                code.line(d.array(f"fg_o_{name}", expr.dtype, width))
            for lane in range(width):
                with v.scope():
                    for name, load_expr in loads.items():
                        v.bind(load_expr, f"fg_v_{name}[{plus(slot, lane)}]")
                    v.bind(_INDEX, d.narrow(first if not lane else f"{first} + {lane}u"))
                    for name, expr in body.outputs:
                        code.line(f"fg_o_{name}[{lane}u] = {v.get(expr)};")
            for name, _ in body.outputs:
                em.store_chunk(name, f"fg_o_{name}", "0u", first, first, n, width, vec_ok, j)

        code.comment("load every chunk first, then compute and store")
        each_chunk(load)
        each_chunk(compute)
