"""Adapters and devices of wgpu-py, and the one point where wgpu's failures become
``ForgeError``s (``translate_errors``), including the one decision whether a device is
lost (``lost_error`` for an error, ``destroyed_reason`` for a device).

Loaded only on use: importing ``backends.wgpu`` does not import this module (it imports
wgpu). ``probe_adapter`` answers the registry's availability question;
``validate_wgsl`` runs naga (through wgpu) on a cached default device, for
``kforge validate`` and the IR tests.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import tempfile
import threading
from collections.abc import Iterator


def _private_runtime_dir() -> None:
    """Mesa's Vulkan drivers probe the window system when an instance is created and
    print "error: XDG_RUNTIME_DIR is invalid or not set" to stderr when it is unset (a
    server, a container, CI). Compute needs no display: give this process a private
    directory so the message never reaches a user's terminal."""
    if not os.environ.get("XDG_RUNTIME_DIR"):
        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="kforge-xdg-")


_private_runtime_dir()

import wgpu  # noqa: E402  (after the environment Mesa reads)

from forge import _checks  # noqa: E402
from forge import sources as _sources  # noqa: E402
from forge.errors import (  # noqa: E402
    AllocationError,
    CompileError,
    DeviceLost,
    GpuUnavailable,
    GpuValidation,
    InvalidArgument,
    UnsupportedFeature,
)

from .._webgpu import binding_problem  # noqa: E402
from . import _native  # noqa: E402

__all__ = [
    "probe_adapter",
    "validate_wgsl",
    "select_adapter",
    "adapter_summary",
    "optional_features",
    "request_device",
    "translate_errors",
    "compile_error",
    "lost_error",
    "destroyed_reason",
    "naga_source",
    "check_portable",
    "OPTIONAL_FEATURES",
]

#: Optional features a context asks for whenever the adapter offers them: f16/f64 and
#: subgroup shaders, and timestamp queries for sample timing. Cooperative matrices are
#: reported from the adapter but not requested: wgpu-native 0.32 treats them as
#: experimental and refuses the device (seen on the H200 through Vulkan).
OPTIONAL_FEATURES = ("shader-f16", "shader-f64", "subgroup", "timestamp-query")

# wgpu-native reports every call on a lost or destroyed device as a validation error
# carrying one of these phrases (and its device-lost callback only logs).
_LOST_MARKERS = (
    "device is lost",
    "device lost",
    "device was lost",
    "device is invalid",
    "device has been destroyed",
    "device is destroyed",
)


def select_adapter(power_preference: str = "high-performance", adapter_index: int | None = None):
    """The adapter a context runs on: by index into ``enumerate_adapters`` when given,
    else wgpu's choice for ``power_preference``. Raises ``GpuUnavailable`` when none."""
    if not isinstance(power_preference, str) or power_preference not in (
        "high-performance",
        "low-power",
    ):
        raise InvalidArgument(
            f"power_preference must be 'high-performance' or 'low-power', got {power_preference!r}"
        )
    _native.warm_type_cache()  # the C types opening and running will parse, in one pass
    if adapter_index is not None:
        adapter_index = _checks.integer(adapter_index, "adapter_index", minimum=0)
        adapters = wgpu.gpu.enumerate_adapters_sync()
        if not 0 <= adapter_index < len(adapters):
            listing = "; ".join(f"{i}: {adapter_summary(a)}" for i, a in enumerate(adapters))
            raise GpuUnavailable(
                f"no wgpu adapter {adapter_index}; there are {len(adapters)}: {listing or 'none'}"
            )
        return adapters[adapter_index]
    try:
        return wgpu.gpu.request_adapter_sync(power_preference=power_preference)
    except Exception as exc:  # wgpu raises RuntimeError, or others for a missing driver
        raise GpuUnavailable(f"wgpu found no adapter: {exc}") from exc


def adapter_summary(adapter) -> str:
    """``"llvmpipe (LLVM 15.0.6, 256 bits), Vulkan, CPU"``: device, backend, type."""
    info = adapter.info
    name = info.get("device") or info.get("description") or info.get("vendor") or "unknown"
    return f"{name}, {info.get('backend_type', '?')}, {info.get('adapter_type', '?')}"


