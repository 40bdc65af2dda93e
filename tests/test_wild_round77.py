"""What round 77 of the wild kernels (tests/wild/round77.py: raft's weak_cc label
propagation and expanded L2 distance, a cuGraph-style BFS level and PageRank push, and
FAISS's l2NormRowMajor, each CUDA kernel with a WebGPU port of ours) showed of the
oracle, pinned.

Every original passes on the reference, lavapipe and SwiftShader (``KFORGE_SLOW_TESTS=1``
for every size on both), every WGSL mutant fails on both, each CUDA mutant's twin in its
port among them, and every CUDA original and mutant compiles with NVRTC for sm_90 with
each launch's arguments the sizes its PTX declares.

Findings, three closed, one pinned:

- A kernel that could not be declared: raft (and cuML, cuVS, cuGraph, which build on
  it) declares every kernel ``RAFT_KERNEL name(...)``, ``#define RAFT_KERNEL __global__
  static void`` in ``raft/core/detail/macros.hpp``. The declaration reader looked for
  ``__global__`` only: "the source declares no __global__ function named
  'weak_cc_init_all_kernel'", unless ``arguments=`` listed every parameter. An
  object-like macro standing for ``__global__`` is now read as it, defined in the source
  or in a header the source includes from the kernel's ``include_dirs``
  (``forge.sources``).
- An output with many right answers that could not be declared: a BFS's predecessor is
  whichever neighbour one level up claimed the vertex first (cuGraph's ``atomicOr`` on
  the visited bitmap). ``unordered=`` naming an input accepts an index of an equal value
  once a row, and a vertex is the parent of many; ``labels`` renames groups. The right
  port failed on lavapipe (277 of 3000 predecessors: its threads stride over the
  vertices, and a larger vertex may claim first). ``BufferSpec(equally_right=rule)``
  now gives the judge the spec's rule (here: a neighbour one level nearer by the
  reference's levels), each accepted element shown as the reference's and counted in a
  note; the mutant whose predecessor is the vertex itself still fails.
- A kernel that could not be declared: FAISS passes ``faiss::gpu::Tensor<T, Dim,
  InnerContig, IndexT>`` by value to every GPU kernel (the data pointer, the strides,
  then the sizes). The launch gave it the buffer's pointer, which the check against the
  PTX refused ("is 24 bytes (its PTX declares), but the launch passes buffer input
  (pointer) of 8 bytes"), with a hint to rename parameters. A FAISS tensor (the type
  qualified by FAISS's namespace, or the source including FAISS's tensor header) is now
  packed as FAISS lays it out, as PyTorch's accessors are (round 75).
- Pinned (strict xfail): raft's expanded L2 distance, sqrt(|x|^2 + |y|^2 - 2 x.y),
  clamped, is judged right against a reference written as raft's formula, whose three
  sums the oracle bounds as float32 sums of their terms and carries through the
  cancellation and the root; against the distance written plainly, sum((x - y)^2),
  whose terms do not cancel, the right kernel fails at near neighbours (25 of 8000 at
  M=80, N=100, K=70: 0.0034 for 0.00047). The oracle cannot know that a kernel may sum
  a polynomial's monomials apart.

Seen and left as it is: PageRank's ranks of about 1/n are judged with float32's default
``atol`` of 1e-6, 0.5% of a rank at n = 5000 (every mutant here is off by far more).

For the GPU run to confirm: tests/wild/round77.py's docstring.
"""

from __future__ import annotations

import numpy as np
import pytest

from forge import BufferSpec, KernelSpec, Schedule
from forge.sources import cuda_parameters, cuda_parameters_problem
from tests._nvrtc_build import nvrtc_build
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401
from tests.wild import CORPUS

_CC = "wild_r77_raft_weak_cc_label_propagation"


def _compile(kernel: KernelSpec):
    return nvrtc_build(kernel)[0]


# -- kernels declared through raft's RAFT_KERNEL ---------------------------------------------
_SCALE = (
    "RAFT_KERNEL scale(float* y, const float* x, int n, float alpha)\n"
    "{\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = alpha * x[i];\n}\n"
)


def _scale_kernel(source: str, include_dirs=()) -> KernelSpec:
    return KernelSpec(
        id="raft_kernel_macro",
        entry_point="scale",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="y"),
            BufferSpec(1, "f32", "read", name="x"),
        ),
        reference=lambda y, x: None,
        defaults={"alpha": 2.0},
        grid=lambda schedule, n: ((n + 127) // 128, 1, 1),
        schedules=(Schedule(128),),
        include_dirs=tuple(include_dirs),
        test_sizes=(300,),
    )


