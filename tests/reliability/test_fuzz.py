"""A hypothesis-driven fuzz of the public API, on every backend: programs of
allocations, writes, reads, checkpoints, releases, kernel runs and dispatches (with
hostile kernels, schedules and arguments mixed into valid ones) run in a fresh
interpreter, a batch of programs per process. It fails on a crash (a signal), a hang
(the process outlives its timeout), an error that is not a ForgeError, a wrong result
of a valid run, or a written view or the sentinel view changing under a call that was
not given it (tests/reliability/_fuzz.py runs and checks the programs).

CI runs ``_EXAMPLES`` batches of ``_BATCH`` programs per backend (well under a minute);
FORGE_FUZZ_EXAMPLES raises the number of batches for a longer hunt.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from forge import BindingUsage
from oracle.pytest_plugin import require_available

from ._fuzz import CAPACITY, KERNELS
from ._process import ROOT

_BATCH = 25
_EXAMPLES = int(os.environ.get("FORGE_FUZZ_EXAMPLES", "8"))

# -- hostile values ------------------------------------------------------------------
_huge = st.sampled_from([-1, 0, 2**31, 2**32, 2**62, 2**64, CAPACITY, CAPACITY + 1])
_odd = st.sampled_from(
    [1.5, 16.0, -0.0, math.nan, math.inf, "a", "", None, True, False, ["list", 1, 2], {"a": 1}]
)
_np_int = st.tuples(st.sampled_from(["int64", "uint8", "int32"]), st.integers(0, 100)).map(
    lambda t: ["np", *t]
)
_np_other = st.sampled_from([["np", "float32", 16], ["np", "bool", 1], ["np", "float64", 1.5]])
_hostile = st.one_of(_huge, _odd, _np_int, _np_other)


def _mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """``valid`` about five times in six, a hostile value otherwise (a call with one
    hostile argument among valid ones tests that argument's check)."""
    return st.sampled_from(range(6)).flatmap(lambda k: _hostile if k == 5 else valid)


_size = _mostly(st.integers(1, 8192))
_binding = _mostly(st.integers(0, 4))
_group = _mostly(st.just(0))
_usage = _mostly(st.sampled_from([["usage", u.name] for u in BindingUsage]))
_array = st.tuples(
    st.sampled_from(
        [
            "float32",
            "float64",
            "float16",
            "int8",
            "uint32",
            "complex64",
            "bool",
            "object",
            "V3",
            ">f4",
        ]
    ),
    st.lists(st.integers(0, 300), max_size=2),
    st.sampled_from(["plain", "plain", "strided", "readonly"]),
).map(lambda t: ["array", *t])
_bytes = st.tuples(
    st.integers(0, 5000), st.sampled_from(["bytes", "bytearray", "memoryview", "released"])
).map(lambda t: ["bytes", *t])
_data = st.one_of(_array, _array, _bytes, _odd)
_view = st.one_of(
    st.integers(-3, 20).map(lambda i: ["view", i]),
    st.integers(-3, 20).map(lambda i: ["view", i]),
    st.tuples(
        st.integers(0, 20),
        st.sampled_from(
            ["offset", "length_bytes", "position", "generation", "slab", "binding", "owner"]
        ),
        st.sampled_from([-256, -1, 1, 4, 256]),
    ).map(lambda t: ["forged", *t]),
    st.sampled_from([None, 5, ["tuple", 0, 64]]),
)
_kernel = st.one_of(
    st.tuples(st.sampled_from(KERNELS), st.none()).map(lambda t: ["kernel", *t]),
    st.tuples(
        st.sampled_from(KERNELS),
        st.sampled_from(
            [
                "grid4",
                "grid_float",
                "grid_raises",
                "grid_huge",
                "grid_zero",
                "count_negative",
                "count_float",
                "count_huge",
            ]
        ),
    ).map(lambda t: ["kernel", *t]),
    st.sampled_from(["raw_affine", None]),
)
_workgroup = st.one_of(
    _mostly(st.sampled_from([64, 256, 16, ["tuple", 16, 16], ["np", "int64", 64]])),
    st.just("wg=64"),
)
_schedule = st.one_of(
    st.tuples(
        _workgroup, _mostly(st.sampled_from([1, 2, 4])), _mostly(st.sampled_from([1, 2, 4]))
    ).map(lambda t: ["schedule", *t]),
    st.sampled_from(["wg=64", None]),
)
_buffers = st.one_of(
    st.lists(_view, max_size=5).map(lambda vs: ["list", *vs]), st.sampled_from([None, 5])
)
_count = _mostly(st.integers(0, 5000))
_small = st.one_of(st.integers(-1, 3), st.sampled_from([1.5, True, "2", None, ["np", "int64", 2]]))

# -- operations ----------------------------------------------------------------------
_op = st.one_of(
    st.tuples(st.just("affine"), st.integers(1, 3000)),
    st.tuples(st.just("alloc"), _size, _binding, _group, _usage),
    st.tuples(st.just("alloc_write"), _data, _binding, _group, _usage),
    st.tuples(st.just("alloc_write"), _array, st.integers(0, 4), st.just(0), _usage),
    st.tuples(st.just("write"), _view, _data),
    st.tuples(st.just("read"), st.sampled_from(["f32", "f64", "u32"]), _view),
    st.tuples(st.just("read_into"), _view, st.one_of(_array, _odd)),
    st.tuples(st.just("checkpoint")),
    st.tuples(
        st.just("restore"),
        st.one_of(
            st.tuples(st.integers(0, 5), st.integers(-2, 2)).map(lambda t: ["checkpoint", *t]),
            _hostile,
        ),
    ),
    st.tuples(
        st.just("advance"),
        st.one_of(st.integers(0, 20).map(lambda i: ["end", i]), _hostile),
        _mostly(st.integers(0, 2)),
    ),
    st.tuples(st.just("clear")),
    st.tuples(st.just("run"), _kernel, _schedule, _buffers, _count, _small, _small),
    st.tuples(
        st.just("prepared"),
        _kernel,
        _schedule,
        st.integers(0, 3000),
        _count,
        st.sampled_from(["run", "dispatch"]),
    ),
    st.tuples(
        st.just("prepared"),
        _kernel,
        st.just(["schedule", 64, 1, 1]),
        st.integers(1, 3000),
        st.none(),
        st.sampled_from(["run", "dispatch"]),
    ),
    st.tuples(st.just("dispatch"), _kernel, _schedule, _buffers, _count),
    st.tuples(
        st.just("wait"),
        st.one_of(
            st.tuples(st.integers(0, 5), st.integers(-1, 2)).map(lambda t: ["fence", *t]), _hostile
        ),
    ),
    st.tuples(st.just("timeout"), st.one_of(st.sampled_from([None, 30, 0.5]), _hostile)),
    st.tuples(
        st.just("pack"),
        _kernel,
        _count,
        st.dictionaries(st.sampled_from(["a", "b", "n", "bogus"]), _hostile, max_size=2),
    ),
).map(list)
_program = st.lists(_op, min_size=3, max_size=14)


def _run_batch(backend: str, programs: list) -> None:
    """Run ``programs`` in a fresh interpreter; fail on a crash, a hang or a failure."""
    text = json.dumps(programs)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.reliability._fuzz", backend],
            input=text,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the fuzz process hung on these programs:\n{text}")
    assert done.returncode == 0, (
        f"the fuzz process ended with status {done.returncode} (a negative one is the "
        f"signal that killed it) on these programs:\n{text}\n{done.stderr[-3000:]}"
    )
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(programs), done.stdout[-3000:] + done.stderr[-3000:]
    for result in results:
        failures = result["failures"]
        assert not failures, f"program {json.dumps(programs[result['program']])}:\n" + "\n".join(
            failures[:5]
        )


@pytest.mark.parametrize("backend", ["reference", "wgpu"])
def test_the_public_api_never_crashes_hangs_escapes_untyped_or_corrupts_a_view(request, backend):
    require_available(request.config, backend)

    # No shrinking: each step would be a process of its own, and the failure names the
    # one program (of the batch) that failed, which is short already.
    @settings(
        max_examples=_EXAMPLES,
        deadline=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(_program, min_size=_BATCH, max_size=_BATCH))
    def fuzz(programs):
        _run_batch(backend, programs)

    fuzz()
