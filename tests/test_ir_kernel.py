"""IR kernels as KernelSpecs: bindings, uniforms, element counts, hashing, shapes, and
the errors of a kernel description that cannot run."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import forge
from forge import Access, InvalidArgument, KernelSpec, Schedule, ir
from forge.ir import IRError

x = ir.input("x")


def _softmax(**options) -> KernelSpec:
    shifted = x - ir.row_max(x)
    e = ir.exp(shifted)
    return ir.kernel("sm", ir.rows(y=e / ir.row_sum(e)), **options)


def test_bindings_are_inputs_then_outputs_then_the_uniform_block():
    k = ir.kernel(
        "k", ir.map(out=ir.input("b") * ir.param("s") + x), inputs=("x",), defaults={"s": 2.0}
    )
    assert [(b.binding, b.name, b.access) for b in k.buffers] == [
        (0, "x", Access.READ),
        (1, "b", Access.READ),
        (2, "out", Access.READ_WRITE),
        (3, "params", Access.UNIFORM),
    ]
    assert k.uniform.fields == (("s", "f32"), ("n", "u32"))
    assert k.targets == ("wgsl", "cuda") and k.has_reference
    assert k.entry_point == "k_kernel"


def test_element_counts_and_uniform_values_follow_the_shape_rules():
    k = _softmax(shape={"rows": ir.SIZE + 1, "cols": 2 * ir.SIZE})
    assert [b.element_count(10) for b in k.buffers] == [11 * 20, 11 * 20, 1]
    record = k.pack_uniform(10)
    assert (record["rows"][0], record["cols"][0]) == (11, 20)
    reshaped = ir.with_shape(k, rows=4096)
    assert reshaped.pack_uniform(7)["rows"][0] == 4096
    assert reshaped.buffers[0].element_count(7) == 4096 * 14
    assert reshaped.semantic_hash != k.semantic_hash


def test_an_output_that_is_also_read_is_an_in_out_buffer():
    k = ir.kernel("axpy2", ir.map(y=ir.param("a") * x + ir.input("y")), defaults={"a": 1.0})
    y = next(b for b in k.buffers if b.name == "y")
    assert y.access is Access.READ_WRITE and y.inout


def test_semantic_hash_covers_the_ir():
    base = ir.kernel("h", ir.map(y=x * 2.0))
    variants = [
        ir.kernel("h", ir.map(y=x * 3.0)),
        ir.kernel("h", ir.map(y=2.0 * x)),
        ir.kernel("h", ir.map(z=x * 2.0)),
        ir.kernel("h", ir.map(y=ir.input("x", "f64") * 2.0)),
        ir.kernel("h", ir.map(y=x * 2.0), shape={"n": ir.SIZE + 1}),
    ]
    hashes = {v.semantic_hash for v in variants}
    assert base.semantic_hash not in hashes and len(hashes) == len(variants)
    assert ir.kernel("h", ir.map(y=x * 2.0)).semantic_hash == base.semantic_hash
    assert base.describe()["body"]["pattern"] == "map"
    assert "sources" in forge.get_kernel("raw_affine").describe()["body"]


def test_semantic_hashes_of_ir_kernels_are_the_same_in_any_process():
    code = (
        "import forge; print(' '.join(k.semantic_hash for k in forge.list_kernels() "
        "if k.body.kind != 'raw'))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "12345")
    }
    assert len(outputs) == 1
    assert outputs.pop().split() == [
        k.semantic_hash for k in forge.list_kernels() if k.body.kind != "raw"
    ]


def test_f16_and_f64_bodies_declare_what_they_require():
    assert ir.kernel("h16", ir.map(y=ir.input("x", "f16") * 2.0)).requires == {"f16"}
    assert ir.kernel("h64", ir.transpose("f64")).requires == {"f64"}
    assert ir.kernel("h32", ir.map(y=x)).requires == frozenset()


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: ir.kernel("k", ir.map(y=x * ir.param("a"))), r"params \['a'\] have no default"),
        (lambda: ir.kernel("k", ir.map(y=x), defaults={"b": 1.0}), r"defaults name \['b'\]"),
        (lambda: ir.kernel("k", ir.map(y=x), inputs=("w",)), r"never reads"),
        (lambda: ir.kernel("k", ir.map(y=x), shape={"rows": 3}), r"has dimensions \['n'\]"),
        (lambda: ir.kernel("k", ir.map(y=x), shape={"n": -1}), r"non-negative int"),
        (lambda: ir.kernel("k", ir.map(y=x), entry_point="exp"), r"reserved"),
        (lambda: ir.kernel("k", x * 2.0), r"body must be an IR pattern"),
    ],
)
def test_kernel_descriptions_that_cannot_run_are_refused(build, message):
    with pytest.raises(IRError, match=message):
        build()


def test_a_kernel_has_an_ir_body_or_raw_sources_not_both():
    body = ir.map(y=x)
    with pytest.raises(InvalidArgument, match="not both"):
        KernelSpec(
            "k", "k", forge.get_kernel("raw_affine").buffers, sources={"wgsl": "x"}, body=body
        )
    with pytest.raises(InvalidArgument, match="not both"):
        KernelSpec(
            "k", "k", forge.get_kernel("raw_affine").buffers, reference=lambda *a: None, body=body
        )


def test_schedule_roles_mark_big_gpu_schedules():
    gemm = forge.get_kernel("gemm")
    roles = [gemm.schedule_role(s) for s in gemm.schedules]
    assert roles[:2] == ["baseline", "baseline"] and "big-gpu" in roles[2:]
    assert gemm.schedule_role(Schedule(7)) == "baseline"


def test_reference_runs_the_body_over_arrays_in_binding_order():
    k = ir.kernel("k", ir.map(y=ir.param("a") * x + ir.input("b")), defaults={"a": 3.0})
    xs = np.arange(4, dtype=np.float32)
    bs = np.ones(4, np.float32)
    ys = np.zeros(4, np.float32)
    k.run_reference([xs, bs, ys, k.pack_uniform(4)[0]])
    assert ys.tolist() == [1.0, 4.0, 7.0, 10.0]
    with pytest.raises(InvalidArgument, match="has 4 buffers, got 2"):
        k.run_reference([xs, ys])


def test_workgroups_follow_each_pattern():
    affine = forge.get_kernel("affine")
    schedule = Schedule(64, items_per_invocation=2, vector_width=4)
    assert affine.workgroups(schedule, 4099) == (9, 1, 1)
    assert affine.workgroups(Schedule(64), 70_000 * 64, 65535) == (35000, 2, 1)
    assert affine.workgroups(Schedule(64, max_workgroups=5), 10**6) == (5, 1, 1)
    softmax = forge.get_kernel("softmax")
    assert softmax.workgroups(Schedule((32, 4)), 1000) == (10, 1, 1)  # 37 rows, 4 per group
    gemm = forge.get_kernel("gemm")
    assert gemm.workgroups(Schedule((16, 16), tile=(64, 64, 8)), 130) == (9, 1, 1)
    transpose = forge.get_kernel("transpose")
    assert transpose.workgroups(Schedule((32, 8), tile=(32, 32)), 67) == (9, 1, 1)  # 67 x 70


def test_the_package_examples_run():
    import doctest

    import forge.ir

    failures, tried = doctest.testmod(forge.ir, optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failures == 0
