"""A simulated CUDA driver, so the CUDA backend's own logic (fences, staging through
pinned memory, argument packing, graph capture, loss and recovery) runs in CI, where
there is no GPU. Passing here proves that logic, never the GPU: the same test bodies
run on the real device in tests/test_cuda_context.py (``--require-backend cuda``).

The simulation is strict where the real driver is: copies must name pinned host memory
and device memory inside an allocation, a sticky error fails every call until the
primary context's last retain is released, a thread-local capture refuses copies,
waits and module loads, a plain event record in a capture makes an event nobody may
wait for (only ``CU_EVENT_RECORD_EXTERNAL`` captures an event record node), a destroyed
executable graph cannot be launched, a launch with more than 48 KiB of dynamic shared
memory needs the function's opt-in (``cuFuncSetAttribute``) first, and kernel arguments
are copied when the launch is made. Stream operations run at once, in order; kernels
are Python functions registered by entry-point name, reading their arguments through
the ``void**`` array like a GPU.
"""

from __future__ import annotations

import ctypes
import gc
import itertools
import os
import re
import subprocess
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from cuda.bindings import driver as real

R = real.CUresult
OK = R.CUDA_SUCCESS
Kernel = Callable[[list, tuple, tuple], None]  # (argument bytes, grid, block)

ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_BLOCK_DIM_X": 1024,
    "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1,
    "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535,
    "MAX_SHARED_MEMORY_PER_BLOCK": 49152,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
    "WARP_SIZE": 32,
    "MULTIPROCESSOR_COUNT": 132,
    "L2_CACHE_SIZE": 50 << 20,
    "PCI_BUS_ID": 0x19,
    "PCI_DEVICE_ID": 0,
    "PCI_DOMAIN_ID": 0,
    "INTEGRATED": 0,
    "ASYNC_ENGINE_COUNT": 3,
    "COMPUTE_CAPABILITY_MAJOR": 9,
    "COMPUTE_CAPABILITY_MINOR": 0,
    "TEXTURE_ALIGNMENT": 512,
    "MAXIMUM_TEXTURE1D_LINEAR_WIDTH": 1 << 27,
}


def f32(blob: bytes, offset: int = 0) -> float:
    return float(np.frombuffer(blob, np.float32, 1, offset)[0])


def u32(blob: bytes, offset: int = 0) -> int:
    return int(np.frombuffer(blob, np.uint32, 1, offset)[0])


def ptr(blob: bytes) -> int:
    return int(np.frombuffer(blob, np.uint64, 1)[0])


def device_array(address: int, count: int, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype)


def _affine(args, grid, block):
    n = u32(args[2], 8)
    x, y = device_array(ptr(args[0]), n, np.float32), device_array(ptr(args[1]), n, np.float32)
    y[:] = np.float32(f32(args[2], 0)) * x + np.float32(f32(args[2], 4))


def _square(args, grid, block):
    n = u32(args[2])
    x, y = device_array(ptr(args[0]), n, np.float32), device_array(ptr(args[1]), n, np.float32)
    y[:] = x * x


def _probe(args, grid, block):
    """The float semantics probe (backends._probe) on an IEEE device: numpy's answers."""
    from backends._probe import PROBE_CASES

    count = len(PROBE_CASES)
    x = device_array(ptr(args[0]), 2 * count, np.float32)
    y = device_array(ptr(args[1]), count, np.float32)
    y[:] = [case[6] for case in PROBE_CASES]
    assert x.size == 2 * count


def _poison_shared(args, grid, block):
    """The backend's shared memory poison (``poison_scratch_memory``): shared memory is
    not simulated, so nothing to fill; a test that asks what was poisoned swaps its own in."""


# Entry point -> (kernel, parameter sizes). Tests add their own.
KERNELS: dict[str, tuple[Kernel, tuple[int, ...]]] = {
    "kforge_poison_shared": (_poison_shared, (4, 4)),
    "raw_affine": (_affine, (8, 8, 12)),
    "demo_square": (_square, (8, 8, 4)),
    "probe": (_probe, (8, 8)),
}


