"""``kforge check``, ``certify``, ``tune`` and ``profile-hardware``, run in process."""

from __future__ import annotations

import dataclasses
import json

import pytest

import forge
from forge import registry
from kforge import main
from oracle.pytest_plugin import require_available
from tests.oracle_broken import CASES


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def extra_kernels(monkeypatch):
    """Make kernels that are not built in reachable by id from the CLI."""
    table: dict = {}
    original = registry.get_kernel
    monkeypatch.setattr(registry, "get_kernel", lambda name: table.get(name) or original(name))
    return table


def test_check_json_reports_every_backend_against_the_reference(capsys):
    code, out, _ = _run(
        capsys, "check", "raw_affine", "--backend", "reference", "--json", "--samples", "2"
    )
    data = json.loads(out)
    assert code == 0 and data["passed"] is True
    kernel = forge.get_kernel("raw_affine")
    assert [(r["size"], r["seed"]) for r in data["results"]] == [  # every checked size and seed
        (str(s), seed) for s in kernel.checked_sizes() for seed in kernel.checked_seeds()
    ]
    for result in data["results"]:
        ev = result["evaluations"]["reference"]
        assert ev["verdict"] == "pass" and ev["max_ulp"] == 0 and ev["timing"]["count"] == 2
    code, out, _ = _run(
        capsys, "check", "raw_affine", "--backend", "reference", "--json", "--size", "77"
    )
    assert code == 0 and [r["size"] for r in json.loads(out)["results"]] == ["77", "77"]


def test_check_prints_one_table_and_exits_zero_when_all_agree(capsys):
    code, out, _ = _run(capsys, "check", "--samples", "1")
    assert code == 0
    for kernel in forge.list_kernels():
        assert kernel.id in out
    for name in forge.available_backends():
        assert name in out
    assert "max ulp" in out and "timing" in out and "evaluations passed" in out


def test_check_exits_nonzero_and_explains_a_mismatch(capsys, extra_kernels):
    clobbering = CASES["inputs_overwritten"].broken_reference
    extra_kernels[clobbering.id] = clobbering
    code, out, err = _run(capsys, "check", clobbering.id, "--backend", "reference")
    assert code == 1
    assert "MISMATCH" in out and "input modified" in err


def test_check_names_a_diverging_gpu_backend(capsys, extra_kernels, request):
    require_available(request.config, "wgpu")
    broken = CASES["missing_guard"].broken
    extra_kernels[broken.id] = broken
    code, out, err = _run(
        capsys, "check", broken.id, "--backend", "reference", "--backend", "wgpu", "--samples", "1"
    )
    assert code == 1 and "diverging from the reference: wgpu" in err
    assert "written past the end" in err


@pytest.mark.parametrize("name", ["missing_guard", "partial_output", "wrong_identity"])
def test_check_catches_broken_kernels_on_wgpu(capsys, extra_kernels, request, name):
    """wgpu declares WGSL's float semantics (flushed subnormals, indeterminate
    non-finite results); judging by them must still catch a defect, and ``kforge
    check`` exit with 1 and say so in its JSON: one kernel of each finding here (past
    the end, unwritten, a wrong value), every broken kernel on every backend in
    tests/test_oracle_broken.py."""
    require_available(request.config, "wgpu")
    for kernel, code_wanted in ((CASES[name].good, 0), (CASES[name].broken, 1)):
        extra_kernels[kernel.id] = kernel
        code, out, err = _run(
            capsys, "check", kernel.id, "--backend", "wgpu", "--json", "--samples", "1"
        )
        data = json.loads(out)
        assert code == code_wanted, (out, err)
        verdicts = {r["evaluations"]["wgpu"]["verdict"] for r in data["results"]}
        if code_wanted == 0:
            assert verdicts == {"pass"}, data
        else:
            assert verdicts & {"mismatch", "error"} and data["passed"] is False, data


def test_check_reports_a_timeout_as_a_failure(capsys, monkeypatch):
    """A kernel that ran past the timeout fails the check and is named in the table
    (shown with a hand-made result: a real one takes a device that can hang)."""
    import oracle

    def timed_out(items, names, session, options, on_result, prepared=()):
        for kernel, size, seed in items:
            result = oracle.CrossCheck(kernel, size, seed, "hash")
            ev = oracle.Evaluation(
                kernel,
                "reference",
                None,
                kernel.schedules[0],
                size,
                seed,
                "hash",
                "ref",
                verdict="timeout",
                error="KernelTimeout: device work ran past timeout_s=0.25",
            )
            result.evaluations["reference"] = ev
            on_result("reference", ev)
            yield result

    import kforge._check

    monkeypatch.setattr(kforge._check, "check_many", timed_out)
    code, out, err = _run(
        capsys, "check", "raw_affine", "--backend", "reference", "--size", "10", "--seed", "0"
    )
    assert code == 1 and "TIMEOUT" in out and "1 of 1 evaluations failed" in out
    assert "timeout_s=0.25" in err


