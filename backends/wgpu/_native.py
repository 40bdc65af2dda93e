"""Every use of wgpu-py's private internals, in one place.

wgpu-py 0.32 exposes neither submission indices, a bounded wait for one, the queue's
timestamp period, an adapter's subgroup sizes, whether a device was destroyed, nor
wgpu-native's shader modules without runtime checks; and it gives no way to keep a
device that may still be running alive past its Python object. The wgpu backend needs
all of it, so it reaches under wgpu-py's public API here, and only here: wgpu-native's
C functions through wgpu-py's cffi handles (``lib``, ``ffi``, and ``_api.libf``, the
same functions wrapped to raise wgpu's errors), the native handle of each wgpu-py
object (``_internal``), a device's queue (``_queue``) and poll thread (``_poller``),
the buffer map mode ``"READ_NOSYNC"`` wgpu-py keeps for its own use, and the helpers
its ``create_shader_module`` builds a module with (``API_HELPERS``).

None of that is promised by wgpu-py, so it is checked for the versions it was written
against (``SUPPORTED``, the pin in ``pyproject.toml``): importing this module under
another wgpu-py warns, naming what to re-verify, and ``tests/test_wgpu_native.py``
fails, naming the missing attribute or the changed behaviour, when a wgpu-py release
moves any of it. The backend (``_device``, ``_context``), the bench (through
``backends.wgpu``'s public names) and the tests use these functions, never wgpu-py's
internals directly (``tests/test_import_hygiene.py`` holds that).

Loaded only on use: it imports wgpu.
"""

from __future__ import annotations

import itertools
import re
import warnings

import wgpu
import wgpu.backends.wgpu_native as _wgpu_native
from wgpu.backends.wgpu_native import _api

from ._exit import end_without_driver_teardown

__all__ = [
    "SUPPORTED",
    "UntestedWgpuWarning",
    "check_version",
    "missing_internals",
    "native_version",
    "native_handle",
    "subgroup_sizes",
    "timestamp_period_ns",
    "submit",
    "wait_for_submission",
    "wait_idle",
    "WorkDoneWait",
    "map_read_nosync",
    "device_destroyed",
    "destroy_natively",
    "keep_forever",
    "abandon",
    "PARSED_TYPES",
    "warm_type_cache",
    "create_unchecked_shader_module",
]

#: The wgpu-py releases these internals were written for and checked on: the pin of
#: ``pyproject.toml`` (``tests/test_wgpu_native.py`` holds the two equal).
SUPPORTED = ">=0.32,<0.33"
_TESTED_SERIES = (0, 32)

ffi = _wgpu_native.ffi  # wgpu-native's cffi type system
lib = _wgpu_native.lib  # wgpu-native's C functions and constants, raw
libf = _api.libf  # the same functions, raising wgpu's GPUErrors

#: What this module uses of wgpu-py below its public API, for the version warning and
#: ``missing_internals``: libf's functions, lib's functions and constants, the C types
#: it builds, struct fields it reads or fills, and attributes of live wgpu-py objects.
LIBF_FUNCTIONS = (
    "wgpuDevicePoll",
    "wgpuQueueSubmitForIndex",
    "wgpuQueueOnSubmittedWorkDone",
    "wgpuAdapterGetInfo",
    "wgpuAdapterInfoFreeMembers",
    "wgpuDeviceDestroy",
    "wgpuDeviceCreateShaderModuleTrusted",
)
LIB_NAMES = (
    "wgpuQueueGetTimestampPeriod",
    "WGPUCallbackMode_AllowProcessEvents",
    "WGPUQueueWorkDoneStatus_Success",
    "WGPUSType_ShaderSourceWGSL",
)
C_TYPES = (
    "WGPUCommandBuffer[]",
    "WGPUSubmissionIndex *",
    "WGPUQueueWorkDoneCallbackInfo *",
    "WGPUAdapterInfo *",
    "uintptr_t",
    "WGPUShaderSourceWGSL *",
    "WGPUShaderModuleDescriptor *",
)
STRUCT_FIELDS = {
    "WGPUAdapterInfo": ("subgroupMinSize", "subgroupMaxSize"),
    "WGPUQueueWorkDoneCallbackInfo": ("mode", "callback", "userdata1"),
    "WGPUShaderSourceWGSL": ("chain", "code"),
    "WGPUShaderModuleDescriptor": ("nextInChain", "label"),
}
#: wgpu-py's own helpers for building a shader module, in ``_api``
API_HELPERS = ("new_struct_p", "to_c_string_view", "GPUShaderModule")
OBJECT_ATTRIBUTES = {
    "GPUAdapter": ("_internal",),
    "GPUDevice": ("_internal", "_queue", "_poller"),
    "GPUQueue": ("_internal",),
    "GPUCommandBuffer": ("_internal",),
}
_WORK_DONE_SIGNATURE = "void(WGPUQueueWorkDoneStatus, WGPUStringView, void *, void *)"


