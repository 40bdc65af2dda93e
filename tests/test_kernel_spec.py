"""KernelSpec and BufferSpec: layout, uniforms, argument checks, hashing."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

from forge import (
    Access,
    BindingUsage,
    BufferSpec,
    BufferView,
    InvalidArgument,
    KernelSpec,
    Schedule,
    UnsupportedFeature,
    ceil_div,
    get_kernel,
)


def _kernel(**changes) -> KernelSpec:
    spec = dict(
        id="k",
        entry_point="k",
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", count=lambda n: 2 * n),
            BufferSpec.uniform(2, (("scale", "f32"), ("step", "f64"), ("n", "u32"))),
        ),
        sources={"wgsl": "@workgroup_size(${wg_x}) fn ${entry}() {} // $$ ${other}"},
        reference=lambda x, y, p: None,
        params=lambda n: {"n": n},
        defaults={"scale": 1.5, "step": 0.25},
    )
    spec.update(changes)
    return KernelSpec(**spec)


def test_buffers_are_kept_in_group_then_binding_order():
    k = _kernel(buffers=(BufferSpec(1, group=1), BufferSpec(3), BufferSpec(0, group=1)))
    assert [(b.group, b.binding) for b in k.buffers] == [(0, 3), (1, 0), (1, 1)]


def test_uniform_record_uses_natural_alignment_padded_to_16_bytes():
    dtype = _kernel().uniform.record_dtype
    assert [dtype.fields[n][1] for n in ("scale", "step", "n")] == [0, 8, 16]
    assert dtype.itemsize == 32


def test_pack_uniform_merges_defaults_derived_fields_and_values():
    record = _kernel().pack_uniform(10, scale=3.0)
    assert record["scale"][0] == 3.0 and record["step"][0] == 0.25 and record["n"][0] == 10
    with pytest.raises(InvalidArgument, match="unknown uniform fields"):
        _kernel().pack_uniform(10, bogus=1)
    with pytest.raises(InvalidArgument, match="have no value"):
        _kernel(defaults={}).pack_uniform(10)


def test_element_counts_follow_the_problem_size():
    k = _kernel()
    assert [b.byte_size(10) for b in k.buffers] == [40, 80, 32]


def test_source_templates_substitute_the_schedule_and_leave_other_dollars_alone():
    text = _kernel().source("wgsl", Schedule(128))
    assert text == "@workgroup_size(128) fn k() {} // $$ ${other}"
    with pytest.raises(UnsupportedFeature, match="no cuda source"):
        _kernel().source("cuda", Schedule())


def _views(k, size, **override):
    views = [
        BufferView(0, b.byte_size(size), b.binding, b.group, b.access.default_usage)
        for b in k.buffers
    ]
    for index, view in override.items():
        views[int(index[1:])] = view
    return views


def test_check_buffers_accepts_matching_views():
    k = _kernel()
    k.check_buffers(_views(k, 10), 10)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"b0": BufferView(0, 40, 5)}, "binding 0, but the view is at group 0 binding 5"),
        ({"b1": BufferView(0, 80, 1, 0, BindingUsage.STORAGE_READ)}, "cannot be bound there"),
        ({"b1": BufferView(0, 79, 1, 0, BindingUsage.STORAGE_READ_WRITE)}, "needs 80 bytes"),
        ({"b2": BufferView(0, 32, 2, 0, BindingUsage.STORAGE_READ)}, "cannot be bound there"),
    ],
)
def test_check_buffers_names_the_mismatch(override, message):
    k = _kernel()
    with pytest.raises(InvalidArgument, match=message):
        k.check_buffers(_views(k, 10, **override), 10)


def test_check_buffers_counts_views():
    k = _kernel()
    with pytest.raises(InvalidArgument, match="binds 3 buffers, got 2"):
        k.check_buffers(_views(k, 10)[:2], 10)


def test_resident_views_may_be_bound_as_read_only_storage():
    assert Access.READ.accepts(BindingUsage.STORAGE_READ_RESIDENT)
    assert not Access.READ_WRITE.accepts(BindingUsage.STORAGE_READ_RESIDENT)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"buffers": (BufferSpec(0), BufferSpec(0))}, "share a"),
        ({"sources": {"metal": ""}}, "unknown targets"),
        ({"entry_point": "not an identifier"}, "identifier"),
    ],
)
def test_malformed_kernels_are_refused(changes, message):
    with pytest.raises(InvalidArgument, match=message):
        _kernel(**changes)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"element": "f8"}, "unknown type 'f8'"),
        ({"access": "write"}, "access must be one of"),
        ({"access": "uniform"}, "needs named scalar fields"),
    ],
)
def test_malformed_buffers_are_refused(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        BufferSpec(0, **kwargs)


def test_semantic_hash_changes_with_meaning_and_not_with_process():
    k = get_kernel("raw_affine")
    assert k.semantic_hash != _kernel().semantic_hash
    code = "import forge; print(forge.get_kernel('raw_affine').semantic_hash)"
    hashes = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert hashes == {k.semantic_hash}


def test_reference_runs_in_place():
    k = get_kernel("raw_affine")
    x = np.arange(4, dtype=np.float32)
    y = np.zeros(4, np.float32)
    k.run_reference([x, y, k.pack_uniform(4, a=3.0, b=1.0)[0]])
    assert y.tolist() == [1.0, 4.0, 7.0, 10.0]


def test_kernels_that_differ_only_in_their_numpy_function_differ_in_hash_and_run():
    import forge as _forge

    def halve(x, y, p):
        y[:] = x / 2

    def double(x, y, p):
        y[:] = x * 2

    base = _forge.get_kernel("demo_square")
    kernels = [
        KernelSpec(
            id="same", entry_point="same", buffers=base.buffers, reference=fn, params=base.params
        )
        for fn in (halve, double)
    ]
    assert kernels[0].semantic_hash != kernels[1].semantic_hash
    with _forge.open_context("reference") as ctx:
        x = np.full(8, 4.0, np.float32)
        results = []
        for kernel in kernels:
            views = [
                ctx.allocate_and_write(x, 0),
                ctx.allocate_transient(32, 1, usage=BindingUsage.STORAGE_READ_WRITE),
                ctx.allocate_and_write(kernel.pack_uniform(8), 2, usage=BindingUsage.UNIFORM),
            ]
            ctx.run_kernel(kernel, Schedule(), views, 8)
            results.append(ctx.read_buffer_f32(views[1])[0])
    assert results == [2.0, 8.0]


def test_a_frozen_kernel_carries_its_rendered_source_and_entry_point_and_pickles():
    import pickle

    from tests.wild import CORPUS

    kernel = CORPUS["wild_scale"].kernel
    frozen = kernel.frozen("cuda", Schedule(128), 1000)
    assert frozen.entry_point == "scale_kernel<float, 128>" and not frozen.template
    assert frozen.sources["cuda"] == kernel.source("cuda", Schedule(128), 1000)
    again = pickle.loads(pickle.dumps(frozen))
    assert again.steps("cuda", Schedule(128), 1000, 2**31 - 1) == kernel.steps(
        "cuda", Schedule(128), 1000, 2**31 - 1
    )


def test_a_uniform_field_named_like_a_dimension_holds_it_when_nothing_else_gives_it():
    """``struct Params { n: u32 }`` is the problem size people mean; params and
    defaults still win, and a field nothing names is an error that says how to give it."""
    kernel = KernelSpec(
        id="u",
        entry_point="main",
        sources={},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="y", count="rows*cols"),
            BufferSpec.uniform(1, (("rows", "u32"), ("cols", "u32"), ("scale", "f32"))),
        ),
        defaults={"scale": 2.0, "cols": 9},
    )
    record = kernel.pack_uniform(kernel.size("3x70"))
    assert (int(record["rows"][0]), int(record["cols"][0]), float(record["scale"][0])) == (
        3,
        9,
        2.0,
    )
    bare = dataclasses.replace(kernel, defaults={})
    with pytest.raises(InvalidArgument, match=r"\['scale'\] have no value; give them defaults"):
        bare.pack_uniform(bare.size("3x70"))


_OVERRIDE_N = """
override n: u32;
override scale: f32 = 2.0;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < n) { y[id.x] = scale * x[id.x]; }
}
"""


def test_an_override_without_a_value_named_like_a_dimension_holds_it(request):
    """``override n: u32;`` is the problem size people mean; an override with its own
    initializer keeps it, and the kernel's ``overrides`` still win."""
    from oracle.pytest_plugin import require_available

    kernel = KernelSpec(
        id="override_n",
        entry_point="main",
        sources={"wgsl": _OVERRIDE_N},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x, y: 2 * x,
        template=False,
    )
    (step,) = kernel.steps("wgsl", Schedule(64), kernel.size(1001))
    assert step.overrides == (("n", 1001),)
    given = dataclasses.replace(kernel, overrides={"n": 7})
    assert given.steps("wgsl", Schedule(64), given.size(1001))[0].overrides == (("n", 7),)
    require_available(request.config, "wgpu")
    import oracle

    for size in (1001, 1, 64):
        ev = oracle.evaluate("wgpu", kernel, size=size, samples=0)
        assert ev.passed, ev.report()


