"""Round 43's findings (tests/wild/round43.py), each pinned by the smallest run that
shows it.

- Inexpressible, fixed: LightSeq's host passes ``means`` as ``nullptr`` in the middle of
  ker_layer_norm's parameters (unless the op keeps means); ``arguments=`` took
  only buffers, values and offsets, and a null pointer only for a trailing parameter
  that declares one as its default. ``"nullptr"`` (or ``"NULL"``) now passes a null
  pointer to any pointer parameter, so the kernel's ``if (means != nullptr)`` is what
  runs (and a mutant that writes through it loses the context on the GPU).
- Inexpressible, fixed: DeepSpeed defines ``apply_rotary_pos_emb`` twice, for
  ``float*`` and for ``__half*``; NVRTC cannot lower an overloaded name, and its error
  said nothing of how to pick one. An entry point may now name an overload by its
  parameter types (``"apply_rotary_pos_emb(float*, float*, unsigned, ...)"``): NVRTC is
  asked for the cast that picks it, the parameters are read from that definition, and
  the plain name's error says to do so.
- Inexpressible, fixed: CUSP's SpMV kernel takes three functors by value (a
  ``constant_functor<float>`` holding 0, thrust's empty ``multiplies`` and ``plus``); a
  struct parameter could be filled only by the spec's one uniform block. A value given as
  bytes (``defaults={"combine": b"\\0"}``) is now passed as they are, and the size the
  PTX declares for the parameter checks them.
- A gap of the drawn inputs, pinned and not closed: no drawn row has a mean far from 0
  against its spread, so LightSeq's one-pass variance (``E[x^2] - E[x]^2`` in float32)
  passes, while on rows of 1000 +- 1 it loses every digit of the variance (outputs off
  by up to a third), where round 2's Welford layer norm passes. Five WGSL originals of
  earlier rounds (ONNX Runtime Web's LayerNorm and SkipLayerNorm among them) compute the
  variance in one pass too, so an input set of such rows would fail them all: a
  decision left open in the report.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracle
from forge.arguments import argument_order
from forge.errors import CompileError, InvalidArgument
from forge.sources import cuda_parameter_texts, cuda_parameters, cuda_parameters_problem
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.wild.round43 import _ROPE_CUDA, CUSP_SPMV, DEEPSPEED_ROPE, LIGHTSEQ_LAYER_NORM

_HALF_OVERLOAD = (
    "apply_rotary_pos_emb(__half*, __half*, unsigned, unsigned, unsigned, unsigned, unsigned, "
    "unsigned)"
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def _steps(kernel, text):
    schedule, size = kernel.schedules[0], kernel.size(text)
    source = kernel.source("cuda", schedule, size)
    return kernel.steps("cuda", schedule, size, 2**31 - 1, source)


def test_a_hosts_nullptr_in_the_middle_of_the_parameters_is_a_null_pointer():
    """LightSeq's ``means`` (third of seven) gets 8 zero bytes, and a kernel frozen at
    one size names it again as ``"nullptr"``."""
    kernel = LIGHTSEQ_LAYER_NORM.kernel
    (step,) = _steps(kernel, "batch_size=2,hidden_dim=8")
    assert step.arguments[2] == ("default", ("nullptr", bytes(8)))
    assert [a[0] for a in step.arguments] == ["buffer"] * 2 + ["default"] + ["buffer"] * 3 + [
        "field"
    ]
    assert argument_order(kernel, step.arguments) == (
        "ln_res",
        "vars",
        "nullptr",
        "inp",
        "scale",
        "bias",
        "hidden_size",
    )


def test_a_null_pointer_given_to_a_parameter_passed_by_value_is_refused():
    kernel = LIGHTSEQ_LAYER_NORM.kernel
    launch = dataclasses.replace(
        kernel.launches[0],
        arguments=("ln_res", "vars", "nullptr", "inp", "scale", "bias", "NULL"),
    )
    broken = dataclasses.replace(kernel, launches=(launch,))
    with pytest.raises(InvalidArgument, match=r"int hidden_size .* null pointer 'NULL'"):
        _steps(broken, "batch_size=2,hidden_dim=8")


def test_an_overload_named_by_its_parameter_types_is_the_one_compiled_and_read():
    """The float overload's symbol, not the __half one's, and its parameters."""
    from backends.cuda._modules import module_build
    from backends.cuda._nvrtc import compile_module_entries

    kernel = DEEPSPEED_ROPE.kernel
    steps = _steps(kernel, kernel.test_sizes[0])
    source = kernel.source("cuda", kernel.schedules[0], kernel.size(kernel.test_sizes[0]))
    _, names, _ = module_build(kernel, steps, source, "sm_90").build()
    assert names[steps[0].entry_point] == "_Z20apply_rotary_pos_embPfS_jjjjjj"
    _, half, _ = compile_module_entries(_ROPE_CUDA, [_HALF_OVERLOAD], "sm_90", "ptx")
    assert half[_HALF_OVERLOAD] == "_Z20apply_rotary_pos_embP6__halfS0_jjjjjj"
    params = cuda_parameters(_ROPE_CUDA, _HALF_OVERLOAD)
    assert params is not None and [p.type for p in params[:2]] == ["__half*", "__half*"]


def test_an_overloaded_kernel_named_alone_is_told_to_name_its_parameter_types():
    from backends.cuda._nvrtc import compile_module_entries

    with pytest.raises(CompileError, match=r"is overloaded: name the one to launch by its"):
        compile_module_entries(_ROPE_CUDA, ["apply_rotary_pos_emb"], "sm_90", "ptx")
    problem = cuda_parameters_problem(_ROPE_CUDA, "apply_rotary_pos_emb(double*)")
    assert "no __global__ function apply_rotary_pos_emb(double*)" in problem
    assert cuda_parameter_texts(_ROPE_CUDA, "apply_rotary_pos_emb(double*)") is None
    assert cuda_parameter_texts(_ROPE_CUDA, _HALF_OVERLOAD)[:1] == ["__half* mixed_query"]


def test_functors_by_value_are_passed_as_their_bytes_and_checked_against_the_ptx():
    """CUSP's initialize (4 bytes), combine and reduce (1 byte each) as the launch passes
    them; given 4 bytes for an empty functor, the PTX's 1-byte parameter refuses it."""
    from backends.cuda._modules import check_steps, module_build

    kernel = CUSP_SPMV.kernel
    text = "num_rows=33,num_cols=10,nnz=50"
    steps = _steps(kernel, text)
    assert steps[0].arguments[-3:] == (
        ("value", ("initialize", bytes(4))),
        ("value", ("combine", b"\0")),
        ("value", ("reduce", b"\0")),
    )
    source = kernel.source("cuda", kernel.schedules[0], kernel.size(text))
    _, _, entries = module_build(kernel, steps, source, "sm_90").build()
    check_steps(kernel, steps, entries, source)
    wide = dataclasses.replace(kernel, defaults={**kernel.defaults, "combine": bytes(4)})
    with pytest.raises(CompileError, match=r"is 1 bytes .* value combine \(by value\) of 4 bytes"):
        check_steps(wide, _steps(wide, text), entries, source)