def test_a_kernel_declared_through_a_macro_of_the_source_is_read():
    """Gap closed: raft, cuML, cuVS and cuGraph declare every kernel ``RAFT_KERNEL
    name(...)`` (``#define RAFT_KERNEL __global__ static void``); the declaration reader
    looked for ``__global__`` only, and refused the kernel ("the source declares no
    __global__ function named ...") unless ``arguments=`` listed every parameter."""
    source = "#define RAFT_KERNEL __global__ static void\n" + _SCALE
    params = cuda_parameters(source, "scale")
    assert params is not None, cuda_parameters_problem(source, "scale")
    assert [(p.name, p.pointer) for p in params] == [
        ("y", True),
        ("x", True),
        ("n", False),
        ("alpha", False),
    ]
    steps = _compile(_scale_kernel(source))
    assert [a for a, _ in steps[0].arguments] == ["buffer", "buffer", "value", "value"]


def test_a_kernel_declared_through_a_macro_of_an_included_header_is_read(tmp_path):
    """The macro where raft keeps it, in a header (``raft/core/detail/macros.hpp``)
    that the kernel's include paths hold, included through another header of theirs:
    read there, and the source's own text is what NVRTC compiles."""
    (tmp_path / "raft" / "core" / "detail").mkdir(parents=True)
    (tmp_path / "raft" / "core" / "detail" / "macros.hpp").write_text(
        "#pragma once\n#define RAFT_KERNEL __global__ static void\n"
    )
    (tmp_path / "raft" / "util.cuh").write_text(
        "#pragma once\n#include <raft/core/detail/macros.hpp>\n"
    )
    source = "#include <raft/util.cuh>\n" + _SCALE
    assert cuda_parameters(source, "scale") is None  # without the include paths
    params = cuda_parameters(source, "scale", (str(tmp_path),))
    assert params is not None and [p.name for p in params] == ["y", "x", "n", "alpha"]
    steps = _compile(_scale_kernel(source, (str(tmp_path),)))
    assert [a for a, _ in steps[0].arguments] == ["buffer", "buffer", "value", "value"]


def test_raft_weak_cc_is_read_through_its_headers_macro():
    """The entry as raft writes it: ``RAFT_KERNEL weak_cc_label_device(...)`` with the
    macro in tests/wild/round77_include's stand-in for raft's macros header; the
    functor ``filter_op`` by value is its one byte, the scalars by name."""
    kernel = CORPUS[_CC].kernel
    size = kernel.largest_size()
    steps = kernel.steps("cuda", kernel.schedules[0], size)
    init, step = steps[0].arguments, steps[1].arguments
    assert [a for a, _ in step] == ["buffer"] * 3 + ["value", "buffer"] + ["value"] * 4
    assert step[-1] == ("value", ("filter_op", b"\0"))
    assert [a for a, _ in init] == ["buffer", "value", "value", "value"]
    _compile(kernel)


# -- the drawn graphs converge within the launches -------------------------------------------
@pytest.mark.parametrize("text", CORPUS[_CC].kernel.test_sizes)
def test_the_drawn_graphs_converge_well_within_the_label_launches(text):
    """Why the entry's fixed launches stand for raft's host loop (``do { ... } while
    (host_m)``): a launch moves each label along every edge at least as far as one
    synchronous step of push and pull does (its reads only see labels as small or
    smaller), and on every drawn graph the synchronous steps end before the launches
    do, so every schedule's run ends converged, at the components' smallest ids."""
    from tests.wild.round77 import _CC_ITERATIONS, _cc_graph

    kernel = CORPUS[_CC].kernel
    size = kernel.size(text)
    n, e = int(size.N), int(size.E)
    row_ind, row_ind_ptr, comp = _cc_graph(n, e)
    assert len(row_ind_ptr) == e and row_ind[0] == 0 and np.all(np.diff(row_ind) >= 0)
    src = np.repeat(np.arange(n), np.diff(np.append(row_ind.astype(np.int64), e)))
    dst = row_ind_ptr.astype(np.int64)
    labels, steps = np.arange(1, n + 1), 0
    while True:
        new = labels.copy()
        np.minimum.at(new, dst, labels[src])
        np.minimum.at(new, src, labels[dst])
        if np.array_equal(new, labels):
            break
        labels, steps = new, steps + 1
    assert steps + 2 <= _CC_ITERATIONS
    smallest = {c: int(np.flatnonzero(comp == c).min()) + 1 for c in np.unique(comp)}
    assert np.array_equal(labels, [smallest[c] for c in comp])
    # the last vertex joins its component through its own row's last edge alone
    if n > 1:
        assert src[-1] == n - 1 and labels[-1] < n and np.count_nonzero(dst == n - 1) == 0


