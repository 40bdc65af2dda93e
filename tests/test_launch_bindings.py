"""Launches that bind a kernel's buffers to other WGSL variables (``Dispatch.bindings``):
a 1-D blur stepped four times, ping-ponging two buffers between the variables ``src``
and ``dst`` as a WebGPU page swaps bind groups, judged against four numpy steps; the
swap forgotten and an off-by-one stencil fail; what cannot be bound is refused by
name."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec, Schedule
from forge.buffers import Access
from forge.errors import InvalidArgument
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available

pytestmark = pytest.mark.xdist_group("launch_bindings")

_BLUR = """
struct Params { n: u32, }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn blur(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = params.n;
    if (i >= n) { return; }
    let left = src[select(i - 1u, 0u, i == 0u)];
    let right = src[min(i + 1u, n - 1u)];
    dst[i] = 0.25 * left + 0.5 * src[i] + 0.25 * right;
}
"""

_STEPS = 4
_FORWARD = Dispatch("blur")  # src holds a, dst holds b: the buffers' own bindings
_BACK = Dispatch("blur", bindings={"src": "b", "dst": "a"})


def _blur(x: np.ndarray) -> np.ndarray:
    left = np.concatenate([x[:1], x[:-1]])
    right = np.concatenate([x[1:], x[-1:]])
    return 0.25 * left + 0.5 * x + 0.25 * right


def _reference(a, b):
    """Four steps from a: the last lands in a, the one before in b."""
    states = [a.astype(np.float64)]
    for _ in range(_STEPS):
        states.append(_blur(states[-1]))
    return {"a": states[-1], "b": states[-2]}


#: a CUDA twin whose pointers are named like the WGSL's variables: they follow the swaps
_CUDA = r"""
__global__ void blur(const float* src, float* dst, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = src[i == 0 ? 0 : i - 1];
    float right = src[min(i + 1, n - 1)];
    dst[i] = 0.25f * left + 0.5f * src[i] + 0.25f * right;
}
"""


def _kernel(
    launches=(_FORWARD, _BACK) * (_STEPS // 2), source=_BLUR, cuda=_CUDA, sources=None
) -> KernelSpec:
    return KernelSpec(
        id="pingpong_blur",
        entry_point="blur",
        sources={"wgsl": source, "cuda": cuda} if sources is None else sources,
        buffers=(
            BufferSpec.uniform(0, (("n", "u32"),)),
            BufferSpec(1, "f32", "read_write", name="a", inout=True, fill=(-1.0, 1.0)),
            BufferSpec(2, "f32", "read_write", name="b"),
        ),
        reference=_reference,
        params=lambda n: {"n": n},
        launches=launches,
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=(65, 200),
    )


#: the swap forgotten: every launch binds a to src and b to dst
_FORGOTTEN = _kernel((Dispatch("blur", bindings={"src": "a", "dst": "b"}),) * _STEPS)
#: the right neighbour read one past the end at the last element
_OFF_BY_ONE = _kernel(
    source=_BLUR.replace("min(i + 1u, n - 1u)", "min(i + 1u, n)"),
    cuda=_CUDA.replace("min(i + 1, n - 1)", "min(i + 1, n)"),
)


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


def test_each_launch_binds_the_buffers_its_bindings_name():
    """No device: the second launch binds b (index 2) at src's binding and a at dst's;
    a and b are bound writable (each is dst once) while the layout keeps what the
    shader declares; a frozen kernel keeps the bindings."""
    kernel = _kernel()
    source = kernel.source("wgsl", Schedule(64), 65)
    steps = kernel.steps("wgsl", Schedule(64), 65)
    assert [s.bindings for s in steps] == [(), (0, 2, 1)] * 2
    assert kernel.access_on("wgsl", source)[1:] == (Access.READ_WRITE,) * 2
    assert kernel.access_on("wgsl", source, slots=True)[1:] == (Access.READ, Access.READ_WRITE)
    frozen = kernel.frozen("wgsl", Schedule(64), 65)
    assert [d.bindings for d in frozen.launches] == [None, {"src": "b", "dst": "a"}] * 2
    assert [s.bindings for s in frozen.steps("wgsl", Schedule(64), 65)] == [(), (0, 2, 1)] * 2


@pytest.mark.parametrize(
    "bindings, message",
    [
        ({"source": "b"}, "'source', which the source does not declare"),
        ({"src": "c"}, "'c', which is no buffer of the kernel"),
        ({"src": "b"}, "binds buffer b to src and dst, and dst is read_write"),
        ({"params": "a"}, "bindings move storage buffers only"),
        ({"src": "params"}, "bindings move storage buffers only"),
    ],
)
def test_bindings_that_cannot_be_bound_are_refused_by_name(bindings, message):
    with pytest.raises(InvalidArgument, match=message):
        _kernel((_FORWARD, Dispatch("blur", bindings=bindings)))


_SUM = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn add(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&out)) { out[g.x] = x[g.x] + y[g.x]; }
}
"""


