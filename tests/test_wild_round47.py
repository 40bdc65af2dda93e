"""What round 47 (tests/wild/round47.py: CUDA idioms the corpus lacked) showed.

- No false alarm and no missed mutant where they run here: every original passes on
  the reference and, where it has a WebGPU port, on lavapipe and SwiftShader (the
  mma tile's f16 port on lavapipe: SwiftShader has no f16); every WGSL mutant fails;
  every CUDA original and mutant compiles with NVRTC (the ``__dp4a`` and
  ``__ballot_sync`` intrinsics, ``cp.async``/``ldmatrix``/``mma.sync`` inline PTX for
  sm_90, a ``__device__`` counter, ``printf``). The CUDA runs need the GPU.
- A gap in the test harness, fixed: tests/test_wild_kernels.py ran each WGSL mutant on
  one of the two CPU adapters, chosen by a hash of its name, so a third of the corpus's
  f16 mutants were given to SwiftShader, which has no f16, and skipped as unsupported
  there: they ran nowhere. A mutant now goes to the other adapter where the chosen one
  lacks a feature it needs (seven mutants of rounds 1 to 40 ran again: all fail).
- An oracle gap, fixed: a kernel that keeps state in its module (threadFenceReduction's
  ``__device__ unsigned int retirementCount``). The CUDA backend loaded a module once
  a context and launched it for every run, so a kernel that leaves the counter set is
  right on its first launch; in the second no block draws the last ticket (the
  partials are never summed), and from the third on a block draws it early (every
  launch takes gridDim.x tickets of a cycle of gridDim.x + 1), summing partials that
  may not be written yet: a race. The second launch was the rerun of the input set
  holding NaN, whose sum is NaN in element 0 either way, so where the blocks' order
  hid the race the mutant passed (shown on the simulated driver). The oracle now
  loads the module afresh before each judged run of a kernel with a writable
  file-scope ``__device__`` variable no buffer fills (``Plan.fresh_module``,
  ``forge.sources.cuda_module_state``, ``SlabContext.forget_compiled``): each input
  set's rerun is its module's second launch, as in a new program, and the finite
  set's fails. Timed runs (``samples`` > 0) come between the judged run and the rerun,
  so there the rerun is a later launch and only the race shows it. The WebGPU port
  keeps the counter in a buffer, judged to be 0 after.
- A device ``printf`` left in: NVRTC lowers it to ``vprintf``; the driver writes what
  it prints to the process's stdout at the next synchronisation, and the oracle runs
  device code in a worker whose stdout is ``/dev/null``, so the print cannot reach a
  report or the worker's pipes (an in-process CUDA context, ``isolate=False``, prints
  to the caller's stdout, as the CUDA runtime does).

What only the GPU can show: every CUDA run (the originals' values, the CUDA mutants
failing); the three CUDA races (reduction #6 without ``volatile``, and with a
``__syncwarp()`` dropped; where their values pass, compute-sanitizer must find them,
and racecheck may find the classic form's last warp racy too, as it formally is since
Volta); the counter left set failing on the finite set's rerun; the WebGPU port of the
retirement counter on NVIDIA, which leans on ordering WGSL does not promise
(``storageBarrier`` orders a workgroup's own accesses, atomics are relaxed); where the
driver puts ``printf``'s text in a ``--no-isolate`` run (the process's stdout, where
``kforge check --json`` writes).
"""

from __future__ import annotations

import dataclasses
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

import oracle
from forge import BufferSpec
from tests.test_cuda_fake_driver import device_array, fake_driver, ptr, u32  # noqa: F401
from tests.wild import CORPUS, mutant
from tests.wild.round47 import FENCE_REDUCTION, PRINTF_SAXPY

# reduceSinglePass<128, false>(const float*, float*, unsigned int), as NVRTC lowers it
_SINGLE_PASS = "_Z16reduceSinglePassILj128ELb0EEvPKfPfj"