# -- the expanded L2 distance: what the oracle needs to see of the kernel's sums --------------
_L2 = "wild_r77_raft_l2_expanded_distance_port"


def _plain_distance(x, y, _xn, _yn, dOutput, params=None):
    """The distance as the mathematics writes it, sqrt(sum((x_i - y_j)^2)) in float64:
    the same function as the entry's reference, without the sums raft makes."""
    a, b = x.astype(np.float64), y.astype(np.float64)
    _xn[:] = (a * a).sum(axis=1)
    _yn[:] = (b * b).sum(axis=1)
    dOutput[:] = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))


def _l2_evaluate(request, reference):
    import dataclasses

    import forge
    import oracle
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    kernel = dataclasses.replace(
        CORPUS[_L2].kernel, id=f"{_L2}__{reference.__name__}", reference=reference
    )
    with forge.open_context("wgpu") as ctx:
        return oracle.evaluate(ctx, kernel, size=kernel.test_sizes[0], samples=0)


def test_the_expanded_distance_passes_where_its_near_neighbours_cancel(request):
    """The entry's own reference, raft's formula in float64: the near neighbours'
    distances, where float32's expansion keeps a few bits (got 0.0034 for 0.00047, and
    0 for 0.00052 where the square cancelled below 0, at M=80, N=100, K=70), are
    accepted within the bound of the three float32 sums carried through the
    cancellation, the clamp and the root."""
    from tests.wild.round77 import _l2_reference

    ev = _l2_evaluate(request, _l2_reference)
    assert ev.passed, ev.report()
    assert "within the rounding bound of a correct float computation" in ev.report()


@pytest.mark.xfail(
    strict=True,
    reason=(
        "the oracle bounds a float32 kernel's error by the sums the reference makes: "
        "against sum((x - y)^2) its terms are the squared differences, which do not "
        "cancel, and nothing says that a kernel may sum x^2, y^2 and x.y apart, so the "
        "expansion's cancellation at near neighbours (an error of up to growth * u * "
        "sum((|x| + |y|)^2) in the square, carried through the root) is a mismatch in "
        "25 of 8000 distances at M=80, N=100, K=70; bounding every algebraically "
        "equal evaluation of a polynomial, rooted, is beyond its analyses. A "
        "reference written as the library's formula (the entry's) is judged right"
    ),
)
def test_the_expanded_distance_against_the_distance_written_plainly(request):
    ev = _l2_evaluate(request, _plain_distance)
    assert ev.passed, ev.report()


# -- a BFS's predecessors: many right answers, declared ---------------------------------------
_BFS = "wild_r77_cugraph_style_bfs_predecessors_port"


def _bfs_evaluate(request, kernel):
    import forge
    import oracle
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    with forge.open_context("wgpu") as ctx:
        return oracle.evaluate(ctx, kernel, size=kernel.test_sizes[0], samples=0)


def test_a_bfs_whose_parents_are_other_right_ones_fails_without_a_declaration(request):
    """The gap: a BFS's predecessor is whichever neighbour one level up claimed the
    vertex first (cuGraph's atomicOr on the visited bitmap), and no ``unordered=`` or
    ``labels`` says "any neighbour one level up": ``unordered`` naming an input accepts
    an index of an equal value, once a row, and a vertex is the parent of many. Without
    ``equally_right`` the right port fails on lavapipe (277 of 3000 predecessors at
    N=3000: its threads stride over the vertices, so a larger vertex may claim first)."""
    import dataclasses

    from tests.wild.round77 import _bfs_spec

    strict = _bfs_spec("wgsl", equally_right=None)
    ev = _bfs_evaluate(request, dataclasses.replace(strict, id=f"{strict.id}__strict"))
    assert not ev.passed
    assert ev.outputs["distances"].passed and not ev.outputs["predecessors"].passed, ev.report()