def _with_uniform(reference) -> KernelSpec:
    return KernelSpec(
        id="ref_call",
        entry_point="main",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("n", "u32"),), name="p"),
        ),
        reference=reference,
    )


def _reference_result(kernel: KernelSpec) -> np.ndarray:
    x = np.arange(5, dtype=np.float32)
    arrays = [x, np.full(5, np.nan, np.float32), kernel.pack_uniform(kernel.size(5))]
    kernel.run_reference(arrays, kernel.size(5))
    return arrays[1]


def _keyword_only_out(x, *, y):
    y[:] = 2 * x


def _keyword_only_with_default(a, *, y=None):
    result = 2 * a
    if y is not None:
        y[:] = result
    return result


@pytest.mark.parametrize(
    "reference",
    [
        lambda x, y, p: 2 * x,  # every buffer, in order (as before)
        lambda x, y: 2 * x,  # by name: no uniform taken
        lambda y, x: 2 * x,  # by name, in another order
        lambda y, x, p: 2 * x,  # every parameter names a buffer: by name, not position
        lambda a: 2 * a,  # the inputs alone, the output returned
        _keyword_only_out,  # def ref(x, *, y): the output by keyword only
        _keyword_only_with_default,  # def ref(a, *, y=None): numpy's out= habit
    ],
    ids=[
        "all-in-order",
        "by-name",
        "by-name-reordered",
        "all-by-name",
        "inputs-alone",
        "keyword-only",
        "keyword-only-default",
    ],
)
def test_a_reference_takes_the_buffers_as_its_parameters_ask(reference):
    """People write numpy references that take what they use: the buffers in order, the
    ones they name, or the inputs alone returning the output."""
    assert _reference_result(_with_uniform(reference)).tolist() == [0, 2, 4, 6, 8]


