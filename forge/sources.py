"""What a kernel's source itself declares, read without a compiler: WGSL resource
bindings (with the access the shader asks for), ``override`` constants, ``enable``
directives and entry points; a CUDA ``__global__`` function's parameter list.

Real kernels are taken as written, so these readers look for the declarations only
and never rewrite the source. They strip comments first and give up quietly (None, or
an empty result) on what they cannot read; callers then fall back to what the
``KernelSpec`` says.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "TARGETS",
    "WgslBinding",
    "WgslMember",
    "wgsl_bindings",
    "wgsl_handle_bindings",
    "wgsl_structs",
    "wgsl_constant",
    "wgsl_overrides",
    "wgsl_override_keys",
    "wgsl_overrides_without_default",
    "wgsl_enables",
    "wgsl_uses_subgroups",
    "wgsl_with_subgroups_enabled",
    "wgsl_push_constants",
    "wgsl_push_constants_bound",
    "wgsl_array_lengths",
    "wgsl_packed_f16",
    "wgsl_entry_points",
    "wgsl_static_uses",
    "wgsl_unused_bindings",
    "wgsl_workgroup_size",
    "CudaParam",
    "cuda_parameters",
    "cuda_parameters_problem",
    "cuda_function_name",
    "cuda_parameter_texts",
    "cuda_device_variables",
    "cuda_module_state",
    "cuda_grid_sync",
    "CudaField",
    "cuda_struct_fields",
    "cuda_struct_type",
    "strip_comments",
    "matching_close",
    "wgsl_undeclared_overrides",
]

#: The languages a kernel's sources are written in, one per target; ``forge.kernel``
#: and ``forge`` export it.
TARGETS = ("wgsl", "cuda")


# The parsers below are pure functions of a source's text, read again for every run of
# the same kernel (bindings, lengths, overrides): each keeps its recent answers.
_cached = functools.lru_cache(maxsize=256)


#: ``bitcast<f32>(<integer literal>)``: a const-expression, evaluated when the shader is
#: created (WGSL 8.3.3)
_LITERAL_BITCAST = re.compile(
    r"bitcast\s*<\s*(f32|f16)\s*>\s*\(\s*(-?)\s*(0[xX][0-9a-fA-F]+|\d+)\s*[ui]?\s*\)"
)


def wgsl_nonfinite_constant(source: str) -> tuple[str, int] | None:
    """The first const-expression in WGSL ``source`` whose value is an infinity or a
    NaN, as ``bitcast<f32>(0xff800000u)`` (-inf, a max pool's start) is, and its offset
    in ``source``; None where there is none. WGSL makes such a value a shader-creation
    error and Chrome's Tint refuses it ("value -inf cannot be represented as 'f32'"),
    while naga compiles it (round 25): a kernel that passes on wgpu would not run in a
    browser."""
    for match in _LITERAL_BITCAST.finditer(strip_comments(source)):
        kind, minus, digits = match.groups()
        value = -int(digits, 0) if minus else int(digits, 0)
        bits, exponent = (32, 23) if kind == "f32" else (16, 10)
        mask = (1 << (bits - exponent - 1)) - 1
        if ((value & ((1 << bits) - 1)) >> exponent) & mask == mask:
            return match.group(0), match.start()
    return None


#: A module-scope variable of atomics: ``var<workgroup> h: array<atomic<u32>, 16>;``,
#: ``var<storage, read_write> bins: array<atomic<u32>>;``, ``var<workgroup> n: atomic<u32>;``
_ATOMIC_VAR = re.compile(
    r"\bvar\s*<\s*(?:workgroup|storage\s*,\s*read_write)\s*>\s*(\w+)\s*:"
    r"\s*(?:array\s*<\s*)?atomic\s*<"
)


def wgsl_plain_atomic_access(source: str) -> tuple[str, int] | None:
    """The first place WGSL ``source`` reads or writes an atomic variable as a plain
    value, not through ``&`` and an atomic builtin (``histogram[i] = 0u;``, ``counts[j] =
    histogram[i];``), and its offset in ``source``; None where there is none. WGSL
    gives atomics no load or store but ``atomicLoad``/``atomicStore`` and Chrome's Tint
    refuses it ("cannot assign 'u32' to 'atomic<u32>'"), while naga compiles it (round
    44: a radix sort's counting pass, compute-shader-101's)."""
    text = strip_comments(source)
    declared = {m.group(1): m.start() for m in _ATOMIC_VAR.finditer(text)}
    for name, at in declared.items():
        for use in re.finditer(rf"(?<![\w.])\b{re.escape(name)}\b", text):
            if use.start() <= at + text[at:].index(name):
                continue  # the declaration
            before = text[: use.start()].rstrip()
            while before.endswith("("):  # &(h[i]), arrayLength(&(h))
                before = before[:-1].rstrip()
            if before.endswith("&") and not before.endswith("&&"):
                continue
            end = text.find(";", use.start())
            return text[use.start() : end if end >= 0 else len(text)].strip(), use.start()
    return None


#: A decimal float literal of WGSL: digits with a point or an exponent, or an ``f`` or
#: ``h`` suffix (not inside a name, nor a hexadecimal literal's digits)
_DECIMAL_FLOAT = re.compile(
    r"(?<![\w.])((?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fh]?|\d+[eE][+-]?\d+[fh]?|\d+[fh])(?![\w.])"
)
#: The largest finite f32 and f16 (WGSL's finite ranges)
_FINITE_MAX = {"f": 3.4028234663852886e38, "h": 65504.0}


def wgsl_unrepresentable_literal(source: str) -> tuple[str, int] | None:
    """The first float literal in WGSL ``source`` past the finite range of the type it
    becomes (f32, or f16 with an ``h``), and its offset; None where there is none. WGSL
    makes converting such a value a shader-creation error and Chrome's Tint refuses it
    ("value -340282346999999984391321947108527833088.0 cannot be represented as 'f32'"),
    while naga rounds it to the largest float: ``-3.40282347e+38``, -FLT_MAX as C
    prints it to nine digits, lies past it (round 46: a flash attention's running max).
    An abstract literal in a ``const`` that is only ever scaled back into range is
    valid WGSL that this refuses too; no kernel seen writes one."""
    for match in _DECIMAL_FLOAT.finditer(strip_comments(source)):
        text = match.group(1)
        suffix = text[-1] if text[-1] in "fh" else "f"
        value = float(text.rstrip("fh"))
        if value > _FINITE_MAX[suffix]:
            return text, match.start(1)
    return None


# -- operators WGSL's grammar will not mix without parentheses ---------------------------
# WGSL takes a shift's operands, a bitwise operator's and those of ``&&`` and ``||``
# as unary expressions or their own kind: ``a * b >> c``, ``x & m == 0u``, ``a & b | c``,
# ``p && q || r`` and ``a < b < c`` are parse errors there (Chrome's Tint: "mixing '*'
# and '>>' requires parenthesis"), which naga accepts (round 29).
_WGSL_TOKEN = re.compile(
    r"\s+|(?P<number>0[xX][0-9a-fA-F.]+(?:[pP][+-]?\d+)?[fhiu]?|\d+\.?\d*(?:[eE][+-]?\d+)?"
    r"[fhiu]?|\.\d+(?:[eE][+-]?\d+)?[fh]?)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op><<=|>>=|->|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|.)"
)
_WGSL_GENERIC = re.compile(
    r"^(?:vec[234]|mat[234]x[234]|array|ptr|atomic|bitcast|binding_array|texture_\w+)$"
)
_WGSL_KEYWORDS = frozenset(
    "return let var const override if else for while loop switch case default fn struct "
    "break continue continuing discard alias enable requires diagnostic".split()
)
_WGSL_CLASS = {
    **dict.fromkeys(("*", "/", "%"), "mul"),
    **dict.fromkeys(("+", "-"), "add"),
    **dict.fromkeys(("<<", ">>"), "shift"),
    **dict.fromkeys(("<", ">", "<=", ">=", "==", "!="), "rel"),
    **dict.fromkeys(("&", "|", "^"), "bit"),
    **dict.fromkeys(("&&", "||"), "logic"),
}


def _wgsl_tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, offset) of WGSL ``text``'s tokens, template lists of the generic
    builtins (``vec3<f32>``, ``array<vec4<f32>, 4>``) folded into their name."""
    raw = [
        (m.lastgroup or "", m.group(0), m.start())
        for m in _WGSL_TOKEN.finditer(text)
        if m.lastgroup is not None
    ]
    tokens: list[tuple[str, str, int]] = []
    i = 0
    while i < len(raw):
        kind, word, at = raw[i]
        if (
            kind == "name"
            and _WGSL_GENERIC.match(word)
            and i + 1 < len(raw)
            and raw[i + 1][1] == "<"
        ):
            depth, j = 0, i + 1
            while j < len(raw):
                depth += {"<": 1, ">": -1, ">>": -2}.get(raw[j][1], 0)
                if depth <= 0 or raw[j][1] in (";", "{", "}"):
                    break
                j += 1
            tokens.append(("name", word, at))
            i = j + 1
            continue
        tokens.append((kind, word, at))
        i += 1
    return tokens


@_cached  # every compile on wgpu asks (82 ms for the library's largest shader)
def wgsl_unparenthesized_mix(source: str) -> tuple[str, int] | None:
    """The first place in WGSL ``source`` where its grammar needs parentheses that are
    not there (``a * b >> c``, ``x & m == 0u``, ``a & b | c``, ``p && q || r``, ``a < b
    < c``), as (the two operators, the second's offset); None where there is none. Tint
    refuses such WGSL, naga compiles it: a kernel that passes on wgpu would not run in
    a browser."""
    tokens = _wgsl_tokens(strip_comments(source))
    segments: list[list[tuple[str, int]]] = [[]]  # the binary operators of each open level
    operand = False  # whether the last token ended an operand (the next op is binary)
    closers = {")": "(", "]": "["}
    for kind, word, at in tokens:
        if word in ("(", "["):
            segments.append([])
            operand = False
            continue
        if word in closers:
            found = _mixed(segments.pop()) if len(segments) > 1 else None
            if found:
                return found
            operand = True
            continue
        if kind in ("name", "number"):
            if word in _WGSL_KEYWORDS:
                found = _mixed(segments[-1])
                if found:
                    return found
                segments[-1] = []
                operand = False
            else:
                operand = True
            continue
        if word in _WGSL_CLASS and operand:
            segments[-1].append((word, at))
            operand = False
            continue
        if word == ".":
            operand = False
            continue
        if word in _WGSL_CLASS or word in ("!", "~"):  # unary: -x, !p, &v, *ptr
            operand = False
            continue
        found = _mixed(segments[-1])  # ; , { } : = += -> @ ++ ...: the expression ends
        if found:
            return found
        segments[-1] = []
        operand = False
    for ops in segments:
        found = _mixed(ops)
        if found:
            return found
    return None


# -- barriers in non-uniform control flow ------------------------------------------------
# WGSL's uniformity analysis makes a barrier that not every invocation of the workgroup
# reaches together a shader-creation error (Tint: "'workgroupBarrier' must only be
# called from uniform control flow"); naga compiles it, and lavapipe ran one inside
# ``if (local_id.x == 0u)`` to the right values (round 44). What is found here is a
# part of that analysis, the part that cannot flag what Tint takes: a barrier (or a
# call of a function that reaches one) under an ``if``, ``switch`` or loop whose
# condition reads a value that varies by invocation, or after a ``return`` under one,
# or in a loop after a ``break`` or ``continue`` under one. What varies: the
# invocation builtins, workgroup, private and read_write storage variables (not through
# ``workgroupUniformLoad`` or ``arrayLength``), and what is computed from them.
_BARRIERS = frozenset(("workgroupBarrier", "storageBarrier", "textureBarrier"))
_INVOCATION_BUILTIN = re.compile(
    r"@\s*builtin\s*\(\s*(?:local_invocation_id|local_invocation_index|global_invocation_id"
    r"|subgroup_invocation_id)\s*\)\s*(\w+)"
)
_VARYING_VAR = re.compile(r"\bvar\s*<\s*(?:workgroup|private|storage\s*,\s*read_write)\s*>\s*(\w+)")
_UNIFORM_OF = re.compile(r"\b(?:workgroupUniformLoad|arrayLength)\s*\(")
_DEFINED = re.compile(r"\b(?:let|var|const)\s+(\w+)\s*(?::[^=;{}]*)?=(?!=)([^;{}]*)")
_ASSIGNED = re.compile(r"(?<![\w.\]])(\w+)\s*(?:<<|>>|[-+*/%&|^])?=(?!=)([^;{}]*)")
_TYPED = re.compile(r"\b(?:let|var|const)\s+\w+\s*(?::[^=;{}]*)?")  # up to its =
_FN = re.compile(r"\bfn\s+(\w+)\s*\(")
_STRUCT = re.compile(r"\bstruct\s+(\w+)\s*\{([^}]*)\}")  # a struct's name and members
_PARAM = re.compile(r"(?:^|,)\s*(?:@\s*\w+\s*(?:\([^)]*\))?\s*)*(\w+)\s*:\s*(\w+)")


def _bracket_end(text: str, at: int, pair: str = "()") -> int:
    """The offset just past the bracket that closes the one at ``at``."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == pair[0]:
            depth += 1
        elif text[i] == pair[1]:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _without_uniform_reads(text: str) -> str:
    """``text`` with ``workgroupUniformLoad(...)`` and ``arrayLength(...)`` blanked:
    their values are the same in every invocation."""
    while (m := _UNIFORM_OF.search(text)) is not None:
        end = _bracket_end(text, m.end() - 1)
        text = text[: m.start()] + " " * (end - m.start()) + text[end:]
    return text


def _functions(text: str) -> dict[str, tuple[str, int, int]]:
    """Each function's name: (its parameters' text, where its body's ``{`` is, and where
    the body ends)."""
    found = {}
    for m in _FN.finditer(text):
        params_end = _bracket_end(text, m.end() - 1)
        brace = text.find("{", params_end)
        if brace < 0:
            continue
        found[m.group(1)] = (text[m.end() : params_end - 1], brace, _bracket_end(text, brace, "{}"))
    return found


@_cached
def wgsl_barrier_in_nonuniform_flow(source: str) -> tuple[str, int] | None:
    """The first barrier in WGSL ``source`` that some invocations of a workgroup may
    reach without the others (see above), as (the call's text, its offset); None where
    none is found. Tint refuses such WGSL, naga compiles it."""
    text = strip_comments(source)
    if not any(name in text for name in _BARRIERS):
        return None
    module_varying = set()
    functions = _functions(text)
    bodies = [(brace, end) for _, brace, end in functions.values()]
    for m in _VARYING_VAR.finditer(text):
        if not any(brace < m.start() < end for brace, end in bodies):  # module scope
            module_varying.add(m.group(1))
    reaching = {name for name, (_, b, e) in functions.items() if _calls(text[b:e], _BARRIERS)}
    while True:  # the functions that call one that reaches a barrier
        more = {n for n, (_, b, e) in functions.items() if _calls(text[b:e], reaching)} - reaching
        if not more:
            break
        reaching |= more
    # an entry point's builtins may come in a struct (`fn main(in: Input)`, web-rwkv's
    # quantisers): a parameter of a struct type with a member that varies by invocation
    # varies as a whole, as Tint judges it
    varying_structs = {
        m.group(1) for m in _STRUCT.finditer(text) if _INVOCATION_BUILTIN.search(m.group(2))
    }
    for name, (params, brace, end) in functions.items():
        if name not in reaching:
            continue  # reaches no barrier: nothing to judge in it
        varying = set(module_varying) | set(_INVOCATION_BUILTIN.findall(params))
        varying |= {p for p, kind in _PARAM.findall(params) if kind in varying_structs}
        body = _without_uniform_reads(text[brace:end])
        assignments = [
            (name, set(_NAME.findall(value)))
            for name, value in _DEFINED.findall(body) + _ASSIGNED.findall(_TYPED.sub(" ", body))
        ]
        while True:
            grown = {name for name, words in assignments if words & varying} - varying
            if not grown:
                break
            varying |= grown
        found = _nonuniform_barrier(text, body, brace, varying, _BARRIERS | reaching)
        if found is not None:
            return found
    return None


def _calls(body: str, names) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\s*\(", body) for n in names)


_NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")  # a name, not a member (`lid.x`: lid)


def _mentions(expression: str, names) -> bool:
    return any(word in names for word in _NAME.findall(expression))


def _nonuniform_barrier(
    text: str, body: str, offset: int, varying: set, barriers
) -> tuple[str, int] | None:
    """Walk one function's ``body`` (starting at ``offset`` of ``text``) block by block:
    the first call of ``barriers`` where control flow may differ by invocation."""
    tokens = _wgsl_tokens(body)
    stack: list[dict] = []  # each open block: its kind, and whether it varies
    header: list[str] = []  # the words since the last ; { } at paren depth 0
    depth = 0
    chain = False  # whether the if-chain just closed varied (for its else)
    returned = False  # a return under a varying condition: the rest varies
    start = 0  # where the header starts in ``body``
    for i, (kind, word, at) in enumerate(tokens):
        if word in ("(", "["):
            depth += 1
        elif word in (")", "]"):
            depth -= 1
        if word == "{" and depth == 0:
            first = header[0] if header else ""
            words = body[start:at]  # the header as written: `lid.x` keeps its member
            if first == "if" or (first == "else" and header[1:2] == ["if"]):
                varies = _mentions(words, varying) or (first == "else" and chain)
            elif first == "else":
                varies = chain
            elif first == "for":  # its own variable judged by its start and step alone
                own = re.match(r"for\s*\(\s*var\s+(\w+)\s*(?::[^=;]*)?=(?!=)([^;]*)", words)
                if own is None:
                    varies = _mentions(words, varying)
                else:
                    rest = set(varying) - {own.group(1)}
                    varies = _mentions(own.group(2), varying) or _mentions(words, rest)
            elif first in ("while", "switch"):
                varies = _mentions(words, varying)
            else:  # loop, continuing, case, default, a function's body, a bare block
                varies = False
            stack.append({"kind": first, "varies": varies})
            header = []
            continue
        if word == "}" and depth == 0:
            if stack:
                closed = stack.pop()
                chain = closed["varies"] if closed["kind"] in ("if", "else") else False
            header = []
            continue
        if word == ";" and depth == 0:
            header = []
            chain = False
            continue
        if kind == "name" and word in ("return", "discard") and _varies(stack):
            returned = True
        if kind == "name" and word in ("break", "continue") and _varies(stack, loop=True):
            _innermost_loop(stack)["varies"] = True
        if kind == "name" and header[-1:] == ["break"] and word == "if":
            end = body.find(";", at)
            if _mentions(body[at:end], varying):
                _innermost_loop(stack)["varies"] = True
        if (
            kind == "name"
            and word in barriers
            and i + 1 < len(tokens)
            and tokens[i + 1][1] == "("
            and (returned or _varies(stack))
        ):
            end = _bracket_end(body, tokens[i + 1][2])
            return body[at:end], offset + at
        if not header:
            start = at
        header.append(word)
    return None


_LOOPS = ("loop", "for", "while")


def _varies(stack: list[dict], loop: bool = False) -> bool:
    """Whether an open block varies (``loop``: one inside the innermost loop)."""
    for block in reversed(stack):
        if block["varies"]:
            return True
        if loop and block["kind"] in _LOOPS:
            return False
    return False


def _innermost_loop(stack: list[dict]) -> dict:
    for block in reversed(stack):
        if block["kind"] in _LOOPS:
            return block
    return {"kind": "", "varies": False}


def _mixed(ops: list[tuple[str, int]]) -> tuple[str, int] | None:
    """Where one expression's binary operators (in order) mix as WGSL does not allow."""
    classes = [_WGSL_CLASS[word] for word, _ in ops]

    def say(first: int, second: int) -> tuple[str, int]:
        return f"'{ops[first][0]}' and '{ops[second][0]}'", ops[second][1]

    for i, kind in enumerate(classes):
        if kind == "bit":  # only one bitwise operator, repeated, and nothing else
            for j, other in enumerate(ops):
                if other[0] != ops[i][0]:
                    return say(min(i, j), max(i, j))
        if kind == "logic":
            for j, other in enumerate(ops):
                if _WGSL_CLASS[other[0]] == "logic" and other[0] != ops[i][0]:
                    return say(min(i, j), max(i, j))
    # between && and ||: relational expressions, each at most one comparison of shift
    # expressions, each a shift of two unary expressions or a sum of products
    start = 0
    for end in [*[i for i, k in enumerate(classes) if k == "logic"], len(ops)]:
        part = list(range(start, end))
        relations = [i for i in part if classes[i] == "rel"]
        if len(relations) > 1:
            return say(relations[0], relations[1])
        cut = relations[0] if relations else None
        for side in (
            [i for i in part if cut is None or i < cut],
            [i for i in part if cut is not None and i > cut],
        ):
            shifts = [i for i in side if classes[i] == "shift"]
            if shifts and len(side) > 1:
                partner = next(i for i in side if i != shifts[0])
                return say(min(shifts[0], partner), max(shifts[0], partner))
        start = end + 1
    return None


@_cached
def strip_comments(text: str) -> str:
    """``text`` with // and /* */ comments replaced by spaces (line numbers kept)."""

    def blank(match: re.Match) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)


@dataclass(frozen=True)
class WgslBinding:
    """One ``@group(g) @binding(b) var<space, access> name: type;`` declaration.
    ``access`` is "read", "read_write" or "uniform" (a uniform block)."""

    group: int
    binding: int
    name: str
    space: str
    access: str
    type: str


_ATTR = r"(?:@\s*\w+\s*(?:\([^)]*\))?\s*)"
_VAR = re.compile(
    r"((?:" + _ATTR + r")+)var\s*<\s*(\w+)\s*(?:,\s*(\w+)\s*)?>\s*(\w+)\s*:\s*([^;=]+?)\s*;"
)
_GROUP = re.compile(r"@\s*group\s*\(\s*(\d+)u?\s*\)")
_BINDING = re.compile(r"@\s*binding\s*\(\s*(\d+)u?\s*\)")


@_cached
def wgsl_bindings(source: str) -> tuple[WgslBinding, ...]:
    """Every storage and uniform buffer binding the module declares."""
    found = []
    for match in _VAR.finditer(strip_comments(source)):
        attrs, space, access, name, type_ = match.groups()
        group, binding = _GROUP.search(attrs), _BINDING.search(attrs)
        if group is None or binding is None or space not in ("storage", "uniform"):
            continue
        if space == "uniform":
            access = "uniform"
        else:
            access = "read_write" if access == "read_write" else "read"
        found.append(
            WgslBinding(
                int(group.group(1)),
                int(binding.group(1)),
                name,
                space,
                access,
                " ".join(type_.split()),
            )
        )
    return tuple(found)


#: A binding with no address space: a texture, storage texture or sampler (a "handle").
_HANDLE = re.compile(r"((?:" + _ATTR + r")+)var\s+(\w+)\s*:\s*([^;=]+?)\s*;")


@_cached
def wgsl_handle_bindings(source: str) -> tuple[WgslBinding, ...]:
    """Every texture, storage texture and sampler binding the module declares (space
    "handle", access "handle"): what kernel-forge, which binds buffers only, cannot
    bind."""
    found = []
    for match in _HANDLE.finditer(strip_comments(source)):
        attrs, name, type_ = match.groups()
        group, binding = _GROUP.search(attrs), _BINDING.search(attrs)
        if group is None or binding is None:
            continue
        found.append(
            WgslBinding(
                int(group.group(1)),
                int(binding.group(1)),
                name,
                "handle",
                "handle",
                " ".join(type_.split()),
            )
        )
    return tuple(found)


_MEMBER = re.compile(r"^((?:" + _ATTR + r")*)(\w+)\s*:\s*(.+)$", re.S)
_LAYOUT_ATTR = re.compile(r"@\s*(size|align)\s*\(([^)]*)\)")


@dataclass(frozen=True)
class WgslMember:
    """One member of a WGSL ``struct``: its name, its type text, and the byte size and
    alignment its ``@size(N)`` / ``@align(N)`` attributes set (None where it sets none)."""

    name: str
    type: str
    size: int | None = None
    align: int | None = None


@_cached
def wgsl_structs(source: str) -> dict[str, tuple[WgslMember, ...]]:
    """Each ``struct`` the module declares: its members in order, with their ``@size``
    and ``@align`` (integer literals or module-scope constants). A struct with an
    attribute that cannot be read so is left out: its layout is not known."""
    found = {}
    for match in _STRUCT.finditer(strip_comments(source)):
        members = [_member(source, part) for part in re.split(r"[,;](?![^<]*>)", match.group(2))]
        if all(m is not None for m in members):
            found[match.group(1)] = tuple(m for m in members if isinstance(m, WgslMember))
    return found


def _member(source: str, text: str) -> WgslMember | None | bool:
    """One struct member; False where ``text`` is none (what follows the last comma),
    None where its layout attributes cannot be read."""
    member = _MEMBER.match(text.strip())
    if member is None:
        return False
    attrs: dict[str, int | None] = {"size": None, "align": None}
    for attr in _LAYOUT_ATTR.finditer(member.group(1)):
        attrs[attr.group(1)] = wgsl_constant(source, attr.group(2), None)
        if attrs[attr.group(1)] is None:
            return None
    name, type_ = member.group(2), " ".join(member.group(3).split())
    return WgslMember(name, type_, attrs["size"], attrs["align"])


_OVERRIDE = re.compile(r"(?:@\s*id\s*\(\s*(\d+)u?\s*\)\s*)?override\s+(\w+)\s*(?::\s*(\w+))?")


def wgsl_overrides(source: str) -> dict[str, str]:
    """``override`` constants by name, with their declared type ("" when inferred)."""
    return {m.group(2): m.group(3) or "" for m in _OVERRIDE.finditer(strip_comments(source))}


def wgsl_override_keys(source: str) -> frozenset[str]:
    """What a pipeline may set: each ``override`` constant's name, and its ``@id``."""
    found = _OVERRIDE.finditer(strip_comments(source))
    return frozenset(key for m in found for key in (m.group(1), m.group(2)) if key)


def wgsl_undeclared_overrides(source: str, names: Any) -> str:
    """ "" where ``source`` declares an ``override`` (by name or ``@id``) for each of
    ``names``; else what an error says of them: which it does not declare, and which it
    does."""
    keys = wgsl_override_keys(source)
    unknown = sorted(str(k) for k in names if str(k) not in keys)
    if not unknown:
        return ""
    declared = ", ".join(sorted(wgsl_overrides(source))) or "none"
    return (
        f"{', '.join(unknown)}, which the WGSL source does not declare (its override "
        f"constants: {declared})"
    )


@_cached
def wgsl_override_ids(source: str) -> dict[str, str]:
    """The ``@id(N)`` of each ``override`` constant that declares one, by name: WebGPU
    sets such a constant by ``"N"`` only (``constants={"SLOPE": ...}`` is refused)."""
    found = _OVERRIDE.finditer(strip_comments(source))
    return {m.group(2): m.group(1) for m in found if m.group(1)}


_NO_INITIALIZER = re.compile(r"\s*;")


@_cached
def wgsl_overrides_without_default(source: str) -> frozenset[str]:
    """The ``override`` constants declared with no initializer: the pipeline must set
    them (``override n: u32;``)."""
    text = strip_comments(source)
    return frozenset(
        m.group(2) for m in _OVERRIDE.finditer(text) if _NO_INITIALIZER.match(text, m.end())
    )


_ENABLE = re.compile(r"^\s*enable\s+([\w\s,]+);", re.M)


def wgsl_enables(source: str) -> set[str]:
    """Extensions the module enables (``enable f16;`` gives {"f16"})."""
    found: set[str] = set()
    for match in _ENABLE.finditer(strip_comments(source)):
        found |= {part.strip() for part in match.group(1).split(",") if part.strip()}
    return found


#: What only the ``subgroups`` extension declares: its built-in values (``subgroup_id``
#: and ``num_subgroups`` too, which web-rwkv's reductions index by) and functions
#: (``subgroupAdd``, ``subgroupShuffle``, ``quadBroadcast``...).
_SUBGROUP_USE = re.compile(
    r"@\s*builtin\s*\(\s*(?:subgroup_(?:invocation_id|size|id)|num_subgroups)\s*\)"
    r"|\b(?:subgroup|quad)[A-Z]\w*\s*\("
)


@_cached
def wgsl_uses_subgroups(source: str) -> bool:
    """Whether the module calls a subgroup built-in function or reads a subgroup built-in
    value, ``enable subgroups;`` or not: naga (wgpu before 25) took them under the
    device feature alone, so shaders written for wgpu in Rust often lack the directive,
    which WebGPU's WGSL and Chromium's Tint require."""
    return _SUBGROUP_USE.search(strip_comments(source)) is not None


#: Chrome's name for ``subgroups`` in its origin trial (Chrome 125 to 127), which Tint
#: no longer takes; the functions and builtins are the same.
_EXPERIMENTAL_SUBGROUPS = re.compile(
    r"(^\s*enable\b[^;]*)\bchromium_experimental_subgroups\b", re.M
)


def wgsl_with_subgroups_enabled(source: str) -> str:
    """``source`` with ``enable subgroups;`` put before its first line where it uses
    subgroups without the directive (``wgsl_uses_subgroups``), so a shader written for
    wgpu compiles under Tint as its author ran it, and with the origin trial's
    ``chromium_experimental_subgroups`` enabled by its shipped name (Austin Eng's
    webgpu-kernels, round 62); its lines keep their numbers."""
    source = _EXPERIMENTAL_SUBGROUPS.sub(r"\1subgroups", source)
    if "subgroups" in wgsl_enables(source) or not wgsl_uses_subgroups(source):
        return source
    return "enable subgroups; " + source


#: A push-constant (wgpu-native's ``var<push_constant>``, spelt ``var<immediate>`` since
#: naga 27) declaration: no ``@group``/``@binding``, one per entry point.
_PUSH_CONSTANT = re.compile(
    r"\bvar\s*<\s*(push_constant|immediate)\s*>\s*(\w+)\s*:\s*([^;=]+?)\s*;"
)


@_cached
def wgsl_push_constants(source: str) -> tuple[tuple[str, str], ...]:
    """The (name, type) of each push-constant variable the module declares."""
    return tuple(
        (m.group(2), " ".join(m.group(3).split()))
        for m in _PUSH_CONSTANT.finditer(strip_comments(source))
    )


def wgsl_push_constants_bound(source: str, group: int, binding: int, storage: bool = False) -> str:
    """``source`` with its push-constant variable declared a uniform buffer at
    ``@group(group) @binding(binding)``: what a push constant is (values the host sets
    for a dispatch, read-only, the same for every invocation) in the one form every
    WebGPU implementation binds: WebGPU has no push constants, and naga has renamed them
    (``var<push_constant>`` is an unknown address space to wgpu-native 29). Lines keep
    their numbers. A module with none is returned as it is. ``storage``: declared
    ``var<storage, read>`` instead, for a type no uniform can hold (an array of stride 4:
    naga checks a push constant against no uniform layout rule, and WGSL lays a type out
    alike in every other address space)."""
    text = strip_comments(source)
    found = list(_PUSH_CONSTANT.finditer(text))
    space = "storage, read" if storage else "uniform"
    for match in reversed(found):  # the comment-free text has the source's offsets
        declaration = f"@group({group}) @binding({binding}) var<{space}> {match.group(2)}: "
        source = source[: match.start()] + declaration + source[match.start(3) :]
    return source


_LENGTH = re.compile(r"\barrayLength\s*\(\s*&?\s*\(?\s*(\w+)")


@_cached
def wgsl_array_lengths(source: str) -> frozenset[str]:
    """Names of the variables whose length the module reads with ``arrayLength``."""
    return frozenset(m.group(1) for m in _LENGTH.finditer(strip_comments(source)))


_PACK_F16 = re.compile(r"\bpack2x16float\s*\(")
_PACKED_LOCAL = re.compile(r"\b(?:let|var)\s+(\w+)\s*(?::\s*u32\s*)?=\s*pack2x16float\s*\(")
_STORE = re.compile(r"\b(\w+)\s*\[[^;]*?\]\s*=(?!=)([^;]*);")


@_cached
def wgsl_packed_f16(source: str) -> frozenset[str]:
    """Names of the variables the module stores f16 pairs in: an element assigned
    ``pack2x16float(...)``, directly or through a ``let`` holding one (a u32 word
    holding two halves, the way a shader without ``shader-f16`` writes f16)."""
    text = strip_comments(source)
    if not _PACK_F16.search(text):
        return frozenset()
    local = sorted({m.group(1) for m in _PACKED_LOCAL.finditer(text)})
    words = [r"\bpack2x16float\s*\("] + [rf"\b{re.escape(name)}\b" for name in local]
    holds = re.compile("|".join(words))
    return frozenset(m.group(1) for m in _STORE.finditer(text) if holds.search(m.group(2)))


_ENTRY = re.compile(r"@\s*compute[^{;]*?\bfn\s+(\w+)\s*\(", re.S)


_WORKGROUP_SIZE = re.compile(
    r"@\s*workgroup_size\s*\(([^)]*)\)[^{;]*?\bfn\s+(\w+)\s*\(|"
    r"@\s*compute[^{;]*?@\s*workgroup_size\s*\(([^)]*)\)[^{;]*?\bfn\s+(\w+)\s*\(",
    re.S,
)


def wgsl_workgroup_size(
    source: str, entry_point: str, overrides: Mapping[Any, Any] | None = None
) -> tuple[int, int, int] | None:
    """The ``@workgroup_size`` the module declares for ``entry_point``: integer
    literals (``(256)``, ``(8, 8)``), module-scope ``const`` values (``const WG = 64u;``)
    and ``override`` constants (see ``wgsl_constant``: ``overrides`` are the values the
    kernel sets, by name or ``@id``; None when they are not known, and an override
    then makes the size unknown). None where a dimension cannot be known so, or the
    entry point is not found."""
    known = None
    if overrides is not None:
        known = tuple(sorted((str(k), _int_or_none(v)) for k, v in overrides.items()))
    return _workgroup_size(source, entry_point, known)


@_cached
def _workgroup_size(
    source: str, entry_point: str, known: tuple[tuple[str, int | None], ...] | None
) -> tuple[int, int, int] | None:
    overrides = None if known is None else dict(known)
    for match in _WORKGROUP_SIZE.finditer(strip_comments(source)):
        sizes, name = (match.group(1), match.group(2)) if match.group(2) else match.group(3, 4)
        if name != entry_point:
            continue
        parts = [p.strip() for p in sizes.split(",") if p.strip()]
        values = [wgsl_constant(source, p, overrides) for p in parts]
        if not values or len(values) > 3 or any(v is None or v < 1 for v in values):
            return None
        dims = [int(v) for v in values if v is not None] + [1] * (3 - len(values))
        return dims[0], dims[1], dims[2]
    return None


def _int_or_none(value: Any) -> int | None:
    """An override's value as the kernel sets it, where it is an integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


_DECLARED = re.compile(
    r"(?:@\s*id\s*\(\s*(\d+)u?\s*\)\s*)?\b(const|override)\s+(\w+)\s*"
    r"(?::\s*[\w<>\s]+?)?\s*(?:=\s*([^;]+))?;"
)


@_cached
def _module_constants(source: str) -> dict[str, tuple[str, str | None, str | None]]:
    """Module-scope ``const`` and ``override`` declarations: name -> (kind, its
    initializer text or None, its ``@id`` or None). A ``const`` inside a function
    body is not module scope and is left out."""
    text = strip_comments(source)
    depth, chars = 0, []
    for char in text:  # blank what lies inside braces: function bodies, struct members
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        chars.append(char if depth == 0 and char != "}" else " ")
    found: dict[str, tuple[str, str | None, str | None]] = {}
    for match in _DECLARED.finditer("".join(chars)):
        found[match.group(3)] = (match.group(2), match.group(4), match.group(1))
    return found


_WGSL_INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|[0-9]+)[iu]?\b")
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.floordiv,  # WGSL's integer division (of the sizes here, >= 0)
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


def _int_literal(text: str) -> int:
    return int(text, 16) if text[:2] in ("0x", "0X") else int(text)


def wgsl_constant(source: str, text: str, overrides: Mapping[str, int | None] | None) -> int | None:
    """The integer value of WGSL expression ``text`` as the module fixes it: integer
    literals (``64``, ``64u``, ``0x40``), module-scope ``const`` names, arithmetic
    (+ - * / % << >>, ``u32(...)``/``i32(...)``) and ``override`` names: an override
    the kernel sets (``overrides``, by name or ``@id``) has the kernel's integer value,
    one it does not set its literal default. None where the value cannot be known
    (an override when ``overrides`` is None, one set to a non-integer, a float)."""
    declared = _module_constants(source)

    def value(node: ast.AST, seen: frozenset[str]) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            entry = declared.get(node.id)
            if entry is None or node.id in seen:
                return None
            kind, initializer, id_ = entry
            if kind == "override":
                if overrides is None:
                    return None
                for key in (node.id, id_):
                    if key is not None and key in overrides:
                        return overrides[key]
            return None if initializer is None else parse(initializer, seen | {node.id})
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left, seen), value(node.right, seen)
            if left is None or right is None:
                return None
            try:
                return int(_BINARY[type(node.op)](left, right))
            except (ZeroDivisionError, ValueError):
                return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = value(node.operand, seen)
            return None if inner is None else -inner
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("u32", "i32")
            and len(node.args) == 1
            and not node.keywords
        ):
            return value(node.args[0], seen)
        return None

    def parse(expression: str, seen: frozenset[str]) -> int | None:
        python = _WGSL_INT.sub(lambda m: str(_int_literal(m.group(1))), expression.strip())
        try:
            tree = ast.parse(python, mode="eval")
        except (SyntaxError, ValueError):
            return None
        return value(tree.body, seen)

    return parse(text, frozenset())


def wgsl_entry_points(source: str) -> list[str]:
    """Names of the module's compute entry points."""
    return [m.group(1) for m in _ENTRY.finditer(strip_comments(source))]


@_cached
def wgsl_static_uses(source: str, entry: str) -> frozenset[str] | None:
    """The names entry point ``entry``'s function and every function it calls,
    transitively, mention: the module-scope variables among them are those it
    statically accesses (WGSL, "Module-scope variables are statically accessed by a
    function if ... the function's body mentions it, or calls a function that does";
    https://www.w3.org/TR/WGSL/#statically-accessed), the bindings a pipeline of that
    entry point uses and a host's ``layout: "auto"`` holds. A name a function's
    parameter shadows is left out of that function; a local ``let`` or ``var`` of a
    variable's name is not followed (the variable counts as used: binding one more
    variable than an entry point uses is harmless, one fewer is not). None where the
    module defines no function ``entry``."""
    text = strip_comments(source)
    functions = _functions(text)
    if entry not in functions:
        return None
    seen: set[str] = set()
    names: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        params, start, end = functions[name]
        shadowed = {m.group(1) for m in _PARAM.finditer(params)}
        mentioned = set(_NAME.findall(text[start:end])) - shadowed
        names |= mentioned
        todo.extend(n for n in mentioned if n in functions and n not in seen)
    return frozenset(names)


@_cached
def wgsl_unused_bindings(source: str, entry: str) -> frozenset[tuple[int, int]]:
    """The (group, binding)s a pipeline of entry point ``entry`` leaves out of its
    bind groups: those where the module declares a variable (a buffer, texture or
    sampler) that another of its entry points statically accesses
    (``wgsl_static_uses``) and ``entry`` does not, as a host binds a module joined from
    several, each with its own layout (or ``layout: "auto"``). Empty for a module of
    one entry point and where ``entry`` is not found: a binding no entry point
    accesses stays in every pipeline's layout."""
    mine = wgsl_static_uses(source, entry)
    entries = wgsl_entry_points(source)
    if mine is None or len(entries) < 2:
        return frozenset()
    variables = wgsl_bindings(source) + wgsl_handle_bindings(source)
    used: set[tuple[int, int]] = set()
    others: set[tuple[int, int]] = set()
    for other in entries:
        names = wgsl_static_uses(source, other)
        if names is None:
            return frozenset()
        into = used if other == entry else others
        into |= {(b.group, b.binding) for b in variables if b.name in names}
    return frozenset(others - used)


@dataclass(frozen=True)
class CudaParam:
    """One parameter of a ``__global__`` function: its name, its type text, and
    whether it is a pointer (a buffer) or passed by value."""

    name: str
    type: str
    pointer: bool
    default: str | None = None  # a default argument's text (``= NULL``), else None

    @property
    def reads_only(self) -> bool:
        """A pointer to const (``const float*``, ``float const*``): an input."""
        return self.pointer and "const" in self.type.rsplit("*", 1)[0].split()


def is_scalar_type(type_text: str) -> bool:
    """Whether a by-value parameter's type is a scalar (``const unsigned int``,
    ``__half``, ``int64_t``), not a struct nor a vector type (``float2``, which like a
    struct may take a whole uniform block)."""
    dtype = scalar_dtype(type_text)
    return dtype is not None and dtype.subdtype is None


def scalar_dtype(type_text: str) -> np.dtype | None:
    """The numpy dtype of a by-value scalar parameter's C type on a 64-bit CUDA target
    (``const unsigned int`` -> uint32, ``long``/``size_t`` -> 8 bytes, ``__half`` ->
    float16, ``__nv_bfloat16`` -> bfloat16, ``__nv_fp8_e4m3``/``__nv_fp8_e5m2`` -> the
    FP8 formats (a one-byte struct holding the code); a CUDA vector type such as ``float2`` or
    ``int4`` -> a subarray dtype of its lanes), or None for a type that is not one."""
    words = [w for w in re.findall(r"[A-Za-z_]\w*", type_text) if w not in _QUALIFIERS]
    if len(words) == 1 and words[0] in _VECTOR_TYPES:
        base, lanes = _VECTOR_TYPES[words[0]]
        return np.dtype((base, (lanes,)))
    sized = next((w for w in words if re.fullmatch(r"u?int(8|16|32|64)_t", w)), None)
    if sized is not None:
        return np.dtype(sized[:-2])
    for names, dtype in _C_SCALARS:
        if any(w in names for w in words):
            if dtype.kind == "i" and ("unsigned" in words):
                return np.dtype(f"u{dtype.itemsize}")
            return dtype
    if words and set(words) <= {"unsigned", "signed"}:
        return np.dtype("u4" if "unsigned" in words else "i4")
    return None


_QUALIFIERS = frozenset({"const", "volatile", "__restrict__", "restrict", "struct"})
# Most specific first: "long long" and "long" are 8 bytes on CUDA's 64-bit targets.
_C_SCALARS: tuple[tuple[frozenset[str], np.dtype], ...] = (
    (frozenset({"double"}), np.dtype("f8")),
    (frozenset({"float"}), np.dtype("f4")),
    (frozenset({"half", "__half"}), np.dtype("f2")),
    (frozenset({"__nv_bfloat16", "nv_bfloat16", "bfloat16"}), np.dtype(ml_dtypes.bfloat16)),
    (frozenset({"__nv_fp8_e4m3"}), np.dtype(ml_dtypes.float8_e4m3fn)),
    (frozenset({"__nv_fp8_e5m2"}), np.dtype(ml_dtypes.float8_e5m2)),
    (frozenset({"__nv_fp8_storage_t"}), np.dtype("u1")),  # cuda_fp8.h: unsigned char
    (frozenset({"size_t"}), np.dtype("u8")),
    (frozenset({"ptrdiff_t", "long"}), np.dtype("i8")),
    (frozenset({"short"}), np.dtype("i2")),
    (frozenset({"char"}), np.dtype("i1")),
    (frozenset({"bool"}), np.dtype("u1")),
    (frozenset({"int"}), np.dtype("i4")),
)


# CUDA's vector types (vector_types.h, cuda_fp16.h, cuda_bf16.h), passed by value as
# their lanes in order: ``float2 scale`` takes ``(sx, sy)``.
_VECTOR_TYPES: dict[str, tuple[np.dtype, int]] = {
    f"{name}{lanes}": (np.dtype(code), lanes)
    for name, code in (
        ("char", "i1"),
        ("uchar", "u1"),
        ("short", "i2"),
        ("ushort", "u2"),
        ("int", "i4"),
        ("uint", "u4"),
        ("long", "i8"),
        ("ulong", "u8"),
        ("longlong", "i8"),
        ("ulonglong", "u8"),
        ("float", "f4"),
        ("double", "f8"),
    )
    for lanes in (1, 2, 3, 4)
}
_VECTOR_TYPES.update(
    {
        "half2": (np.dtype("f2"), 2),
        "__half2": (np.dtype("f2"), 2),
        "__nv_bfloat162": (np.dtype(ml_dtypes.bfloat16), 2),
        "nv_bfloat162": (np.dtype(ml_dtypes.bfloat16), 2),
    }
)


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def _parameter(text: str) -> CudaParam | None:
    given = re.search(r"=(.*)$", text.strip(), flags=re.S)  # a default argument
    default = " ".join(given.group(1).split()) if given else None
    text = re.sub(r"\s*=.*$", "", text.strip(), flags=re.S)
    text = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text)
    # a pointer to arrays, ``float (*tile)[64]``: a pointer named tile
    nested = re.search(
        r"\(\s*\*\s*(?:(?:const|volatile|__restrict__|restrict)\s+)*([A-Za-z_]\w*)\s*\)"
        r"\s*((?:\[[^\]]*\]\s*)+)$",
        text,
    )
    if nested is not None:
        type_ = f"{text[: nested.start()].strip()} (*){''.join(nested.group(2).split())}"
        return CudaParam(nested.group(1), " ".join(type_.split()), True, default)
    match = re.search(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", text)
    if match is None:
        return None
    name, array = match.group(1), match.group(2)
    type_ = text[: match.start()].strip()
    if not [w for w in re.findall(r"[A-Za-z_]\w*", type_) if w not in _QUALIFIERS]:
        return None  # an unnamed parameter (``int``, ``const T``): not matched by name
    if name in _QUALIFIERS or name in _TYPE_WORDS or name in _VECTOR_TYPES:
        return None  # ``const float*``'s last word is a type: the parameter is unnamed
    pointer = "*" in type_ or bool(array)
    return CudaParam(name, " ".join(type_.split()), pointer, default)


# words that end an unnamed parameter's type (``int``, ``unsigned``), never a name
_TYPE_WORDS = frozenset(
    {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool", "void"}
    | {"size_t", "half", "__half", "__nv_bfloat16", "int64_t", "uint64_t", "int32_t"}
    | {"uint32_t", "int16_t", "uint16_t", "int8_t", "uint8_t"}
)


# a file-scope declaration: its qualifiers, then its type and declarators up to the ';'
_DEVICE_VARIABLE = re.compile(
    r"(?:^|(?<=[;}]))\s*((?:(?:static|const|volatile|__constant__|__device__)\s+)+)"
    r"([^;{}=]*(?:=(?:[^;{}]|\{\})*)?);"  # braces (emptied) only in an initializer
)


def _declared_names(body: str) -> list[str]:
    """The names a declaration's type and declarators (``float c_ax, c_bx[4] = {..}``)
    declare: each declarator's identifier before its array bounds and initializer;
    none for a function's prototype."""
    names = []
    for i, piece in enumerate(_split_top_level(body)):
        declarator = piece.split("=", 1)[0]
        if "(" in declarator:  # a prototype, or a pointer to a function
            return []
        words = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[[^\]]*\]", " ", declarator))
        if words and (i > 0 or len(words) > 1):  # the first piece holds the type too
            names.append(words[-1])
    return names


def _file_scope(source: str) -> str:
    """``source``'s text at brace depth 0, each block kept as ``{}``, without comments
    and preprocessor lines: where file-scope declarations are."""
    top, depth = [], 0
    for char in strip_comments(source):
        if char == "{":
            depth += 1
            if depth == 1:
                top.append("{")
        elif char == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                top.append("}")
        elif depth == 0:
            top.append(char)
    return re.sub(r"^\s*#.*$", "", "".join(top), flags=re.M)


@_cached
def cuda_device_variables(source: str) -> tuple[str, ...]:
    """The names of the ``__constant__`` and ``__device__`` variables ``source``
    defines at file scope (``__constant__ float c_Kernel[17];``, ``static __device__
    int counter;``), in order: what cuda-samples fill with ``cudaMemcpyToSymbol``.
    Those inside a namespace, a struct or a function, and ``extern`` ones, are left
    out."""
    return tuple(
        name
        for m in _DEVICE_VARIABLE.finditer(_file_scope(source))
        if re.search(r"\b__(constant|device)__\b", m.group(1))
        for name in _declared_names(m.group(2))
    )


@_cached
def cuda_module_state(source: str) -> tuple[str, ...]:
    """The file-scope variables of ``source`` a kernel may write and a later launch of
    the same loaded module reads again: the writable ``__device__`` ones (not
    ``__constant__``, not ``const``), such as threadFenceReduction's ``__device__
    unsigned int retirementCount``, which the last block sets back to 0 for the next
    launch. A subset of ``cuda_device_variables``, in order."""
    return tuple(
        name
        for m in _DEVICE_VARIABLE.finditer(_file_scope(source))
        if re.search(r"\b__device__\b", m.group(1))
        and not re.search(r"\b(__constant__|const)\b", m.group(1))
        for name in _declared_names(m.group(2))
    )


def cuda_parameters(
    source: str, entry_point: str, include_dirs: tuple[str, ...] = ()
) -> list[CudaParam] | None:
    """The parameters of ``__global__`` function ``entry_point`` (a plain name, or a
    template instantiation such as ``"softmax<float, 256>"``: its name part is looked
    up), in declaration order; None when the declaration cannot be read
    (``cuda_parameters_problem`` says why).

    The name is the last ``::`` part of the text before the first ``<``: vLLM's
    ``vllm::act_and_mul_kernel<__nv_bfloat16, vllm::silu_kernel<...>, true>`` is
    ``act_and_mul_kernel``, whatever its template arguments hold. A definition is read
    before a prototype (``.cu`` files declare kernels above their host code, often
    with unnamed parameters); a prototype is read only when it names every parameter
    and no definition follows.

    A template's type parameters are replaced by the entry point's arguments in the
    parameters' types (``template <typename scalar_t>`` and ``"scale<float>"``: a
    ``scalar_t alpha`` is a ``float alpha``), defaults filling those it leaves out. A
    kernel stamped out by a function-like macro (``#define UNARY(name, expr)
    __global__ void name(...)`` then ``UNARY(relu, ...)``) is read from the macro's
    body with the invocation's arguments in place of its parameters. A kernel declared
    through an object-like macro that stands for ``__global__`` (raft's, cuML's and
    cuGraph's ``RAFT_KERNEL``: ``#define RAFT_KERNEL __global__ static void``) is read as
    one, the macro defined in the source or in a header it includes that
    ``include_dirs`` hold (the kernel's NVRTC include paths)."""
    params = _read_parameters(source, entry_point, tuple(include_dirs))[0]
    return list(params) if params is not None else None  # a copy of the cached answer


def cuda_parameters_problem(
    source: str, entry_point: str, include_dirs: tuple[str, ...] = ()
) -> str:
    """Why ``cuda_parameters`` gives None for ``entry_point`` (no ``__global__``
    function of that name, or a parameter it cannot read); "" when it does not, and
    for a declaration whose parentheses never close: a broken source, which the
    compiler refuses with a better message."""
    return _read_parameters(source, entry_point, tuple(include_dirs))[1]


def cuda_parameter_texts(
    source: str, entry_point: str, include_dirs: tuple[str, ...] = ()
) -> list[str] | None:
    """Each parameter of ``entry_point``'s first declaration as written (whitespace
    collapsed), whether or not it names them: what an error quotes; None when the
    source declares no ``__global__`` function of that name."""
    text = _kernel_macros_expanded(strip_comments(source), tuple(include_dirs))
    name = cuda_function_name(entry_point)
    found = _declarations(text, name)
    if not found:
        expanded = _expand_kernel_macro(text, name)
        found = _declarations(expanded, name) if expanded is not None else []
    wanted = cuda_signature(entry_point)[1]
    if wanted is not None:  # the overload its parameter types name, if any
        keys = tuple(_type_key(t) for t in wanted)
        found = [d for d in found if d[2] is not None and _overload_keys(d[1]) == keys]
    if not found or found[0][2] is None:
        return None
    found.sort(key=lambda d: not d[2])
    inner = found[0][1]
    return [] if inner in ("", "void") else [" ".join(p.split()) for p in _split_top_level(inner)]


def cuda_signature(entry_point: str) -> tuple[str, tuple[str, ...] | None]:
    """An entry point split into its name expression and the parameter types it names
    an overload by: ``"apply(float*, unsigned)"`` -> ``("apply", ("float*",
    "unsigned"))``, as DeepSpeed declares ``apply_rotary_pos_emb`` once for ``float*``
    and once for ``__half*``; ``(entry_point, None)`` for an entry point without them
    (``"softmax<float, 256>"``)."""
    text = entry_point.strip()
    depth = 0
    for index, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "(" and depth == 0 and index > 0 and text.endswith(")"):
            inner = text[index + 1 : -1].strip()
            types = () if inner in ("", "void") else tuple(_split_top_level(inner))
            return text[:index].strip(), tuple(" ".join(t.split()) for t in types)
    return text, None


def cuda_name_expression(entry_point: str) -> str:
    """What NVRTC is asked to lower for ``entry_point``: the entry point itself, or for
    one that names an overload by its parameter types, a cast to that function type
    (``static_cast<void(*)(float*, unsigned)>(apply)``), which picks it."""
    head, types = cuda_signature(entry_point)
    return entry_point if types is None else f"static_cast<void(*)({', '.join(types)})>({head})"


def _type_key(type_text: str) -> str:
    """A parameter's type as an overload is told apart by: no spaces, no
    ``__restrict__``, no ``const`` of a parameter passed by value."""
    text = re.sub(r"\b(__restrict__|__restrict|restrict)\b", " ", type_text)
    if "*" not in text and "&" not in text and "[" not in text:
        text = re.sub(r"\b(const|volatile)\b", " ", text)
    return "".join(text.split())


def cuda_function_name(entry_point: str) -> str:
    """The function's own name in an entry point: the last ``::`` part of the text
    before the first ``<`` (``"vllm::act_and_mul_kernel<float, vllm::silu<float>>"``
    -> ``"act_and_mul_kernel"``), without a leading ``&``."""
    head = entry_point.strip().lstrip("&").split("<", 1)[0]
    return re.split(r"[\s(]", head.split("::")[-1].strip(), maxsplit=1)[0]


@_cached
def _read_parameters(
    source: str, entry_point: str, include_dirs: tuple[str, ...] = ()
) -> tuple[list[CudaParam] | None, str]:
    name = cuda_function_name(entry_point)
    text = _kernel_macros_expanded(strip_comments(source), include_dirs)
    found = _declarations(text, name)
    if not found:
        expanded = _expand_kernel_macro(text, name)
        found = _declarations(expanded, name) if expanded is not None else []
    if not found:
        return None, f"the source declares no __global__ function named {name!r}"
    if found[0][2] is None:
        return None, ""  # unbalanced parentheses: NVRTC's error says more than ours
    # a definition first, then a prototype that names its parameters
    found.sort(key=lambda d: not d[2])
    head, wanted = cuda_signature(entry_point)
    if wanted is not None:  # an overload named by its parameter types
        keys = tuple(_type_key(t) for t in wanted)
        found = [d for d in found if _overload_keys(d[1]) == keys]
        if not found:
            return None, (
                f"the source declares no __global__ function {name}({', '.join(wanted)}): "
                "name an overload by its parameter types as the source writes them"
            )
    problem = ""
    for template, inner, _ in found:
        if inner in ("", "void"):
            return [], ""
        parts = _split_top_level(inner)
        params = [_parameter(part) for part in parts]
        if any(p is None for p in params):
            bad = next(" ".join(t.split()) for t, p in zip(parts, params) if p is None)
            problem = problem or (
                f"the parameter {bad!r} of {name} has no name kernel-forge can read"
            )
            continue
        types = {**_type_aliases(text), **_template_types(template, head)}
        return [_substituted(p, types) for p in params], ""  # type: ignore[arg-type]
    return None, problem


@dataclass(frozen=True)
class CudaField:
    """One data member of a C struct as its source declares it: its name, its type text
    (aliases resolved) and its element count (1, or an array's length)."""

    name: str
    type: str
    count: int = 1


def cuda_struct_type(type_text: str) -> str | None:
    """The struct name a by-value parameter's type names (``const __grid_constant__
    Params`` -> ``Params``, ``struct SimParams`` -> ``SimParams``); None for a template
    instance, a pointer, a scope or anything else of more than one word."""
    if "<" in type_text or "*" in type_text or "::" in type_text or "&" in type_text:
        return None
    words = [
        w
        for w in re.findall(r"[A-Za-z_]\w*", type_text)
        if w not in _QUALIFIERS and w not in ("__grid_constant__", "struct")
    ]
    return words[0] if len(words) == 1 else None


@_cached
def cuda_struct_fields(source: str, name: str) -> tuple[CudaField, ...] | None:
    """The data members of struct ``name`` as ``source`` declares it (``struct Params {
    int64_t stride; int n; float scale; };``, or ``typedef struct {...} Params;``), in
    order; None where it cannot be read with confidence: not declared (or declared
    twice), a template, a base class, a nested type or union, a member function with a
    body, a bit-field. A ``static`` member takes no room and is left out."""
    text = re.sub(r"^[ \t]*#.*$", "", strip_comments(source), flags=re.M)
    heads = [
        m
        for m in re.finditer(
            r"\b(?:struct|class)\s+(?:(?:__align__|alignas|__attribute__)\s*\(+[^)]*\)+\s*)*"
            + re.escape(name)
            + r"\s*(:[^{;]*)?\{",
            text,
        )
    ]
    typedef = list(re.finditer(r"\btypedef\s+struct\s*(?:[A-Za-z_]\w*\s*)?\{", text))
    bodies = []
    for match in heads:
        if match.group(1):  # a base class: its members come first, unread
            return None
        before = text[max(0, match.start() - 200) : match.start()]
        if re.search(r"template\s*<[^;{}]*>\s*$", before):
            return None
        end = matching_close(text, match.end() - 1, "{", "}")
        if end is None:
            return None
        bodies.append(text[match.end() : end])
    for match in typedef:
        end = matching_close(text, match.end() - 1, "{", "}")
        if end is not None and re.match(r"\s*" + re.escape(name) + r"\s*;", text[end + 1 :]):
            bodies.append(text[match.end() : end])
    if len(bodies) != 1:
        return None
    body = bodies[0]
    if "{" in body or re.search(r"\b(union|struct|class|enum|template|public|private)\b", body):
        return None
    aliases = _type_aliases(text)
    fields: list[CudaField] = []
    for declaration in body.split(";"):
        declaration = " ".join(declaration.split())
        if not declaration:
            continue
        if re.match(r"static\b", declaration):
            continue  # a static member takes no room in the struct
        if re.match(r"(using|typedef|friend)\b", declaration):
            return None
        if "(" in declaration or ":" in declaration or "=" in declaration:
            return None  # a member function, a bit-field, an initializer: unread
        first, *more = _split_top_level(declaration)
        head = re.fullmatch(r"(.*?[\s*&])([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)", first)
        if head is None:
            return None
        base = head.group(1).rstrip(" *&") if "*" not in head.group(1) else head.group(1)
        for index, part in enumerate([first, *more]):
            found = re.fullmatch(r"\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)", part)
            if index == 0:
                pointer, member, arrays = "", head.group(2), head.group(3)
                type_ = head.group(1).strip()
            elif found is not None:
                pointer, member, arrays = found.group(1), found.group(2), found.group(3)
                type_ = base.replace("*", "").strip() + (" " + pointer if pointer else "")
            else:
                return None
            count = 1
            for length in re.findall(r"\d+", arrays or ""):
                count *= int(length)
            type_ = " ".join(aliases.get(w, w) for w in type_.split())
            fields.append(CudaField(member, type_, count))
    return tuple(fields) or None


_GRID_GROUP = re.compile(
    r"\bgrid_group\s*[&*]?\s*([A-Za-z_]\w*)"  # cg::grid_group grid, grid_group& g
    r"|\b(?:auto|const\s+auto)\s*&?\s*([A-Za-z_]\w*)\s*=\s*(?:[\w:]*::)?this_grid\s*\("
)
_GRID_SYNC_DIRECT = re.compile(r"\bthis_grid\s*\(\s*\)\s*\.\s*sync\s*\(")


@_cached
def cuda_grid_sync(source: str, entry_point: str) -> bool:
    """Whether ``entry_point`` waits for its whole grid (cooperative groups'
    ``this_grid().sync()``, ``grid.sync()`` or ``cg::sync(grid)`` on a ``grid_group``),
    which only a cooperative launch allows: launched plainly, ``sync()`` traps and the
    context is lost. A grid sync in the kernel's own body counts, and one outside every
    ``__global__`` body (in a ``__device__`` helper it may call) counts for every
    kernel of the source; one in another kernel's body does not."""
    text = _kernel_macros_expanded(strip_comments(source))
    names = {n for match in _GRID_GROUP.finditer(text) for n in match.groups() if n}
    sites = [m.start() for m in _GRID_SYNC_DIRECT.finditer(text)]
    for name in names:
        pattern = (
            r"\b" + re.escape(name) + r"\s*(?:\.|->)\s*sync\s*\("
            r"|\bsync\s*\(\s*" + re.escape(name) + r"\s*\)"
        )
        sites += [m.start() for m in re.finditer(pattern, text)]
    if not sites:
        return False
    bodies = _global_bodies(text)
    own = cuda_function_name(entry_point)
    for site in sites:
        enclosing = [name for name, start, end in bodies if start <= site <= end]
        if not enclosing or own in enclosing:
            return True
    return False


_OBJECT_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])[ \t]*(.*)$", re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)


