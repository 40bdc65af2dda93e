"""Source templates: the values ``{{NAME}}`` (or ``${NAME}``) may use in a kernel's
sources and entry points, and the text with them filled.

The values are the schedule's (``wg_x``, ``wg_y``, ``wg_z``, ``ipt``, ``vec``), the
entry point (``entry``), the size's dimensions (``{{M}}``), the kernel's parameter values
(``forge.tunables``) and its ``constants``: a number, a callable of the schedule and
size, or a ``str``, evaluated when it is an expression of the names above (``"2*wg_x"``)
and else filled in as written (``"f32"``, ``"256, 1, 1"``). Only known names are
replaced: an unknown ``{{NAME}}`` is an error saying which names are known. An
expression of them in the same braces, as Tera and Jinja templates write it (wonnx's
``{{ i_lens[0] }}``, ``{{ o_chunks[0][0] / 4 }}``, a constant that is a tuple indexed),
is filled with its value (a whole quotient as an integer). Any other ``$`` or brace is
left as written, so a source from elsewhere fits as it is.
``KernelSpec.render`` and ``template_values`` call these functions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ForgeError, InvalidArgument
from .expressions import _names, evaluate_expression, expression_names, resolve
from .schedule import Schedule

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = ["as_text", "template_values", "render"]

_TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}|\$\{([A-Za-z_]\w*)\}")
# ``{{ i_lens[0] }}``, ``{{ o_chunks[0][0] / 4 }}``: an expression of known values, as
# Tera (wonnx's WGSL templates) and Jinja write them
_TEMPLATE_EXPRESSION = re.compile(r"\{\{\s*([^{};=\n]+?)\s*\}\}")


def as_text(value: Any) -> str:
    """A template or ``-D`` value as source text (a bool as 1 or 0)."""
    return str(int(value)) if isinstance(value, (bool, np.integer)) else str(value)


def template_values(kernel: KernelSpec, schedule: Schedule, size: Any) -> dict[str, Any]:
    """The values ``{{NAME}}`` may use: schedule, size dimensions, constants."""
    values: dict[str, Any] = {"entry": kernel.entry_point}
    values.update(_names(schedule, None))
    if size is not None:
        values.update(kernel.size(size).dims)
    parameters = kernel.tunable_values()
    values.update(parameters)
    for name, value in kernel.constants.items():
        what = f"kernel {kernel.id} constant {name}"
        if isinstance(value, str):
            text_or_value = _text_or_value(kernel, value, schedule, size, parameters, what)
            if text_or_value is not _NEEDS_SIZE:  # render says so where the source uses it
                values[name] = text_or_value
        else:
            values[name] = resolve(value, schedule, size, what, names=parameters)
    return values


_NEEDS_SIZE = object()


def _text_or_value(
    kernel: KernelSpec,
    text: str,
    schedule: Schedule,
    size: Any,
    parameters: dict[str, Any],
    what: str,
) -> Any:
    """A ``str`` constant: an expression of the known names (``"2*wg_x"``,
    ``"ceil_div(n, 4)"``) is evaluated; anything else (``"f32"``, ``"256, 1, 1"``, a
    WGSL expression of the shader's own names) is source text, filled in as written."""
    try:
        used = expression_names(text)
    except ForgeError:  # not a Python expression: "vec4<f32>", "256, 1, 1u"
        return text
    known = {**_names(schedule, size), **parameters}
    later = set(kernel.dims) | {"n", "size"}  # names a size gives; none given yet
    if not used <= set(known) | later:
        return text  # names what the shader or the language knows: f32, TILE, ...
    if not used <= set(known):
        return _NEEDS_SIZE
    try:
        value = evaluate_expression(text, known)
    except ForgeError as exc:
        raise InvalidArgument(
            f"{what} = {text!r} is an expression of the "
            f"kernel's names but cannot be evaluated ({exc}); fix it, or give the text "
            f"the source should hold as a callable: lambda schedule, size: {text!r}"
        ) from None
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return value
    return text  # "256, 1, 1" is a tuple to Python: the text is what the source means


def render(kernel: KernelSpec, text: str, schedule: Schedule, size: Any) -> str:
    """``text`` with every known ``{{NAME}}`` / ``${NAME}`` replaced."""
    values: dict[str, Any] | None = None

    def replace_one(match: re.Match) -> str:
        nonlocal values
        name = match.group(1) or match.group(2)
        if values is None:
            values = template_values(kernel, schedule, size)
        if name in values:
            return as_text(values[name])
        if match.group(1) is None:
            return match.group(0)  # ${...} that is not ours: leave it as written
        if size is None and (
            name not in kernel.constants or isinstance(kernel.constants[name], str)
        ):
            raise InvalidArgument(
                f"kernel {kernel.id}: the source uses {{{{{name}}}}}, which "
                "needs a problem size; give one"
            )
        raise InvalidArgument(
            f"kernel {kernel.id}: the source uses {{{{{name}}}}}, which is "
            f"not a template value; known: {', '.join(sorted(values))}"
        )

    text = _TEMPLATE.sub(replace_one, text)

    def evaluate_one(match: re.Match) -> str:
        nonlocal values
        expression = match.group(1)
        try:
            used = expression_names(expression)
        except ForgeError:  # not an expression: a C++ aggregate's braces, left as written
            return match.group(0)
        if values is None:
            values = template_values(kernel, schedule, size)
        if not used <= set(values):
            return match.group(0)
        value = evaluate_expression(expression, values)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # Tera's 16 / 4 is 4, and the shader reads 4u
        return as_text(value)

    return _TEMPLATE_EXPRESSION.sub(evaluate_one, text)
