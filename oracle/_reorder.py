"""A kernel's twin with the invocations of each workgroup (block) in another order,
which the oracle's rerun runs (``oracle._plan._rerun``) so that a missing barrier
shows: WGSL's reversed (a small workgroup's run one invocation at a time), CUDA's
warps mirrored.

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

Reversing cannot reorder the lanes of one SIMD group, which run in lockstep: each
statement is done in every lane before the next starts, in any order of the lanes, so a
write is always there before another lane's read after it. A workgroup of at most
``SERIAL_LIMIT`` (32) invocations is one or a few such groups on every adapter seen, and
round 81's ChaCha port (4 invocations) passed on both CPU adapters with its barrier
dropped. Its twin instead runs the statements between the entry point's barriers one
invocation at a time: each run of them goes inside a loop over turns, ``if`` the turn
is the invocation's, in the bit-reversed order of ``local_invocation_index`` (0, 4, 2,
6, 1, 5, 3, 7 of 8), so that of any two invocations either may go first and a read
with no barrier before it misses the write about half the time, whichever invocation
writes. What a right kernel computes does not depend on the order its invocations take
between barriers, so it passes. Left in lockstep, in their place: a statement with a
barrier in it (the runs inside its blocks are served in turn; a call of a function
that reaches a barrier counts), one with a ``return`` or a ``break`` or ``continue``
of a loop around it, and a declaration whose name is used past the run it would close
in, but a declaration of a constant (``var sum = 0.0;``) moves up before its run
instead, and another (``let left = tile[j];``) is split: declared before the run (by
its type, or by its initializer computed once more there where that has no effect)
and assigned in its place. The functions that reach a barrier are served the same way
(the invocation's index is a private variable the entry point sets). Where nothing is
left to serialize, or the body cannot be read into statements, the twin is the
reversed one.

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
from dataclasses import dataclass

from forge.sources import (
    _STRUCT,
    _WORKGROUP_SIZE,
    _bracket_end,
    _split_top_level,
    strip_comments,
    wgsl_uses_subgroups,
    wgsl_workgroup_size,
)

__all__ = ["reversed_invocations", "reversed_warps", "serializes"]

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
    body = _body(text, close)
    if body is None:
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


#: The most invocations a workgroup may have for the rerun to run them one at a time
#: (``_serialized``) instead of reversed. A workgroup this small is one SIMD group on
#: NVIDIA (32 lanes) and fits few on the CPU adapters (lavapipe's 8, SwiftShader's 4),
#: whose lanes run in lockstep: every write of a statement is done before any read of
#: the next, with or without the barrier between, in either order of the lanes.
#: Round 81's ChaCha port (4 invocations) passed on both CPU adapters with its barrier
#: dropped. Past this size the serialized runs would cost too much (each run of
#: statements takes as many turns as the workgroup has invocations).
SERIAL_LIMIT = 32
#: The counter a serialized twin declares (``serializes``).
SERIALIZED = _PREFIX + "turn"
_LANE = _PREFIX + "lane"
_BARRIER_CALL = re.compile(
    r"\b(?:workgroupBarrier|storageBarrier|textureBarrier|workgroupUniformLoad)\s*\("
)
_FN = re.compile(r"\bfn\s+(\w+)\s*\(")
_KEYWORD = re.compile(r"(if|for|while|loop|switch|continuing)\b")
_DECLARED = re.compile(r"(?:let|var|const)\b\s*(?:<[^>]*>)?\s*(\w+)")


class _Unreadable(Exception):
    """A body the serializer cannot split into statements (the twin is then reversed)."""


def _body(text: str, close: int) -> int | None:
    """The ``{`` of the body of the function whose parameters end at ``close``; None
    where something other than a return type stands between."""
    brace = text.find("{", close)
    between = text[close:brace].strip()
    return None if brace < 0 or between and not between.startswith("->") else brace


def _function_bodies(text: str) -> dict[str, tuple[int, int]]:
    """Each function's name -> the offsets of its body's braces (the closing one's end)."""
    bodies = {}
    for match in _FN.finditer(text):
        brace = _body(text, _bracket_end(text, match.end() - 1))
        if brace is not None:
            bodies[match.group(1)] = (brace, _bracket_end(text, brace, "{}"))
    return bodies


def _barrier_functions(text: str) -> set[str]:
    """The functions whose bodies call a barrier, or a function that does."""
    bodies = {name: text[start:end] for name, (start, end) in _function_bodies(text).items()}
    found = {name for name, body in bodies.items() if _BARRIER_CALL.search(body)}
    grew = True
    while grew:
        grew = False
        for name, body in bodies.items():
            if name not in found and any(re.search(rf"\b{f}\s*\(", body) for f in found):
                found.add(name)
                grew = True
    return found


def _outside(text: str, at: int, end: int, wanted: str, pairs: str) -> int:
    """The first ``wanted`` from ``at`` that no bracket of ``pairs`` (openers, then
    closers) holds."""
    depth = 0
    half = len(pairs) // 2
    for i in range(at, end):
        if text[i] in pairs[:half]:
            depth += 1
        elif text[i] in pairs[half:]:
            depth -= 1
        elif text[i] == wanted and depth == 0:
            return i
    raise _Unreadable


def _first_brace(text: str, at: int, end: int) -> int:
    """The first ``{`` from ``at`` outside parentheses (a statement's block)."""
    return _outside(text, at, end, "{", "([)]")


def _statement_end(text: str, at: int, end: int) -> int:
    """The offset past the statement that starts at ``at`` (a compound one with its
    blocks: an ``if`` with its ``else`` branches)."""
    keyword = _KEYWORD.match(text, at)
    if text[at] == "{" or keyword:
        close = _bracket_end(text, _first_brace(text, at, end), "{}")
        while keyword and keyword.group(1) == "if":
            rest = re.compile(r"\s*else\b\s*").match(text, close)
            if rest is None:
                break
            close = _bracket_end(text, _first_brace(text, rest.end(), end), "{}")
        if close > end:
            raise _Unreadable
        return close
    return _outside(text, at, end, ";", "([{)]}") + 1


def _statements(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The statements of the block whose inside is ``text[start:end]``."""
    found: list[tuple[int, int]] = []
    at = start
    while True:
        while at < end and (text[at].isspace() or text[at] == ";"):
            at += 1
        if at >= end:
            return found
        if text[at] == "@":  # an attribute on a statement: not read here
            raise _Unreadable
        stop = _statement_end(text, at, end)
        found.append((at, stop))
        at = stop


def _blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The blocks of a compound statement (each branch of an ``if``), as the offsets
    just inside their braces."""
    found: list[tuple[int, int]] = []
    at = start
    while True:
        try:
            brace = _first_brace(text, at, end)
        except _Unreadable:
            return found
        close = _bracket_end(text, brace, "{}")
        found.append((brace + 1, close - 1))
        at = close


def _wrappable(statement: str) -> bool:
    """Whether ``statement`` may run inside the turn loop: no ``return`` (a barrier
    after it would no longer be in uniform control flow) and no ``break`` or
    ``continue`` of a loop around it (it would leave the turn loop instead)."""
    if re.search(r"\b(?:return|discard)\b", statement):
        return False
    keyword = _KEYWORD.match(statement)
    kind = keyword.group(1) if keyword else ""
    if re.search(r"\bcontinue\b", statement) and kind not in ("for", "while", "loop"):
        return False
    return not re.search(r"\bbreak\b", statement) or kind in ("for", "while", "loop", "switch")


_CONSTANT_DECLARATION = re.compile(
    r"(?:let|var|const)\b\s*(?:<[^>]*>)?\s*\w+\s*(?::[^=;]+)?(?:=(.*))?;\s*$", re.S
)
_TYPE_NAME = re.compile(
    r"f32|f16|u32|i32|bool|true|false|array|vec[234][fhiu]?|mat[234]x[234][fh]?"
)


@dataclass(frozen=True)
class _Module:
    """What serializing a body needs of its module."""

    barriers: re.Pattern  # a barrier's call, or a call of a function that reaches one
    constants: frozenset[str]  # its const and override names
    functions: frozenset[str]  # its functions' names


_DECLARATION = re.compile(
    r"(?:let|var)\b\s*(?:<\s*function\s*>)?\s*(\w+)\s*(?::([^=;]+))?=(.*);\s*$", re.S
)


def _split(code: str, before: list[str], module: _Module) -> tuple[str, str] | None:
    """The declaration ``code`` (``let left = tile[j];``) as a variable declared before
    its run and assigned in its place (``left = tile[j];``): what goes before and what
    stays, or None. Declared by its type where it has one; else by its initializer,
    computed once more before the run, only where that has no effect (no call of the
    module's functions, of an atomic or texture builtin) and reads nothing the run
    declares before it (``before``). Not a pointer."""
    match = _DECLARATION.match(code)
    if match is None:
        return None
    name, annotated, value = match.group(1), match.group(2), match.group(3)
    if value.strip().startswith("&") or annotated and "ptr" in annotated:
        return None
    in_place = f"{name} =" + "\n" * code[: match.start(3)].count("\n") + value + ";"
    if annotated:
        return f"var {name}: {' '.join(annotated.split())}; ", in_place
    called = re.findall(r"\b(\w+)\s*\(", value)
    if any(c in module.functions or c.startswith(("atomic", "texture")) for c in called):
        return None
    declared = {d.group(1) for c in before if (d := _DECLARED.match(c))}
    if declared & set(re.findall(r"\b[A-Za-z_]\w*", value)):
        return None
    return f"var {name} = {' '.join(value.split())}; ", in_place


def _moves(code: str, constants: frozenset[str]) -> bool:
    """Whether the declaration ``code`` may move up its block: it has no initializer, or
    one of literals, types and the module's constants (``var sum = 0.0;``)."""
    match = _CONSTANT_DECLARATION.match(code)
    if match is None:
        return False
    names = re.findall(r"\b[A-Za-z_]\w*", match.group(1) or "")
    return all(name in constants or _TYPE_NAME.fullmatch(name) for name in names)


def _serialize_block(
    text: str,
    start: int,
    end: int,
    turn: str,
    module: _Module,
    edits: list,
) -> bool:
    """The edits that run each run of statements between barriers in the block
    ``text[start:end]`` one invocation at a time; whether any run was wrapped. A
    statement with a barrier in it is left as it is (its blocks are served in turn), so
    are a statement that returns or leaves a loop, and a declaration whose name is used
    past the run it would be in (its scope would end with the run): they run in
    lockstep, in their place. Such a declaration of a constant (``var sum = 0.0;``, an
    accumulator read after the next barrier) moves to just before its run instead, on
    the same line, where it stands blanked; another is split where it can be
    (``_split``): declared before the run, assigned in its place."""
    statements = _statements(text, start, end)
    codes = [text[at:stop] for at, stop in statements]
    held = set()  # the statements that stay in lockstep
    moved: set[int] = set()  # declarations that move before their run
    split: dict[int, tuple[str, str]] = {}  # ... declared before it, assigned in place
    last_use = {}  # a declaration's index -> the last statement that names it
    wrapped = False
    for i, code in enumerate(codes):
        if module.barriers.search(code):
            held.add(i)
            keyword = _KEYWORD.match(code)
            # a switch's blocks are its cases' (``case 1: { ... }``): not read here
            if code.startswith("{") or keyword and keyword.group(1) != "switch":
                for inner in _blocks(text, *statements[i]):
                    wrapped |= _serialize_block(text, *inner, turn, module, edits)
        elif not _wrappable(code):
            held.add(i)
        elif declared := _DECLARED.match(code):
            name = re.compile(rf"\b{declared.group(1)}\b")
            last_use[i] = max([k for k in range(i + 1, len(codes)) if name.search(codes[k])] or [i])
    runs: list[list[int]] = []
    while True:
        runs = [[]]
        for i in range(len(codes)):
            if i in held:
                runs.append([])
            else:
                runs[-1].append(i)
        runs = [run for run in runs if run]
        late = {i for run in runs for i in run if i not in moved and last_use.get(i, i) > run[-1]}
        for run in runs:
            for i in late & set(run):
                named = _DECLARED.match(codes[i])
                assert named is not None
                before = codes[run[0] : i]  # a name it would shadow there stays
                if any(re.search(rf"\b{named.group(1)}\b", c) for c in before):
                    continue
                if _moves(codes[i], module.constants):
                    moved.add(i)
                elif (parts := _split(codes[i], before, module)) is not None:
                    moved.add(i)
                    split[i] = parts
        late -= moved
        if not late:
            break
        held |= late
    for run in runs:
        ahead = [
            split[i][0] if i in split else " ".join(codes[i].split()) + " "
            for i in run
            if i in moved
        ]
        edits.append((statements[run[0]][0], statements[run[0]][0], "".join(ahead) + turn))
        edits.append((statements[run[-1]][1], statements[run[-1]][1], " } }"))
        edits += [
            (*statements[i], split[i][1] if i in split else re.sub(r"[^\n]", " ", codes[i]))
            for i in run
            if i in moved
        ]
    return wrapped or bool(runs)


def _turns(count: int) -> str:
    """What opens a run of statements taken one invocation at a time, of ``count``."""
    bits = max(1, (count - 1).bit_length())
    return (
        f"for (var {SERIALIZED} = 0u; {SERIALIZED} < {1 << bits}u; {SERIALIZED}++) "
        f"{{ if ((reverseBits({SERIALIZED}) >> {32 - bits}u) == {_LANE}) {{ "
    )


def _serialized(
    text: str, paren: int, structs, count: int, module: _Module
) -> list[tuple[int, int, str]] | None:
    """The edits that make one entry point run the statements between its barriers one
    invocation at a time, in the bit-reversed order of their indices (0, 4, 2, 6, 1,
    ... in 8): any invocation reading what another writes with no barrier between
    reads it before the write about half the time, whichever of the two comes first
    in the workgroup, where lanes in lockstep always read it after. None where the body
    cannot be read so or nothing in it runs between barriers. The invocation's index is
    put in a private variable (declared by ``reversed_invocations``), which the bodies
    of the functions it calls that reach a barrier read too."""
    close = _bracket_end(text, paren)
    body = _body(text, close)
    if body is None:
        return None
    params = _split_top_level(text[paren + 1 : close - 1])
    index = None
    for part in params:
        builtin = _BUILTIN.search(part)
        named = _NAMED.search(part[builtin.end() :] if builtin else part)
        if named is None:
            return None
        if builtin and builtin.group(1) == "local_invocation_index":
            index = named.group(1)
        elif not builtin and named.group(2) in structs:
            member = structs[named.group(2)].get("local_invocation_index")
            index = f"{named.group(1)}.{member}" if member else index
    edits: list[tuple[int, int, str]] = []
    if index is None:
        index = _PREFIX + "raw_index"
        inside = text[paren + 1 : close - 1]
        comma = ", " if inside.strip() and not inside.rstrip().endswith(",") else " "
        edits.append(
            (close - 1, close - 1, f"{comma}@builtin(local_invocation_index) {index}: u32")
        )
    try:
        block = (body + 1, _bracket_end(text, body, "{}") - 1)
        wrapped = _serialize_block(text, *block, _turns(count), module, edits)
        # else served only where it calls a function that reaches a barrier
        calls = _BARRIER_CALL.sub(" ", text[slice(*block)])
        if not wrapped and not module.barriers.search(calls):
            return None
    except _Unreadable:
        return None
    return [*edits, (body + 1, body + 1, f" {_LANE} = {index};")]


def _serialized_helpers(
    text: str, names: list[str], entries: set[str], count: int, module: _Module
) -> list[tuple[int, int, str]]:
    """The edits that serialize the bodies of the functions ``names`` (those reaching a
    barrier) that are not entry points, for workgroups of up to ``count`` invocations.
    Called from an entry point that was not serialized, every invocation's index there
    is the private variable's 0, and each run takes one turn for all: as written."""
    edits: list[tuple[int, int, str]] = []
    for name, (start, end) in _function_bodies(text).items():
        if name not in names or name in entries:
            continue
        found: list[tuple[int, int, str]] = []
        try:
            _serialize_block(text, start + 1, end - 1, _turns(count), module, found)
        except _Unreadable:
            continue
        edits += found
    return edits


def serializes(twin: str) -> bool:
    """Whether ``twin`` (a ``reversed_invocations`` source) runs invocations one at a
    time (``_serialized``)."""
    return SERIALIZED in twin


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
    barrier_names = sorted(_barrier_functions(text))
    module = _Module(
        re.compile(
            "|".join([_BARRIER_CALL.pattern, *(rf"\b{re.escape(n)}\s*\(" for n in barrier_names)])
        ),
        frozenset(re.findall(r"\b(?:const|override)\s+(\w+)", text)),
        frozenset(_FN.findall(text)),
    )
    edits: list[tuple[int, int, str]] = []
    serialized: list[tuple[int, int]] = []  # (where the entry point starts, its invocations)
    entries = set()
    for match in _WORKGROUP_SIZE.finditer(text):
        # its arguments by their brackets: ``((BM * BN) / (TM * TN))`` nests them
        attr = text.index("(", text.index("workgroup_size", match.start()))
        sizes = text[attr + 1 : _bracket_end(text, attr) - 1]
        entries.add(match.group(2) or match.group(4))
        size = wgsl_workgroup_size(source, match.group(2) or match.group(4))
        count = size[0] * size[1] * size[2] if size is not None else 0
        found = None
        if not subgroups and 2 <= count <= SERIAL_LIMIT:
            found = _serialized(text, match.end() - 1, structs, count, module)
            serialized += [(match.start(), count)] if found is not None else []
        if found is None:
            found = _entry(text, sizes, match.end() - 1, structs, subgroups)
        if found is None:
            return None
        edits += found
    if not edits:
        return None
    if serialized:
        edits.append((serialized[0][0], serialized[0][0], f"var<private> {_LANE}: u32; "))
        most = max(count for _, count in serialized)
        edits += _serialized_helpers(text, barrier_names, entries, most, module)
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