def _two_outputs(reference) -> KernelSpec:
    return KernelSpec(
        id="two_outputs",
        entry_point="main",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec(2, "f32", "read_write", name="z"),
        ),
        reference=reference,
    )


def _run_two_outputs(kernel: KernelSpec) -> tuple[list, list]:
    arrays = [np.arange(3, dtype=np.float32), *(np.full(3, np.nan, np.float32) for _ in "yz")]
    kernel.run_reference(arrays, 3)
    return arrays[1].tolist(), arrays[2].tolist()


def test_a_reference_may_write_some_outputs_in_place_and_return_the_others():
    def in_place_and_returned(x, y, z):
        z[:] = x + 1  # the second output in place...
        return 2 * x  # ...and the first returned

    assert _run_two_outputs(_two_outputs(in_place_and_returned)) == ([0, 2, 4], [1, 2, 3])


def test_too_few_values_returned_name_the_outputs_written_in_place():
    from forge import ReferenceFailed

    def one_of_two(x, y, z):
        return 2 * x

    with pytest.raises(ReferenceFailed, match=r"returned 1 value\(s\), but the kernel has 2"):
        _run_two_outputs(_two_outputs(one_of_two))

    def wrote_both_returned_one(x, y, z):
        y[:], z[:] = x, x
        return 2 * x

    with pytest.raises(ReferenceFailed, match="it wrote y, z in place"):
        _run_two_outputs(_two_outputs(wrote_both_returned_one))

    def wrote_one_returned_two(x, y, z):
        y[:] = x
        return x, x

    kernel = _two_outputs(wrote_one_returned_two)
    arrays = [np.arange(3, dtype=np.float32), *(np.full(3, np.nan, np.float32) for _ in "yz")]
    kernel.run_reference(arrays, 3)  # a value for every output: all are stored
    assert arrays[2].tolist() == [0, 1, 2]


def test_a_reference_whose_parameters_fit_no_call_says_how_it_is_called():
    from forge import ReferenceFailed

    with pytest.raises(ReferenceFailed, match=r"called with the buffers \(x, y, p\)"):
        _reference_result(_with_uniform(lambda a, b, c, d: 2 * a))


# -- text template constants (gpu.cpp's {{precision}}, round 5 of WGSL from the wild) ----
_GPUCPP = """
@group(0) @binding(0) var<storage, read_write> y: array<{{precision}}>;
@compute @workgroup_size({{workgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = {{precision}}({{twice}}); }
"""