def _kernel_macros(text: str) -> dict[str, str]:
    """The object-like macros ``text`` defines whose replacement, a macro of a macro
    expanded, holds ``__global__`` (``#define RAFT_KERNEL __global__ static void``), each to
    that replacement."""
    joined = re.sub(r"\\[ \t]*\n", " ", text)  # line continuations
    defines = {m.group(1): m.group(2).strip() for m in _OBJECT_DEFINE.finditer(joined)}
    found = {}
    for name, body in defines.items():
        expanded = body
        for _ in range(4):
            expanded = re.sub(
                r"\b\w+\b",
                lambda m, own=name: (
                    defines.get(m.group(0), m.group(0)) if m.group(0) != own else m.group(0)
                ),
                expanded,
            )
        if re.search(r"\b__global__\b", expanded):
            found[name] = expanded
    return found


@_cached
def _header_text(source: str, include_dirs: tuple[str, ...]) -> str:
    """The text of the headers ``source`` includes that ``include_dirs`` hold, and of
    those they include in turn (a few deep), comments stripped; "" without any."""
    import os

    seen: set[str] = set()
    texts: list[str] = []
    todo = [(source, 0)]
    while todo:
        text, depth = todo.pop()
        for match in _INCLUDE.finditer(text):
            for folder in include_dirs:
                path = os.path.join(folder, match.group(1))
                if os.path.isfile(path):
                    break
            else:
                continue
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            try:
                with open(real, encoding="utf-8", errors="replace") as file:
                    header = strip_comments(file.read())
            except OSError:
                continue
            texts.append(header)
            if depth < 4:
                todo.append((header, depth + 1))
    return "\n".join(texts)