def test_check_refuses_unknown_or_unavailable_backends(capsys, monkeypatch):
    code, _, err = _run(capsys, "check", "--backend", "no-such")
    assert code == 2 and "unknown backend" in err
    # an unavailable backend of its own, so this runs where every real one is available
    ghost = registry.BackendEntry(
        "ghost", lambda **o: None, lambda: (False, "no ghost device"), device_code=False
    )  # opened here, where the patch is
    monkeypatch.setitem(registry.backend_entries(), "ghost", ghost)
    code, out, err = _run(capsys, "check", "--backend", "ghost")
    assert code == 1 and "ghost: ERROR: asked for with --backend but not available: " in out
    assert "no ghost device" in out
    assert "no evaluation ran" in out


def test_certify_writes_then_reuses(capsys, tmp_path):
    args = (
        "certify",
        "raw_affine",
        "--backend",
        "reference",
        "--cache-dir",
        str(tmp_path),
        "--samples",
        "2",
        "--json",
    )
    code, out, _ = _run(capsys, *args)
    first = json.loads(out)["results"][0]
    assert code == 0 and first["result"] == "certified"
    code, out, _ = _run(capsys, *args)
    second = json.loads(out)["results"][0]
    assert code == 0 and second["result"] == "reused" and second["path"] == first["path"]
    code, out, _ = _run(capsys, *args[:-1])
    assert code == 0 and "reused" in out


def test_certify_fails_a_wrong_kernel(capsys, tmp_path, extra_kernels):
    clobbering = CASES["inputs_overwritten"].broken_reference
    extra_kernels[clobbering.id] = clobbering
    code, out, err = _run(
        capsys, "certify", clobbering.id, "--backend", "reference", "--cache-dir", str(tmp_path)
    )
    assert code == 1 and "FAILED" in out and "cannot be certified" in err


def test_certify_reports_a_kernel_the_backend_cannot_generate_as_unsupported(
    capsys, tmp_path, extra_kernels, request
):
    require_available(request.config, "wgpu")
    affine = forge.get_kernel("raw_affine")
    cuda_only = dataclasses.replace(
        affine, id="cuda_only", sources={"cuda": affine.sources["cuda"]}
    )
    extra_kernels[cuda_only.id] = cuda_only
    for force in ((), ("--force",)):
        code, out, _ = _run(
            capsys,
            "certify",
            cuda_only.id,
            "raw_affine",
            "--backend",
            "wgpu",
            "--cache-dir",
            str(tmp_path),
            "--samples",
            "2",
            "--json",
            *force,
        )
        rows = {r["kernel"]: r for r in json.loads(out)["results"]}
        assert code == 0 and rows["cuda_only"]["result"] == "unsupported", out
        assert "no wgsl source" in rows["cuda_only"]["detail"]
        assert rows["raw_affine"]["result"] in ("certified", "reused")


def test_tune_dry_run_shows_what_was_pruned_and_why(capsys):
    code, out, _ = _run(
        capsys,
        "tune",
        "raw_affine",
        "--backend",
        "reference",
        "--dry-run",
        "--schedule",
        "wg=64",
        "--schedule",
        "wg=4096",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["dry_run"]
    statuses = {c["schedule"]: (c["status"], c["reason"]) for c in data["candidates"]}
    assert statuses["wg=64,ipt=1,vec=1"] == ("candidate", "")
    assert statuses["wg=4096,ipt=1,vec=1"][0] == "pruned"
    assert "max_workgroup_size" in statuses["wg=4096,ipt=1,vec=1"][1]


@pytest.mark.parametrize("command", ["tune", "certify"])
def test_a_malformed_schedule_is_a_usage_error_with_the_reason(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "raw_affine", "--schedule", "wg=0"])
    assert exit_info.value.code == 2
    assert "workgroup size must be positive" in capsys.readouterr().err


def test_tune_runs_and_concludes(capsys):
    code, out, _ = _run(
        capsys,
        "tune",
        "raw_affine",
        "--backend",
        "reference",
        "--schedule",
        "wg=64",
        "--samples",
        "3",
    )
    assert code == 0 and "finalist" in out and "no winner declared" in out


def test_profile_hardware_describes_each_available_backend(capsys):
    code, out, _ = _run(capsys, "profile-hardware", "--json")
    data = json.loads(out)
    status = forge.available_backends()
    assert code == 0 and set(data["backends"]) == {n for n, (ok, _) in status.items() if ok}
    ref = data["backends"]["reference"]
    assert ref["adapter"]["backend"] == "reference" and ref["timing_source"] == "host-wall-clock"
    assert ref["constraints"]["max_invocations_per_workgroup"] >= 64
    assert set(data["unavailable"]) == {n for n, (ok, _) in status.items() if not ok}
    code, out, _ = _run(capsys, "profile-hardware", "--backend", "reference")
    assert code == 0 and "max_workgroup_size" in out and "adapter.name" in out


def test_capacity_option_lets_large_sizes_run(capsys):
    args = (
        "check",
        "raw_affine",
        "--backend",
        "reference",
        "--size",
        "9000000",
        "--samples",
        "1",
        "--json",
    )
    code, out, _ = _run(capsys, *args)  # 72 MB of buffers: over the default 64 MiB
    ev = json.loads(out)["results"][0]["evaluations"]["reference"]
    assert code == 1 and ev["error_type"] == "AllocationError"
    code, out, _ = _run(capsys, *args, "--capacity-mib", "256")
    assert code == 0 and json.loads(out)["passed"]