def test_a_str_constant_that_is_no_expression_of_known_names_is_filled_in_as_text():
    """gpu.cpp fills ``{{precision}}`` with "f32" and ``{{workgroupSize}}`` with
    "256, 1, 1": text, not expressions (they gave "expression 'f32' names 'f32', which
    is not one of n, size, ..."); "2*wg_x" names only known names and is evaluated."""
    constants = {"precision": "f32", "workgroupSize": "256, 1, 1", "twice": "2*wg_x"}
    kernel = _kernel(
        entry_point="main",
        sources={"wgsl": _GPUCPP},
        buffers=(BufferSpec(0, "f32", "read_write", name="y"),),
        reference=lambda y: None,
        params=None,
        defaults={},
        constants=constants,
    )
    text = kernel.source("wgsl", Schedule(128), 10)
    assert "array<f32>" in text and "@workgroup_size(256, 1, 1)" in text and "f32(256)" in text
    # text that names the shader's own constants is text too; one of the size's
    # dimensions is evaluated once there is a size
    kernel = dataclasses.replace(kernel, constants={**constants, "twice": "TILE * 2u"})
    assert "f32(TILE * 2u)" in kernel.source("wgsl", Schedule(128), 10)
    kernel = dataclasses.replace(kernel, constants={**constants, "twice": "n // 2"})
    assert "f32(5)" in kernel.source("wgsl", Schedule(128), 10)
    with pytest.raises(InvalidArgument, match="needs a problem size"):
        kernel.source("wgsl", Schedule(128))
    # an expression of known names that cannot be evaluated names the constant
    kernel = dataclasses.replace(kernel, constants={**constants, "twice": "wg_x // 0"})
    with pytest.raises(InvalidArgument, match=r"constant twice = 'wg_x // 0'"):
        kernel.source("wgsl", Schedule(128), 10)


# -- @workgroup_size written with module-scope constants and overrides --------------------
_NAMED_WG = """
const WG: u32 = 32u;
const workgroupSizeX = 16u;
const TWICE = WG * 2u;
override BLOCK: u32 = 128;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(SIZE)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    const WG = 3u; // a function's own constant is not the module's
    y[g.x] = 1.0;
}
"""


@pytest.mark.parametrize(
    "size, overrides, declared",
    [
        ("WG", {}, (32, 1, 1)),
        ("workgroupSizeX, 1, 1", {}, (16, 1, 1)),
        ("TWICE, 2u", {}, (64, 2, 1)),
        ("0x40", {}, (64, 1, 1)),
        ("BLOCK", {}, (128, 1, 1)),  # an override's default, where the kernel sets none
        ("BLOCK", {"BLOCK": 256}, (256, 1, 1)),
        ("BLOCK", {"BLOCK": "wg_x"}, None),  # set per schedule: not known here
        ("BLOCK", None, None),  # which overrides the kernel sets is not known
        ("NOWHERE", {}, None),
    ],
)
def test_a_workgroup_size_of_constants_and_override_defaults_is_read(size, overrides, declared):
    from forge.sources import wgsl_workgroup_size

    source = _NAMED_WG.replace("SIZE", size)
    assert wgsl_workgroup_size(source, "main", overrides) == declared


def test_a_kernel_without_schedules_runs_with_its_constant_workgroup_size():
    """TF.js writes ``@workgroup_size(workgroupSizeX, 1, 1)`` over ``const
    workgroupSizeX = 16u;``: the default schedule is that size, as for a literal; an
    override the kernel sets from the schedule leaves the usual default."""
    kernel = _kernel(
        entry_point="main",
        sources={"wgsl": _NAMED_WG.replace("SIZE", "workgroupSizeX, 1, 1")},
        buffers=(BufferSpec(0, "f32", "read_write", name="y"),),
        reference=lambda y: None,
        params=None,
        defaults={},
    )
    assert kernel.schedules[0].workgroup_size == (16, 1, 1)
    block = _NAMED_WG.replace("SIZE", "BLOCK")
    defaulted = dataclasses.replace(kernel, sources={"wgsl": block}, schedules=())
    assert defaulted.schedules[0].workgroup_size == (128, 1, 1)
    set_by_schedule = dataclasses.replace(defaulted, schedules=(), overrides={"BLOCK": "wg_x"})
    assert set_by_schedule.schedules == (Schedule(),)