#: Every C type text that opening a device and running kernels hands to cffi (wgpu-py's
#: ``ffi.new("WGPUBufferDescriptor *")`` and the like, and this module's own), in the
#: order they are first met. cffi parses each new text alone, and every such parse
#: reads all of wgpu.h's ~440 typedefs again: 13 ms a text here, 0.8 s of a wgpu
#: ``kforge check``. ``warm_type_cache`` parses them in one pass instead.
#: ``tests/test_wgpu_native.py`` fails, naming the text, when wgpu-py parses one not
#: listed here.
PARSED_TYPES = (
    "void(WGPULogLevel, WGPUStringView, void *)",
    "WGPUStringView *",
    _WORK_DONE_SIGNATURE,
    "WGPURequestAdapterOptions *",
    "void(WGPURequestAdapterStatus, WGPUAdapter, WGPUStringView, void *, void *)",
    "WGPURequestAdapterCallbackInfo *",
    "WGPUInstanceDescriptor *",
    "WGPUAdapterInfo *",
    "WGPUChainedStruct *",
    "WGPUNativeLimits *",
    "WGPULimits *",
    "char []",
    "WGPUQueueDescriptor *",
    "WGPUDeviceExtras *",
    "WGPUChainedStruct * ",
    "void(WGPUDevice const *, WGPUDeviceLostReason, WGPUStringView, void *, void *)",
    "WGPUDeviceLostCallbackInfo *",
    "void(WGPUDevice const *, WGPUErrorType, WGPUStringView, void *, void *)",
    "WGPUUncapturedErrorCallbackInfo *",
    "WGPUFeatureName[]",
    "WGPUDeviceDescriptor *",
    "void(WGPURequestDeviceStatus, WGPUDevice, WGPUStringView, void *, void *)",
    "WGPURequestDeviceCallbackInfo *",
    "WGPUBufferDescriptor *",
    "WGPUQuerySetDescriptor *",
    "uint8_t []",
    "uintptr_t",
    "uint8_t *",
    "WGPUShaderSourceWGSL *",
    "WGPUShaderModuleDescriptor *",
    "WGPUBufferBindingLayout *",
    "WGPUBindGroupLayoutEntry *",
    "WGPUBindGroupLayoutEntry[]",
    "WGPUBindGroupLayoutDescriptor *",
    "WGPUBindGroupLayout[]",
    "WGPUPipelineLayoutDescriptor *",
    "WGPUComputeState *",
    "WGPUComputePipelineDescriptor *",
    "WGPUBindGroupEntry *",
    "WGPUBindGroupEntry[]",
    "WGPUBindGroupDescriptor *",
    "WGPUCommandEncoderDescriptor *",
    "WGPUPassTimestampWrites *",
    "WGPUComputePassDescriptor *",
    "uint32_t []",
    "WGPUCommandBufferDescriptor *",
    "WGPUCommandBuffer[]",
    "void *",
    "WGPUQueueWorkDoneCallbackInfo *",
    "void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)",
    "WGPUBufferMapCallbackInfo *",
    "intptr_t",
    "WGPUSubmissionIndex *",
)


