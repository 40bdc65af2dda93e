"""Round 33's findings (tests/wild/round33.py), each pinned by the smallest run that
shows it: a kernel stamped out through two macros was unread, and three mutants whose
maximum starts at 0 passed where no line of the inputs was all negative (now run on the
one-sign input sets). Each was a strict xfail until fixed."""

from __future__ import annotations

import dataclasses

import oracle
from forge import BufferSpec
from forge.sources import cuda_parameters, cuda_parameters_problem
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round33 import CANDLE_BMUL, CANDLE_FAST_MAX, CANDLE_SOFTMAX, TG_ROW_MAX


def test_a_kernel_stamped_out_through_a_nested_macro_is_read():
    """No device needed: candle's binary.cu writes ``BINARY_OP(float, bmul_f32, x * y)``,
    a macro whose body invokes ``BINARY_OP_OUT``, whose body declares the
    ``extern "C" __global__`` function. One level is read (unary.cu's ``UNARY_OP``,
    reduce.cu's ``FAST_OP``); two are not, and the spec must list ``arguments=``."""
    source = CANDLE_BMUL.kernel.sources["cuda"]
    problem = cuda_parameters_problem(source, "bmul_f32")
    assert "declares no __global__ function" not in problem, problem
    params = cuda_parameters(source, "bmul_f32")
    assert params is not None
    assert [p.name for p in params] == [
        "numel",
        "num_dims",
        "dims_and_strides",
        "lhs",
        "rhs",
        "out",
    ]


def _mutant_verdicts(request, kernel, sizes, seeds=range(5)):
    require_available(request.config, "wgpu")
    return {
        (size, seed): oracle.evaluate(
            "wgpu", kernel, size=size, seed=seed, samples=0, warmups=0
        ).verdict
        for size in sizes
        for seed in seeds
    }


def test_a_max_over_a_middle_axis_sees_an_all_negative_line(request):
    """candle's fast_max_f32 reducing x.max(1) of an (A, B, C) tensor, the identity 0
    instead of -INFINITY: every (a, c) line along B holds a positive element at every
    seed, since the negatives family fills whole rows of C; only B = 1 shows it."""
    broken = mutant(CANDLE_FAST_MAX, "identity 0 for max")
    verdicts = _mutant_verdicts(request, broken, ["3x37x5", "2x300x3"], seeds=(0,))
    assert any(v is Verdict.MISMATCH for v in verdicts.values()), verdicts


def test_a_softmax_of_few_rows_sees_a_row_of_large_negatives(request):
    """candle's softmax_f32 with its max starting at 0 instead of -INFINITY is wrong
    only on a row whose every element is below about -88 (exp underflows to 0, 0/0):
    at 6 x 100 the families are 10-element blocks inside rows (layout ('large', 142,
    152)), and the mutant passes at every seed; at 32 rows it fails (the corpus size)."""
    broken = mutant(CANDLE_SOFTMAX, "identity 0 for max")
    verdicts = _mutant_verdicts(request, broken, ["6x100"], seeds=(0, 1))
    assert any(v is Verdict.MISMATCH for v in verdicts.values()), verdicts


def test_a_generated_row_max_without_a_shape_sees_an_all_negative_row(request):
    """tinygrad's r_8_16_6 as its buffers are (flat ``data1_768``), the spec giving no
    ``shape=(8, 96)``: the identity-0 mutant passes at every seed, with nothing in the
    report to suggest declaring the rows; with the shape (the corpus spec) it fails."""
    wild = TG_ROW_MAX
    flat = tuple(
        dataclasses.replace(b, shape=None) if b.name == "data1_768" else b
        for b in wild.kernel.buffers
    )
    assert all(isinstance(b, BufferSpec) for b in flat)
    kernel = dataclasses.replace(
        mutant(wild, "identity 0 for max"),
        buffers=flat,
        reference=lambda data1_768: data1_768.reshape(8, 96).max(axis=1),
    )
    verdicts = _mutant_verdicts(request, kernel, [768])
    assert any(v is Verdict.MISMATCH for v in verdicts.values()), verdicts