def test_a_bfs_whose_parents_are_other_right_ones_passes_declared(request):
    """Gap closed: ``BufferSpec(equally_right=rule)`` gives the judge a rule for the
    kernel's other right values (here: a neighbour of the vertex one level nearer the
    source, by the reference's levels); the elements it accepts are shown as the
    reference's and counted in a note, every other one judged as before."""
    ev = _bfs_evaluate(request, CORPUS[_BFS].kernel)
    assert ev.passed, ev.report()
    note = next(n for n in ev.notes if "equally_right=" in n)
    assert int(note.split(": ")[1].split(" of ")[0]) > 0, note


def test_the_bfs_rule_takes_neighbours_one_level_up_only():
    """The declaration accepts no more than it says: not the vertex itself, not a
    neighbour at the same level, not an edge's wrong end, not -1 for a reached vertex,
    not the oracle's poison; and -1 only where the reference has it."""
    from tests.wild.round77 import _bfs_equally_right

    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 1 -> 2, 3 -> 1; vertex 4 unreached
    row_ptr = np.array([0, 2, 4, 5, 6, 6])
    col_ind = np.array([1, 2, 2, 3, 3, 1])
    distances = np.array([0, 1, 1, 2, 2**31 - 1])
    want = np.array([-1, 0, 0, 1, -1])
    arrays = {"row_ptr": row_ptr, "col_ind": col_ind, "distances": distances}
    ok = _bfs_equally_right
    other = np.array([-1, 0, 0, 2, -1])  # 3's other parent one level up
    assert ok(other, want, arrays)[other != want].tolist() == [True]
    for wrong in ([-1, 0, 1, 1, -1], [-1, 0, 0, 3, -1], [-1, 3, 0, 1, -1], [-1, 0, 0, -1, -1]):
        assert not ok(np.array(wrong), want, arrays)[np.array(wrong) != want].any(), wrong
    poison = np.array([-1, 0, 0, 0x7FC00000, -1])
    assert not ok(poison, want, arrays)[3]


def test_equally_right_is_for_outputs_of_scalars_only():
    from forge.errors import InvalidArgument

    def rule(got, want, arrays):
        return got == want

    BufferSpec(0, "i32", "read_write", name="p", equally_right=rule)
    for bad in (
        {"access": "read"},
        {"access": "read_write", "scratch": True},
        {"access": "read_write", "unordered": True},
        {"access": "read_write", "labels": True},
    ):
        with pytest.raises(InvalidArgument, match="equally_right"):
            BufferSpec(0, "i32", name="p", equally_right=rule, **bad)
    with pytest.raises(InvalidArgument, match="equally_right"):
        BufferSpec(0, "i32", "read_write", name="p", equally_right=3)


# -- FAISS's tensors by value ------------------------------------------------------------------
_NORM = "wild_r77_faiss_l2_norm_row_major_tensors"


def test_faiss_tensors_are_read_by_namespace_or_faiss_header():
    """Gap closed: every FAISS GPU kernel takes ``faiss::gpu::Tensor<T, Dim, InnerContig,
    IndexT>`` by value (its data pointer, its strides, then its sizes); the launch gave
    it the buffer's pointer, which the check against the PTX refused ("is 24 bytes (its
    PTX declares), but the launch passes buffer input (pointer) of 8 bytes"), with a
    hint to rename the parameters. It is read as a FAISS tensor where the type names
    FAISS's namespace or the source includes FAISS's tensor header; a bare ``Tensor<>``
    elsewhere is another project's and stays unread."""
    from forge.arguments import FAISS_TENSOR, accessor_type

    header = "#include <faiss/gpu/utils/Tensor.cuh>\n"
    assert accessor_type("Tensor<float, 2, true, int>", header) == (2, 4, FAISS_TENSOR)
    assert accessor_type("faiss::gpu::Tensor<float, 1, true>") == (1, 8, FAISS_TENSOR)
    assert accessor_type("Tensor<float, 3, true, int64_t>", header) == (3, 8, FAISS_TENSOR)
    assert accessor_type("Tensor<float, 2, true, int>", "struct Tensor {};") is None
    # PyTorch's accessors as before
    assert accessor_type("at::PackedTensorAccessor32<float, 2>") == (2, 4)


