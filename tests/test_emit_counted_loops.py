"""Every loop in the WGSL that ``forge.emit`` writes ends, which is what lets the wgpu
backend's default (``shader_checks="auto"``) leave naga's loop counters out of those
modules (``KernelBody.emitted``). A loop is one of two forms:

- counted up: ``for (var i = start; i < stop; i += step)``, ``step`` a product of
  positive literals, workgroup counts and the subgroup size (each at least 1), and ``i``
  assigned nowhere else;
- halved down: ``for (var o = start; o > 0u; o = o >> 1u)``.

and there is no ``loop`` or ``while``. (That ``i += step`` does not wrap past 2**32
rests on the sizes: ``stop`` counts elements, blocks or tiles of buffers that fit one
binding, far below 2**32 - step.) Needs no GPU: the WGSL is emitted and read."""

from __future__ import annotations

import re

import pytest

import forge
from forge import Schedule, ir

_HEADER = re.compile(r"\bfor \((.*?)\) \{")
_UP = re.compile(r"var (\w+)(?:: u32)? = [^;]+; (\w+) < [^;]+; (\w+) \+= (.+)")
_HALVED = re.compile(r"var (\w+)(?:: u32)? = [^;]+; (\w+) > 0u; (\w+) = (\w+) >> 1u")
#: a factor of a counted loop's step, each at least 1
_FACTOR = re.compile(r"\d*[1-9]\d*u|fg_nwg\.[xy]|fg_sgs")


def _positive(step: str) -> bool:
    factors = [f.strip() for f in step.replace("(", "").replace(")", "").split("*")]
    return all(_FACTOR.fullmatch(f) for f in factors)


def loop_problems(text: str) -> list[str]:
    """What in WGSL ``text`` is not a loop of the two forms (empty: every loop ends)."""
    problems = [f"a {m.group(0)} loop" for m in re.finditer(r"\bloop\s*\{|\bwhile\b", text)]
    bodies = _HEADER.sub("{", text)  # what the loops do, their headers left out
    for match in _HEADER.finditer(text):
        header = match.group(1)
        up, halved = _UP.fullmatch(header), _HALVED.fullmatch(header)
        if up and len({up.group(1), up.group(2), up.group(3)}) == 1 and _positive(up.group(4)):
            name = up.group(1)
        elif halved and len(set(halved.groups())) == 1:
            name = halved.group(1)
        else:
            problems.append(f"not a counted loop: for ({header})")
            continue
        # an assignment to the counter outside its header (a declaration of another
        # variable of the same name in a nested scope is not one)
        assigned = rf"(?<!let )(?<!var )\b{name}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
        if re.search(assigned, bodies):
            problems.append(f"{name} is assigned outside its header: for ({header})")
    return problems


def _row_schedules() -> list[Schedule]:
    # the one-pass and looped paths P11 sweeps, with and without subgroups
    return [
        Schedule((1024, 1), items_per_invocation=8, vector_width=4),
        Schedule((256, 1), items_per_invocation=4, vector_width=4),
        Schedule((256, 1), items_per_invocation=4, vector_width=4, subgroups=True),
        Schedule((32, 4), items_per_invocation=2),
    ]


def _emitted_sources():
    for kernel in forge.list_kernels():
        if not kernel.body.emitted:
            continue
        schedules = list(kernel.schedules)
        if kernel.body.kind == "rows":
            schedules += _row_schedules()
        for schedule in schedules:
            try:
                yield kernel.id, schedule, kernel.source("wgsl", schedule)
            except forge.UnsupportedFeature:  # no WGSL for this one (bf16, say)
                continue


def test_every_loop_in_the_emitted_wgsl_ends():
    seen = 0
    for name, schedule, text in _emitted_sources():
        assert loop_problems(text) == [], f"{name} under {schedule}"
        seen += text.count("for (")
    assert seen > 100  # the library's kernels do loop: the check had something to read


def test_the_library_kernels_are_emitted_and_a_hand_written_one_is_not():
    assert forge.get_kernel("softmax").body.emitted
    x = ir.input("x")
    assert ir.kernel("double_it", ir.map(y=x * 2.0)).body.emitted
    raw = forge.KernelSpec(
        id="hand", entry_point="main", sources={"wgsl": "fn main() {}"}, buffers=()
    )
    assert not raw.body.emitted


@pytest.mark.parametrize(
    "text, problem",
    [
        ("loop { if (x) { break; } }", "a loop {"),
        ("while (x < 4u) { x += 1u; }", "a while"),
        ("for (var i: u32 = 0u; i < n; i += 0u) {", "not a counted loop"),
        ("for (var i: u32 = 0u; i < n; i += fg_step) {", "not a counted loop"),
        ("for (var i: u32 = 9u; i > 0u; i -= 1u) {", "not a counted loop"),
        ("for (var i: u32 = 0u; i < n; i += 1u) { i = 0u; }", "i is assigned"),
        ("for (var i: u32 = 0u; i < n; i += 1u) { i -= 1u; }", "i is assigned"),
        ("for (var o: u32 = 8u; o > 0u; o = o >> 1u) { o = 8u; }", "o is assigned"),
    ],
)
def test_a_loop_that_may_not_end_is_found(text, problem):
    found = loop_problems(text)
    assert len(found) == 1 and found[0].startswith(problem), found


def test_the_forms_that_end_pass():
    text = """
    for (var i: u32 = fg_wid.x; i < fg_blocks; i += (fg_nwg.x * fg_nwg.y) * 64u) {
        let j = i;
        for (var o: u32 = min(fg_sgs, 64u) >> 1u; o > 0u; o = o >> 1u) { var i = o; }
    }
    """
    assert loop_problems(text) == []
