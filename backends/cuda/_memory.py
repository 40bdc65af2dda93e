"""Pinned host memory and the staged copies between host and device.

The DMA engines read and write only page-locked (pinned) host memory at full speed;
from pageable memory the driver stages through a small buffer of its own at a fraction
of it (7.6 against 55 GB/s measured on the H200, docs/PERFORMANCE.md). So a copy of a
pageable array goes through a ring of pinned staging buffers: the host copies chunk
k+1 into one buffer, with several threads, while the DMA engine moves chunk k out of
another. Arrays from ``pinned_empty`` are pinned already and are DMA'd directly.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import ctypes
import os
import threading
import weakref

import numpy as np

from ._driver import PrimaryContext, call, check, driver

__all__ = [
    "PinnedAllocation",
    "pinned_empty",
    "pinned_address",
    "Staging",
    "Copier",
    "default_threads",
    "host_cores",
]

_PORTABLE = 0x01  # CU_MEMHOSTALLOC_PORTABLE: pinned for every context
_PARALLEL_MIN = 4 << 20  # below this one thread copies faster than a hand-off
_PART_MIN = 1 << 20  # the smallest piece worth a thread
_MAX_THREADS = 8  # past this, host memory bandwidth is the limit anyway
_NOT_READY = driver.CUresult.CUDA_ERROR_NOT_READY

# Pinned ranges handed out by ``pinned_empty``: sorted start addresses, and start -> end.
_pinned_lock = threading.Lock()
_pinned_starts: list[int] = []
_pinned_ends: dict[int, int] = {}


def _free_pinned(primary: PrimaryContext, pointer: int) -> None:
    with _pinned_lock:
        if pointer in _pinned_ends:
            del _pinned_ends[pointer]
            _pinned_starts.pop(bisect.bisect_left(_pinned_starts, pointer))
    try:
        primary.make_current()
        primary.api.cuMemFreeHost(pointer)
    except Exception:  # a dead driver at shutdown: the process is freeing everything anyway
        pass
    primary.release()


class PinnedAllocation:
    """``nbytes`` of pinned host memory, freed when the object is collected (or by
    ``free()``). It holds its own retain of the device's primary context, so the
    memory stays valid after the context that made it is closed."""

    def __init__(self, ordinal: int, nbytes: int, *, register: bool = False) -> None:
        self.nbytes = int(nbytes)
        primary = PrimaryContext(ordinal)
        try:
            primary.make_current()
            self.pointer = int(call(driver.cuMemHostAlloc, max(1, self.nbytes), _PORTABLE))
        except BaseException:
            primary.release()
            raise
        self.api = primary.api  # the driver that made it frees what goes with it
        self._primary = primary
        self._finalizer = weakref.finalize(self, _free_pinned, primary, self.pointer)
        if register:
            with _pinned_lock:
                bisect.insort(_pinned_starts, self.pointer)
                _pinned_ends[self.pointer] = self.pointer + self.nbytes

    def array(self, count: int | None = None, dtype=np.uint8) -> np.ndarray:
        """A numpy view of the memory that keeps this allocation alive."""
        raw = (ctypes.c_char * self.nbytes).from_address(self.pointer)
        # the array's base chain ends here, so the memory outlives it
        raw._owner = self  # type: ignore[attr-defined]
        # a ctypes array is a buffer (typeshed declares it only for Python >= 3.12)
        return np.frombuffer(
            raw,
            dtype=dtype,  # type: ignore[call-overload]
            count=-1 if count is None else count,
        )

    def free(self) -> None:
        self._finalizer()

    def keep_at_exit(self) -> None:
        """Do not free it at the interpreter's exit: a kernel we gave up on may still
        run, and cuMemFreeHost would wait for it. The process frees it by ending."""
        self._finalizer.atexit = False
        self._primary.keep_at_exit()


def pinned_empty(ordinal: int, shape, dtype=np.float32) -> np.ndarray:
    """An uninitialised array in pinned memory, which copies to and from the device
    without staging. It keeps its memory (and the device's primary context) alive for
    as long as the array or any view of it lives."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = int(np.prod(shape, dtype=np.int64))
    allocation = PinnedAllocation(ordinal, count * dtype.itemsize, register=True)
    return allocation.array(count, dtype).reshape(shape)


def pinned_address(data: memoryview) -> int | None:
    """The address of ``data`` when all of it lies in memory from ``pinned_empty``."""
    if data.nbytes == 0 or not _pinned_starts:
        return None
    address = np.frombuffer(data, np.uint8).ctypes.data
    with _pinned_lock:
        i = bisect.bisect_right(_pinned_starts, address) - 1
        if i >= 0 and address + data.nbytes <= _pinned_ends[_pinned_starts[i]]:
            return address
    return None


def host_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def default_threads() -> int:
    """Host threads a staged copy uses by default: every core, up to ``_MAX_THREADS``."""
    return max(1, min(_MAX_THREADS, host_cores()))


class Copier:
    """Copies between host arrays in page-aligned parts on ``threads`` pool threads:
    numpy releases the GIL while it copies, and one core cannot feed a DMA engine.
    ``start`` returns without waiting, so a caller can queue the next copy while this
    one runs, and the threads never idle at a barrier between chunks."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = default_threads() if threads is None else int(threads)
        if self.threads < 1:
            raise ValueError(f"a copier needs at least one thread, got {threads}")
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    def start(self, dst: np.ndarray, src: np.ndarray) -> list:
        """Begin ``dst[:] = src`` (equal-size uint8 arrays); returns the futures to wait
        for (none when the copy was small enough to make at once)."""
        n = dst.size
        parts = min(self.threads, n // _PART_MIN)
        if n < _PARALLEL_MIN or parts < 2:
            np.copyto(dst, src)
            return []
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                self.threads, thread_name_prefix="kforge-copy"
            )
        step = (-(-n // parts) + 4095) // 4096 * 4096  # page-aligned pieces
        return [
            self._pool.submit(np.copyto, dst[a : a + step], src[a : a + step])
            for a in range(0, n, step)
        ]

    def copy(self, dst: np.ndarray, src: np.ndarray) -> None:
        """``dst[:] = src``, waited for."""
        _finish(self.start(dst, src))

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def _finish(futures: list) -> None:
    """Wait for every future (all of them, even after one failed), then raise the first
    failure: a part still running must not outlive the buffers it writes."""
    failure = None
    for future in futures:
        try:
            future.result()
        except BaseException as exc:
            failure = failure or exc
    if failure is not None:
        raise failure


class _Buffer:
    """One staging buffer and the event recorded after the last DMA that used it."""

    def __init__(self, ordinal: int, nbytes: int) -> None:
        self.memory = PinnedAllocation(ordinal, nbytes)
        self.bytes = self.memory.array()
        self.event = call(driver.cuEventCreate, driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self.recorded = False
        self.held = False  # in use by the host: being filled, or holding downloaded bytes

    def idle(self) -> bool:
        """Whether no DMA uses the buffer any more (asks the driver, does not wait)."""
        if self.held:
            return False
        if self.recorded:
            result = driver.cuEventQuery(self.event)
            if result[0] == _NOT_READY:
                return False
            check(result, "cuEventQuery")
            self.recorded = False
        return True

    def wait(self) -> None:
        """Block until the DMA that last used this buffer is done."""
        if self.recorded:
            call(driver.cuEventSynchronize, self.event)
            self.recorded = False

    def done_on(self, stream) -> None:
        call(driver.cuEventRecord, self.event, stream)
        self.recorded = True

    def release(self) -> None:
        try:
            self.memory.api.cuEventDestroy(self.event)
        except Exception:  # a dead context frees its events itself
            pass
        self.memory.free()


class Staging:
    """Up to ``count`` pinned buffers of ``chunk_bytes``, through which pageable host
    memory is copied to and from the device, with host copies on ``threads`` threads.
    A buffer is made only when every existing one is busy, so small transfers keep to
    one buffer and large ones pipeline."""

    def __init__(
        self, ordinal: int, chunk_bytes: int = 16 << 20, count: int = 4, threads: int | None = None
    ) -> None:
        self.ordinal = ordinal
        self.chunk = int(chunk_bytes)
        self.count = int(count)
        self.copier = Copier(threads)
        self._buffers: list[_Buffer] = []
        self._next = 0

    def _acquire(self) -> _Buffer:
        """An idle buffer: a free one, else a new one, else the next in turn once its
        DMA is done."""
        for _ in range(len(self._buffers)):
            buffer = self._buffers[self._next]
            self._next = (self._next + 1) % len(self._buffers)
            if buffer.idle():
                return buffer
        if len(self._buffers) < self.count:
            self._buffers.append(_Buffer(self.ordinal, self.chunk))
            return self._buffers[-1]
        for _ in range(len(self._buffers)):
            buffer = self._buffers[self._next]
            self._next = (self._next + 1) % len(self._buffers)
            if not buffer.held:
                buffer.wait()
                return buffer
        raise AssertionError("unreachable: a copy holds at most count - 1 buffers")

    def upload(self, device_pointer: int, data: memoryview, stream) -> None:
        """Enqueue a copy of ``data`` to ``device_pointer`` on ``stream``. On return
        ``data`` may be reused: its bytes are in staging or already on the device.

        Up to ``count - 1`` chunks are being copied into staging at once (their parts
        queued on the copier's threads), and each one's DMA is enqueued as soon as it is
        complete, in order, while the next ones are still being copied."""
        direct = pinned_address(data)
        if direct is not None:
            call(driver.cuMemcpyHtoDAsync, device_pointer, direct, data.nbytes, stream)
            return
        source = np.frombuffer(data, np.uint8)
        filling: list[tuple[_Buffer, int, int, list]] = []  # oldest first
        try:
            for start in range(0, source.size, self.chunk):
                if len(filling) == self.count - 1:
                    self._send(filling.pop(0), device_pointer, stream)
                size = min(self.chunk, source.size - start)
                buffer = self._acquire()
                buffer.held = True
                filling.append((buffer, start, size, []))
                filling[-1][3].extend(
                    self.copier.start(buffer.bytes[:size], source[start : start + size])
                )
            while filling:
                self._send(filling.pop(0), device_pointer, stream)
        finally:
            for buffer, _, _, futures in filling:  # after a failure: let the copies end
                try:
                    _finish(futures)
                except BaseException:
                    pass
                buffer.held = False

    @staticmethod
    def _send(item: tuple, device_pointer: int, stream) -> None:
        """Enqueue the DMA of one staged chunk once its host copy is complete."""
        buffer, start, size, futures = item
        try:
            _finish(futures)
            call(
                driver.cuMemcpyHtoDAsync,
                device_pointer + start,
                buffer.memory.pointer,
                size,
                stream,
            )
            buffer.done_on(stream)
        finally:
            buffer.held = False

    def download(self, out: memoryview, device_pointer: int, stream) -> None:
        """Copy ``out.nbytes`` bytes at ``device_pointer`` into ``out`` after the work
        already on ``stream``, and wait for them: the host copy of one chunk overlaps
        the DMA of the next ones."""
        direct = pinned_address(out)
        if direct is not None:
            call(driver.cuMemcpyDtoHAsync, direct, device_pointer, out.nbytes, stream)
            call(driver.cuStreamSynchronize, stream)
            return
        sink = np.frombuffer(out, np.uint8)
        in_flight: list[tuple[_Buffer, int, int]] = []
        try:
            for start in range(0, sink.size, self.chunk):
                if len(in_flight) == self.count:
                    self._drain(in_flight.pop(0), sink)
                size = min(self.chunk, sink.size - start)
                buffer = self._acquire()
                buffer.held = True
                in_flight.append((buffer, start, size))
                call(
                    driver.cuMemcpyDtoHAsync,
                    buffer.memory.pointer,
                    device_pointer + start,
                    size,
                    stream,
                )
                buffer.done_on(stream)
            while in_flight:
                self._drain(in_flight.pop(0), sink)
        finally:
            for buffer, _, _ in in_flight:
                buffer.held = False

    def _drain(self, item: tuple[_Buffer, int, int], sink: np.ndarray) -> None:
        buffer, start, size = item
        buffer.wait()
        self.copier.copy(sink[start : start + size], buffer.bytes[:size])
        buffer.held = False

    def keep_at_exit(self) -> None:
        """``PinnedAllocation.keep_at_exit`` for every buffer."""
        for buffer in self._buffers:
            buffer.memory.keep_at_exit()

    def release(self) -> None:
        self.copier.close()
        buffers, self._buffers = self._buffers, []
        for buffer in buffers:
            buffer.release()
