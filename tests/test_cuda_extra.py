"""CUDA is the ``kernel-forge[cuda]`` extra: the base install needs none of it, and a
missing extra makes the CUDA backend unavailable with the exact install command."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import backends.cuda

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_base_install_needs_no_cuda_package():
    base = " ".join(_project()["dependencies"])
    assert "cuda" not in base and "nvidia" not in base


def test_the_cuda_extra_brings_python_bindings_nvrtc_and_the_header_wheels():
    names = {
        spec.split(">")[0].split("=")[0].strip()
        for spec in _project()["optional-dependencies"]["cuda"]
    }
    assert names == {
        "cuda-bindings",
        "nvidia-cuda-nvrtc",
        "nvidia-cuda-runtime",
        "nvidia-cuda-crt",
        "nvidia-cuda-cccl",
        "nvidia-curand",  # curand_kernel.h, cuRAND's device API (round 23)
        "nvidia-ml-py",
    }  # NVML: the tuner's energy readings


def test_without_the_extra_the_backend_is_unavailable_with_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] == "cuda" else real(name, *a),
    )
    ok, reason = backends.cuda.entry.availability()
    assert not ok
    assert reason.endswith("pip install 'kernel-forge[cuda]'")
