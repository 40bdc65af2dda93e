"""What each parameter of a CUDA ``__global__`` function receives at launch.

A raw CUDA kernel declares its parameters in its own order (``const float* x, float* y,
int n, float eps``); a ``KernelSpec`` names buffers, a uniform block's fields and the
values ``params(size)``/``defaults`` give. This module matches the two and returns one
entry per parameter, which the CUDA backend packs:

- ``("buffer", index)``: the device pointer of ``kernel.buffers[index]``;
- ``("field", name)``: one field of the uniform block, by value;
- ``("uniform", None)``: the whole uniform block as its C struct, by value;
- ``("value", (name, bytes))``: a scalar that is no uniform field (a dimension of the
  size, or what ``params(size)`` or ``defaults`` gives), already packed in the C type
  the kernel declares.

The rules, in order: ``arguments=(...)`` names the order explicitly; else parameters
all named like the spec's names are matched by name; else by position and kind
(pointers take the buffers in binding order, values the uniform's fields, or the whole
uniform for one struct parameter; a scalar named like a dimension of the size or a
value ``params(size)``/``defaults`` gives is that value wherever it sits), and an error
names the parameters when neither fits rather than guessing an order. Without a
parsable declaration the default convention holds: buffers by binding, the uniform last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import sources as _sources
from .buffers import Access, _field_problem
from .errors import InvalidArgument

if TYPE_CHECKING:
    from .kernel import KernelSpec

__all__ = ["cuda_arguments", "argument_order", "values_by_name"]

Argument = tuple[str, Any]


def cuda_arguments(
    kernel: KernelSpec,
    entry: str,
    explicit: Sequence[str] | None,
    source: str | None,
    size: Any = None,
) -> tuple[Argument, ...]:
    """The argument of each parameter of ``entry`` in ``source`` at ``size``."""
    order = list(explicit) if explicit else None
    params = _sources.cuda_parameters(source, entry) if source is not None else None
    known = _spec_names(kernel)
    known.update(_scalars(kernel, params or (), size, known))
    if order is None and params:
        if all(p.name in known for p in params):
            order = [p.name for p in params]
        else:
            return _by_position(kernel, entry, params, known)
    if order is None:  # the default convention: buffers by binding, uniform last
        return tuple(
            ("uniform", None) if b.access is Access.UNIFORM else ("buffer", i)
            for i, b in enumerate(kernel.buffers)
        )
    unknown = [name for name in order if name not in known]
    if unknown:
        raise InvalidArgument(
            f"kernel {kernel.id}: CUDA arguments {unknown} of {entry} name no buffer, "
            f"uniform field or value params(size)/defaults give; known: {', '.join(known)}"
        )
    return tuple(known[name] for name in order)


def argument_order(kernel: KernelSpec, arguments: Sequence[Argument]) -> tuple[str, ...] | None:
    """The names that give ``arguments`` again as an explicit ``arguments=(...)`` (for a
    kernel frozen at one size); None when an unnamed buffer makes that impossible."""
    if not arguments:
        return None
    names = []
    for kind, key in arguments:
        if kind == "buffer":
            name = kernel.buffers[key].name
            if not name:
                return None
            names.append(name)
        elif kind == "field":
            names.append(key)
        elif kind == "value":
            names.append(key[0])
        else:
            names.append((kernel.uniform.name or "params") if kernel.uniform else "params")
    return tuple(names)


def values_by_name(kernel: KernelSpec, size: Any) -> dict[str, Any]:
    """The values a kernel passes by value outside its uniform block, by name: the problem
    size's dimensions (``n``, or ``rows`` and ``cols``, ...), then what
    ``KernelSpec.scalar_values`` gives (``defaults``, then ``params(size)``)."""
    return {**kernel.size(size).dims, **kernel.scalar_values(size)}


def _spec_names(kernel: KernelSpec) -> dict[str, Argument]:
    """Every name the spec gives a parameter may use: named buffers, the uniform block
    (``params`` unless named) and its fields."""
    names: dict[str, Argument] = {}
    for index, spec in enumerate(kernel.buffers):
        if spec.access is Access.UNIFORM:
            names[spec.name or "params"] = ("uniform", None)
            for field_name, _ in spec.fields:
                names.setdefault(field_name, ("field", field_name))
        elif spec.name:
            names[spec.name] = ("buffer", index)
    return names


def _scalars(
    kernel: KernelSpec, params: Sequence[Any], size: Any, known: Mapping[str, Any]
) -> dict[str, Argument]:
    """Each scalar parameter the kernel takes by value (``int n``, ``float eps``) that is
    no uniform field but that ``values_by_name`` names (a dimension of the size,
    ``defaults``, ``params(size)``), packed in the C type the kernel declares, as people
    write ``__global__ void k(float* y, int n)`` with ``n`` the problem size; also
    beside a uniform block, which a spec shared with a WGSL source has."""
    if size is None:
        return {}
    wanted = [p for p in params if not p.pointer and p.name not in known]
    if not wanted:
        return {}
    values = values_by_name(kernel, size)
    found: dict[str, Argument] = {}
    for param in wanted:
        dtype = _sources.scalar_dtype(param.type)
        if param.name not in values or dtype is None:
            continue
        value = values[param.name]
        problem = _field_problem(value, dtype)
        if problem:
            raise InvalidArgument(
                f"kernel {kernel.id}: parameter {param.type} {param.name} cannot hold "
                f"{value!r}: {problem}"
            )
        found[param.name] = ("value", (param.name, np.asarray(value).astype(dtype).tobytes()))
    return found


def _by_position(
    kernel: KernelSpec, entry: str, params: Sequence[Any], known: Mapping[str, Argument]
) -> tuple[Argument, ...]:
    """Arguments for parameters that are not all named like the spec's names: pointers
    take the buffers in binding order (const ones the read-only buffers where that
    fits, ``_pointer_order``), scalars named like a value the kernel gives take
    it, the other values the uniform's fields in order (or the whole uniform, for one
    struct parameter). A parameter whose name does match must sit
    where its buffer or field does, and when the kinds and counts do not fit, the error
    names what did not match (guessing an order ran kernels on the wrong arguments)."""
    buffers = [
        ("buffer", i) for i, b in enumerate(kernel.buffers) if b.access is not Access.UNIFORM
    ]
    uniform = kernel.uniform
    fields = [("field", name) for name, _ in uniform.fields] if uniform is not None else []
    pointers = [p for p in params if p.pointer]
    # a scalar named like a value the kernel gives (``int n``: the size's dimension) is
    # that value wherever it sits, as in ``(const float* in, float* out, int n)``
    by_name = {p.name for p in params if not p.pointer and known.get(p.name, ("",))[0] == "value"}
    values = [p for p in params if not p.pointer and p.name not in by_name]
    value_args: list[Argument] | None = None
    if len(values) == 1 and uniform is not None and not _sources.is_scalar_type(values[0].type):
        value_args = [("uniform", None)]  # a struct: the whole uniform, padding and all
    elif len(values) == len(fields) and (fields or uniform is None):
        value_args = fields
    unmatched = [p.name for p in params if p.name not in known]
    if len(pointers) != len(buffers) or value_args is None:
        raise InvalidArgument(
            f"kernel {kernel.id}: the parameters {unmatched} of {entry} name no buffer or "
            f"uniform field (known: {', '.join(known) or 'none'}), and by position its "
            f"{len(pointers)} pointer and {len(values)} value parameters do not fit the "
            f"{len(buffers)} buffers and {len(fields)} uniform fields; name the "
            "parameters as the BufferSpecs and fields are named, or give "
            "arguments=(...) in the kernel's order"
        )
    buffer_args, value_iter = iter(_pointer_order(kernel, pointers, buffers)), iter(value_args)
    found = tuple(
        next(buffer_args) if p.pointer else known[p.name] if p.name in by_name else next(value_iter)
        for p in params
    )
    for param, argument in zip(params, found):
        if param.name in known and known[param.name] != argument:
            raise InvalidArgument(
                f"kernel {kernel.id}: parameter {param.name!r} of {entry} is named like "
                f"{_describe(kernel, known[param.name])} but sits where "
                f"{_describe(kernel, argument)} goes by position (the "
                f"parameters {unmatched} match no name); name every parameter as the "
                "spec does, or give arguments=(...)"
            )
    return found


def _pointer_order(kernel: KernelSpec, pointers: Sequence[Any], buffers: list) -> list:
    """The buffers for ``pointers`` in their order: where the kernel marks its inputs
    ``const`` and they are as many as the spec's read-only buffers, const pointers take
    those and the others the writable ones, each in binding order (``(float* out, const
    float* in, int n)`` over buffers in, out: out is the output); else binding order."""
    const = [p.reads_only for p in pointers]
    read = [b for b in buffers if kernel.buffers[b[1]].access is Access.READ]
    written = [b for b in buffers if kernel.buffers[b[1]].access is not Access.READ]
    if not any(const) or sum(const) != len(read) or len(pointers) - sum(const) != len(written):
        return buffers
    reads, writes = iter(read), iter(written)
    return [next(reads) if c else next(writes) for c in const]


def _describe(kernel: KernelSpec, argument: Argument) -> str:
    kind, key = argument
    if kind == "buffer":
        return f"buffer {kernel.buffers[key].name or key!r}"
    if kind == "value":
        return f"value {key[0]!r}"
    return f"uniform field {key!r}" if kind == "field" else "the uniform struct"
