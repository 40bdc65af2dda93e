"""A CUDA kernel that reads ``__shared__`` memory none of its threads wrote passed
where that memory held zeros (a fresh context's, and the value a right reduction
writes there): cuda-samples' scan with its lower half left unzeroed and a block
reduction summing the partial sums of every lane both passed on the H100
(2026-12-05). The oracle now fills shared memory with a poison before each run it
judges (``oracle._plan.SCRATCH_POISON``, ``CudaComputeContext.poison_scratch_memory``):
a huge positive word before the first run, a huge negative one before the rerun.

On the simulated driver: which words are asked for, when, and how the poison kernel is
launched. On the GPU: the poison is what a kernel reads there, a block sum that leaves
its tail slots unwritten fails, and the right one passes."""

from __future__ import annotations

import numpy as np
import pytest

import forge
import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from forge.errors import InvalidArgument
from forge.types import BindingUsage
from oracle import Verdict
from oracle._plan import SCRATCH_POISON
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import ATTRIBUTES, fake_driver, u32  # noqa: F401

_BLOCK_SUM = r"""
extern "C" __global__ void block_sum(const float* x, float* sums, unsigned int n) {
    __shared__ float partial[256];
    const unsigned int i = blockIdx.x * 256 + threadIdx.x;
    if (i < n) partial[threadIdx.x] = x[i];
    else partial[threadIdx.x] = 0.0f;
    __syncthreads();
    for (unsigned int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
"""


def _block_sum(x, sums):
    padded = np.zeros(len(sums) * 256, np.float64)
    padded[: len(x)] = x
    sums[:] = padded.reshape(-1, 256).sum(axis=1)


def _spec(source: str, name: str) -> KernelSpec:
    return KernelSpec(
        id=f"shared_poison_{name}",
        entry_point="block_sum",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="sums", count=lambda n: ceil_div(n, 256)),
        ),
        reference=_block_sum,
        params=lambda n: {"n": int(n)},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1000,),  # the last block's 24 threads load, 232 do not
    )


RIGHT = _spec(_BLOCK_SUM, "right")
# the tail threads leave their slot as it was: zeros on a fresh context
UNZEROED = _spec(_BLOCK_SUM.replace("    else partial[threadIdx.x] = 0.0f;\n", ""), "unzeroed")

_READ_UNWRITTEN = r"""
extern "C" __global__ void read_unwritten(unsigned int* out) {
    __shared__ unsigned int never_written[1024];
    out[blockIdx.x * 1024 + threadIdx.x] = never_written[threadIdx.x];
}
"""


