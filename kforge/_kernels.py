"""Which kernels a command works on: ids of installed kernels, or Python files whose
top-level ``KernelSpec`` objects are collected (those the file defines and those it
imports and binds to a top-level name), narrowed by ``--kernel ID``."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from forge import registry
from forge.errors import ForgeError, InvalidArgument
from forge.kernel import KernelSpec, iter_specs

__all__ = ["KernelFileError", "load_file", "resolve_kernels", "add_kernel_arguments"]


class KernelFileError(ForgeError, ImportError):
    """A kernel file could not be imported; carries its traceback."""


def _is_path(name: str) -> bool:
    return name.endswith(".py") or os.sep in name or Path(name).is_file()


def load_file(path: str | os.PathLike) -> list[KernelSpec]:
    """The ``KernelSpec`` objects bound to top-level names of the Python file ``path``,
    each remembering where it came from (``kernel.origin``)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise InvalidArgument(f"no such kernel file: {path}")
    name = "kforge_user_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InvalidArgument(f"{path} is not a Python file kforge can import")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))  # its own helpers import as siblings
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # the user's code: report everything it raised
        if isinstance(exc, KeyboardInterrupt):
            raise
        sys.modules.pop(name, None)
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise KernelFileError(
            f"{path} raised {type(exc).__name__} while being imported:\n{text.rstrip()}"
        ) from None
    finally:
        try:
            sys.path.remove(str(path.parent))
        except ValueError:
            pass
    kernels = iter_specs(vars(module).values())
    for kernel in kernels:
        object.__setattr__(kernel, "origin", str(path))
    return kernels


def resolve_kernels(
    names: Sequence[str] | None, ids: Sequence[str] | None = None
) -> list[KernelSpec]:
    """Kernels by id or from files (``names``; none: every installed kernel), narrowed
    to ``ids`` when given."""
    kernels: list[KernelSpec] = []
    for name in names or ():
        kernels += load_file(name) if _is_path(name) else [registry.get_kernel(name)]
    if not names:
        kernels = registry.list_kernels()
    kernels = _one_per_id(kernels)
    if ids:
        known = {k.id for k in kernels}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise InvalidArgument(
                f"no kernel {', '.join(unknown)} here; the kernels are: "
                f"{', '.join(sorted(known)) or 'none'}"
            )
        kernels = [k for k in kernels if k.id in ids]
    if not kernels:
        raise InvalidArgument(
            "no kernels to work on: the files define no KernelSpec at their top level"
            if names
            else "no kernels are installed"
        )
    return kernels


def _one_per_id(kernels: list[KernelSpec]) -> list[KernelSpec]:
    """``kernels`` without repeats (a kernel two files both bind); two different kernels
    with one id are refused: results, baselines, caches and tuned schedules know a
    kernel by its id, and the table would show their verdicts merged in one row."""
    chosen: dict[str, KernelSpec] = {}
    for kernel in kernels:
        first = chosen.setdefault(kernel.id, kernel)
        if first is not kernel and _definition(first) != _definition(kernel):
            where = [getattr(k, "origin", None) or "installed" for k in (first, kernel)]
            raise InvalidArgument(
                f"two different kernels have the id {kernel.id!r} ({where[0]}; {where[1]}): "
                "results, caches and tuned schedules know a kernel by its id; give each "
                "its own"
            )
    return list(chosen.values())


def _definition(kernel: KernelSpec) -> str:
    """``kernel.describe()`` with its Python functions named by where they are defined:
    one file imported twice (as a kernel file, and by another one as a module) defines
    one kernel, though its functions' digests name two modules."""
    described = kernel.describe()
    for part, name in (("body", "reference"), (None, "grid")):
        code = getattr(getattr(kernel, name, None), "__code__", None)
        held = described.get(part, {}) if part else described
        if code is not None and isinstance(held, dict) and name in held:
            held[name] = [code.co_filename, code.co_firstlineno]
    return json.dumps(described, sort_keys=True, default=str)


def add_kernel_arguments(parser, many: bool = True) -> None:
    parser.add_argument(
        "kernels",
        nargs="*" if many else "+",
        metavar="KERNEL_OR_FILE",
        help="kernel ids, or Python files whose top-level KernelSpecs are used "
        "(default: every installed kernel)",
    )
    parser.add_argument(
        "--kernel",
        dest="kernel_ids",
        action="append",
        metavar="ID",
        help="only the kernel with this id (repeatable)",
    )
