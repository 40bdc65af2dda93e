"""A kernel's twin with the invocations of each workgroup (block) in another order,
which the oracle's rerun runs (``oracle._plan._rerun``) so that a missing barrier
shows: WGSL's reversed, CUDA's warps mirrored.

A barrier dropped between one invocation's write to workgroup memory and another's
read of it is the race people write most, and the adapters hide it: lavapipe and
SwiftShader run a workgroup's SIMD groups one after another between barriers, so what
invocation 0 writes is there before the later groups read it; NVIDIA's Vulkan driver
hid three of round 49's (2026-12-06). WGSL has no race detector (CUDA has racecheck).
What a right kernel computes does not depend on which hardware invocation plays which
logical one, so the twin gives invocation ``i`` of a workgroup of ``n`` the builtins of
invocation ``n - 1 - i`` (``local_invocation_index``, ``local_invocation_id``,
``global_invocation_id``, consistently); the invocation that wrote first in the
original now runs last, and a read that raced with its write finds what was there
before (the poison, or the last launch's values).

The twin is made only where it means something and is safe: a module with workgroup
memory, a ``workgroupBarrier`` or ``storageBarrier``, or a ``read_write`` storage
variable it both reads and writes (invocations hand values on through a storage buffer
too: round 66's wavefronts and time steps, whose dropped barrier left a module with
none, and no twin). In a module that uses subgroups (a subgroup's lanes
are hardware lanes: reversing the logical order inside one changes what a right
kernel's ``subgroupShuffle`` reads) the subgroups' order is reversed instead, each
keeping its lanes: the invocation in lane ``l`` of subgroup ``s`` of ``S``, ``w`` lanes
wide, plays invocation ``(S - 1 - s) * w + l`` and sees ``subgroup_id`` ``S - 1 - s``,
so what subgroup 0 wrote first is written by the last one, and a subgroup's lanes are
still one block of consecutive indices, as every adapter seen runs them (lavapipe's 8,
SwiftShader's 4, NVIDIA's 32); where the workgroup is no whole number of subgroups the
order stays. Before round 62 such modules were rerun as written, and web-rwkv's RMS
norm with the barrier after its scale dropped passed on both CPU adapters. The builtins
are taken as the entry point declares them, as parameters or as members of a struct
parameter; its body starts with the reversed values under the original names, on the
line of its ``{`` (line numbers stay). A twin the compiler refuses is not run
(``_rerun`` falls back to the kernel as written).

A CUDA kernel gets a twin with its block's warps in reverse order
(``reversed_warps``): ``threadIdx`` is a macro for the index of the same lane in the
mirrored warp, so that what warp 0 wrote first is written by the block's last warp. A
warp keeps its lanes, so shuffles, votes, ``__syncwarp`` and tensor-core fragments,
which read hardware lanes, see what they saw, and a warp-synchronous tail still runs
in one warp. Only where every launch's block is whole warps, the source includes none
but CUDA's scalar headers (CUB and cooperative groups read the hardware's
``threadIdx`` themselves), has no inline PTX (``%tid``) and no host side.
compute-sanitizer's racecheck finds such races too, but only where it is asked for
(``--sanitize``); the twin runs in every check.
"""

from __future__ import annotations

import re

from forge.sources import (
    _STRUCT,
    _WORKGROUP_SIZE,
    _bracket_end,
    _split_top_level,
    strip_comments,
    wgsl_uses_subgroups,
)

__all__ = ["reversed_invocations", "reversed_warps"]