def test_the_oracle_poisons_before_the_judged_run_and_the_rerun(fake_driver):  # noqa: F811
    """On the simulated driver: the first word before the judged run, the second before
    the rerun, each a launch of two blocks an SM taking the most shared memory a block
    may opt in to; where an input set is timed, its judged run only (its samples, and
    the rerun that reads the last of them, run over the kernel's own leftovers)."""
    from backends.cuda import CudaComputeContext

    launches = []

    def record(args, grid, block):
        launches.append((u32(args[0]), u32(args[1]), grid, block))

    fake_driver.kernels["kforge_poison_shared"] = (record, (4, 4))
    affine = forge.get_kernel("raw_affine")
    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, affine, size=100, seed=0, samples=0)
        assert ev.verdict is Verdict.PASS, ev.report()
        most, sms = (
            ATTRIBUTES["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"],
            ATTRIBUTES["MULTIPROCESSOR_COUNT"],
        )
        pair = [((2 * sms, 1, 1), most // 4), ((8 * sms, 1, 1), (48 << 10) // 4)]
        # each input set the oracle draws: its judged run, then its rerun, two launches each
        runs = len(launches) // 4
        assert (
            runs >= 1
            and launches
            == [(w, words, grid, (1024, 1, 1)) for w in SCRATCH_POISON for grid, words in pair]
            * runs
        )
        launches.clear()
        ev = oracle.evaluate(ctx, affine, size=100, seed=0, samples=3, warmups=1)
        assert ev.verdict is Verdict.PASS, ev.report()
        first, later = (sum(launch[0] == w for launch in launches) for w in SCRATCH_POISON)
        # the timed set's rerun reads its last sample, which ran over its own leftovers
        assert launches[0][0] == SCRATCH_POISON[0]
        assert (first, later) == (2 * runs, 2 * (runs - 1))
        for bad in (-1, 1 << 32, 1.5):
            with pytest.raises(InvalidArgument, match="word"):
                ctx.poison_scratch_memory(bad)


def test_under_compute_sanitizer_nothing_is_poisoned(fake_driver, monkeypatch):  # noqa: F811
    """compute-sanitizer announces itself through ``NV_SANITIZER_INJECTION_*`` variables;
    under it the poison is not launched (racecheck tracks each of its stores, and the
    suite's process ran out of host memory, H100 2026-12-06) and the call says so."""
    from backends.cuda import CudaComputeContext

    launches = []
    fake_driver.kernels["kforge_poison_shared"] = (lambda *a: launches.append(a), (4, 4))
    affine = forge.get_kernel("raw_affine")
    with CudaComputeContext(1 << 22) as ctx:
        ev = oracle.evaluate(ctx, affine, size=100, seed=0, samples=0)
        assert ev.verdict is Verdict.PASS and launches, ev.report()  # poisoned outside it
        launches.clear()
        monkeypatch.setenv("NV_SANITIZER_INJECTION_PORT_BASE", "12340")
        assert ctx.poison_scratch_memory(SCRATCH_POISON[0]) is False
        ev = oracle.evaluate(ctx, affine, size=100, seed=0, samples=0)
        assert ev.verdict is Verdict.PASS, ev.report()
        assert launches == []


def test_the_poison_is_launched_right_before_the_kernel_it_is_for(fake_driver):  # noqa: F811
    """No copy, wait or graph capture between the poison's two launches and the kernel's:
    with other processes on the GPU, what ran in such a gap replaced the poison (every
    read found zeros in the H100's suite run, 2026-12-06). Timed or not, with or without
    warm-ups, the driver's calls go poison, poison, (an event record,) the kernel."""
    from backends.cuda import CudaComputeContext

    log: list[str] = []
    for name in [n for n in dir(fake_driver) if n.startswith("cu")]:
        method = getattr(fake_driver, name)

        def logged(*args, _name=name, _method=method):
            function = args[0] if _name.startswith("cuLaunch") else None
            log.append(getattr(function, "name", _name))
            return _method(*args)

        setattr(fake_driver, name, logged)
    affine = forge.get_kernel("raw_affine")
    with CudaComputeContext(1 << 22) as ctx:
        for samples, warmups in ((0, 0), (3, 0), (3, 1)):
            log.clear()
            ev = oracle.evaluate(ctx, affine, size=100, seed=0, samples=samples, warmups=warmups)
            assert ev.verdict is Verdict.PASS, ev.report()
            starts = [i for i, name in enumerate(log) if name == "kforge_poison_shared"][::2]
            assert starts, log
            for i in starts:
                # (the simulation's cuEventRecord calls its cuEventRecordWithFlags)
                after = [n for n in log[i + 2 :][:4] if not n.startswith("cuEventRecord")]
                assert log[i + 1] == "kforge_poison_shared" and after[0] == "raw_affine", (
                    samples,
                    warmups,
                    log[i : i + 8],
                )


def test_a_plan_without_the_poison_launches_none(fake_driver):  # noqa: F811
    """The sanitizer's runs judge no values and do not poison (racecheck would track the
    poison's every store): a plan with ``poison_scratch=False`` runs the kernel alone."""
    import dataclasses

    from backends.cuda import CudaComputeContext
    from oracle._expected import expected_outputs
    from oracle._inputs import make_case
    from oracle._plan import BackendInfo, build_plan, execute

    affine = forge.get_kernel("raw_affine")
    with CudaComputeContext(1 << 22) as ctx:
        expected = expected_outputs(make_case(affine, affine.size(100), 0))
        plan = build_plan(
            affine,
            expected.case,
            BackendInfo.of(ctx),
            affine.schedules[0],
            guard=64,
            warmups=0,
            samples=0,
        )
        for poison, launches in ((True, 4), (False, 0)):
            before = fake_driver.calls.get("cuLaunchKernel", 0)
            outcome = execute(ctx, dataclasses.replace(plan, poison_scratch=poison))
            assert outcome.error is None and outcome.ran
            kernels = 2  # the judged run and the rerun
            assert fake_driver.calls["cuLaunchKernel"] - before == kernels + launches


def test_the_poison_kernel_compiles_with_nvrtc_uncounted_and_uncached(tmp_path, monkeypatch):
    """Compiled as the backend's own: not in compile_stats (a search's count of its
    candidates' compiles) nor in the disk cache (a worker's images)."""
    from backends.cuda import _context, compile_stats
    from backends.cuda._nvrtc import compile_own

    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path))
    compile_own.cache_clear()
    before = compile_stats.snapshot()
    image = compile_own(_context._POISON_SOURCE, "kforge_poison_shared", "sm_90")
    assert b".text.kforge_poison_shared\0" in image
    assert compile_stats.snapshot() == before and not list(tmp_path.rglob("*.cubin"))