def probe_adapter() -> tuple[bool, str]:
    """Whether wgpu can run here, with the adapter it would use or why not."""
    try:
        return True, adapter_summary(select_adapter())
    except GpuUnavailable as exc:
        return False, str(exc)
    except Exception as exc:  # a broken driver must not break the registry
        return False, f"wgpu failed to find an adapter: {type(exc).__name__}: {exc}"


def optional_features(adapter, timestamps: bool = True) -> list[str]:
    """The OPTIONAL_FEATURES the adapter offers (without timestamp-query unless
    ``timestamps``)."""
    offered = set(adapter.features)
    return [f for f in OPTIONAL_FEATURES if f in offered and (timestamps or f != "timestamp-query")]


def request_device(adapter, features: list[str]):
    """A device with ``features`` and every limit at the adapter's maximum, so that
    large buffers and bindings work (WebGPU's defaults cap bindings at 128 MiB)."""
    limits = {name: value for name, value in adapter.limits.items() if value is not None}
    try:
        return adapter.request_device_sync(
            label="kernel-forge", required_features=list(features), required_limits=limits
        )
    except Exception as exc:
        raise GpuUnavailable(
            f"{adapter_summary(adapter)} refused a device with features {features}: {exc}"
        ) from exc


def _says_lost(message: str) -> bool:
    """Whether a wgpu error message says the device is gone."""
    text = message.lower()
    return any(marker in text for marker in _LOST_MARKERS)