def _kernel_macros_expanded(text: str, include_dirs: tuple[str, ...] = ()) -> str:
    """``text`` with each use of an object-like macro that stands for ``__global__``
    (defined in ``text``, or in a header it includes from ``include_dirs``) replaced by
    its replacement, and those macros' own ``#define`` lines blanked (line numbers
    kept), so that the kernels it declares are read as ``__global__`` functions."""
    headers = _header_text(text, include_dirs) if include_dirs else ""
    macros = _kernel_macros(headers + "\n" + text if headers else text)
    if not macros:
        return text
    names = "|".join(re.escape(n) for n in macros)
    text = re.sub(
        r"^[ \t]*#[ \t]*define[ \t]+(?:" + names + r")(?![\w(]).*$",
        lambda m: " " * len(m.group(0)),
        text,
        flags=re.M,
    )
    return re.sub(r"\b(?:" + names + r")\b", lambda m: macros[m.group(0)], text)


def _global_bodies(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of the body of each ``__global__`` function defined in
    ``text``."""
    found = []
    for match in re.finditer(r"__global__[^;{]*?\b([A-Za-z_]\w*)\s*\(", text):
        end = matching_close(text, match.end() - 1, "(", ")")
        if end is None:
            continue
        after = re.match(r"[^;{]*", text[end + 1 :])
        opening = end + 1 + (after.end() if after is not None else 0)
        if text[opening : opening + 1] != "{":
            continue
        closing = matching_close(text, opening, "{", "}")
        found.append((match.group(1), opening, closing if closing is not None else len(text)))
    return found


# glibc's <sys/types.h> short names, which nvcc's implicit host headers bring in
# (cuda-samples' histogram and sorting kernels take ``uint`` by value)
_GLIBC_ALIASES = {"uint": "unsigned int", "ushort": "unsigned short", "ulong": "unsigned long"}
_TYPEDEF = re.compile(r"\btypedef\s+([A-Za-z_][\w\s]*?)\s+([A-Za-z_]\w*)\s*;")
_USING = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w\s:]*?)\s*;")


def _type_aliases(text: str) -> dict[str, str]:
    """The scalar type names ``text`` declares (``typedef unsigned int uint;``, ``using
    index_t = int64_t;``), over glibc's ``uint``, ``ushort`` and ``ulong``, each to the
    type it names (an alias of an alias resolved)."""
    aliases = dict(_GLIBC_ALIASES)
    for match in _TYPEDEF.finditer(text):
        aliases[match.group(2)] = " ".join(match.group(1).split())
    for match in _USING.finditer(text):
        aliases[match.group(1)] = " ".join(match.group(2).split())
    for _ in range(4):  # an alias of an alias, a few deep
        aliases = {
            name: " ".join(aliases.get(word, word) if word != name else word for word in t.split())
            for name, t in aliases.items()
        }
    return aliases


def _declarations(text: str, name: str) -> list[tuple[str, str, bool | None]]:
    """(the ``template <...>`` parameter list before it, or "", the parameter list,
    whether a body follows) of each ``__global__`` function ``name`` in ``text``, in
    order: prototypes (``...);``) and the definition. A parameter list that never
    closes is one entry with None for its body: a source the compiler will refuse."""
    pattern = re.compile(r"__global__[^;{]*?\b" + re.escape(name) + r"\s*\(")
    found: list[tuple[str, str, bool | None]] = []
    for match in pattern.finditer(text):
        end = matching_close(text, match.end() - 1, "(", ")")
        if end is None:  # unbalanced: a broken source, which the compiler reports
            return [("", "", None)] if not found else found
        # the template header sits between the previous declaration and __global__
        start = max(text.rfind(";", 0, match.start()), text.rfind("}", 0, match.start())) + 1
        header = list(re.finditer(r"\btemplate\s*<", text[start : match.start()]))
        template = ""
        if header:
            opening = start + header[-1].end() - 1
            closing = matching_close(text, opening, "<", ">")
            template = text[opening + 1 : closing] if closing is not None else ""
        after = re.match(r"[^;{]*", text[end + 1 :])
        body = after is not None and text[end + 1 + after.end() : end + 2 + after.end()] == "{"
        found.append((template, text[match.end() : end].strip(), body))
    return found


def _overload_keys(inner: str) -> tuple[str, ...]:
    """The ``_type_key`` of each parameter in a parameter list, its name dropped."""
    if inner.strip() in ("", "void"):
        return ()
    keys = []
    for part in _split_top_level(inner):
        param = _parameter(part)
        keys.append(_type_key(param.type if param is not None else part.split("=")[0]))
    return tuple(keys)


def matching_close(text: str, opening: int, open_: str, close: str) -> int | None:
    """The index of the ``close`` that matches the ``open_`` at ``opening`` of ``text``
    (read without its comments and literals where they may hold brackets), or None
    where it never closes."""
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == open_:
            depth += 1
        elif text[index] == close:
            depth -= 1
            if depth == 0:
                return index
    return None


_TYPE_PARAMETER = re.compile(r"\s*(?:typename|class)\s+(\w+)\s*(?:=\s*(.+?))?\s*$", re.S)


def _template_types(template: str, entry_point: str) -> dict[str, str]:
    """Each type parameter of ``template`` (``typename scalar_t``, ``class T = float``)
    and the type ``entry_point``'s template arguments (or its default) give it."""
    if not template:
        return {}
    opening = entry_point.find("<")
    closing = entry_point.rfind(">")
    given = (
        [a.strip() for a in _split_top_level(entry_point[opening + 1 : closing])]
        if 0 <= opening < closing
        else []
    )
    types = {}
    for index, part in enumerate(_split_top_level(template)):
        match = _TYPE_PARAMETER.match(part)
        if match is None:
            continue
        value = given[index] if index < len(given) else match.group(2)
        if value:
            types[match.group(1)] = " ".join(value.split())
    return types