def _single_pass(resets: bool, partials_first: bool):
    """reduceSinglePass on the simulated driver (the kernel and its module's variables),
    its ``retirementCount`` kept between launches as the loaded module keeps it. Blocks
    retire in order, each taking a ticket with ``atomicInc(&retirementCount,
    gridDim.x)`` after writing its partial sum; the block drawing the last ticket sums
    ``g_odata`` as memory holds it then (and, as the sample does, sets the counter back
    to 0). ``partials_first``: every block writes its
    partial before any takes a ticket (blocks running side by side, as 64 blocks do on
    an H100); else each block finishes before the next starts (another legal order)."""
    module = {"retirementCount": 0}

    def kernel(args, grid, block):
        n = u32(args[2])
        blocks, threads = grid[0], block[0]
        x = device_array(ptr(args[0]), n, np.float32).astype(np.float64)
        out = device_array(ptr(args[1]), blocks, np.float32)
        owner = (np.arange(n) // (2 * threads)) % blocks
        partials = np.bincount(owner, weights=x, minlength=blocks).astype(np.float32)
        if partials_first or blocks == 1:
            out[:] = partials
        if blocks == 1:
            return
        for b in range(blocks):
            out[b] = partials[b]
            ticket = module["retirementCount"]
            module["retirementCount"] = 0 if ticket >= blocks else ticket + 1
            if ticket == blocks - 1:
                out[0] = out.astype(np.float64).sum()
                if resets:
                    module["retirementCount"] = 0

    return kernel, module


def _evaluate_single_pass(fake, resets: bool, partials_first: bool):
    from backends.cuda import CudaComputeContext

    kernel_fn, module = _single_pass(resets, partials_first)
    fake.kernels[_SINGLE_PASS] = (kernel_fn, (8, 8, 4))
    load = fake.cuModuleLoadData

    def load_afresh(image):  # a loaded module's variables start from their initializers
        module["retirementCount"] = 0
        return load(image)

    fake.cuModuleLoadData = load_afresh
    kernel = (
        FENCE_REDUCTION.kernel
        if resets
        else mutant(FENCE_REDUCTION, "CUDA: the counter left set for the next launch")
    )
    with CudaComputeContext(1 << 24) as ctx:
        ev = oracle.evaluate(ctx, kernel, size=20011, samples=0, warmups=0)
        # loaded afresh for each input set's judged run (all, finite), then launched
        # again for its rerun
        assert ctx.module_loads == len(ev.input_sets) == 2
    return ev


@pytest.mark.parametrize("partials_first", [False, True], ids=["in turn", "side by side"])
def test_the_sample_that_resets_its_counter_passes_every_launch(fake_driver, partials_first):  # noqa: F811
    ev = _evaluate_single_pass(fake_driver, resets=True, partials_first=partials_first)
    assert ev.passed, ev.report()


def test_a_counter_left_set_is_caught_when_the_early_last_block_reads_unwritten_partials(
    fake_driver,  # noqa: F811
):
    """Without the reset, the counter the first launch leaves gives no block the last
    ticket in the second launch, and from the third on gives it to a block that retires
    early (every launch takes gridDim.x of a cycle of gridDim.x + 1): that block sums
    partials the blocks after it have not written yet, which one evaluation's third
    launch (the finite input set's judged run) shows."""
    ev = _evaluate_single_pass(fake_driver, resets=False, partials_first=False)
    assert ev.failing, ev.report()


def test_a_counter_left_set_is_caught_when_every_partial_is_written_before_the_tickets(
    fake_driver,  # noqa: F811
):
    """The order in which the early last block reads only finished partials: the
    values show the counter left set only in a launch where no block draws the last
    ticket, the second launch of the module. That was the rerun of the input set
    holding NaN (whose sum is NaN in element 0 either way) and the mutant passed; the
    oracle now loads the module afresh before each judged run of a kernel that keeps
    state in it (``Plan.fresh_module``), so the finite set's rerun is such a launch."""
    ev = _evaluate_single_pass(fake_driver, resets=False, partials_first=True)
    assert ev.failing, ev.report()
    check = ev.outputs["g_odata"]
    assert check.comparison.passed and check.later is not None and not check.later.passed
    assert "after the timed runs" in ev.report()


def test_module_state_is_a_writable_file_scope_device_variable_no_buffer_fills():
    from forge.sources import cuda_module_state
    from oracle._plan import _keeps_module_state

    source = (
        "__constant__ float c_Kernel[17];\n"
        "__device__ const int kSteps = 3;\n"
        "static __device__ unsigned int counter = 0, total;  // state\n"
        "__device__ float half_of(float x) { __shared__ int s; return x / 2; }\n"
        "namespace n { __device__ int hidden; }\n"
    )
    assert cuda_module_state(source) == ("counter", "total")
    fence = FENCE_REDUCTION.kernel
    assert _keeps_module_state(fence, fence.sources["cuda"])
    filled = BufferSpec(2, "u32", "read_write", name="retirementCount", count=1)
    copied = dataclasses.replace(fence, buffers=(*fence.buffers, filled))
    assert not _keeps_module_state(copied, fence.sources["cuda"])  # copied in each launch
    saxpy = PRINTF_SAXPY.kernel
    assert not _keeps_module_state(saxpy, saxpy.sources["cuda"])


def test_a_device_printf_compiles_to_vprintf_and_the_worker_discards_stdout():
    """NVRTC takes the debug print as it is (``printf`` is built in; ``<cstdio>`` is
    served empty), lowering it to a ``vprintf`` call; the worker that runs device code
    has no stdout to print to."""
    from backends.cuda._modules import module_build
    from oracle import _spawn

    kernel = PRINTF_SAXPY.kernel
    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    image, _, _ = module_build(kernel, steps, source, "sm_90").build()
    assert b"vprintf" in bytes(image)

    seen = {}

    class _Popen:
        def __init__(self, *args, **kwargs):
            seen.update(kwargs)
            raise RuntimeError("not started")

    original = subprocess.Popen
    subprocess.Popen = _Popen  # type: ignore[misc]
    try:
        with pytest.raises(RuntimeError):
            _spawn.spawn([], _spawn.new_log("r47"))
    finally:
        subprocess.Popen = original  # type: ignore[misc]
    assert seen["stdout"] is subprocess.DEVNULL


def test_an_f16_mutant_given_to_an_adapter_without_f16_runs_on_the_other():
    """The harness's choice of one CPU adapter a mutant: where the chosen one lacks a
    feature the mutant needs (SwiftShader: no f16), the other runs it."""
    from tests import test_wild_kernels as wild_tests

    name = "wild_r47_cuda_hgemm_mma_m16n8k16_cp_async_f32_acc"
    offers = {"wgpu": True, "browser": False}

    class _Constraints:  # as forge.types.AdapterConstraints answers for a feature
        def __init__(self, backend):
            self.backend = backend

        def supports(self, feature: str) -> bool:
            return offers[self.backend] if feature == "f16" else True

    class _Session:
        def runner(self, backend):
            return SimpleNamespace(info=SimpleNamespace(constraints=_Constraints(backend)))

    available = {"wgpu": (True, ""), "browser": (True, "")}
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("KFORGE_SLOW_TESTS", raising=False)
        patch.setattr(wild_tests.forge, "available_backends", lambda: available)
        for what, (target, _, _) in CORPUS[name].mutants.items():
            if target != "wgsl":
                continue
            assert wild_tests._one_wgsl_adapter(name, what, "wgpu", _Session()) is None
            assert wild_tests._one_wgsl_adapter(name, what, "browser", _Session())