def warm_type_cache(texts: tuple[str, ...] = PARSED_TYPES) -> int:
    """Parse the C type ``texts`` cffi has not met yet in one pass of its C parser and
    store each in cffi's cache of parsed types, as ``ffi.typeof(text)`` would one by
    one (the same parser calls on the same declaration, a dummy function's parameter,
    in one prototype rather than one each); returns how many it added. This reaches
    into cffi's ``FFI`` (``_parser``, ``_parsed_types``, ``_lock``,
    ``_get_cached_btype``) and its parser's ``_parse`` and ``_get_type_and_quals``:
    on any surprise it adds nothing, and cffi parses each text when first used."""
    todo = [t for t in dict.fromkeys(texts) if t not in ffi._parsed_types]
    if not todo:
        return 0
    try:
        parser = ffi._parser
        with ffi._lock:
            parameters = ",\n".join(todo)
            ast = parser._parse(f"void __kforge_types(\n{parameters}\n);")[0]
            params = ast.ext[-1].type.args.params
            if len(params) != len(todo):
                return 0
            parsed = {}
            for text, node in zip(todo, params):
                ctype = parser._get_type_and_quals(node.type)[0]
                raw_function = ctype.is_raw_function
                if raw_function:
                    ctype = ctype.as_function_pointer()
                parsed[text] = (ffi._get_cached_btype(ctype), raw_function)
            for text, entry in parsed.items():
                ffi._parsed_types.setdefault(text, entry)
    except Exception:  # a cffi that moved its internals: parse lazily, as before
        return 0
    return len(parsed)


class UntestedWgpuWarning(RuntimeWarning):
    """wgpu-py is outside ``SUPPORTED``: the internals this module uses are unverified."""