def _substituted(param: CudaParam, types: Mapping[str, str]) -> CudaParam:
    text = param.type
    for name, value in types.items():
        text = re.sub(r"\b" + re.escape(name) + r"\b", value, text)
    return (
        param if text == param.type else CudaParam(param.name, text, param.pointer, param.default)
    )


def _replace_word(mapping: Mapping[str, str], match: re.Match) -> str:
    return mapping.get(match.group(0), match.group(0))


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)(.*)$", re.M)


def _expand_kernel_macro(text: str, name: str, depth: int = 0) -> str | None:
    """``text`` with the first invocation of a function-like macro whose body declares
    a ``__global__`` function, or invokes a macro that does (candle's ``BINARY_OP``
    stamps its kernels out through ``BINARY_OP_OUT``), and one of whose arguments is
    ``name``, expanded in place (its parameters replaced, ``##`` pasted, and a macro
    its body invokes expanded in turn); None when there is none."""
    text = re.sub(r"\\[ \t]*\n", " ", text)  # line continuations
    defines = list(_DEFINE.finditer(text))
    stamping = {d.group(1) for d in defines if "__global__" in d.group(3)}
    grown = True
    while grown:  # the macros that reach one that declares a kernel
        grown = False
        for d in defines:
            if d.group(1) not in stamping and any(
                re.search(r"\b" + re.escape(m) + r"\s*\(", d.group(3)) for m in stamping
            ):
                stamping.add(d.group(1))
                grown = True
    for define in defines:
        macro, body = define.group(1), define.group(3)
        if macro not in stamping:
            continue
        formals = [f.strip() for f in define.group(2).split(",")]
        for call in re.finditer(r"\b" + re.escape(macro) + r"\s*\(", text):
            if define.start() <= call.start() < define.end():
                continue
            end = matching_close(text, call.end() - 1, "(", ")")
            if end is None:
                return None
            actuals = [a.strip() for a in _split_top_level(text[call.end() : end])]
            if name not in actuals:
                continue
            mapping = {f: a for f, a in zip(formals, actuals) if f.isidentifier()}
            expanded = re.sub(r"\b\w+\b", functools.partial(_replace_word, mapping), body)
            expanded = re.sub(r"\s*##\s*", "", expanded)
            result = text[: call.start()] + expanded + text[end + 1 :]
            if "__global__" not in expanded and depth < 4:
                return _expand_kernel_macro(result, name, depth + 1)
            return result
    return None
