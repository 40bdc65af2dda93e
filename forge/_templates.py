"""Source templates: the values ``{{NAME}}`` (or ``${NAME}``) may use in a kernel's
sources and entry points, and the text with them filled.

The values are the schedule's (``wg_x``, ``wg_y``, ``wg_z``, ``ipt``, ``vec``), the
entry point (``entry``), the size's dimensions (``{{M}}``), the kernel's parameter values
(``forge.tunables``) and its ``constants``. Only known names are replaced: an unknown
``{{NAME}}`` is an error saying which names are known, and any other ``$`` or brace is
left as written, so a source from elsewhere fits as it is. ``KernelSpec.render`` and
``template_values`` call these functions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InvalidArgument
from .expressions import _names, resolve
from .schedule import Schedule

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = ["as_text", "template_values", "render"]

_TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}|\$\{([A-Za-z_]\w*)\}")


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
        values[name] = resolve(value, schedule, size, what, names=parameters)
    return values


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
        if size is None and name not in kernel.constants:
            raise InvalidArgument(
                f"kernel {kernel.id}: the source uses {{{{{name}}}}}, which "
                "needs a problem size; give one"
            )
        raise InvalidArgument(
            f"kernel {kernel.id}: the source uses {{{{{name}}}}}, which is "
            f"not a template value; known: {', '.join(sorted(values))}"
        )

    return _TEMPLATE.sub(replace_one, text)