_PREFIX = "kf_rev_"  # the twin's own names
_RAW = "kf_raw_"  # the entry point's parameters, renamed: what the hardware gave
_REVERSED = ("local_invocation_index", "local_invocation_id", "global_invocation_id")
#: The name a twin that reverses whole subgroups declares (``reverses_subgroups``).
SUBGROUPS_REVERSED = _PREFIX + "whole"
_SUBGROUP_BUILTINS = ("subgroup_invocation_id", "subgroup_size", "subgroup_id", "num_subgroups")
_RACY = re.compile(r"\b(?:workgroup|storage)Barrier\s*\(|\bvar\s*<\s*workgroup\s*>")
_READ_WRITE = re.compile(r"\bvar\s*<\s*storage\s*,\s*read_write\s*>\s*(\w+)")
_ASSIGNED = re.compile(r"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)")
_BUILTIN = re.compile(r"@\s*builtin\s*\(\s*(\w+)\s*\)")
_NAMED = re.compile(r"(\w+)\s*:\s*(\w+)")  # a parameter or member: name and type's name


def _struct_builtins(text: str) -> dict[str, dict[str, str]]:
    """Per struct, its members that are builtins: kind -> member name."""
    found: dict[str, dict[str, str]] = {}
    for match in _STRUCT.finditer(text):
        for member in re.split(r"[,;](?![^<]*>)", match.group(2)):
            builtin = _BUILTIN.search(member)
            named = _NAMED.search(member[builtin.end() :] if builtin else "")
            if builtin and named:
                found.setdefault(match.group(1), {})[builtin.group(1)] = named.group(1)
    return found


def _entry(
    text: str, sizes: str, paren: int, structs, subgroups: bool = False
) -> list[tuple[int, int, str]] | None:
    """The edits that reverse one entry point's invocations: (start, end, new text)
    over ``text``; [] where it reads no invocation builtin, None where it cannot. With
    ``subgroups``, the subgroups' order is reversed and each keeps its lanes (see the
    module docstring)."""
    close = _bracket_end(text, paren)
    params = _split_top_level(text[paren + 1 : close - 1])
    direct: dict[str, str] = {}  # kind -> parameter name
    inside: dict[str, str] = {}  # kind -> "param.member" (a struct parameter's)
    structured: list[tuple[str, dict[str, str]]] = []  # struct parameters to copy
    for part in params:
        builtin = _BUILTIN.search(part)
        named = _NAMED.search(part[builtin.end() :] if builtin else part)
        if named is None:
            return None
        if builtin:
            direct[builtin.group(1)] = named.group(1)
        elif named.group(2) in structs:
            members = structs[named.group(2)]
            structured.append((named.group(1), members))
            for kind, member in members.items():
                inside[kind] = f"{_RAW}{named.group(1)}.{member}"
    if not any(kind in direct or kind in inside for kind in _REVERSED):
        return []
    added = []
    raw_index = inside.get("local_invocation_index")
    if "local_invocation_index" in direct:
        raw_index = _RAW + direct["local_invocation_index"]
    if raw_index is None:
        raw_index = _PREFIX + "raw_index"
        added.append(f"@builtin(local_invocation_index) {raw_index}: u32")
    wid = direct.get("workgroup_id") or inside.get("workgroup_id")
    if wid is None:
        wid = _PREFIX + "wid"
        added.append(f"@builtin(workgroup_id) {wid}: vec3<u32>")
    dims = [s.strip() for s in _split_top_level(sizes) if s.strip()]
    if not 1 <= len(dims) <= 3:
        return None
    dims += ["1"] * (3 - len(dims))
    # scalars, not one vec3: naga (wgpu 29) refuses a member of a vector built from an
    # override ("Pipeline constant error: Entry point ... is invalid")
    x, y, z = (_PREFIX + axis for axis in "xyz")
    index, lid = _PREFIX + "index", _PREFIX + "lid"
    values = {
        "local_invocation_index": index,
        "local_invocation_id": lid,
        "global_invocation_id": f"{wid} * vec3<u32>({x}, {y}, {z}) + {lid}",
    }
    reversed_index = f"{x} * {y} * {z} - 1u - {raw_index}"
    lines = [*(f"let {name} = u32({dim});" for name, dim in zip((x, y, z), dims))]
    if subgroups:
        raw: dict[str, str] = {}
        for kind in _SUBGROUP_BUILTINS:
            if kind in direct:
                raw[kind] = _RAW + direct[kind]
            elif kind in inside:
                raw[kind] = inside[kind]
            else:
                raw[kind] = _PREFIX + kind
                added.append(f"@builtin({kind}) {raw[kind]}: u32")
        lane, width = raw["subgroup_invocation_id"], raw["subgroup_size"]
        sid, count = raw["subgroup_id"], raw["num_subgroups"]
        whole = SUBGROUPS_REVERSED
        # every subgroup full: the last subgroup plays the first, lane by lane; else
        # (a workgroup that is no whole number of subgroups) the order stays
        lines.append(f"let {whole} = {count} * {width} == {x} * {y} * {z};")
        reversed_index = f"select({raw_index}, ({count} - 1u - {sid}) * {width} + {lane}, {whole})"
        values["subgroup_id"] = f"select({sid}, {count} - 1u - {sid}, {whole})"
    lines += [
        f"let {index} = {reversed_index};",
        f"let {lid} = vec3<u32>({index} % {x}, {index} / {x} % {y}, {index} / ({x} * {y}));",
    ]
    renamed = (*_REVERSED, "subgroup_id") if subgroups else _REVERSED
    new_params = []
    for part in params:
        builtin = _BUILTIN.search(part)
        named = _NAMED.search(part[builtin.end() :] if builtin else part)
        assert named is not None
        name = named.group(1)
        if builtin and builtin.group(1) in _SUBGROUP_BUILTINS and subgroups:
            # read as the hardware gave it, under the raw name; the kernel's own name
            # gets what its logical invocation sees
            lines.append(f"let {name} = {values.get(builtin.group(1), _RAW + name)};")
        elif builtin and builtin.group(1) in renamed:
            lines.append(f"let {name} = {values[builtin.group(1)]};")
        elif not builtin and any(name == p for p, _ in structured):
            members = dict(structured)[name]
            lines.append(f"var {name} = {_RAW}{name};")
            lines += [f"{name}.{m} = {values[k]};" for k, m in members.items() if k in values]
        else:
            new_params.append(part)
            continue
        at = (builtin.end() if builtin else 0) + named.start(1)
        new_params.append(part[:at] + _RAW + part[at:])
    body = text.find("{", close)
    if body < 0 or text[close:body].strip() and not text[close:body].strip().startswith("->"):
        return None
    signature = ",".join(new_params + added)
    signature += "\n" * (text.count("\n", paren, close) - signature.count("\n"))  # lines stay
    return [(paren + 1, close - 1, signature), (body + 1, body + 1, " " + " ".join(lines))]


