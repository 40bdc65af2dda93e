"""``Bench``: what the sections of one run share: the sizes (full or ``--quick``),
progress on stderr, and resources opened on first use and closed at the end (one
large CUDA context, torch, figures measured once and reused)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ._report import GIB, MIB

if TYPE_CHECKING:
    from backends.cuda import CudaComputeContext

__all__ = ["Sizes", "Bench"]


@dataclass(frozen=True)
class Sizes:
    """Problem sizes and sample counts of a run."""

    buffer_bytes: int = GIB  # P1/P2: bytes per buffer
    rows: int = 4096  # P3: rows of softmax / rmsnorm
    cols: int = 32768  # P3: row length
    gemm: int = 4096  # P4: m = n = k
    transfer_bytes: int = 256 * MIB  # P7
    launch_samples: int = 2000  # P5/P6: samples per overhead measurement
    warmups: int = 3
    # device seconds a kernel runs before its samples (device_seconds), in more
    # dispatches than ``warmups`` where those take less. The bench's figures did not
    # move with 0.2 (P11 on wgpu, H200, 2026-12-04): its measurements follow each
    # other closely. The probes, which compute on the host for seconds between
    # figures, need it (bench/probes.py)
    warm_seconds: float = 0.0
    samples: int = 10  # per measurement of a device figure
    rounds: int = 7  # baseline/ours alternations of a final figure

    @classmethod
    def quick(cls) -> Sizes:
        return cls(
            buffer_bytes=64 * MIB,
            rows=256,
            gemm=1024,
            transfer_bytes=32 * MIB,
            launch_samples=300,
            warmups=1,
            samples=5,
            rounds=3,
        )


class Bench:
    """State shared by the sections of one run; see the module docstring."""

    def __init__(
        self, sizes: Sizes, log: TextIO = sys.stderr, kernels: frozenset[str] | None = None
    ) -> None:
        self.sizes = sizes
        #: P11's kernels to run (``--kernels``); None runs every one
        self.kernels = kernels
        self._log = log
        self._cuda: CudaComputeContext | None = None
        self._memo: dict[str, Any] = {}
        self._started = time.perf_counter()

    def chosen(self, names):
        """The (name, dtype) pairs of ``names`` that ``--kernels`` keeps (all without it)."""
        return [(n, d) for n, d in names if self.kernels is None or n in self.kernels]

    def progress(self, text: str) -> None:
        """One line of progress on stderr, with the seconds since the run began."""
        print(f"[{time.perf_counter() - self._started:6.1f}s] {text}", file=self._log, flush=True)

    def done(self, rows: list) -> list:
        """``rows`` (``Row``s), each also logged as one progress line as soon as it is
        measured: a run cut short by a time limit still shows the rows it finished."""
        for row in rows:
            self.progress("row: " + " | ".join(str(cell) for cell in row.cells()))
        return rows

    # -- CUDA ------------------------------------------------------------------------
    @property
    def cuda_capacity(self) -> int:
        """The slab the largest CUDA section needs: P1's add binds three buffers."""
        s = self.sizes
        return (
            max(
                3 * s.buffer_bytes,
                2 * s.rows * s.cols * 4 + s.cols * 4,
                3 * s.gemm * s.gemm * 4,
                s.transfer_bytes,
            )
            + 64 * MIB
        )

    def cuda(self):
        """The run's CUDA context (``GpuUnavailable`` where there is no CUDA device); a
        new one when a kernel lost the last one (the later sections still run)."""
        if self._cuda is not None and self._cuda.lost:
            self.progress(f"the CUDA context was lost ({self._cuda.lost}); opening a new one")
            self._cuda.close()
            self._cuda = None
        if self._cuda is None:
            failure = self._memo.get("cuda failure")
            if failure is not None:
                raise failure  # said once; every CUDA row gets the same reason
            from backends.cuda import CudaComputeContext

            self.progress(f"opening a CUDA context with a {self.cuda_capacity / GIB:.2f} GiB slab")
            try:
                self._cuda = CudaComputeContext(self.cuda_capacity)
            except Exception as exc:
                self._memo["cuda failure"] = exc
                raise
            self._memo["cuda adapter"] = {
                **self._cuda.adapter.as_dict(),
                "launch_path": self._cuda.launch_path,
            }
        self._cuda.clear_transient_allocations()
        return self._cuda

    def cuda_adapter(self) -> dict:
        """The CUDA device's identity, once a section has opened the context."""
        return self._memo.get("cuda adapter", {})

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per run (a figure several sections compare with)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def torch(self):
        """torch with a working CUDA device, or ``ImportError`` saying why not."""

        def load():
            try:
                import torch
            except ImportError as exc:
                return ImportError(f"torch is not installed ({exc})")
            if not torch.cuda.is_available():
                return ImportError("torch is installed but sees no CUDA device")
            return torch

        found = self.memo("torch", load)
        if isinstance(found, ImportError):
            raise found
        return found

    def close(self) -> None:
        cuda, self._cuda = self._cuda, None
        if cuda is not None:
            cuda.close()