def _offset_rows(rows_of):
    """A fill of rows of 1000 +- 1 and -250 +- 1: a mean far from 0 against the spread."""

    def fill(rng, count, size):
        rows = rows_of(size)
        base = np.where(np.arange(rows) % 2 == 0, 1000.0, -250.0)[:, None]
        return (base + rng.standard_normal((rows, count // rows))).astype(np.float32).ravel()

    return fill


def _with_offset_rows(kernel, name, rows_of):
    buffers = tuple(
        dataclasses.replace(b, fill=_offset_rows(rows_of)) if b.name == name else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, id=f"{kernel.id}_offset_rows", buffers=buffers)


def test_a_one_pass_variance_passes_the_drawn_rows_and_fails_rows_with_an_offset(request, session):
    """LightSeq's variance (the port computes it as the CUDA does) passes every drawn
    input set, and is off by far more than rounding on rows of 1000 +- 1."""
    require_available(request.config, "wgpu")
    kernel = LIGHTSEQ_LAYER_NORM.kernel
    size = "batch_size=2,hidden_dim=200"
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=size, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.PASS, ev.report()
    offset = _with_offset_rows(kernel, "inp", lambda size: size.batch_size)
    ev = oracle.evaluate(session.runner("wgpu"), offset, size=size, seed=0, samples=0, warmups=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert ev.outputs["vars"].comparison.max_rel > 1e-3, ev.report()


def test_a_welford_layer_norm_passes_rows_with_an_offset(request, session):
    """The gap is in the drawn inputs, not the judgement: round 2's Welford layer norm
    passes the same rows, judged within its rounding."""
    require_available(request.config, "wgpu")
    from tests.wild import CORPUS

    welford = _with_offset_rows(CORPUS["wild_layernorm_welford"].kernel, "x", lambda s: s.rows)
    ev = oracle.evaluate(
        session.runner("wgpu"), welford, size="rows=4,cols=200", seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_layer_norm_with_means_nullptr_passes_on_cuda(request, session):
    """On the GPU: the null ``means`` reaches the kernel, which skips it."""
    require_available(request.config, "cuda")
    ev = oracle.evaluate(
        session.runner("cuda"),
        LIGHTSEQ_LAYER_NORM.kernel,
        size="batch_size=2,hidden_dim=1040",
        seed=0,
        samples=0,
        warmups=0,
    )
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_spmv_with_its_functors_as_bytes_passes_on_cuda(request, session):
    require_available(request.config, "cuda")
    kernel = CUSP_SPMV.kernel
    ev = oracle.evaluate(
        session.runner("cuda"), kernel, size=kernel.test_sizes[0], seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.PASS, ev.report()


def test_the_float_overload_of_the_rotary_embedding_passes_on_cuda(request, session):
    require_available(request.config, "cuda")
    kernel = DEEPSPEED_ROPE.kernel
    ev = oracle.evaluate(
        session.runner("cuda"), kernel, size=kernel.test_sizes[1], seed=0, samples=0, warmups=0
    )
    assert ev.verdict is Verdict.PASS, ev.report()