def reverses_subgroups(twin: str) -> bool:
    """Whether ``twin`` (a ``reversed_invocations`` source) reverses whole subgroups."""
    return SUBGROUPS_REVERSED in twin


def _storage_read_and_written(text: str) -> bool:
    """Whether ``text`` both reads and assigns elements of one ``read_write`` storage
    variable: where invocations may hand values to each other through it (a wavefront's
    cells, a time step's row), with a ``storageBarrier`` between, or none at all where
    one was dropped (round 66: soft-DTW's port without its barrier had no twin and
    passed on both CPU adapters, which run its SIMD groups in order)."""
    for name in _READ_WRITE.findall(text):
        read = written = False
        for match in re.finditer(rf"\b{re.escape(name)}\s*\[", text):
            end = _bracket_end(text, match.end() - 1, "[]")
            # a member or a further index after it (``a[i].x``, ``a[i][j]``): still it
            while end < len(text) and (text[end] == "." or text[end] == "["):
                if text[end] == "[":
                    end = _bracket_end(text, end, "[]")
                else:
                    member = re.match(r"\.\s*\w+", text[end:])
                    end += member.end() if member else 1
            if _ASSIGNED.match(text, end):
                written = True
                read = read or not re.match(r"\s*=(?!=)", text[end:])  # ``+=`` reads
            else:
                read = True
            if read and written:
                return True
    return False


