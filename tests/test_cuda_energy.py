"""Energy on NVIDIA GPUs through NVML (backends/cuda/_energy.py), with a stand-in for
``pynvml`` so it runs without a GPU: the counter is found by the device's PCI bus id and
read in millijoules, NVML's errors become ``UnsupportedFeature`` with the reason, and a
machine without nvidia-ml-py is told how to install it. The GPU machine reads a real
counter in tests/test_cuda_context.py's energy test."""

from __future__ import annotations

import sys
import types

import pytest

from backends.cuda._energy import EnergyCounter, energy_support
from forge import UnsupportedFeature


def _fake_nvml(readings: list[float], fail: str = "") -> types.ModuleType:
    module = types.ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    calls: list = []
    module.NVMLError = NVMLError
    module.calls = calls
    module.nvmlInit = lambda: calls.append("init")

    def handle(bus_id):
        calls.append(("handle", bus_id))
        if fail:
            raise NVMLError(fail)
        return "gpu-handle"

    module.nvmlDeviceGetHandleByPciBusId = handle
    module.nvmlDeviceGetTotalEnergyConsumption = lambda h: readings.pop(0)
    return module


def test_the_counter_is_found_by_bus_id_and_read_in_millijoules(monkeypatch):
    fake = _fake_nvml([1000.0, 1250.5])
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.setattr(EnergyCounter, "_initialised", False)
    counter = EnergyCounter("0000:18:00.0")
    assert counter() == 1000.0 and counter() == 1250.5
    assert fake.calls == ["init", ("handle", "0000:18:00.0")]  # found once, read twice


def test_an_nvml_error_says_which_gpu_and_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml([], fail="Not Supported"))
    monkeypatch.setattr(EnergyCounter, "_initialised", False)
    with pytest.raises(UnsupportedFeature, match="GPU at 0000:18:00.0: Not Supported"):
        EnergyCounter("0000:18:00.0")()


def test_without_nvidia_ml_py_the_reason_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert "pip install 'kernel-forge[cuda]'" in energy_support()
    with pytest.raises(UnsupportedFeature, match="nvidia-ml-py is not installed"):
        EnergyCounter("0000:18:00.0")()


def test_on_an_nvidia_gpu_a_kernels_energy_is_read_per_run(request):
    import forge
    from oracle import evaluate_case, expected_outputs, make_case
    from oracle.pytest_plugin import require_available

    require_available(request.config, "cuda")
    pytest.importorskip("pynvml", reason="nvidia-ml-py (the cuda extra) is not installed")
    kernel = forge.get_kernel("affine")
    expected = expected_outputs(make_case(kernel, kernel.size(1 << 24), 0))
    with forge.open_context("cuda", capacity_bytes=1 << 30) as ctx:
        ev = evaluate_case(ctx, expected, samples=5, energy_s=1.0)
    assert ev.passed and len(ev.energy_j) == 3, ev.energy_note
    # 128 MiB moved per run, tens of microseconds at hundreds of watts: millijoules
    assert all(1e-5 < e < 1.0 for e in ev.energy_j), ev.energy_j