class _Handle:
    _ids = itertools.count(0x1000)
    live: weakref.WeakValueDictionary[int, _Handle] = weakref.WeakValueDictionary()

    def __init__(self, kind: str, **state) -> None:
        self.kind, self.id = kind, next(self._ids)
        self.__dict__.update(state)
        _Handle.live[self.id] = self

    def __int__(self) -> int:
        """The raw handle value, as ``int(CUstream)`` gives it: what a C caller holds."""
        return self.id

    def __repr__(self) -> str:
        return f"<fake {self.kind} {self.id:#x}>"


@dataclass
class _Launch:
    kernel: Kernel
    grid: tuple
    block: tuple
    args: list


@dataclass
class _Context:
    generation: int
    sticky: object = None  # the CUresult every call returns once the context faulted
    device_memory: dict = field(default_factory=dict)  # address -> ctypes buffer


class FakeDriver:
    """The subset of ``cuda.bindings.driver`` the backend uses; see the module docstring."""

    CUresult = R
    CUdevice_attribute = real.CUdevice_attribute
    CUstream_flags = real.CUstream_flags
    CUevent_flags = real.CUevent_flags
    CUevent_record_flags = real.CUevent_record_flags
    CUstreamCaptureMode = real.CUstreamCaptureMode
    CUfunction_attribute = real.CUfunction_attribute
    # texture and surface objects (backends/cuda/_textures.py): the real structs, read
    # by the simulated calls below
    CUDA_RESOURCE_DESC = real.CUDA_RESOURCE_DESC
    CUDA_TEXTURE_DESC = real.CUDA_TEXTURE_DESC
    CUDA_ARRAY3D_DESCRIPTOR = real.CUDA_ARRAY3D_DESCRIPTOR
    CUDA_MEMCPY2D = real.CUDA_MEMCPY2D
    CUarray_format = real.CUarray_format
    CUresourcetype = real.CUresourcetype
    CUaddress_mode = real.CUaddress_mode
    CUfilter_mode = real.CUfilter_mode
    CUmemorytype = real.CUmemorytype
    CU_TRSF_READ_AS_INTEGER = real.CU_TRSF_READ_AS_INTEGER
    CU_TRSF_NORMALIZED_COORDINATES = real.CU_TRSF_NORMALIZED_COORDINATES
    CUDA_ARRAY3D_SURFACE_LDST = real.CUDA_ARRAY3D_SURFACE_LDST

    def __init__(self, total_memory: int = 8 << 30) -> None:
        self.total_memory = total_memory
        self.retains = 0
        self.generations = itertools.count(1)
        self.primary: _Context | None = None  # the device's primary context, while retained
        self.contexts: dict[int, _Context] = {}  # every live context by generation
        self.current = None
        self.host_memory: dict[int, ctypes.Array] = {}
        self.clock_ns = 0
        self.capture_mode = real.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
        self.capturing = None  # the stream under capture, if any
        self.calls: dict[str, int] = {}  # per function, for tests that count
        self.kernels = dict(KERNELS)
        self.missing_kernel = ""
        self.live_executables: set[int] = set()  # instantiated graphs not yet destroyed
        # True: an event recorded on a stream stays "not ready" for cuEventElapsedTime until
        # the host waits for it (or a later one), like a GPU still running the work.
        self.lazy_events = False
        # True: work enqueued from now on never finishes (a kernel in an endless loop):
        # queries say "not ready" and a blocking wait fails the test, since on a GPU it
        # would never return.
        self.hung = False
        self._recorded = itertools.count()
        self._completed = -1  # events recorded up to this count have completed
        # texture and surface objects and CUDA arrays, live, by handle value
        self.arrays: dict[int, dict] = {}
        self.objects: dict[int, dict] = {}
        self.fail_next_texture = False  # cuTexObjectCreate refuses once (tests)

    # -- helpers -------------------------------------------------------------------
    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def _usable(self):
        """The error a call in the current context returns, or None."""
        context = self.contexts.get(self.current.generation) if self.current else None
        if context is None:
            return R.CUDA_ERROR_INVALID_CONTEXT
        return context.sticky

    @property
    def context(self) -> _Context | None:
        """The context current on the calling thread, else the primary one."""
        if self.current is not None and self.current.generation in self.contexts:
            return self.contexts[self.current.generation]
        return self.primary

    def _in_capture(self, stream=None) -> bool:
        """Whether a call is refused because this thread is capturing (thread-local
        mode), and if so invalidate the capture as the driver does."""
        if self.capturing is None:
            return False
        relaxed = self.capture_mode == real.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        if stream is None and relaxed:
            return False
        self.capturing.graph.invalidated = True
        return True

    @staticmethod
    def _inside(memory: dict, address: int, size: int) -> bool:
        for start, buffer in memory.items():
            if start <= address and address + size <= start + ctypes.sizeof(buffer):
                return True
        return False

    # -- device and context --------------------------------------------------------
    def cuInit(self, flags):
        return (OK,)

    def cuGetErrorString(self, err):
        if err == R.CUDA_ERROR_NOT_FOUND and self.missing_kernel:
            return (
                OK,
                f"the simulated driver has no Python model of kernel "
                f"{self.missing_kernel!r}: add one to KERNELS in "
                f"tests/test_cuda_fake_driver.py".encode(),
            )
        return (OK, f"simulated {err.name}".encode())

    def cuDeviceGetCount(self):
        return (OK, 1)

    def cuDeviceGet(self, ordinal):
        return (OK, 0) if ordinal == 0 else (R.CUDA_ERROR_INVALID_DEVICE, None)

    def cuDeviceGetName(self, length, device):
        return (OK, b"Simulated H200\0\0\0")

    def cuDeviceGetAttribute(self, attribute, device):
        return (OK, ATTRIBUTES[attribute.name.replace("CU_DEVICE_ATTRIBUTE_", "")])

    def cuDriverGetVersion(self):
        return (OK, 13000)

    def cuDeviceGetPCIBusId(self, length, device):
        return (OK, b"0000:19:00.0\0")

    def cuDeviceGetUuid(self, device):
        return (OK, type("Uuid", (), {"bytes": bytes(range(16))})())

    def cuDeviceTotalMem(self, device):
        return (OK, self.total_memory)

    def cuDevicePrimaryCtxRetain(self, device):
        if self.retains == 0:
            self.primary = _Context(next(self.generations))
            self.contexts[self.primary.generation] = self.primary
        self.retains += 1
        return (OK, _Handle("context", generation=self.primary.generation))

    def cuDevicePrimaryCtxRelease(self, device):
        if self.retains == 0:
            return (R.CUDA_ERROR_INVALID_CONTEXT,)
        self.retains -= 1
        if self.retains == 0:  # the last retain destroys the context, faults and all
            self.contexts.pop(self.primary.generation, None)
            self.primary = None
        return (OK,)

    def cuCtxSetCurrent(self, ctx):
        self.current = ctx
        return (OK,)

    # -- memory --------------------------------------------------------------------
    def cuMemAlloc(self, size):
        err = self._usable()
        if err:
            return (err, None)
        if self._in_capture():
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, None)
        if size > self.total_memory:
            return (R.CUDA_ERROR_OUT_OF_MEMORY, None)
        buffer = (ctypes.c_char * size)()
        self.context.device_memory[ctypes.addressof(buffer)] = buffer
        return (OK, real.CUdeviceptr(ctypes.addressof(buffer)))

    def cuMemFree(self, pointer):
        err = self._usable()
        if err:
            return (err,)
        return (
            (OK,)
            if self.context.device_memory.pop(int(pointer), None) is not None
            else (R.CUDA_ERROR_INVALID_VALUE,)
        )

    def cuMemHostAlloc(self, size, flags):
        err = self._usable()
        if err:
            return (err, None)
        buffer = (ctypes.c_char * size)()
        self.host_memory[ctypes.addressof(buffer)] = buffer
        return (OK, ctypes.addressof(buffer))

    def cuMemFreeHost(self, pointer):
        return (
            (OK,)
            if self.host_memory.pop(int(pointer), None) is not None
            else (R.CUDA_ERROR_INVALID_VALUE,)
        )

    def _copy(self, name, dst, src, size, stream, to_device: bool):
        self._count(name)
        err = self._usable()
        if err:
            return (err,)
        if self._in_capture(stream):
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        device, host = (int(dst), int(src)) if to_device else (int(src), int(dst))
        if not self._inside(self.context.device_memory, device, size):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        if not self._inside(self.host_memory, host, size):
            # The backend promises DMA from pinned memory only: pageable is a bug here.
            return (R.CUDA_ERROR_INVALID_VALUE,)
        ctypes.memmove(int(dst), int(src), size)
        return (OK,)

    def cuMemcpyHtoDAsync(self, dst, src, size, stream):
        return self._copy("cuMemcpyHtoDAsync", dst, src, size, stream, True)

    def cuMemcpyDtoHAsync(self, dst, src, size, stream):
        return self._copy("cuMemcpyDtoHAsync", dst, src, size, stream, False)

    def cuCtxGetDevice(self):
        err = self._usable()
        return (err, None) if err else (OK, 0)

    def cuMemcpyDtoDAsync(self, dst, src, size, stream):
        self._count("cuMemcpyDtoDAsync")
        err = self._usable()
        if err:
            return (err,)
        memory = self.context.device_memory
        if not (self._inside(memory, int(dst), size) and self._inside(memory, int(src), size)):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        ctypes.memmove(int(dst), int(src), size)
        return (OK,)

    # -- CUDA arrays, texture and surface objects -----------------------------------
    def cuArray3DCreate(self, desc):
        self._count("cuArray3DCreate")
        err = self._usable()
        if err:
            return (err, None)
        if desc.Depth != 0 or desc.NumChannels not in (1, 2, 4):
            return (R.CUDA_ERROR_INVALID_VALUE, None)
        element = {"FLOAT": 4, "HALF": 2, "UNSIGNED_INT8": 1, "UNSIGNED_INT32": 4}
        name = desc.Format.name.removeprefix("CU_AD_FORMAT_")
        texel = element[name] * desc.NumChannels
        handle = next(_Handle._ids)
        self.arrays[handle] = {
            "width": desc.Width,
            "height": desc.Height,
            "texel": texel,
            "surface": bool(desc.Flags & real.CUDA_ARRAY3D_SURFACE_LDST),
            "data": bytearray(desc.Width * desc.Height * texel),
        }
        return (OK, real.CUarray(handle))

    def cuArrayDestroy(self, array):
        return (
            (OK,)
            if self.arrays.pop(int(array), None) is not None
            else (R.CUDA_ERROR_INVALID_VALUE,)
        )

    def _object(self, kind, resource, texture=None):
        err = self._usable()
        if err:
            return (err, None)
        if resource.resType == real.CUresourcetype.CU_RESOURCE_TYPE_ARRAY:
            array = self.arrays.get(int(resource.res.array.hArray))
            if array is None or (kind == "surface" and not array["surface"]):
                return (R.CUDA_ERROR_INVALID_VALUE, None)
            state = {"array": int(resource.res.array.hArray)}
        else:
            linear = resource.res.linear
            if not self._inside(self.context.device_memory, int(linear.devPtr), linear.sizeInBytes):
                return (R.CUDA_ERROR_INVALID_VALUE, None)
            state = {"address": int(linear.devPtr), "bytes": linear.sizeInBytes}
        if texture is not None:
            state.update(filter=texture.filterMode, address_mode=texture.addressMode[0])
            state.update(flags=texture.flags)
        handle = next(_Handle._ids)
        self.objects[handle] = {"kind": kind, **state}
        return (OK, handle)

    def cuTexObjectCreate(self, resource, texture, view):
        self._count("cuTexObjectCreate")
        if self.fail_next_texture:
            self.fail_next_texture = False
            return (R.CUDA_ERROR_INVALID_VALUE, None)
        return self._object("texture", resource, texture)

    def cuSurfObjectCreate(self, resource):
        self._count("cuSurfObjectCreate")
        return self._object("surface", resource)

    def _destroy_object(self, handle, kind):
        found = self.objects.get(int(handle))
        if found is None or found["kind"] != kind:
            return (R.CUDA_ERROR_INVALID_VALUE,)
        del self.objects[int(handle)]
        return (OK,)

    def cuTexObjectDestroy(self, handle):
        return self._destroy_object(handle, "texture")

    def cuSurfObjectDestroy(self, handle):
        return self._destroy_object(handle, "surface")

    def cuMemcpy2DAsync(self, copy, stream):
        """Between device memory and an array, row by row (the only kind the backend makes)."""
        self._count("cuMemcpy2DAsync")
        err = self._usable()
        if err:
            return (err,)
        device = real.CUmemorytype.CU_MEMORYTYPE_DEVICE
        to_array = copy.dstMemoryType == real.CUmemorytype.CU_MEMORYTYPE_ARRAY
        if to_array and copy.srcMemoryType == device:
            array, start, pitch, y0 = (
                self.arrays.get(int(copy.dstArray)),
                int(copy.srcDevice),
                copy.srcPitch,
                copy.dstY,
            )
        elif not to_array and copy.dstMemoryType == device:
            array, start, pitch, y0 = (
                self.arrays.get(int(copy.srcArray)),
                int(copy.dstDevice),
                copy.dstPitch,
                copy.srcY,
            )
        else:
            return (R.CUDA_ERROR_INVALID_VALUE,)
        width = copy.WidthInBytes
        if (
            array is None
            or width > array["width"] * array["texel"]
            or y0 + copy.Height > array["height"]
        ):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        if not self._inside(self.context.device_memory, start, pitch * (copy.Height - 1) + width):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        row = array["width"] * array["texel"]
        for y in range(copy.Height):
            at = (y0 + y) * row
            if to_array:
                array["data"][at : at + width] = ctypes.string_at(start + y * pitch, width)
            else:
                ctypes.memmove(start + y * pitch, bytes(array["data"][at : at + width]), width)
        return (OK,)

    # -- streams and events --------------------------------------------------------
    def cuStreamCreate(self, flags):
        err = self._usable()
        return (err, None) if err else (OK, _Handle("stream", graph=None))

    def cuStreamDestroy(self, stream):
        return (OK,)

    def cuStreamSynchronize(self, stream):
        self._count("cuStreamSynchronize")
        err = self._usable()
        if err:
            return (err,)
        if self.capturing is stream:
            self._in_capture(stream)
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        if self.hung:
            raise AssertionError("cuStreamSynchronize on a hung device would never return")
        return (OK,)

    def cuStreamWaitEvent(self, stream, event, flags):
        self._count("cuStreamWaitEvent")
        return (self._usable() or OK,)

    def cuEventCreate(self, flags):
        err = self._usable()
        timing = int(flags) & int(real.CUevent_flags.CU_EVENT_DISABLE_TIMING) == 0
        return (
            (err, None) if err else (OK, _Handle("event", timing=timing, time=None, captured=False))
        )

    def cuEventDestroy(self, event):
        return (OK,)

    def cuEventRecord(self, event, stream):
        return self.cuEventRecordWithFlags(event, stream, 0, "cuEventRecord")

    def cuEventRecordWithFlags(self, event, stream, flags, name="cuEventRecordWithFlags"):
        self._count(name)
        err = self._usable()
        if err:
            return (err,)
        external = int(flags) & int(real.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL)
        if self.capturing is stream and external:
            stream.graph.nodes.append(event)  # recorded each time the graph runs
        elif external:
            return (R.CUDA_ERROR_INVALID_VALUE,)  # "invalid outside of stream capture"
        else:
            event.captured = self.capturing is stream
            self._stamp(event)
        return (OK,)

    def _stamp(self, event) -> None:
        """An event reached on the stream: its time, and its place in stream order."""
        event.time, event.order = self.clock_ns, next(self._recorded)
        if not self.lazy_events:
            self._completed = event.order

    def cuEventSynchronize(self, event):
        self._count("cuEventSynchronize")
        err = self._usable()
        if err:
            return (err,)
        if event.captured:
            return (R.CUDA_ERROR_CAPTURED_EVENT,)
        if self._never_ready(event):
            raise AssertionError("cuEventSynchronize on a hung device would never return")
        self._completed = max(self._completed, getattr(event, "order", -1))
        return (OK,)

    def cuEventQuery(self, event):
        if self._never_ready(event):
            return (R.CUDA_ERROR_NOT_READY,)
        return self.cuEventSynchronize(event)

    def _never_ready(self, event) -> bool:
        return self.hung and getattr(event, "order", -1) > self._completed

    def cuEventElapsedTime(self, start, end):
        self._count("cuEventElapsedTime")
        if start.captured or end.captured:
            return (R.CUDA_ERROR_INVALID_HANDLE, None)
        if max(getattr(start, "order", -1), getattr(end, "order", -1)) > self._completed:
            return (R.CUDA_ERROR_NOT_READY, None)
        if not (start.timing and end.timing) or start.time is None or end.time is None:
            return (R.CUDA_ERROR_INVALID_HANDLE, None)
        return (OK, (end.time - start.time) / 1e6)

    # -- modules and launches ------------------------------------------------------
    def cuModuleLoadData(self, image):
        self._count("cuModuleLoadData")
        err = self._usable()
        if err:
            return (err, None)
        if self._in_capture():
            return (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, None)
        image = bytes(image)
        if image[:4] == b"\x7fELF":
            names = re.findall(rb"\.text\.([A-Za-z_][A-Za-z0-9_]*)\0", image)
        else:
            names = re.findall(rb"\.entry\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", image)
        if not names:
            return (R.CUDA_ERROR_INVALID_IMAGE, None)
        return (OK, _Handle("module", names={n.decode() for n in names}))

    def cuModuleUnload(self, module):
        return (OK,)

    def cuModuleGetFunction(self, module, name):
        name = name.decode()
        if name not in module.names or name not in self.kernels:
            self.missing_kernel = name
            return (R.CUDA_ERROR_NOT_FOUND, None)
        kernel, sizes = self.kernels[name]
        return (OK, _Handle("function", name=name, kernel=kernel, sizes=sizes))

    def cuFuncGetParamCount(self, function):
        return (OK, len(function.sizes))

    def cuFuncGetParamInfo(self, function, index):
        if not 0 <= index < len(function.sizes):
            return (R.CUDA_ERROR_INVALID_VALUE, None, None)
        return (OK, sum(function.sizes[:index]), function.sizes[index])

    def cuFuncSetAttribute(self, function, attribute, value):
        """Only the opt-in to more than 48 KiB of dynamic shared memory, up to the
        device's limit, which a launch asking for more needs first."""
        self._count("cuFuncSetAttribute")
        limit = ATTRIBUTES["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]
        wanted = real.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        if attribute != wanted or not 0 <= value <= limit:
            return (R.CUDA_ERROR_INVALID_VALUE,)
        function.max_dynamic_shared = value
        return (OK,)

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self._count("cuLaunchKernel")
        err = self._usable()
        if err:
            return (err,)
        grid, block = (gx, gy, gz), (bx, by, bz)
        allowed = max(
            ATTRIBUTES["MAX_SHARED_MEMORY_PER_BLOCK"], getattr(function, "max_dynamic_shared", 0)
        )
        if (
            min(grid + block) < 1
            or bx * by * bz > ATTRIBUTES["MAX_THREADS_PER_BLOCK"]
            or bz > ATTRIBUTES["MAX_BLOCK_DIM_Z"]
            or shared > allowed
        ):
            return (R.CUDA_ERROR_INVALID_VALUE,)
        pointers = (ctypes.c_void_p * len(function.sizes)).from_address(int(params))
        # Arguments are copied now, as the driver does: the caller may free them next.
        args = [ctypes.string_at(p, size) for p, size in zip(pointers, function.sizes)]
        launch = _Launch(function.kernel, grid, block, args)
        if self.capturing is stream:
            stream.graph.nodes.append(launch)
        else:
            self._run(launch)
        return (OK,)

    def _run(self, launch: _Launch) -> None:
        if self.context.sticky is None:
            launch.kernel(launch.args, launch.grid, launch.block)
        self.clock_ns += 1000 + int(np.prod(launch.grid) * np.prod(launch.block)) // 64

    def fault(self, error=R.CUDA_ERROR_ILLEGAL_ADDRESS) -> None:
        """What a kernel touching an illegal address does: the context is faulted."""
        self.context.sticky = error

    # -- graphs --------------------------------------------------------------------
    def cuThreadExchangeStreamCaptureMode(self, mode):
        previous, self.capture_mode = self.capture_mode, mode
        return (OK, previous)

    def cuStreamBeginCapture(self, stream, mode):
        err = self._usable()
        if err:
            return (err,)
        if self.capturing is not None:
            return (R.CUDA_ERROR_ILLEGAL_STATE,)
        stream.graph = _Handle("graph", nodes=[], invalidated=False)
        self.capturing, self.capture_mode = stream, mode
        return (OK,)

    def cuStreamEndCapture(self, stream):
        if self.capturing is not stream:
            return (R.CUDA_ERROR_ILLEGAL_STATE, None)
        graph, stream.graph, self.capturing = stream.graph, None, None
        if graph.invalidated:
            return (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
        return (OK, graph)

    def cuGraphInstantiate(self, graph, flags):
        self._count("cuGraphInstantiate")
        executable = _Handle("exec", nodes=list(graph.nodes))
        self.live_executables.add(executable.id)
        return (OK, executable)

    def cuGraphUpload(self, executable, stream):
        return (self._usable() or OK,)

    def cuGraphLaunch(self, executable, stream):
        self._count("cuGraphLaunch")
        err = self._usable()
        if err:
            return (err,)
        if executable.id not in self.live_executables:
            return (R.CUDA_ERROR_INVALID_HANDLE,)
        for node in executable.nodes:
            if isinstance(node, _Launch):
                self._run(node)
            else:  # an event record node
                node.captured = False
                self._stamp(node)
        return (OK,)

    def cuGraphGetNodes(self, graph, count=0):
        return (OK, [], len(graph.nodes))

    def cuGraphExecDestroy(self, executable):
        if executable.id not in self.live_executables:
            return (R.CUDA_ERROR_INVALID_VALUE,)
        self.live_executables.discard(executable.id)
        return (OK,)

    def cuGraphDestroy(self, graph):
        return (OK,)


def install(monkeypatch) -> FakeDriver:
    """Route the CUDA backend's driver calls to a new ``FakeDriver``."""
    from backends.cuda import _context, _driver, _graphs, _memory, _resources, _textures

    fake = FakeDriver()
    for module in (_driver, _context, _graphs, _memory, _resources, _textures):
        monkeypatch.setattr(module, "driver", fake)
    monkeypatch.setattr(_resources, "_abandoned", [])  # the simulation's own, set aside
    _driver.default_arch.cache_clear()
    return fake


@pytest.fixture
def fake_driver(monkeypatch):
    from backends.cuda import _driver

    gc.collect()  # objects of earlier tests must not meet the fake in their finalizers
    fake = install(monkeypatch)
    yield fake
    gc.collect()  # run finalizers of this test's objects while the fake is installed
    _driver.default_arch.cache_clear()


def pytest_configure(config):
    """Plugin entry (``-p tests.test_cuda_fake_driver`` with FORGE_CUDA_SIMULATED=1):
    the whole pytest session sees the ``cuda`` backend on the simulated driver."""
    if os.environ.get("FORGE_CUDA_SIMULATED") == "1":
        install(pytest.MonkeyPatch())


def test_the_fake_reads_arguments_through_the_void_pointer_array(fake_driver):
    import forge
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(10, dtype=np.float32)
        kernel = forge.get_kernel("raw_affine")
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(x.nbytes, 1, usage=forge.BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(
                kernel.pack_uniform(10, a=3.0, b=1.0), 2, usage=forge.BindingUsage.UNIFORM
            ),
        ]
        ctx.run_kernel(kernel, forge.Schedule(64), views, 10)
        assert ctx.read_buffer_f32(views[1]).tolist() == (3 * x + 1).tolist()
    assert fake_driver.retains == 0, "closing the context must release its primary context"


def test_texture_and_surface_objects_are_made_bound_and_destroyed(fake_driver):
    """tests/test_cuda_textures.py's tex1Dfetch and surf2Dwrite kernels on the simulated
    driver: each parameter gets a 64-bit object made over its buffer (a linear texture
    over the buffer's memory; a surface over an array filled before the launch and
    copied back after it), reused by the next run, and destroyed with the context. A
    texture object the driver refuses leaves no array behind and the context usable."""
    import forge
    from backends.cuda import CudaComputeContext
    from tests.test_cuda_textures import FETCH, POINT, SURFACE

    fake = fake_driver

    def fetch(args, grid, block):  # scale_fetch(cudaTextureObject_t x, float* y, int n, float s)
        texture = fake.objects[ptr(args[0])]
        assert texture["kind"] == "texture" and texture["flags"] == 0  # floats as stored
        n = u32(args[2])
        x = device_array(texture["address"], n, np.float32)
        device_array(ptr(args[1]), n, np.float32)[:] = np.float32(f32(args[3])) * x

    def surface(args, grid, block):  # write_surface(const float* src, cudaSurfaceObject_t dst, ...)
        height, width = u32(args[2]), u32(args[3])
        target = fake.arrays[fake.objects[ptr(args[1])]["array"]]
        src = device_array(ptr(args[0]), height * width, np.float32)
        target["data"][:] = (src * np.float32(0.5) + np.float32(1.0)).astype(np.float32).tobytes()

    fake.kernels["scale_fetch"] = (fetch, (8, 8, 4, 4))
    fake.kernels["write_surface"] = (surface, (8, 8, 4, 4))
    fake.kernels["shifted_copy"] = (lambda args, grid, block: None, (8, 8, 4, 4))
    rw = forge.BindingUsage.STORAGE_READ_WRITE
    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(100, dtype=np.float32)
        views = [ctx.allocate_and_write(x, 0), ctx.allocate_transient(x.nbytes, 1, usage=rw)]
        for _ in range(2):
            ctx.run_kernel(FETCH, FETCH.schedules[0], views, 100)
        assert ctx.read_buffer_f32(views[1]).tolist() == (2.5 * x).tolist()
        assert len(fake.objects) == 1 and not fake.arrays  # reused; no array for tex1Dfetch
        # a linear texture reads memory aligned as textures need (a copy where the
        # buffer is not: the simulated slab is not 512-byte aligned)
        (texture,) = fake.objects.values()
        assert texture["address"] % ATTRIBUTES["TEXTURE_ALIGNMENT"] == 0

        size = SURFACE.size("H=5,W=7")
        src = np.arange(35, dtype=np.float32)
        views = [ctx.allocate_and_write(src, 0), ctx.allocate_transient(src.nbytes, 1, usage=rw)]
        ctx.run_kernel(SURFACE, SURFACE.schedules[0], views, size)
        assert ctx.read_buffer_f32(views[1]).tolist() == (0.5 * src + 1).tolist()
        assert len(fake.objects) == 2 and len(fake.arrays) == 1
        assert fake.calls["cuMemcpy2DAsync"] == 2  # in before the launch, back after it

        fake.fail_next_texture = True  # tex2D's object over a new array: refused
        image = ctx.allocate_and_write(src, 0)
        out = ctx.allocate_transient(src.nbytes, 1, usage=rw)
        with pytest.raises(forge.ForgeError, match="cuTexObjectCreate"):
            ctx.run_kernel(POINT, POINT.schedules[0], [image, out], POINT.size("H=5,W=7"))
        assert len(fake.arrays) == 1, "the refused object's array was destroyed"
        ctx.run_kernel(FETCH, FETCH.schedules[0], [views[0], out], 35)  # still usable
    assert not fake.objects and not fake.arrays, "closing the context destroys them all"


def test_the_public_driver_surface_is_the_one_the_backend_calls(fake_driver):
    """``backends.cuda.driver`` and ``driver_call`` (what the bench uses) are read at
    each access, so they are the simulated driver here, and failures come back typed."""
    import backends.cuda as cuda
    from forge import AllocationError

    assert cuda.driver is fake_driver
    assert cuda.driver_call(cuda.driver.cuDriverGetVersion) == fake_driver.cuDriverGetVersion()[1]

    def cuMemAlloc(nbytes):
        return (R.CUDA_ERROR_OUT_OF_MEMORY, None)

    with pytest.raises(AllocationError, match="cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY"):
        cuda.driver_call(cuMemAlloc, 1 << 40)


def test_the_shared_suites_pass_on_the_simulated_driver(tmp_path):
    """The conformance, bad-input and interrupt suites, on ``cuda`` over the simulated
    driver, in a subprocess (the simulation is installed for its whole session)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, FORGE_CUDA_SIMULATED="1", FORGE_CACHE_DIR=str(tmp_path), PYTHONPATH=root)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "tests.test_cuda_fake_driver",
            "-p",
            "no:cacheprovider",
            "tests/conformance",
            "tests/reliability/test_bad_inputs.py",
            "tests/reliability/test_interrupts.py",
            "-k",
            "cuda",
            "--require-backend",
            "cuda",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "passed" in summary and "skipped" not in summary and "deselected" in summary, summary