def test_a_buffer_bound_twice_read_only_is_fine_but_one_never_bound_is_refused():
    """p in both read-only variables is a dispatch WebGPU allows; q, whose own
    variable then holds p in every launch, is bound nowhere, which is refused."""
    kernel = KernelSpec(
        id="doubled",
        entry_point="add",
        sources={"wgsl": _SUM},
        buffers=(
            BufferSpec(0, "f32", "read", name="p"),
            BufferSpec(1, "f32", "read", name="q"),
            BufferSpec(2, "f32", "read_write", name="o"),
        ),
        reference=lambda p, q: p + p,
        launches=(Dispatch("add", bindings={"y": "p"}),),
    )
    assert kernel.steps("wgsl", Schedule(64), 8)[0].bindings == (0, 0, 2)
    with pytest.raises(InvalidArgument, match="no launch binds buffer q"):
        kernel.access_on("wgsl", _SUM)


def test_bindings_of_the_wrong_shape_are_refused():
    with pytest.raises(InvalidArgument, match="map a WGSL variable's name to a buffer's"):
        Dispatch("blur", bindings=[("src", "b")])  # type: ignore[arg-type]


def test_cuda_pointers_named_like_the_wgsl_variables_follow_the_swaps():
    """No GPU: a CUDA twin's ``src`` and ``dst`` take what the WGSL's variables hold in
    each launch (a, b, then b, a), as a frozen kernel's arguments say; without WGSL the
    bindings name the CUDA parameters themselves, and one that names none is refused."""
    a, b, n = ("buffer", 1), ("buffer", 2), ("field", "n")
    for sources in ({"wgsl": _BLUR, "cuda": _CUDA}, {"cuda": _CUDA}):
        kernel = _kernel(sources=sources)
        steps = kernel.steps("cuda", Schedule(64), 65)
        assert [s.arguments for s in steps] == [(a, b, n), (b, a, n)] * 2
        frozen = kernel.frozen("cuda", Schedule(64), 65)
        assert [d.arguments for d in frozen.launches] == [("a", "b", "n"), ("b", "a", "n")] * 2
    cuda_only = _kernel(
        (_FORWARD, Dispatch("blur", bindings={"source": "b"})), sources={"cuda": _CUDA}
    )
    with pytest.raises(InvalidArgument, match=r"binds \['source'\], which name no parameter"):
        cuda_only.steps("cuda", Schedule(64), 65)
    with pytest.raises(InvalidArgument, match=r"binds \['c'\], which name no buffer"):
        _kernel((Dispatch("blur", bindings={"src": "c"}),), sources={"cuda": _CUDA})


def test_the_reference_runs_the_four_steps():
    ev = oracle.evaluate("reference", _kernel(), size=65, seed=0, samples=0)
    assert ev.passed, ev.report()


@pytest.mark.parametrize("backend", ["wgpu", "browser", "cuda"])
def test_a_ping_pong_passes_and_its_mutants_fail(request, session, backend):
    """wgpu (lavapipe) and the browser (SwiftShader): the blur passes, its timed runs
    too (a and b go through buffers of their own, copied in and back around the
    passes); the swap forgotten and the stencil read one past the end mismatch. CUDA
    (on the GPU machine): the twin whose pointers are named like the WGSL's variables
    does the same."""
    require_available(request.config, backend)
    runner = session.runner(backend)
    ev = oracle.evaluate(runner, _kernel(), size=200, seed=0, samples=2)
    assert ev.passed, ev.report()
    for broken in (_FORGOTTEN, _OFF_BY_ONE):
        ev = oracle.evaluate(runner, broken, size=65, seed=0, samples=0)
        assert ev.verdict is Verdict.MISMATCH, ev.report()