def test_other_contexts_have_nothing_to_poison(request):
    require_available(request.config, "reference")
    with forge.open_context("reference") as ctx:
        assert ctx.poison_scratch_memory(SCRATCH_POISON[0]) is False


def test_a_kernel_reads_the_poison_where_no_thread_wrote(request):
    """On the GPU: what a kernel finds in shared memory none of its threads wrote, after
    ``poison_scratch_memory``, is the word poisoned, in every block of a grid that fills
    every SM."""
    require_available(request.config, "cuda")
    from backends.cuda import CudaComputeContext

    spec = KernelSpec(
        id="shared_poison_read_unwritten",
        entry_point="read_unwritten",
        sources={"cuda": _READ_UNWRITTEN},
        buffers=(BufferSpec(0, "u32", "read_write", name="out", count=lambda n: int(n)),),
        grid=lambda s, n: (int(n) // 1024, 1, 1),
        schedules=(Schedule(1024),),
    )
    with CudaComputeContext(1 << 24) as ctx:
        blocks = 4 * ctx.device_info.attributes["MULTIPROCESSOR_COUNT"]
        size = blocks * 1024
        for word in (*SCRATCH_POISON, 0x12345678):
            view = ctx.allocate_and_write(
                np.zeros(size, np.uint32), 0, usage=BindingUsage.STORAGE_READ_WRITE
            )
            assert ctx.poison_scratch_memory(word) is True
            ctx.run_kernel(spec, spec.schedules[0], [view], size, 0, 1)
            out = np.empty(size, np.uint32)
            ctx.read_buffer_u32_into(view, out)
            seen = {int(v): int(c) for v, c in zip(*np.unique(out, return_counts=True))}
            assert seen == {word: size}, f"poisoned {word:#x}, read {seen}"
            ctx.clear_transient_allocations()


def test_a_block_sum_that_leaves_its_tail_unwritten_fails_and_the_right_one_passes(request):
    require_available(request.config, "cuda")
    right = oracle.evaluate("cuda", RIGHT, size=1000, seed=0, samples=0)
    assert right.verdict is Verdict.PASS, right.report()
    wrong = oracle.evaluate("cuda", UNZEROED, size=1000, seed=0, samples=0)
    assert wrong.verdict is Verdict.MISMATCH, wrong.report()
