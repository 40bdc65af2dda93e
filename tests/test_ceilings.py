"""Measured ceilings (``kforge profile-hardware --measure``): probes run through the
contract on every backend, checked for their values before their time counts."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import backends.cuda as cuda
from forge import InvalidArgument, open_context
from kforge import main
from oracle import _ceilings
from oracle._ceilings import PROBES, measure_ceilings, probe_scale


def test_copy_and_fma_are_measured_on_every_backend_and_tensor_cores_where_it_has_them(
    forge_context,
):
    ceilings = measure_ceilings(forge_context, "small", samples=3)
    assert list(ceilings) == [p.name for p in PROBES]
    for name in ("copy", "fp32-fma"):
        c = ceilings[name]
        assert c.reason == "" and c.value > 0 and c.timing.count == 3
        assert c.value == pytest.approx(c.work / c.timing.median)
        assert c.timing.source == forge_context.timing_source
    assert ceilings["copy"].work == 32 * ceilings["copy"].size  # 16 bytes read, 16 written
    assert ceilings["fp32-fma"].work == 2 * 16 * 1024 * ceilings["fp32-fma"].size
    tensor = ceilings["tensor-f16"]
    if forge_context.target == "cuda":
        assert tensor.value > 0 and tensor.work == 4096 * 4 * 256 * (tensor.size // 32)
    else:
        assert tensor.value is None
        assert "numpy" in tensor.reason or "cooperative matrices" in tensor.reason


def test_a_probe_that_computes_wrong_values_gives_no_ceiling(monkeypatch):
    wrong = dataclasses.replace(PROBES[0], expected=lambda x: x + 1)
    monkeypatch.setattr(_ceilings, "PROBES", (wrong,))
    with open_context("reference") as ctx:
        copy = measure_ceilings(ctx, "small")["copy"]
    assert copy.value is None and "wrote wrong values in 262144 of 262144" in copy.reason


def test_auto_scale_is_small_for_numpy_and_cpu_adapters_and_a_bad_scale_is_refused():
    with open_context("reference") as ctx:
        assert probe_scale(ctx) == "small" and probe_scale(ctx, "large") == "large"
        with pytest.raises(InvalidArgument, match="one of auto, small, large"):
            probe_scale(ctx, "huge")


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.name)
def test_every_cuda_probe_compiles_with_nvrtc_to_its_instructions(probe):
    source = probe.kernel.source("cuda", probe.schedule, probe.sizes["large"])
    ptx = cuda.compile_cuda(source, probe.kernel.entry_point, arch="sm_90", output="ptx")
    text = ptx.rstrip(b"\0").decode()
    if probe.name.startswith("tensor-"):
        precision = probe.name.split("-")[1]
        assert text.count(f".f32.{precision}.{precision}.f32") >= 4
    elif probe.name == "fp32-fma":
        assert "fma.rn.f32" in text
    else:
        assert "st.global.v4" in text  # one 16-byte store per element


def test_profile_hardware_measure_writes_a_versioned_profile_with_ceilings(capsys, tmp_path):
    path = tmp_path / "profile.json"
    code = main(
        [
            "profile-hardware",
            "--measure",
            "--backend",
            "reference",
            "--json",
            "--results",
            str(path),
        ]
    )
    printed = json.loads(capsys.readouterr().out)
    assert code == 0 and printed == json.loads(path.read_text())
    assert printed["format"] == "kforge-profile/1"
    ceilings = printed["backends"]["reference"]["ceilings"]
    assert ceilings["copy"]["unit"] == "GB/s" and ceilings["copy"]["value"] > 0
    assert ceilings["tensor-tf32"]["value"] is None and "numpy" in ceilings["tensor-tf32"]["reason"]
    assert np.isfinite(ceilings["fp32-fma"]["value"])
