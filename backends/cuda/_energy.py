"""Energy readings through NVML (``nvidia-ml-py``, the ``cuda`` extra): the device's
cumulative energy counter in millijoules, found by the CUDA device's PCI bus id.

NVML's counter (Volta and later) advances in steps, tens of milliseconds apart, so a
single short kernel reads as nothing: the oracle reads it around enough repeated runs
(``oracle._plan._measure_energy``) and divides. Nothing here imports ``pynvml`` until a
reading is asked for.
"""

from __future__ import annotations

import importlib.util
import threading

from forge.errors import UnsupportedFeature

__all__ = ["energy_support", "EnergyCounter"]

_INSTALL = "pip install 'kernel-forge[cuda]' (or pip install nvidia-ml-py)"


def energy_support() -> str:
    """ "" when NVML can be asked, else why not and how to install it."""
    if importlib.util.find_spec("pynvml") is None:
        return f"energy is read through NVML, and nvidia-ml-py is not installed: {_INSTALL}"
    return ""


class EnergyCounter:
    """The cumulative energy (millijoules) of the GPU at ``pci_bus_id``."""

    _init_lock = threading.Lock()
    _initialised = False

    def __init__(self, pci_bus_id: str) -> None:
        self.pci_bus_id = pci_bus_id
        self._handle = None

    def __call__(self) -> float:
        try:
            import pynvml
        except ImportError:
            raise UnsupportedFeature(energy_support()) from None
        try:
            if self._handle is None:
                with EnergyCounter._init_lock:
                    if not EnergyCounter._initialised:
                        pynvml.nvmlInit()
                        EnergyCounter._initialised = True
                self._handle = pynvml.nvmlDeviceGetHandleByPciBusId(self.pci_bus_id)
            return float(pynvml.nvmlDeviceGetTotalEnergyConsumption(self._handle))
        except pynvml.NVMLError as exc:
            raise UnsupportedFeature(
                f"NVML cannot read the energy of the GPU at {self.pci_bus_id}: {exc}"
            ) from None
