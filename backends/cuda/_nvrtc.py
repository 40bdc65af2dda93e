"""NVRTC: CUDA C to a cubin or PTX image, with no GPU needed, behind an on-disk cache.

CUDA's headers (``cuda_fp16.h``, ``cuda_bf16.h``, ``mma.h``, ``cooperative_groups.h``,
CUB and libcu++) and the standard headers NVRTC lacks (``<cstdint>``, ``<math.h>``...)
are on the include path by default, and ``<cstdint>`` is pre-included for a source
that uses ``int64_t`` and the like without declaring them, as nvcc users expect
(``_headers``). The cache is keyed by the source, entry point,
options, architecture, output kind, NVRTC version, the versions of NVIDIA's header
wheels and the contents of every header the source can include. Entries are written
atomically (a temporary file renamed into place) and carry a sha256 of their payload,
so a torn or corrupt file is a miss, never a bad module. ``STATS`` counts NVRTC runs
and cache hits, so tests can prove a hit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from forge.cache import write_atomically
from forge.errors import CompileError, GpuUnavailable, InvalidArgument, UnsupportedFeature
from forge.sources import cuda_name_expression

from ._device_code import device_code
from ._driver import check, default_arch, error_for
from ._headers import (
    _INCLUDES_CUDA_H,
    CURAND_WHEEL,
    INSTALL_HINT,
    STD_HEADERS,
    cache_dir,
    curand_directory,
    header_digest,
    header_directories,
    implicit_options,
    std_headers,
    wheel_versions,
)

__all__ = [
    "compile_cuda",
    "compile_module",
    "compile_module_entries",
    "EntryInfo",
    "ptx_entries",
    "ptxas_report",
    "nvrtc_version",
    "supported_archs",
    "target_for",
    "cache_dir",
    "CompileStats",
    "STATS",
    "OUTPUTS",
]

OUTPUTS = ("cubin", "ptx")
_MAGIC = b"KFNVRTC4"  # cache file header; bump when the file layout changes (4: clusters)
_ARCH = re.compile(r"^(sm|compute)_(\d+)([af]?)$")
#: The first architecture with an architecture-specific target (sm_90a).
_ARCH_SPECIFIC_FROM = 90


@dataclass
class CompileStats:
    """Process-wide counters of the compile cache (counted under a lock: compiles run
    on several threads at once, the tuner's compile-ahead among them)."""

    compiles: int = 0  # NVRTC runs (successful or not)
    disk_hits: int = 0  # images served from the disk cache
    disk_writes: int = 0  # images written to the disk cache
    disk_errors: int = 0  # corrupt entries skipped and writes that failed

    def snapshot(self) -> dict:
        return asdict(self)


STATS = CompileStats()
_STATS_LOCK = threading.Lock()


@dataclass(frozen=True)
class EntryInfo:
    """What the compiled PTX says of one ``.entry``, read with no GPU: each parameter's
    size in bytes, in order, and the block sizes its launch bounds allow
    (``.maxntid``, from ``__launch_bounds__``: at most that many threads; ``.reqntid``:
    exactly that block; 0 when the kernel declares none), and the cluster of blocks it
    is compiled for (``.reqnctapercluster``, from ``__cluster_dims__``: () for none)."""

    param_sizes: tuple[int, ...]
    max_threads: int = 0
    required_block: tuple[int, ...] = ()
    cluster: tuple[int, ...] = ()


_PTX_BITS = re.compile(r"\.[bsuf](8|16|32|64)\b")


def ptx_entries(ptx: bytes | str) -> dict[str, EntryInfo]:
    """Each ``.entry`` of PTX text by its symbol: its parameters' sizes and launch
    bounds (``EntryInfo``). A parameter is ``.param .u64 name`` (8 bytes) or an array,
    ``.param .align 16 .b8 name[32]`` (a struct or vector by value: 32 bytes)."""
    text = ptx.decode(errors="replace") if isinstance(ptx, bytes) else ptx
    found = {}
    for match in re.finditer(r"\.entry\s+([\w$.]+)\s*\(([^)]*)\)([^{]*)\{", text):
        sizes = []
        for param in match.group(2).split(","):
            if ".param" not in param:
                continue
            bits = _PTX_BITS.search(param)
            count = re.search(r"\[(\d+)\]\s*$", param.strip())
            width = int(bits.group(1)) // 8 if bits is not None else 8
            sizes.append(width * (int(count.group(1)) if count is not None else 1))
        tail = match.group(3)
        most = re.search(r"\.maxntid\s+([\d\s,]+)", tail)
        exact = re.search(r"\.reqntid\s+([\d\s,]+)", tail)
        max_threads = 0
        if most is not None:
            max_threads = 1
            for n in re.findall(r"\d+", most.group(1)):
                max_threads *= int(n)
        required = tuple(int(n) for n in re.findall(r"\d+", exact.group(1))) if exact else ()
        per = re.search(r"\.reqnctapercluster\s+([\d\s,]+)", tail)
        cluster = tuple(int(n) for n in re.findall(r"\d+", per.group(1))) if per else ()
        found[match.group(1)] = EntryInfo(tuple(sizes), max_threads, required, cluster)
    return found


def _count(counter: str) -> None:
    with _STATS_LOCK:
        setattr(STATS, counter, getattr(STATS, counter) + 1)


def _nvrtc():
    """The cuda.bindings NVRTC module, with a missing library as ``GpuUnavailable``."""
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise GpuUnavailable(
            f"cuda-python is not installed ({exc}); install the CUDA extra: {INSTALL_HINT}"
        ) from exc
    return nvrtc


@functools.cache
def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor); ``GpuUnavailable`` when libnvrtc cannot be loaded."""
    nvrtc = _nvrtc()
    try:
        result = nvrtc.nvrtcVersion()
    except (RuntimeError, OSError) as exc:  # cuda.pathfinder could not find libnvrtc
        raise GpuUnavailable(
            f"the NVRTC library was not found ({exc}); install the CUDA extra: {INSTALL_HINT}"
        ) from exc
    major, minor = check(result, "nvrtcVersion")
    return int(major), int(minor)


@functools.cache
def supported_archs() -> tuple[int, ...]:
    """The architectures this NVRTC can target, as numbers (``90`` for sm_90)."""
    nvrtc_version()
    return tuple(int(a) for a in check(_nvrtc().nvrtcGetSupportedArchs(), "nvrtcGetSupportedArchs"))


def target_for(architecture: str, device: str = "") -> tuple[str, str]:
    """``(arch, output)`` NVRTC builds for a device of real architecture ``architecture``
    (``"sm_90"``, as ``DeviceInfo.arch`` and ``AdapterIdentity.architecture`` give it):
    a cubin for the device when NVRTC can target it, else PTX for the newest virtual
    architecture at or below it, for the driver to JIT. ``device`` names the device in
    the error when there is none.

    From sm_90 on, the cubin is built for the architecture-specific target (``sm_90a``):
    a cubin runs on its own architecture only either way, and that target adds the
    instructions only that architecture has (Hopper's ``wgmma`` and ``setmaxnreg``),
    which the library's wgmma GEMM and kernels written for ``-arch=sm_90a`` use. PTX
    for the driver to JIT stays portable (``compute_XX``)."""
    match = re.fullmatch(r"sm_(\d+)", architecture) if isinstance(architecture, str) else None
    if match is None:
        raise InvalidArgument(f"a device architecture looks like 'sm_90', got {architecture!r}")
    number = int(match.group(1))
    supported = supported_archs()
    if number in supported:
        return f"sm_{number}{'a' if number >= _ARCH_SPECIFIC_FROM else ''}", "cubin"
    below = [a for a in supported if a <= number]
    if not below:
        raise UnsupportedFeature(
            f"NVRTC {nvrtc_version()} cannot target {architecture}"
            + (f" ({device})" if device else "")
            + " or any architecture below it"
        )
    return f"compute_{max(below)}", "ptx"


def include_options() -> tuple[str, ...]:
    """``--include-path`` for each directory of CUDA's headers (NVIDIA's header wheels,
    else a toolkit, else NVRTC's bundled copy). Empty when there are none."""
    return tuple(f"--include-path={d}" for d in header_directories())


def _checked_arch(arch: str, output: str) -> str:
    match = _ARCH.match(arch) if isinstance(arch, str) else None
    if match is None:
        raise InvalidArgument(f"arch must look like 'sm_90' or 'compute_90', got {arch!r}")
    if output == "cubin" and match.group(1) != "sm":
        raise InvalidArgument(
            f"a cubin needs a real architecture (sm_XX), got {arch!r}; "
            "use output='ptx' for a virtual one"
        )
    supported = supported_archs()
    if int(match.group(2)) not in supported:
        major, minor = nvrtc_version()
        raise UnsupportedFeature(
            f"NVRTC {major}.{minor} cannot target {arch}; it supports "
            f"{', '.join(f'sm_{a}' for a in supported)}"
        )
    return arch


def _include_directories(options: tuple[str, ...]) -> tuple[str, ...]:
    """The directories NVRTC searches, in order, from ``--include-path=DIR`` and
    ``-IDIR`` options."""
    found = []
    for option in options:
        for prefix in ("--include-path=", "-I"):
            if option.startswith(prefix) and len(option) > len(prefix):
                found.append(option[len(prefix) :])
    return tuple(found)


def _pre_included(options: tuple[str, ...]) -> tuple[str, ...]:
    """The headers ``--pre-include=NAME`` (or ``-include NAME``) options name."""
    found = [o.split("=", 1)[1] for o in options if o.startswith("--pre-include=")]
    found += [b for a, b in zip(options, options[1:]) if a in ("-include", "--pre-include")]
    return tuple(found)


def _cache_key(
    source: str,
    entry_point: Any,
    arch: str,
    output: str,
    options: tuple[str, ...],
    headers: dict[str, str],
) -> str:
    """Everything the image depends on: a source without ``#include`` reads no header,
    so its key skips the (cheap, memoized) walk over the headers."""
    pre = _pre_included(options)
    included = (
        header_digest(
            source + "".join(f"\n#include <{name}>" for name in pre),
            _include_directories(options),
            headers,
        )
        if "include" in source or pre
        else None
    )
    text = json.dumps(
        {
            "source": source,
            "entry": entry_point,
            "arch": arch,
            "output": output,
            "options": list(options),
            "nvrtc": list(nvrtc_version()),
            "format": _MAGIC.decode(),
            "headers": included,
            "header_wheels": [list(v) for v in wheel_versions()] if included else [],
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _load(path: Path) -> bytes | None:
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        _count("disk_errors")
        return None
    end = len(_MAGIC)
    head, digest, payload = blob[:end], blob[end : end + 32], blob[end + 32 :]
    if head != _MAGIC or hashlib.sha256(payload).digest() != digest or not payload:
        _count("disk_errors")
        return None
    return payload


def _store(path: Path, image: bytes) -> None:
    """Write atomically: a reader sees the old entry, no entry, or the whole new one."""
    try:
        write_atomically(path, _MAGIC + hashlib.sha256(image).digest() + image)
        _count("disk_writes")
    except OSError:  # a read-only or full cache directory costs a recompile, nothing more
        _count("disk_errors")


def _log(nvrtc, program) -> str:
    size = check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
    if size <= 1:
        return ""
    buffer = bytearray(size)
    check(nvrtc.nvrtcGetProgramLog(program, buffer), "nvrtcGetProgramLog")
    return bytes(buffer).rstrip(b"\0").decode(errors="replace")


def _image(nvrtc, program, output: str) -> bytes:
    get_size, get = (
        (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
        if output == "cubin"
        else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
    )
    size = check(get_size(program), get_size.__name__)
    buffer = bytearray(size)
    check(get(program, buffer), get.__name__)
    return bytes(buffer)  # PTX keeps its terminating NUL, as cuModuleLoadData wants


def _summary(log: str) -> str:
    """The first error line of an NVRTC log, for the exception's one-line message."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return next((line for line in lines if "error" in line), lines[0] if lines else "no log")


_DEVICE_DEFAULT = "--device-as-default-execution-space"
_HOST_FUNCTION = re.compile(
    r"^(.*)\((\d+)\): error: A function without execution space annotations", re.M
)


def _host_prototypes_only(log: str, source: str, file_name: str) -> bool:
    """Whether every error of an NVRTC ``log`` is a host function that is only declared
    (``void launch(float* x, int n);``, as a .cu file's header declares its host
    launcher), which nvcc compiles: the declaration, read in ``source`` (NVRTC's
    ``file_name``) or the header on disk, ends at a ``;`` before any ``{``."""
    found = _HOST_FUNCTION.findall(log)
    if not found or len(found) != len(re.findall(r"\(\d+\): (?:catastrophic )?error", log)):
        return False
    for path, number in found:
        if path == file_name:
            text = source
        else:
            try:
                text = Path(path).read_text(errors="replace")
            except OSError:
                return False
        rest = "\n".join(text.splitlines()[int(number) - 1 :])
        rest = re.sub(r"//[^\n]*|/\*.*?\*/", " ", rest, flags=re.S)
        end = re.search(r"[;{]", rest)
        if end is None or end.group() != ";":
            return False
    return True


def _file_name(entry_points: tuple[str, ...]) -> bytes:
    stem = re.sub(r"\W+", "_", entry_points[0]).strip("_") or "kernel"
    return f"{stem}.cu".encode()


def _run_nvrtc(
    source: str,
    entry_points: tuple[str, ...],
    arch: str,
    output: str,
    options: tuple[str, ...],
    headers: dict[str, str],
    counted: bool = True,
) -> tuple[bytes, dict[str, str], str, dict[str, EntryInfo]]:
    """Compile, asking NVRTC for the lowered (mangled) name of each entry point: a plain
    ``extern "C"`` name lowers to itself, a C++ function or a template instantiation
    (``"softmax<float, 256>"``) to its symbol. ``headers`` are given to NVRTC in memory
    (the standard headers it lacks, see ``_headers``). Returns the image, the lowered
    names and NVRTC's log."""
    nvrtc = _nvrtc()
    # a .cu file with its host side (a PyTorch extension, a sample's main): its device
    # part, as nvcc's device pass sees it (``_device_code``)
    source, left_out = device_code(source)
    names = [name.encode() for name in headers]
    texts = [text.encode() for text in headers.values()]
    program = check(
        nvrtc.nvrtcCreateProgram(
            source.encode(), _file_name(entry_points), len(names), texts, names
        ),
        "nvrtcCreateProgram",
    )
    what = ", ".join(repr(e) for e in entry_points)
    try:
        for entry in entry_points:
            expression = cuda_name_expression(entry).encode()
            check(nvrtc.nvrtcAddNameExpression(program, expression), "nvrtcAddNameExpression")
        encoded = [o.encode() for o in options]
        result = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        if counted:
            _count("compiles")
        log = _log(nvrtc, program)
        if result[0]:
            error = error_for(result[0], "nvrtcCompileProgram")
            if not isinstance(error, CompileError):
                raise error
            raise CompileError(
                f"NVRTC could not compile {what} for {arch} "
                f"({result[0].name}): {_summary(log)}{_missing_headers_hint(log, source)}"
                f"{_template_instance_hint(log)}{_overload_hint(log)}"
                f"{_left_out_hint(left_out)}",
                source=source,
                target="cuda",
                options=options,
                log=log,
            )
        lowered = {}
        for entry in entry_points:
            name = check(
                nvrtc.nvrtcGetLoweredName(program, cuda_name_expression(entry).encode()),
                "nvrtcGetLoweredName",
            )
            lowered[entry] = name.decode() if isinstance(name, bytes) else str(name)
        image = _image(nvrtc, program, output)
        # the PTX a cubin was built from, for each entry's parameters (``ptx_entries``)
        ptx = image if output == "ptx" else _image(nvrtc, program, "ptx")
        # read again: NVRTC 13.0 runs ptxas (and writes its -v report) only once the
        # cubin is asked for
        log = _log(nvrtc, program)
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    for entry, name in lowered.items():
        if not entry.startswith("&") and not _has_entry(image, name, output):
            raise CompileError(
                f"entry point {entry!r} ({name}) is not a kernel of the compiled {output}: it "
                "must be a __global__ function",
                source=source,
                target="cuda",
                options=options,
                log=log,
            )
    infos = ptx_entries(ptx)
    entries = {e: infos[n] for e, n in lowered.items() if not e.startswith("&") and n in infos}
    return image, lowered, log, entries


def _left_out_hint(left_out: tuple[str, ...]) -> str:
    """What NVRTC was not given of a .cu file with a host side (``device_code``)."""
    if not left_out:
        return ""
    return (
        " (NVRTC compiled the file's device code: its host side was left out, as nvcc's "
        f"device pass leaves it: {', '.join(left_out)})"
    )


def _missing_headers_hint(log: str, source: str = "") -> str:
    """Where a header was not found and none of CUDA's are installed, how to get them;
    where the driver API's host header was included, what to write instead (and where
    another header brought it in, that that one is host code)."""
    if "open source file" in log and not header_directories():
        return f" (CUDA's headers are not installed: {INSTALL_HINT})"
    if re.search(r'open source file "curand\w*\.h"', log) and curand_directory() is None:
        return (
            f" (cuRAND's device headers come with the {CURAND_WHEEL} wheel, which is not "
            f"installed: pip install {CURAND_WHEEL}, or {INSTALL_HINT})"
        )
    missing = re.search(r'cannot open source file "([^"]+)"', log)
    if missing is not None and header_directories():
        return (
            f" ({missing.group(1)} is neither on NVRTC's include path (CUDA's runtime "
            "headers, CUB, libcu++) nor a standard header it is given: NVRTC compiles "
            "device code only and has no host C or C++ "
            f"library (kernel-forge serves {_served_headers()}): drop the include if the "
            "kernel's device code needs nothing from it, or give its directory in "
            "include_dirs)"
        )
    if re.search(r"[/\\]cuda\.h\(\d+\): error: .*host functions are not allowed", log):
        if source and not _INCLUDES_CUDA_H.search(source):
            return (
                " (cuda.h, the driver API's host header, came in through another header "
                "the source includes, whose host code NVRTC cannot compile: include only "
                "device-level headers, such as CUB's <cub/block/block_reduce.cuh> rather "
                "than its device-wide algorithms)"
            )
        return (
            " (cuda.h is the driver API's host header, whose host functions NVRTC cannot "
            "compile, and device code needs nothing from it: drop the #include <cuda.h>, "
            "or include <cuda_runtime.h> for CUDART_VERSION and the runtime's types)"
        )
    return ""


def _served_headers() -> str:
    """The standard headers NVRTC is given in memory, as a user would include them."""
    return ", ".join(f"<{name}>" for name in sorted(STD_HEADERS))


def _template_instance_hint(log: str) -> str:
    """For an entry point that names a function template without its arguments
    (``"scale"`` for ``template <int BLOCK = 256> __global__ void scale``, as nvcc
    users launch ``scale<<<g, b>>>``): NVRTC needs the instance named."""
    match = re.search(r'cannot determine which instance of function template "([^"]+)"', log)
    if match is None:
        return ""
    name = match.group(1)
    return (
        f" ({name} is a function template: name the instance in the entry point, "
        f'"{name}<>" for its default template arguments, or "{name}<256>" and the like; '
        'a template placeholder such as "{{wg_x}}" fills one from the schedule)'
    )


def _overload_hint(log: str) -> str:
    """For an entry point that names an overloaded ``__global__`` function by its name
    alone (DeepSpeed's ``apply_rotary_pos_emb``, defined for ``float*`` and for
    ``__half*``): NVRTC needs the overload named."""
    match = re.search(r'cannot determine which instance of overloaded function "([^"]+)"', log)
    if match is None:
        return ""
    name = match.group(1)
    return (
        f" ({name} is overloaded: name the one to launch by its parameter types, as the "
        f'source writes them, "{name}(float*, float*, unsigned)" and the like)'
    )


def _has_entry(image: bytes, entry_point: str, output: str) -> bool:
    if output == "ptx":
        return (
            re.search(rb"\.entry\s+" + re.escape(entry_point.encode()) + rb"\s*\(", image)
            is not None
        )
    return b".text." + entry_point.encode() + b"\0" in image


def compile_cuda(
    source: str,
    entry_point: str,
    arch: str | None = None,
    output: str = "cubin",
    options: tuple[str, ...] = (),
) -> bytes:
    """Compile CUDA C ``source`` with NVRTC and return the image (cubin bytes, or PTX
    text with its terminating NUL); see ``compile_module``."""
    return compile_module(source, (entry_point,), arch, output, options)[0]


def compile_module(
    source: str,
    entry_points: Sequence[str],
    arch: str | None = None,
    output: str = "cubin",
    options: tuple[str, ...] = (),
    variables: Sequence[str] = (),
) -> tuple[bytes, dict[str, str]]:
    """Compile CUDA C ``source`` with NVRTC: the image (cubin bytes, or PTX text with its
    terminating NUL) and the symbol of each of ``entry_points`` (a function name, or a
    C++ name expression such as ``"ns::kernel<float, 4>"``), and of each of
    ``variables`` (keyed ``"&name"``); see ``compile_module_entries``, which also gives
    what the PTX declares of each entry point."""
    image, lowered, _ = compile_module_entries(
        source, entry_points, arch, output, options, variables
    )
    return image, lowered


def compile_module_entries(
    source: str,
    entry_points: Sequence[str],
    arch: str | None = None,
    output: str = "cubin",
    options: tuple[str, ...] = (),
    variables: Sequence[str] = (),
) -> tuple[bytes, dict[str, str], dict[str, EntryInfo]]:
    """Compile CUDA C ``source`` with NVRTC: the image (cubin bytes, or PTX text with its
    terminating NUL) and the symbol of each of ``entry_points`` (a function name, or a
    C++ name expression such as ``"ns::kernel<float, 4>"``), and of each of
    ``variables`` (file-scope ``__constant__``/``__device__`` variables, keyed
    ``"&name"``, for ``cuModuleGetGlobal``). ``arch`` is ``"sm_XX"`` or
    (PTX only) ``"compute_XX"``; by default the current device's (``sm_90`` with no
    GPU), and for a cubin the target ``target_for`` gives it (``sm_90a``), the one the
    CUDA backend builds for, so Hopper's ``wgmma`` compiles with or without a GPU.
    Served from the disk cache when the same compile was done before, in any process.
    Raises ``CompileError`` carrying the NVRTC log, the source and the options.
    Also returns, for each entry point, what its PTX declares (``EntryInfo``: the
    parameters' sizes, the launch bounds), which the CUDA backend compares with what a
    launch passes before any GPU runs it."""
    if not isinstance(source, str) or not source.strip():
        raise InvalidArgument("source must be non-empty CUDA C text")
    if isinstance(entry_points, str):
        entry_points = (entry_points,)
    entry_points = tuple(dict.fromkeys(entry_points))
    name = re.compile(r"^[A-Za-z_][\w:]*\s*(<.*>)?\s*(\(.*\))?$", re.S)
    if not entry_points or not all(
        isinstance(e, str) and name.match(e.strip()) for e in entry_points
    ):
        raise InvalidArgument(
            f"entry points must be function names (or C++ name expressions), got {entry_points!r}"
        )
    if isinstance(variables, str) or not all(
        isinstance(v, str) and re.fullmatch(r"[A-Za-z_]\w*", v) for v in variables
    ):
        raise InvalidArgument(f"variables must be identifiers, got {variables!r}")
    entry_points += tuple(f"&{v}" for v in dict.fromkeys(variables))
    if output not in OUTPUTS:
        raise InvalidArgument(f"output must be one of {OUTPUTS}, got {output!r}")
    if isinstance(options, str) or not all(isinstance(o, str) for o in options):
        raise InvalidArgument(f"options must be a sequence of strings, got {options!r}")
    if arch is None:
        arch = default_arch()
        target, kind = target_for(arch)
        if output == kind == "cubin":  # a device past this NVRTC keeps its plain name
            arch = target
    arch = _checked_arch(arch, output)
    full = _full_options(source, arch, options, tuple(entry_points))
    headers = std_headers()
    key = _cache_key(source, list(entry_points), arch, output, full, headers)
    path = cache_dir() / f"{key}.{output}"
    cached = _load(path)
    if cached is not None:
        _count("disk_hits")
        return _unpack(cached)
    try:
        image, lowered, _, entries = _run_nvrtc(source, entry_points, arch, output, full, headers)
    except CompileError as error:
        if not _host_prototypes_only(error.log, source, _file_name(entry_points).decode()):
            raise
        # nvcc compiles a host function's prototype (a .cu file's header declaring its
        # launcher) and never asks for its body; NVRTC refuses the declaration itself.
        # Declared as device functions, never defined nor called, they cost nothing.
        image, lowered, _, entries = _run_nvrtc(
            source, entry_points, arch, output, (*full, _DEVICE_DEFAULT), headers
        )
    head = {"names": lowered, "entries": {e: asdict(i) for e, i in entries.items()}}
    _store(path, json.dumps(head).encode() + b"\n" + image)
    return image, lowered, entries


@functools.cache
def compile_own(source: str, entry_point: str, arch: str) -> bytes:
    """The cubin of one of the backend's own kernels (the shared memory poison):
    compiled once a process, neither kept in the disk cache nor counted in ``STATS``,
    which hold what a user's runs and searches compiled."""
    arch = _checked_arch(arch, "cubin")
    full = _full_options(source, arch, (), (entry_point,))
    return _run_nvrtc(source, (entry_point,), arch, "cubin", full, std_headers(), False)[0]


def ptxas_report(source: str, entry_point: str, arch: str = "sm_90") -> str:
    """ptxas's resource report for ``entry_point`` of CUDA C ``source`` (registers,
    spill stores and loads, stack frame): NVRTC's log of a cubin compiled for ``arch``
    with the backend's options and ``--ptxas-options=-v``. Needs no GPU; not cached
    here. Where NVRTC took the cubin from the CUDA compute cache (ptxas did not run, so
    no report), it is compiled again in a child process with ``CUDA_CACHE_DISABLE=1``,
    which NVRTC reads only as a process starts. Raises ``CompileError`` as
    ``compile_cuda`` does."""
    if not isinstance(source, str) or not source.strip():
        raise InvalidArgument("source must be non-empty CUDA C text")
    arch = _checked_arch(arch, "cubin")
    full = _full_options(source, arch, ("--ptxas-options=-v",), (entry_point,))
    log = _run_nvrtc(source, (entry_point,), arch, "cubin", full, std_headers())[2]
    if "ptxas" in log or os.environ.get("CUDA_CACHE_DISABLE") == "1":
        return log
    # NVRTC 13.0 on the H200 and the H100 (2026-12-05, 12-06) took a cubin it had built
    # before from the compute cache (~/.nv/ComputeCache): a second run had no report
    child = subprocess.run(
        [sys.executable, "-c", _REPORT_IN_CHILD, entry_point, arch],
        input=source,
        capture_output=True,
        text=True,
        env={**os.environ, "CUDA_CACHE_DISABLE": "1"},
        timeout=600,
    )
    if child.returncode != 0:
        raise CompileError(
            f"ptxas_report's compile without the CUDA compute cache failed: {child.stderr[-2000:]}"
        )
    return child.stdout


_REPORT_IN_CHILD = (
    "import sys; from backends.cuda._nvrtc import ptxas_report; "
    "sys.stdout.write(ptxas_report(sys.stdin.read(), sys.argv[1], sys.argv[2]))"
)


def _full_options(
    source: str, arch: str, options: tuple[str, ...], names: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """NVRTC's options for ``source``: the arch, the headers' include paths, what the
    source and the entry points' ``names`` imply (``k<at::Half>``), then the caller's."""
    implied = implicit_options(source, names)
    return (f"--gpu-architecture={arch}", *include_options(), *implied, *options)


def _unpack(payload: bytes) -> tuple[bytes, dict[str, str], dict[str, EntryInfo]]:
    """A cache entry's payload: the entry points' symbols and what their PTX declares
    (a JSON line), then the image."""
    line, _, image = payload.partition(b"\n")
    head = json.loads(line)
    entries = {
        e: EntryInfo(
            tuple(i["param_sizes"]),
            i["max_threads"],
            tuple(i["required_block"]),
            tuple(i["cluster"]),
        )
        for e, i in head["entries"].items()
    }
    return image, head["names"], entries