def test_f16_pairs_stored_in_u32_words_are_found_and_need_no_shader_f16():
    """A shader without ``shader-f16`` keeps halves in u32 words: the words it stores
    ``pack2x16float`` in (directly or through a ``let``) are found, a plain u32 store
    is not; and such a kernel needs no f16 feature even where its buffers are declared
    f16, since WGSL computes in f16 only after ``enable f16;``."""
    from forge.sources import wgsl_packed_f16

    source = """
    @group(0) @binding(0) var<storage, read> x: array<u32>;
    @group(0) @binding(1) var<storage, read_write> y: array<u32>;
    @group(0) @binding(2) var<storage, read_write> z: array<u32>;
    @group(0) @binding(3) var<storage, read_write> counts: array<u32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
        let i = gid.x;
        let h = unpack2x16float(x[i]);
        y[i] = pack2x16float(h * 2.0);
        let packed: u32 = pack2x16float(h);
        z[x[i] & 7u] = packed;  // a store indexed by a load
        counts[i] = x[i] + 1u;  // an integer, not halves
        if (counts[i] == packed) { return; }
    }
    """
    assert wgsl_packed_f16(source) == {"y", "z"}
    assert (
        wgsl_packed_f16(
            source.replace("pack2x16float(h * 2.0)", "1u").replace("= pack2x16float(h)", "= 2u")
        )
        == set()
    )
    halves = KernelSpec(
        id="halves",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f16", "read", name="x"),
            BufferSpec(1, "f16", "read_write", name="y"),
        ),
    )
    assert "f16" not in halves.features("wgsl", source)
    assert "f16" in halves.features("wgsl", "enable f16;\n" + source)
    assert "f16" in halves.features("wgsl")  # emitted from the IR: f16 buffers, f16 code


# -- a kernel that declares no dims means the names its sizes and shapes use -------------
_MATMUL_WGSL = """
struct P { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
@compute @workgroup_size(8, 8)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y; let col = gid.x;
    if (row >= p.M || col >= p.N) { return; }
    var acc = 0.0;
    for (var k = 0u; k < p.K; k++) { acc += A[row * p.K + k] * B[k * p.N + col]; }
    C[row * p.N + col] = acc;
}
"""


def _matmul_without_dims(**extra) -> KernelSpec:
    return KernelSpec(
        id="matmul_without_dims",
        entry_point="matmul",
        sources={"wgsl": _MATMUL_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="A", shape=("M", "K")),
            BufferSpec(1, "f32", "read", name="B", shape=("K", "N")),
            BufferSpec(2, "f32", "read_write", name="C", shape=("M", "N")),
            BufferSpec.uniform(3, (("M", "u32"), ("N", "u32"), ("K", "u32")), name="p"),
        ),
        reference=lambda A, B: A @ B,
        grid=lambda s, d: (ceil_div(d["N"], 8), ceil_div(d["M"], 8), 1),
        **extra,
    )


@pytest.mark.parametrize(
    "extra",
    [{"test_sizes": ({"M": 33, "N": 17, "K": 9},)}, {}],
    ids=["from-the-test-sizes", "from-the-shapes"],
)
def test_a_kernel_without_dims_takes_the_names_its_sizes_or_shapes_use(request, extra):
    """``shape=("M", "K")`` with no ``dims=`` was refused ("does not match the
    dimensions n"), and each buffer held M*N*K elements; the dimensions are now the
    names used, and a shaped buffer holds what its shape holds."""
    from oracle.pytest_plugin import require_available

    kernel = _matmul_without_dims(**extra)
    assert sorted(kernel.dims) == ["K", "M", "N"]
    size = kernel.size({"M": 33, "N": 17, "K": 9})
    assert [b.element_count(size) for b in kernel.buffers[:3]] == [33 * 9, 9 * 17, 33 * 17]
    require_available(request.config, "wgpu")
    import oracle

    ev = oracle.evaluate("wgpu", kernel, size={"M": 33, "N": 17, "K": 9}, samples=0)
    assert ev.passed, ev.report()
    wrong = dataclasses.replace(
        kernel, sources={"wgsl": _MATMUL_WGSL.replace("k < p.K", "k + 1u < p.K")}
    )
    assert oracle.evaluate("wgpu", wrong, size={"M": 33, "N": 17, "K": 9}).failing


def test_shapes_in_terms_of_n_or_given_values_keep_the_one_dimension():
    """``shape=("n // cols", "cols")`` with ``cols`` from ``defaults`` is a 1-D size
    reshaped: no dimensions are read from it."""
    kernel = KernelSpec(
        id="rows_of_n",
        entry_point="main",
        sources={},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", shape=("n // cols", "cols")),
            BufferSpec(1, "f32", "read_write", name="y", shape=("n // cols", "cols")),
            BufferSpec.uniform(2, (("cols", "u32"),)),
        ),
        reference=lambda x: 2 * x,
        defaults={"cols": 8},
    )
    assert kernel.dims == ("n",)
