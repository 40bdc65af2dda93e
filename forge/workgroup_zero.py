"""Zeroing ``var<workgroup>`` memory in the WGSL source, for adapters that do not.

WGSL guarantees that workgroup memory starts zeroed in every workgroup, and shaders
rely on it (a histogram adding into ``var<workgroup> bins`` without clearing them, as
the WebGPU samples do). wgpu asks Vulkan to zero it (``VK_KHR_zero_initialize_
workgroup_memory``, core in 1.3); Mesa 22.3's lavapipe accepts that and does not, so
memory carries over between workgroups and dispatches, and a correct kernel fails
there. The probe (``backends._probe``) measures whether an adapter zeroes; where it
does not, the backend compiles the shader through ``zero_workgroup_memory``: every
compute entry point starts by zeroing the module's workgroup variables from its
first invocation, then a ``workgroupBarrier()``, as naga's own polyfill does.

The rewrite keeps every line where it was (naga's messages point at the user's
source). A variable it cannot zero (a struct holding atomics) leaves the source as it
was and says so.
"""

from __future__ import annotations

import re

from .sources import strip_comments

__all__ = ["zero_workgroup_memory", "workgroup_variables"]

_VAR = re.compile(r"\bvar\s*<\s*workgroup\s*>\s*(\w+)\s*:\s*([^;]+);")
_ENTRY = re.compile(r"@\s*compute\b")
_FN = re.compile(r"\bfn\s+(\w+)\s*\(")
_ARRAY = re.compile(r"^array\s*<\s*(.+)\s*,\s*([^,<>]+?)\s*>$")
_ATOMIC = re.compile(r"^atomic\s*<\s*\w+\s*>$")
_INDEX = "_kforge_lii"
_LOOP = "_kforge_i"


def workgroup_variables(source: str) -> list[tuple[str, str]]:
    """(name, type) of each module-scope ``var<workgroup>``."""
    return [
        (m.group(1), " ".join(m.group(2).split())) for m in _VAR.finditer(strip_comments(source))
    ]


def _holds_atomics(wgsl_type: str, structs: dict[str, str]) -> bool:
    """Whether ``wgsl_type`` holds an atomic anywhere (through the module's structs)."""
    if "atomic" in wgsl_type:
        return True
    return any(
        _holds_atomics(structs[word], {k: v for k, v in structs.items() if k != word})
        for word in re.findall(r"\w+", wgsl_type)
        if word in structs
    )


def _zero_statement(name: str, wgsl_type: str, structs: dict[str, str]) -> str | None:
    """WGSL that zeroes ``name`` of ``wgsl_type`` from one invocation, or None where
    it cannot (a struct holding atomics is neither constructible nor one atomic)."""
    array = _ARRAY.match(wgsl_type)
    if array:
        element, count = array.group(1).strip(), array.group(2).strip()
        if _ATOMIC.match(element):
            body = f"atomicStore(&{name}[{_LOOP}], 0);"
        elif _holds_atomics(element, structs):
            return None
        else:
            body = f"{name}[{_LOOP}] = {element}();"
        return f"for (var {_LOOP} = 0u; {_LOOP} < u32({count}); {_LOOP}++) {{ {body} }}"
    if _ATOMIC.match(wgsl_type):
        return f"atomicStore(&{name}, 0);"
    if _holds_atomics(wgsl_type, structs):
        return None
    return f"{name} = {wgsl_type}();"


def _matching(text: str, start: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced {open_}{close}")


def _split_params(text: str) -> list[str]:
    params, depth, current = [], 0, ""
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        params.append(current)
    return [p for p in params if p.strip()]


def _structs(clean: str) -> dict[str, str]:
    """Struct name -> the text of its members."""
    found = {}
    for match in re.finditer(r"\bstruct\s+(\w+)\s*\{", clean):
        end = _matching(clean, match.end() - 1, "{", "}")
        found[match.group(1)] = clean[match.end() : end]
    return found


def _index_members(structs: dict[str, str]) -> dict[str, str]:
    """Struct name -> the member that holds ``local_invocation_index`` (if any)."""
    found = {}
    for name, body in structs.items():
        member = re.search(r"@\s*builtin\s*\(\s*local_invocation_index\s*\)\s*(\w+)\s*:", body)
        if member:
            found[name] = member.group(1)
    return found


def _invocation_index(params: list[str], structs: dict[str, str]) -> str | None:
    """The expression giving the local invocation index among ``params``, if any."""
    for param in params:
        direct = re.search(r"@\s*builtin\s*\(\s*local_invocation_index\s*\)\s*(\w+)\s*:", param)
        if direct:
            return direct.group(1)
        typed = re.search(r"(\w+)\s*:\s*(\w+)\s*$", param.strip())
        if typed and typed.group(2) in structs:
            return f"{typed.group(1)}.{structs[typed.group(2)]}"
    return None


def zero_workgroup_memory(source: str) -> tuple[str, str]:
    """(the source with every compute entry point zeroing the module's workgroup
    variables first, why not: "" when rewritten or nothing to do, else the reason the
    source was left as it was)."""
    variables = workgroup_variables(source)
    if not variables:
        return source, ""
    clean = strip_comments(source)
    structs = _structs(clean)
    statements = []
    for name, wgsl_type in variables:
        statement = _zero_statement(name, wgsl_type, structs)
        if statement is None:
            return source, (
                f"workgroup variable {name}: {wgsl_type} holds atomics inside a "
                "struct, which kforge cannot zero for the adapter"
            )
        statements.append(statement)
    index_members = _index_members(structs)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in source order
    for entry in _ENTRY.finditer(clean):
        fn = _FN.search(clean, entry.end())
        if fn is None:
            continue
        open_paren = fn.end() - 1
        close_paren = _matching(clean, open_paren, "(", ")")
        body = clean.index("{", close_paren)
        params = _split_params(clean[open_paren + 1 : close_paren])
        index = _invocation_index(params, index_members)
        if index is None:
            index = _INDEX
            added = f"@builtin(local_invocation_index) {_INDEX}: u32"
            inner = clean[open_paren + 1 : close_paren]
            joiner = "" if not inner.strip() else (" " if inner.rstrip().endswith(",") else ", ")
            insert_at = open_paren + 1 + len(inner.rstrip())
            edits.append((insert_at, insert_at, joiner + added))
        zeroing = f" if ({index} == 0u) {{ {' '.join(statements)} }} workgroupBarrier();"
        edits.append((body + 1, body + 1, zeroing))
    text = source
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, ""