def _series(version: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def check_version(version: str | None = None) -> bool:
    """Whether wgpu-py ``version`` (default: the installed one) is one these internals
    were checked on; warns ``UntestedWgpuWarning``, naming what to re-verify, when not."""
    version = wgpu.__version__ if version is None else version
    if _series(version) == _TESTED_SERIES:
        return True
    warnings.warn(
        f"wgpu-py {version} is outside the range kernel-forge's wgpu backend was checked on "
        f"(wgpu{SUPPORTED}). backends/wgpu/_native.py relies on wgpu-py internals that "
        f"may have changed: wgpu.backends.wgpu_native._api.libf ({', '.join(LIBF_FUNCTIONS)}), "
        f"lib ({', '.join(LIB_NAMES)}), the C types {', '.join(C_TYPES)}, the "
        f"attributes {_attribute_listing()} of wgpu-py's objects, map mode 'READ_NOSYNC', "
        f"and device.destroy() clearing device._poller. Re-verify them with "
        f"`pytest tests/test_wgpu_native.py`, or install wgpu{SUPPORTED}.",
        UntestedWgpuWarning,
        stacklevel=2,
    )
    return False


def _attribute_listing() -> str:
    return "; ".join(f"{cls}.{', '.join(names)}" for cls, names in OBJECT_ATTRIBUTES.items())


def missing_internals() -> list[str]:
    """What this module needs from wgpu-py and wgpu-native and cannot find (empty when
    everything is there), each named as code would reach it. Attributes of live objects
    are checked by ``tests/test_wgpu_native.py`` on a device."""
    missing = [
        f"wgpu.backends.wgpu_native._api.libf.{name}"
        for name in LIBF_FUNCTIONS
        if not callable(getattr(libf, name, None))
    ]
    missing += [
        f"wgpu.backends.wgpu_native.lib.{name}" for name in LIB_NAMES if not hasattr(lib, name)
    ]
    for ctype in C_TYPES:
        try:
            ffi.typeof(ctype)
        except Exception:  # cffi's CDefError or FFIError: not declared
            missing.append(f"the C type {ctype!r} in wgpu.backends.wgpu_native.ffi")
    for struct, fields in STRUCT_FIELDS.items():
        try:
            present = {name for name, _ in ffi.typeof(struct).fields}
        except Exception:  # not declared, or not a struct
            missing.append(f"the C struct {struct!r} in wgpu.backends.wgpu_native.ffi")
            continue
        missing += [f"the field {struct}.{name}" for name in fields if name not in present]
    missing += [
        f"wgpu.backends.wgpu_native._api.{name}" for name in API_HELPERS if not hasattr(_api, name)
    ]
    for cls in OBJECT_ATTRIBUTES:
        if not hasattr(_wgpu_native, cls):
            missing.append(f"wgpu.backends.wgpu_native.{cls}")
    return missing


# -- identity -----------------------------------------------------------------------


def native_version() -> str:
    """wgpu-native's version, e.g. ``"29.0.1.1"``."""
    return ".".join(map(str, _wgpu_native.lib_version_info))


def native_handle(obj):
    """The wgpu-native handle (a cffi pointer) of a wgpu-py object: a device kept by a
    test past its context's loss, say."""
    return obj._internal


def subgroup_sizes(adapter) -> tuple[int, int] | None:
    """(min, max) subgroup size read from wgpu-native's adapter info (wgpu-py 0.32's
    ``adapter.info`` drops these fields), or None when the adapter does not say."""
    c_info = ffi.new("WGPUAdapterInfo *")
    try:
        libf.wgpuAdapterGetInfo(adapter._internal, c_info)
        low, high = int(c_info.subgroupMinSize), int(c_info.subgroupMaxSize)
    except Exception:
        return None
    finally:
        libf.wgpuAdapterInfoFreeMembers(c_info[0])
    return (low, high) if 0 < low <= high else None


def timestamp_period_ns(queue) -> float:
    """Nanoseconds per timestamp tick of ``queue``. wgpu-native resolves raw ticks
    (unless the instance enables automatic timestamp normalisation, which wgpu-py does
    not): ns = ticks * this period."""
    return float(lib.wgpuQueueGetTimestampPeriod(queue._internal))


# -- shader modules -----------------------------------------------------------------

#: wgpu-native's ``WGPUShaderRuntimeChecks`` flags (wgpu.h) by the check's name here
RUNTIME_CHECKS = {"bounds": 0x1, "loops": 0x2}


def create_unchecked_shader_module(device, label: str, code: str, keep: str | None = None):
    """A ``GPUShaderModule`` of WGSL ``code`` made through wgpu-native's
    ``wgpuDeviceCreateShaderModuleTrusted`` with no runtime checks but ``keep`` (a key
    of ``RUNTIME_CHECKS``): without ``"bounds"`` naga writes no clamp of an array index
    (function and workgroup arrays; buffer indices too, left to the driver's
    robustness), without ``"loops"`` no counter bounding each loop. naga validates the
    module as ``create_shader_module`` does, and its errors raise the same way
    (``wgpu.GPUValidationError`` through ``libf``)."""
    source = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(code))
    source[0].chain.next = ffi.NULL
    source[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    descriptor = _api.new_struct_p(
        "WGPUShaderModuleDescriptor *",
        nextInChain=ffi.cast("WGPUChainedStruct *", source),
        label=_api.to_c_string_view(label),
    )
    made = libf.wgpuDeviceCreateShaderModuleTrusted(
        device._internal, descriptor, RUNTIME_CHECKS[keep] if keep else 0
    )
    if made == ffi.NULL:
        raise RuntimeError(f"wgpu-native made no shader module for {label!r}")
    return _api.GPUShaderModule(label, made, device)


# -- submissions and waits ----------------------------------------------------------


def submit(queue, command_buffer) -> int:
    """Submit ``command_buffer`` to ``queue``; wgpu-native's submission index of it
    (wgpu-py's ``queue.submit`` drops it)."""
    handles = ffi.new("WGPUCommandBuffer[]", [command_buffer._internal])
    return int(libf.wgpuQueueSubmitForIndex(queue._internal, 1, handles))


def wait_for_submission(device, index: int) -> None:
    """Block until submission ``index`` of ``device`` (and every earlier one) is done.
    Unbounded: wgpu-native's blocking poll takes no timeout."""
    libf.wgpuDevicePoll(device._internal, True, ffi.new("WGPUSubmissionIndex *", index))


def wait_idle(device) -> None:
    """Block until everything submitted to ``device`` (a ``GPUDevice``, or a handle from
    ``native_handle``) is done, running the callbacks that came due. wgpu-py 0.32's
    ``queue.on_submitted_work_done_sync`` fails inside its own cffi call."""
    handle = device if isinstance(device, ffi.CData) else device._internal
    libf.wgpuDevicePoll(handle, True, ffi.NULL)


# Work-done statuses by wait token, for the waits in progress (see _on_work_done).
_work_done: dict[int, int | None] = {}
_wait_tokens = itertools.count(1)


@ffi.callback(_WORK_DONE_SIGNATURE)
def _on_work_done(status, _message, token, _userdata2) -> None:
    """wgpu-native's call when a queue's submitted work is done; ``token`` (userdata1)
    names the wait that asked. One function for the whole process, never freed: a wait
    that ends early (Ctrl-C, a timeout) leaves wgpu-native a pointer to it, which it
    may call at any later poll, on any thread. A wait that has ended is forgotten."""
    key = int(ffi.cast("uintptr_t", token))
    if key in _work_done:
        _work_done[key] = int(status)


class WorkDoneWait:
    """A wait for everything submitted to ``device``'s ``queue`` so far, done by
    polling without blocking (``poll``) until wgpu-native's work-done callback fires.
    wgpu-native 29's non-blocking poll does not say whether the queue is empty (its
    return value is not a usable bool), hence the callback. ``forget()`` when the wait
    ends, however it ends."""

    def __init__(self, device, queue) -> None:
        self._token = next(_wait_tokens)
        _work_done[self._token] = None
        try:
            info = ffi.new(
                "WGPUQueueWorkDoneCallbackInfo *",
                {
                    "mode": lib.WGPUCallbackMode_AllowProcessEvents,
                    "callback": _on_work_done,
                    "userdata1": ffi.cast("void *", self._token),
                },
            )
            libf.wgpuQueueOnSubmittedWorkDone(queue._internal, info[0])
        except BaseException:
            self.forget()
            raise
        self._device = device._internal

    def poll(self) -> bool:
        """One non-blocking poll (which runs the callback when due); whether the work
        is done."""
        libf.wgpuDevicePoll(self._device, False, ffi.NULL)
        return _work_done[self._token] is not None

    @property
    def succeeded(self) -> bool:
        """Whether the queue reported success (after ``poll`` said done)."""
        return _work_done.get(self._token) == lib.WGPUQueueWorkDoneStatus_Success

    @property
    def status(self) -> int | None:
        """The work-done status wgpu-native reported, None before it did."""
        return _work_done.get(self._token)

    def forget(self) -> None:
        _work_done.pop(self._token, None)


def map_read_nosync(buffer, offset: int, size: int):
    """``buffer.map_async`` for reading ``size`` bytes at ``offset``, without the empty
    submit wgpu-py's plain ``"READ"`` adds (its guard for mapping a buffer before any
    submit): for a buffer whose copy was just submitted."""
    return buffer.map_async("READ_NOSYNC", offset, size)


# -- lost and destroyed devices -----------------------------------------------------


def device_destroyed(device) -> bool:
    """Whether ``device.destroy()`` was called: wgpu-py 0.32 stops the device's poll
    thread exactly then and exposes no other loss state (``device.lost`` is
    unimplemented)."""
    return getattr(device, "_poller", True) is None


def destroy_natively(device) -> None:
    """Destroy ``device`` in wgpu-native behind wgpu-py's back (its poll thread keeps
    running, so ``device_destroyed`` cannot see it): for tests of a device that dies
    under a call."""
    libf.wgpuDeviceDestroy(device._internal)


# Everything ``abandon`` and ``keep_forever`` were given, for the rest of the process.
_ABANDONED: list = []


def keep_forever(obj) -> None:
    """Keep ``obj`` alive for the rest of the process: a wgpu-py promise whose wait was
    interrupted, say, since wgpu-native may still call the callback it owns."""
    _ABANDONED.append(obj)


def abandon(device, objects: list) -> None:
    """Keep ``device`` and ``objects`` (what it may still use or call back into: its
    buffers, pipelines, pending promises) for the rest of the process, unreleased.

    For a device that may still be running work nothing will wait for (a kernel past
    its timeout, a wait stopped by Ctrl-C): wgpu-native's release of a device waits
    until its queue is idle, which a runaway kernel may put off for minutes, and
    freeing what the device still uses would crash. The device's and its queue's
    native handles are taken out of their wgpu-py objects, so that no finalizer
    releases them, not even the ones that run at interpreter exit; the device keeps
    running the work on its own threads (lavapipe) or on the GPU, and the operating
    system reclaims it all when the process ends, which skips the C library's exit
    handlers for that (``_exit``: the driver's teardown there waits for the device).
    """
    queue = device._queue
    handles = (device._internal, queue._internal if queue is not None else None)
    device._internal = None
    if queue is not None:
        queue._internal = None
    keep_forever((handles, device, objects))
    end_without_driver_teardown()


check_version()