def test_a_faiss_tensor_is_packed_strides_first():
    """FAISS's ``Tensor`` holds ``data_``, ``stride_[Dim]``, ``size_[Dim]`` in that order,
    where PyTorch's accessor holds its sizes before its strides."""
    from forge.arguments import FAISS_TENSOR, accessor_bytes

    raw = accessor_bytes(0x1000, (37, 1030), 4, (FAISS_TENSOR,))
    assert raw[:8] == (0x1000).to_bytes(8, "little")
    assert np.frombuffer(raw[8:24], "<i4").tolist() == [1030, 1, 37, 1030]
    torch = accessor_bytes(0x1000, (37, 1030), 4)
    assert np.frombuffer(torch[8:24], "<i4").tolist() == [37, 1030, 1030, 1]


def test_faiss_l2_norm_takes_its_buffers_as_faiss_tensors():
    """The entry as FAISS writes it, against tests/wild/round77_include's stand-ins for
    FAISS's headers: both tensors from their buffers (the input 37 x 1030, the output
    37), with FAISS's 64-bit ``idx_t`` indices, 40 and 24 bytes, which the PTX's
    parameters declare."""
    kernel = CORPUS[_NORM].kernel
    ((step),) = kernel.steps("cuda", kernel.schedules[0], kernel.largest_size())
    assert step.arguments == (("accessor", (0, 2, 8, "faiss")), ("accessor", (1, 1, 8, "faiss")))
    _compile(kernel)


def _simulated_l2_norm(args, grid, block):
    """FAISS's l2NormRowMajor on the simulated driver (tests/test_cuda_fake_driver.py),
    reading its two tensors as FAISS lays them out: the pointer, the strides, the
    sizes; each block's RowTileSize rows summed in float32."""
    from tests.test_cuda_fake_driver import device_array, ptr

    in_stride, in_size = np.frombuffer(args[0][8:40], "<i8").reshape(2, 2)
    out_stride, out_size = np.frombuffer(args[1][8:24], "<i8")
    rows, dim = int(in_size[0]), int(in_size[1])
    x = device_array(ptr(args[0]), rows * int(in_stride[0]), np.float32)
    out = device_array(ptr(args[1]), int(out_size) * int(out_stride), np.float32)
    for b in range(grid[0]):
        for r in range(8 * b, min(8 * b + 8, rows)):
            row = x[r * int(in_stride[0]) : r * int(in_stride[0]) + dim * int(in_stride[1])]
            out[r * int(out_stride)] = np.float32((row.astype(np.float32) ** 2).sum())


def test_the_backend_packs_faiss_tensors_as_faiss_reads_them(fake_driver):  # noqa: F811
    """On the simulated driver, the FAISS entry's launch reads its tensors' strides and
    sizes from the bytes the backend packed, and passes; the same bytes read in
    PyTorch's order (sizes first) would take 1030 rows of stride 37."""
    import oracle
    from backends.cuda import CudaComputeContext
    from backends.cuda._modules import module_build

    kernel = CORPUS[_NORM].kernel
    schedule, size = kernel.schedules[0], kernel.size(kernel.test_sizes[0])
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    _, names, _ = module_build(kernel, steps, source, "sm_90").build()
    lowered = names[kernel.entry_point] if isinstance(names, dict) else None
    assert lowered, names
    fake_driver.kernels[lowered] = (_simulated_l2_norm, (40, 24))
    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, kernel, size=size, seed=0, samples=0)
    assert ev.passed, ev.report()


# -- each CUDA mutant's bug, in the port ----------------------------------------------------
_PAIRS = [
    (name, name + "_port")
    for name in CORPUS
    if name.startswith("wild_r77_") and name + "_port" in CORPUS
] + [("wild_r77_faiss_l2_norm_row_major_tensors", "wild_r77_faiss_l2_norm_row_major_port")]


def test_every_cuda_mutant_has_its_twin_in_the_port():
    """The CPU adapters cannot run CUDA: each CUDA mutant of the round has the same bug,
    under the same name, written into its WebGPU port, whose failure on lavapipe and
    SwiftShader tests/test_wild_kernels.py asserts (the GPU run must see the CUDA ones
    fail too)."""
    assert len(_PAIRS) == 5
    for cuda, port in _PAIRS:
        theirs = {m for m, (t, _, _) in CORPUS[cuda].mutants.items() if t == "cuda"}
        ours = {m for m, (t, _, _) in CORPUS[port].mutants.items() if t == "wgsl"}
        assert theirs and theirs == ours, (cuda, theirs ^ ours)
