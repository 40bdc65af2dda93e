"""``kforge check|certify|validate|generate PATH.py``: the KernelSpecs a Python file binds
at its top level, narrowed with ``--kernel ID``; a file that fails to import is a usage
error with its traceback (exit 2), never a crash."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kforge import main
from kforge._kernels import KernelFileError, load_file

_FILE = '''
import numpy as np
from forge import BufferSpec, KernelSpec, get_kernel, ceil_div

WGSL = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn halve(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x] * 0.5; }
}
"""

HALVE = KernelSpec(id="halve", entry_point="halve", sources={"wgsl": WGSL},
                   buffers=(BufferSpec(0, "f32", "read", name="x"),
                            BufferSpec(1, "f32", "read_write", name="y")),
                   reference=lambda x, y: x * np.float32(0.5),
                   grid=lambda s, n: (ceil_div(n, 64), 1, 1), test_sizes=(100, 1001))
IMPORTED = get_kernel("raw_affine")   # imported and bound to a top-level name: collected
'''


@pytest.fixture
def kernels_file(tmp_path):
    path = tmp_path / "my_kernels.py"
    path.write_text(_FILE)
    return path


def test_a_file_gives_its_top_level_kernels_in_order(kernels_file):
    assert [k.id for k in load_file(kernels_file)] == ["halve", "raw_affine"]
    assert load_file(kernels_file)[0].origin == str(kernels_file)


def test_check_runs_a_kernel_from_a_file_and_picks_by_id(kernels_file, capsys):
    code = main(
        [
            "check",
            str(kernels_file),
            "--kernel",
            "halve",
            "--backend",
            "reference",
            "--samples",
            "1",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and {r["kernel"] for r in data["results"]} == {"halve"}
    assert [r["size"] for r in data["results"]] == ["100", "1001"]


def test_an_unknown_kernel_id_lists_the_file_s_kernels(kernels_file, capsys):
    assert main(["check", str(kernels_file), "--kernel", "nope"]) == 2
    assert "halve, raw_affine" in capsys.readouterr().err


def test_a_file_that_raises_is_a_usage_error_with_its_traceback(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("import numpy\nraise RuntimeError('my kernel file is broken')\n")
    with pytest.raises(KernelFileError, match="RuntimeError"):
        load_file(broken)
    assert main(["check", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "my kernel file is broken" in err and "broken.py" in err


def test_a_file_without_kernels_says_so(tmp_path, capsys):
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert main(["check", str(empty)]) == 2
    assert "define no KernelSpec" in capsys.readouterr().err


def test_generate_and_validate_take_a_file(kernels_file, capsys):
    assert main(["generate", str(kernels_file), "--kernel", "halve", "--target", "wgsl"]) == 0
    assert "fn halve" in capsys.readouterr().out
    code = main(["validate", str(kernels_file), "--kernel", "halve", "--target", "wgsl", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["results"][0]["kernel"] == "halve"


def test_usage_errors_exit_2():
    for argv in (
        ["check", "--size", "0"],
        ["check", "--timeout", "-1"],
        ["check", "--timeout", "nan"],
        ["check", "--samples", "1.5"],
        ["check", "--capacity-mib", "0"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "kforge", *argv], capture_output=True, text=True
        )
        assert result.returncode == 2, (argv, result.stderr[-500:])


def test_version():
    result = subprocess.run(
        [sys.executable, "-m", "kforge", "--version"], capture_output=True, text=True, check=True
    )
    import forge

    assert result.stdout.strip() == f"kforge {forge.__version__}"


def test_a_kernel_no_device_backend_could_run_fails_the_check(request, tmp_path, capsys):
    """Its numpy reference passing on the reference backend checks nothing of its own
    WGSL: when every device backend tried says unsupported, the check fails and says
    why, instead of "all passed, or are unsupported where shown"."""
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    path = tmp_path / "needs_coop.py"
    path.write_text(
        _FILE.replace(
            "test_sizes=(100, 1001))", 'test_sizes=(100,), requires={"cooperative_matrix"})'
        ),
        encoding="utf-8",
    )
    code = main(
        [
            "check",
            str(path),
            "--kernel",
            "halve",
            "--backend",
            "reference",
            "--backend",
            "wgpu",
            "--no-isolate",
        ]
    )
    out = capsys.readouterr()
    assert code == 1, out.out + out.err
    assert "halve: ERROR: no backend could run its device code" in out.err
    assert "cooperative_matrix" in out.err


_CUDA_ONLY = '''
import numpy as np
from forge import BufferSpec, KernelSpec, Schedule, ceil_div

TWICE = KernelSpec(
    id="twice", entry_point="twice",
    sources={"cuda": """extern "C" __global__ void twice(const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = 2.0f * x[i];
    }"""},
    buffers=(BufferSpec(0, "f32", "read", name="x"), BufferSpec(1, "f32", "read_write", name="y")),
    reference=lambda x, y: x * np.float32(2), grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    params=lambda n: {"n": n}, schedules=(Schedule(64),), test_sizes=(100,))