def _message(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__


def lost_error(what: str, exc: BaseException) -> DeviceLost | None:
    """The ``DeviceLost`` that ``exc``, raised by wgpu while doing ``what``, means, or
    None when its message does not say the device is gone. Every wgpu error the backend
    catches is asked here first."""
    message = _message(exc)
    if _says_lost(message):
        return DeviceLost(f"{what}: {message}")
    return None


def destroyed_reason(device) -> str | None:
    """Why ``device`` is lost though no call has failed yet ("the device was
    destroyed", by ``device.destroy()``), or None."""
    if device is not None and _native.device_destroyed(device):
        return "the device was destroyed"
    return None


@contextlib.contextmanager
def translate_errors(what: str) -> Iterator[None]:
    """Turn wgpu's exceptions raised while doing ``what`` into ForgeErrors: a lost
    device into ``DeviceLost``, out-of-memory into ``AllocationError``, any other
    validation error into ``GpuValidation``, all with wgpu's message."""
    try:
        yield
    except wgpu.GPUError as exc:
        lost = lost_error(what, exc)
        if lost is not None:
            raise lost from exc
        message = _message(exc)
        if isinstance(exc, wgpu.GPUOutOfMemoryError):
            raise AllocationError(f"{what}: the device is out of memory: {message}") from exc
        raise GpuValidation(f"{what}: wgpu rejected it: {message}") from exc


#: ``enable`` extensions naga (wgpu-native 29) does not parse yet although it provides
#: their functionality under a device feature. WebGPU requires the directive, so a shader
#: written for a browser has it; naga refuses it ("not yet supported").
_FEATURE_ENABLES = {"subgroups": "subgroup", "chromium_experimental_subgroups": "subgroup"}
_ENABLE_DIRECTIVE = re.compile(r"^(\s*)enable\s+([\w\s,]+);", re.M)


def naga_source(source: str, features) -> str:
    """``source`` with the ``enable`` extensions that naga provides through a device
    feature the device has (``features``) taken out of their directives, so a kernel
    written for a browser compiles here as written. Lines keep their numbers, so naga's
    messages point at the user's source."""

    def strip(match: re.Match) -> str:
        names = [n.strip() for n in match.group(2).split(",") if n.strip()]
        kept = [n for n in names if _FEATURE_ENABLES.get(n) not in features]
        if len(kept) == len(names):
            return match.group(0)
        if not kept:
            return f"{match.group(1)}// enable {', '.join(names)};  (provided by the device)"
        return f"{match.group(1)}enable {', '.join(kept)};"

    return _naga_subgroup_spelling(_ENABLE_DIRECTIVE.sub(strip, source))


#: Subgroup calls that WGSL (and Chrome's Tint) take and naga (wgpu-native 29) spells
#: otherwise: it has no ``subgroupElect()``, which is true on the lowest active lane,
#: as ``subgroupExclusiveAdd(1u) == 0u`` is (jowens' webgpu-benchmarking reduce guards
#: each subgroup's total with it); and it refuses a lane given as an integer literal
#: with no suffix ("Operand has invalid type": ORT-web's Intel matmul writes
#: ``subgroupBroadcast(a_val_0, 0)``), which WGSL converts to the lane's type.
_ELECT = re.compile(r"\bsubgroupElect\s*\(\s*\)")
_LANE_CALL = re.compile(
    r"\b(?:subgroupBroadcast|subgroupShuffle(?:Xor|Up|Down)?|quadBroadcast)\s*\("
)
_BARE_INT = re.compile(r"\s*(?:0[xX][0-9a-fA-F]+|[0-9]+)\s*")


def _naga_subgroup_spelling(source: str) -> str:
    if "subgroup" not in source and "quad" not in source:
        return source
    source = _ELECT.sub("(subgroupExclusiveAdd(1u) == 0u)", source)
    suffixes = []
    for call in _LANE_CALL.finditer(source):
        depth, comma, end = 0, -1, -1
        for i in range(call.end() - 1, len(source)):
            char = source[i]
            if char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
                if depth == 0:
                    end = i
                    break
            elif char == "," and depth == 1:
                comma = i
        if comma > 0 and end > 0 and _BARE_INT.fullmatch(source[comma + 1 : end]):
            suffixes.append(comma + 1 + len(source[comma + 1 : end].rstrip()))
    for at in reversed(suffixes):
        source = source[:at] + "u" + source[at:]
    return source


#: naga's refusal of a pointer parameter into storage, uniform or workgroup memory:
#: WGSL's ``unrestricted_pointer_parameters`` language extension, which naga (wgpu-native
#: 29) lacks and Chrome's Tint has, so a kernel written for the browser is not wrong.
_POINTER_PARAMETER = re.compile(
    r"Argument '(\w+)' at index \d+ is a pointer of space (\w+).*can't be passed into functions"
)


def compile_error(exc: BaseException, source: str, what: str) -> CompileError | UnsupportedFeature:
    """A ``CompileError`` carrying naga's (or wgpu's) message as the log; an
    ``UnsupportedFeature`` where naga refuses a WGSL language extension the kernel uses
    (a pointer parameter into storage or workgroup memory), which is not the kernel's
    error."""
    log = _message(exc)
    pointer = _POINTER_PARAMETER.search(log)
    if pointer:
        return UnsupportedFeature(
            f"{what}: function parameter '{pointer.group(1)}' points into "
            f"{pointer.group(2).lower()} memory, which needs WGSL's "
            "unrestricted_pointer_parameters language extension; wgpu's WGSL compiler "
            "(naga) does not have it, Chromium's (the browser backend) does. To run it "
            "here, pass an index instead of the pointer"
        )
    problem = binding_problem(source, log, what)
    if problem is not None:
        return problem
    return CompileError(f"{what}: wgpu rejected the WGSL", source=source, target="wgsl", log=log)


# -- validation (naga through wgpu) -------------------------------------------------

_validation_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def _validation_device():
    adapter = select_adapter()
    return request_device(adapter, optional_features(adapter, timestamps=False))


def check_portable(source: str, what: str) -> None:
    """Refuse WGSL that naga compiles but the WGSL spec makes a shader-creation error,
    and Chrome's Tint refuses: operators mixed without the parentheses WGSL's grammar
    needs (``a * b >> c``, ``x & m == 0u``: round 29), a const-expression whose value is
    an infinity or a NaN (``bitcast<f32>(0xff800000u)``, round 25's max pool), an
    atomic read or written as a plain value (``histogram[i] = 0u``, round 44's radix
    count), a barrier in control flow that varies by invocation (``if (local_id.x ==
    0u) { workgroupBarrier(); }``, round 44), a float literal past the type's finite
    range (``-3.40282347e+38``: round 46). Passed on wgpu, such a kernel would not run
    in a browser."""
    for find, problem, advice in _NOT_PORTABLE:
        found = find(source)
        if found is not None:
            text, offset = found
            _refuse(source, what, offset, problem(text), advice)


#: What ``check_portable`` refuses, in order: a finder of ``forge.sources`` giving
#: (the text, its offset) or None, the problem said of that text, what to write instead.
_NOT_PORTABLE = (
    (
        _sources.wgsl_unparenthesized_mix,
        lambda operators: f"mixing {operators} requires parentheses in WGSL",
        ": a shift's and a bitwise operator's operands are unary expressions, && and || "
        "do not mix, nor do two comparisons; write (a * b) >> c, (x & m) == 0u",
    ),
    (
        _sources.wgsl_nonfinite_constant,
        lambda text: (
            f"{text} is a const-expression whose value is an infinity or NaN, "
            "which WGSL makes a shader-creation error"
        ),
        "; make the value at run time (from a `let` or `var` holding the bits, or a "
        "function that returns them), or start a maximum from -3.4028234663852886e+38 "
        "(-FLT_MAX to the digit: -3.40282347e+38 lies past it)",
    ),
    (
        _sources.wgsl_unrepresentable_literal,
        lambda text: (
            f"the literal {text} lies past the largest finite "
            f"{'f16' if text.endswith('h') else 'f32'}, which WGSL makes a shader-creation error"
        ),
        "; write the largest float to the digit, 3.4028234663852886e+38 for f32 "
        "(3.40282347e+38, FLT_MAX as C prints it to nine digits, lies past it), or "
        "0x1.fffffep+127f",
    ),
    (
        _sources.wgsl_barrier_in_nonuniform_flow,
        lambda text: (
            f"{text} must only be called from uniform control flow: WGSL's "
            "uniformity analysis makes it a shader-creation error where some invocations of "
            "the workgroup may not reach it together"
        ),
        "; move the barrier out of the branch (or loop) whose condition varies by "
        "invocation, keep every invocation on the path to it (no early return), or "
        "read a workgroup value that decides it through workgroupUniformLoad",
    ),
    (
        _sources.wgsl_plain_atomic_access,
        lambda text: (
            f"`{text}` reads or writes an atomic as a plain value, which WGSL does not allow"
        ),
        "; go through the atomic builtins: atomicStore(&h[i], 0u) to write it, "
        "atomicLoad(&h[i]) to read it",
    ),
)


def _refuse(source: str, what: str, offset: int, problem: str, advice: str) -> None:
    """Raise the ``CompileError`` of ``check_portable``: ``problem`` at ``offset`` of
    ``source``, located as a compiler's log locates it, then what to write instead."""
    line = source.count("\n", 0, offset) + 1
    column = offset - source.rfind("\n", 0, offset)
    message = f"{problem} (Chrome's Tint refuses it; naga lets it pass)"
    raise CompileError(
        f"{what}: {message}{advice}",
        source=source,
        target="wgsl",
        log=f"{line}:{column}: error: {message}",
    )


def validate_wgsl(
    source: str, entry_point: str | None = None, constants: dict | None = None
) -> None:
    """Run naga on ``source`` (shader module creation, and a compute pipeline for
    ``entry_point`` with its ``override`` ``constants`` when given) on a cached default
    device. Raises ``CompileError`` (target ``"wgsl"``, naga's message as ``log``) when
    rejected, ``GpuUnavailable`` when wgpu has no adapter here."""
    if not isinstance(source, str):
        raise InvalidArgument(f"WGSL source must be a str, got {type(source).__name__}")
    device = _validation_device()
    what = f"validating WGSL{f' entry point {entry_point!r}' if entry_point else ''}"
    check_portable(source, what)
    with _validation_lock:
        try:
            module = device.create_shader_module(
                label="kforge-validate", code=naga_source(source, device.features)
            )
            if entry_point is not None:
                stage = {"module": module, "entry_point": entry_point}
                if constants:
                    stage["constants"] = {k: float(v) for k, v in constants.items()}
                device.create_compute_pipeline(
                    label="kforge-validate", layout="auto", compute=stage
                )
        except wgpu.GPUError as exc:
            lost = lost_error(what, exc)
            if lost is not None:
                _validation_device.cache_clear()
                raise lost from exc
            raise compile_error(exc, source, what) from exc
