"""A launch binds only the variables its entry point statically uses (the entry point's
function and every function it calls, WGSL's "statically accessed"), as a WebGPU host
that makes each entry point's pipeline with ``layout: "auto"``, or with a layout of its
own, binds them: a module of several entry points may hold one buffer in one entry
point's variable and, meanwhile, in another's; a variable none of a kernel's entry
points uses needs no declaration. tests/test_wild_round53.py has kishimisu's radix sort
joined into one module."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, Dispatch, KernelSpec
from forge.errors import InvalidArgument
from forge.sources import wgsl_static_uses, wgsl_unused_bindings
from oracle import Session
from oracle.pytest_plugin import require_available

pytestmark = pytest.mark.xdist_group("entry_point_bindings")


@pytest.fixture(scope="module")
def session():
    with Session(timeout_s=60) as shared:
        yield shared


# -- what an entry point statically uses --------------------------------------------

_HELPERS = """
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn first() -> u32 { return data[0]; }   // data, two calls down from copy
fn load() -> u32 { return first() + 1u; }
// a parameter named like a variable is not the variable
fn twice(flags: u32) -> u32 { return flags * 2u; }

@compute @workgroup_size(1)
fn mark() { data[0] = 41u; flags[0] = 7u; }

@compute @workgroup_size(1)
fn copy() { out[0] = twice(load()) / 2u; }
"""


def test_an_entry_point_uses_what_it_and_the_functions_it_calls_name():
    assert {"data", "flags"} <= wgsl_static_uses(_HELPERS, "mark")
    copy = wgsl_static_uses(_HELPERS, "copy")
    assert {"out", "data"} <= copy and "flags" not in copy
    assert wgsl_static_uses(_HELPERS, "nowhere") is None
    # copy's pipeline leaves out flags (mark's alone); mark's leaves out out
    assert wgsl_unused_bindings(_HELPERS, "copy") == {(0, 1)}
    assert wgsl_unused_bindings(_HELPERS, "mark") == {(0, 2)}
    # a module of one entry point binds every variable, used or not
    single = _HELPERS.replace("@compute @workgroup_size(1)\nfn copy", "fn copy")
    assert wgsl_unused_bindings(single, "mark") == frozenset()


def _helper_kernel() -> KernelSpec:
    # copy's `out` holds flags, which mark wrote: flags bound once in each launch
    return KernelSpec(
        id="entry_helper_reads",
        entry_point="mark",
        sources={"wgsl": _HELPERS},
        buffers=(
            BufferSpec(0, "u32", "read_write", name="data", count=1),
            BufferSpec(1, "u32", "read_write", name="flags", count=1),
            # the binding of `out`, which copy moves: its own buffer, never used
            BufferSpec(2, "u32", "read_write", name="spare", count=1, scratch=True),
        ),
        reference=lambda data, flags, spare: {"data": np.array([41], np.uint32), "flags": [42]},
        launches=(
            Dispatch("mark", grid=(1, 1, 1)),
            Dispatch("copy", grid=(1, 1, 1), bindings={"out": "flags"}),
        ),
        test_sizes=(1,),
    )


def test_a_buffer_is_refused_only_where_one_entry_point_binds_it_twice():
    kernel = _helper_kernel()
    # flags moved into copy's `out`, where copy leaves `flags` out: bound once
    steps = kernel.steps("wgsl", kernel.schedules[0], 1, source=_HELPERS)
    assert steps[1].bindings == (0, 1, 1)
    # mark uses both of its variables: holding one buffer in both is refused
    wrong = Dispatch("mark", grid=(1, 1, 1), bindings={"flags": "data"})
    with pytest.raises(InvalidArgument, match="binds buffer data to data and flags"):
        KernelSpec(
            id="entry_helper_twice",
            entry_point="mark",
            sources={"wgsl": _HELPERS},
            buffers=kernel.buffers,
            reference=kernel.reference,
            launches=(wrong,),
        )


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_an_entry_point_that_uses_a_variable_through_helpers_binds_it(request, session, backend):
    require_available(request.config, backend)
    ev = oracle.evaluate(session.runner(backend), _helper_kernel(), size=1, samples=0)
    assert ev.passed, ev.report()


# -- a ping-pong through one module's variables ---------------------------------------

_CHAIN = """
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&dst)) { dst[gid.x] = 2.0 * src[gid.x]; }
}

@compute @workgroup_size(64)
fn shift(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&out)) { out[gid.x] = src[gid.x] + 1.0; }
}
"""


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_buffer_is_one_entry_points_dst_and_the_next_ones_src(request, session, backend):
    # mid is scale's dst and then shift's src, read-only there: the host binds it once
    # in each launch (shift's pipeline has no dst), through a buffer of its own where
    # it is read-only (the views of writable buffers share one slab)
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="entry_chain",
        entry_point="scale",
        sources={"wgsl": _CHAIN},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="mid", scratch=True),
            BufferSpec(2, "f32", "read_write", name="y"),
        ),
        reference=lambda x, **_: {"y": 2.0 * x + 1.0},
        launches=(Dispatch("scale"), Dispatch("shift", bindings={"src": "mid"})),
        test_sizes=(100,),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=100, samples=0)
    assert ev.passed, ev.report()


# -- declared, never used, left unbound -----------------------------------------------

_UNUSED = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
// a debug buffer, a sampler and a texture the host never binds: no entry point uses them
@group(0) @binding(5) var<storage, read_write> debug: array<u32>;
@group(0) @binding(6) var samp: sampler;
@group(0) @binding(7) var image: texture_2d<f32>;

@compute @workgroup_size(64)
fn negate(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = -x[gid.x]; }
}
"""


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_variable_no_entry_point_uses_needs_no_declaration(request, session, backend):
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="entry_unused_left_unbound",
        entry_point="negate",
        sources={"wgsl": _UNUSED},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x, **_: -x,
        test_sizes=(70,),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=70, samples=0)
    assert ev.passed, ev.report()


_UNDECLARED = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(2) @binding(3) var<storage, read> bias: array<f32>;

@compute @workgroup_size(64)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x]; }
}

@compute @workgroup_size(64)
fn add(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = y[gid.x] + bias[0]; }
}
"""


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_variable_a_launched_entry_point_uses_is_named_with_it(request, session, backend):
    # copy leaves bias alone; add, the second launch, uses it: the error says which
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="entry_undeclared",
        entry_point="copy",
        sources={"wgsl": _UNDECLARED},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x, y: x,
        launches=(Dispatch("copy"), Dispatch("add")),
        test_sizes=(64,),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=64, samples=0)
    assert ev.error_type == "CompileError", ev.report()
    assert "(entry point add): the WGSL's `bias` (@group(2) @binding(3)" in ev.error, ev.error
    assert "declare BufferSpec(3, ..., 'read', name='bias', group=2)" in ev.error, ev.error