'''


def test_a_kernel_for_a_backend_missing_here_is_reported_not_failed(tmp_path, capsys, monkeypatch):
    """A CUDA kernel checked on a machine without NVIDIA's driver: nothing here can run
    its device code, which is the machine's lack, not the kernel's. The check says
    NOT CHECKED and names the missing backend; it fails only when every device backend
    was there and none could run it (the test above)."""
    from oracle._fleet import Fleet

    real = Fleet.opened

    def without_device_backends(self, name):
        if name != "reference":
            return False, "pretend it is missing"
        return real(self, name)

    # kforge check learns what is there by opening each backend in its fleet
    monkeypatch.setattr(Fleet, "opened", without_device_backends)
    path = tmp_path / "cuda_only.py"
    path.write_text(_CUDA_ONLY, encoding="utf-8")
    code = main(["check", str(path), "--no-isolate", "--samples", "1"])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert "twice: NOT CHECKED here" in out.out and "cuda" in out.out


_LAYOUT_SOURCE = """
struct P { n: u32, scale: f32, clamp: vec2<f32>, pad: vec3<f32> }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < p.n) { y[g.x] = clamp(x[g.x] * p.scale, p.clamp.x, p.clamp.y); }
}
"""
_AGREES = (("n", "u32"), ("scale", "f32"), ("clamp", "vec2<f32>"), ("pad", "vec3<f32>"))
_DISAGREES = (("n", "i64"), ("scale", "f32"), ("clamp", "vec2<f32>"), ("pad", "vec3<f32>"))


def _layout_kernel(fields):
    import numpy as np

    from forge import BufferSpec, KernelSpec, ceil_div

    return KernelSpec(
        id="uniform_layout",
        entry_point="main",
        sources={"wgsl": _LAYOUT_SOURCE},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, fields),
        ),
        reference=lambda x, y, p: np.clip(x * p["scale"], *p["clamp"]),
        defaults={"scale": 2.0, "pad": (0.0, 0.0, 0.0), "clamp": (-1.0, 1.0)},
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    )


def test_a_uniform_spec_that_disagrees_with_the_wgsl_struct_is_refused():
    """Declared ``i64`` where the WGSL struct reads ``u32``, every later field is read
    4 bytes off: a value MISMATCH that pointed at the kernel's arithmetic. Now it is
    refused, naming the field; a spec that agrees (vec2 and vec3 alignment) passes."""
    import oracle
    from forge import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"params's n is a 64-bit integer at byte 0"):
        _layout_kernel(_DISAGREES).check_uniform_layout("wgsl", _LAYOUT_SOURCE)
    _layout_kernel(_AGREES).check_uniform_layout("wgsl", _LAYOUT_SOURCE)
    # the same bytes read another way agree: two u32 fields as one vec2<u32> (a
    # bias-add kernel declares var<uniform> shape: vec2<u32>), a struct as an array
    as_vector = "@group(0) @binding(2) var<uniform> shape: vec2<u32>;"
    two_fields = _layout_kernel((("rows", "u32"), ("cols", "u32")))
    two_fields.check_uniform_layout("wgsl", as_vector)
    with pytest.raises(InvalidArgument, match=r"cols is a 32-bit float at byte 4"):
        _layout_kernel((("rows", "u32"), ("cols", "f32"))).check_uniform_layout("wgsl", as_vector)
    ev = oracle.evaluate("reference", _layout_kernel(_AGREES), size=100, samples=0)
    assert ev.passed, ev.report()


def test_a_uniform_that_disagrees_with_the_wgsl_struct_is_an_error_on_wgpu(request):
    import oracle
    from oracle import Verdict
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    bad = oracle.evaluate("wgpu", _layout_kernel(_DISAGREES), size=100, samples=0)
    assert bad.verdict is Verdict.ERROR, bad.report()
    assert "reads n, a 32-bit integer at byte 0" in bad.report(), bad.report()
    good = oracle.evaluate("wgpu", _layout_kernel(_AGREES), size=100, samples=0)
    assert good.passed, good.report()


def test_a_kernel_file_may_keep_its_kernels_in_a_list_or_a_dict(tmp_path):
    """``KERNELS = [a, b]`` (or a dict of them) at the top of a file: both are found; the
    file was said to have no KernelSpec at its top level."""
    path = tmp_path / "listed.py"
    lines = [
        "import dataclasses",
        "import forge",
        "BASE = forge.get_kernel('raw_affine')",
        "KERNELS = [dataclasses.replace(BASE, id='listed_a')]",
        "BY_NAME = {'b': dataclasses.replace(BASE, id='listed_b')}",
    ]
    path.write_text("\n".join(lines) + "\n")
    assert [k.id for k in load_file(path)] == ["raw_affine", "listed_a", "listed_b"]


@pytest.mark.parametrize("declared", ["64", "WG", "WG_X, 1, 1"])
def test_a_schedule_other_than_the_shaders_workgroup_size_is_named(request, declared):
    """``@workgroup_size(64)`` run under ``Schedule(256)`` with a grid of n / 256: three
    quarters of the output stay unwritten, and the report says why; so too where the
    size is a module-scope constant (``const WG: u32 = 64u;``, TF.js's
    ``workgroupSizeX``), not only a literal."""
    import oracle
    from forge import BufferSpec, KernelSpec, Schedule, ceil_div
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    source = """
    const WG: u32 = 64u;
    const WG_X = 64u;
    @group(0) @binding(0) var<storage, read> x: array<f32>;
    @group(0) @binding(1) var<storage, read_write> y: array<f32>;
    @compute @workgroup_size(DECLARED)
    fn main(@builtin(global_invocation_id) g: vec3<u32>) {
        if (g.x < arrayLength(&y)) { y[g.x] = 2.0 * x[g.x]; }
    }
    """.replace("DECLARED", declared)
    kernel = KernelSpec(
        id="wg_mismatch",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
        ),
        reference=lambda x, y: 2 * x,
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(256),),
    )
    ev = oracle.evaluate("wgpu", kernel, size=1024, samples=0)
    assert ev.failing and "declares @workgroup_size(64, 1, 1)" in ev.report(), ev.report()
    assert oracle.evaluate("wgpu", kernel, Schedule(64), size=1024, samples=0).passed