def reversed_invocations(source: str) -> str | None:
    """``source`` with the invocations of each compute entry point's workgroups in
    reverse order, or with subgroups their subgroups (see the module docstring); None
    where the module has no workgroup memory, barrier or ``read_write`` storage
    variable that it both reads and writes, reads no invocation builtin, or cannot be
    read so (then the rerun runs the kernel as written)."""
    text = strip_comments(source)
    if _PREFIX in text or _RAW in text:
        return None
    if not _RACY.search(text) and not _storage_read_and_written(text):
        return None
    subgroups = wgsl_uses_subgroups(source)
    structs = _struct_builtins(text)
    edits: list[tuple[int, int, str]] = []
    for match in _WORKGROUP_SIZE.finditer(text):
        # its arguments by their brackets: ``((BM * BN) / (TM * TN))`` nests them
        attr = text.index("(", text.index("workgroup_size", match.start()))
        sizes = text[attr + 1 : _bracket_end(text, attr) - 1]
        found = _entry(text, sizes, match.end() - 1, structs, subgroups)
        if found is None:
            return None
        edits += found
    if not edits:
        return None
    twin = source
    for start, end, new in sorted(edits, reverse=True):
        twin = twin[:start] + new + twin[end:]
    return twin


# What reads the hardware's thread index itself (or lanes of another warp's).
_HARDWARE_INDEX = re.compile(r"\b(?:asm|cooperative_groups|tiled_partition|this_thread_block)\b")
# Headers that declare nothing reading threadIdx: CUDA's scalar types, C's maths, and
# host-only ones a .cu file opens with (the device pass leaves them out).
_PLAIN_HEADERS = frozenset(
    """cuda_fp16.h cuda_bf16.h cuda_fp8.h cuda_runtime.h cuda_runtime_api.h cuda.h
    device_launch_parameters.h vector_types.h stdint.h cstdint math.h cmath float.h
    cfloat limits.h climits stdio.h cstdio assert.h cassert math_constants.h stddef.h
    cstddef stdlib.h cstdlib string.h cstring algorithm iostream vector helper_cuda.h
    helper_functions.h helper_math.h""".split()
)
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_HOST_SIDE = re.compile(r"<<<|\bint\s+main\s*\(|PYBIND11_MODULE|torch/")
_THREAD_IDX = re.compile(r"\bthreadIdx\b")
_CUDA_PROLOGUE = (
    "static __device__ __forceinline__ uint3 kf_rev_thread_idx() {\n"
    "    const unsigned kf_x = blockDim.x, kf_y = blockDim.y;\n"
    "    const unsigned kf_n = kf_x * kf_y * blockDim.z;\n"
    "    const unsigned kf_p = threadIdx.x + kf_x * (threadIdx.y + kf_y * threadIdx.z);\n"
    "    const unsigned kf_i = (kf_n / 32u - 1u - kf_p / 32u) * 32u + kf_p % 32u;\n"
    "    uint3 kf_t;\n"
    "    kf_t.x = kf_i % kf_x; kf_t.y = kf_i / kf_x % kf_y; kf_t.z = kf_i / (kf_x * kf_y);\n"
    "    return kf_t;\n"
    "}\n"
    "#define threadIdx (kf_rev_thread_idx())\n"
    "#line 1\n"
)


def reversed_warps(source: str, blocks: list[tuple[int, int, int]]) -> str | None:
    """The CUDA ``source`` with each block's warps in reverse order, each keeping its
    lanes (see the module docstring), for launches of ``blocks``; None where that could
    change what a right kernel computes, or means nothing (one warp a block, or no
    ``__syncthreads`` and no ``__shared__``)."""
    text = strip_comments(source)
    if "kf_rev_" in text or not _THREAD_IDX.search(text):
        return None
    if not re.search(r"\b__syncthreads\w*\s*\(|\b__shared__\b", text):
        return None
    if _HARDWARE_INDEX.search(text) or _HOST_SIDE.search(text):
        return None
    if any(name.strip() not in _PLAIN_HEADERS for name in _INCLUDE.findall(text)):
        return None
    if not blocks or any((x * y * z) % 32 or x * y * z == 32 for x, y, z in blocks):
        return None
    return _CUDA_PROLOGUE + source
