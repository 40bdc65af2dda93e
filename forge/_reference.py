"""A kernel's numpy reference: how it is called, how what it gives back is stored, and
the tolerance a result is judged within at a size.

``KernelSpec.run_reference``, ``reference_arrays``, ``reference_reads_device`` and
``tolerance_at`` call these functions; ``RawBody.evaluate`` calls ``reference_call``.
They live here so that the rules of a reference (the buffers by name, in order or the
inputs alone; outputs written in place or returned; the errors that say what does not
fit and how to fix it) read as one piece, apart from the kernel's declaration.
"""

from __future__ import annotations

import ctypes
import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .buffers import Access, BufferSpec
from .errors import ForgeError, InvalidArgument, ReferenceFailed, UnsupportedFeature
from .expressions import resolve

if TYPE_CHECKING:  # forge.kernel calls this module, never the other way round
    from .kernel import KernelSpec

__all__ = [
    "reference_call",
    "reads_device",
    "reference_arrays",
    "run_reference",
    "reference_bound",
    "set_reference_bound",
    "tolerance_at",
]

# How long one call of a numpy reference may take before it is stopped and reported as
# a reference error ("reference-error"), in seconds; None: unbounded. A reference in
# plain Python loops over a large size is slow, not wrong, so the bound is generous; one
# that never returns (a loop that does not end, a wait on nothing) no longer holds the
# whole check. ``kforge check --reference-timeout`` sets it.
DEFAULT_REFERENCE_BOUND_S = 120.0
_bound_s: float | None = DEFAULT_REFERENCE_BOUND_S


def reference_bound() -> float | None:
    """Seconds one call of a numpy reference may take (None: unbounded)."""
    return _bound_s


def set_reference_bound(seconds: float | None) -> float | None:
    """Bound every later reference call to ``seconds`` (None: unbounded), on every
    thread; returns the bound it replaces."""
    global _bound_s
    if seconds is not None and not seconds > 0:
        raise InvalidArgument(f"a reference bound must be positive seconds or None, got {seconds}")
    previous, _bound_s = _bound_s, (None if seconds is None else float(seconds))
    return previous


class _Overran(BaseException):
    """Raised inside a reference that ran past its bound. A BaseException, so that a
    reference's own ``except Exception`` does not swallow it."""


class _Watch:
    """Stops the calling thread's reference when ``seconds`` pass: a timer raises
    ``_Overran`` in it, at its next Python instruction (a numpy call already running
    finishes first). ``finish`` ends the watch; after it nothing is raised, and a
    raise already pending but not delivered is withdrawn (``overran`` says so)."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.thread = seconds, threading.get_ident()
        self.lock, self.done, self.overran = threading.Lock(), False, False
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True

    def __enter__(self) -> _Watch:
        self.timer.start()
        return self

    def _fire(self) -> None:
        with self.lock:
            if not self.done:
                self.overran = True
                _async_raise(self.thread, _Overran)

    def __exit__(self, *exc: Any) -> None:
        with self.lock:
            self.done = True
            if self.overran:  # raised, perhaps not yet delivered: withdraw it
                _async_raise(self.thread, None)
        self.timer.cancel()


def _async_raise(thread: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exc) if exc is not None else None
    )


def reference_call(
    reference: Callable, kernel: KernelSpec, arrays: Sequence[Any], size: Any = None
) -> tuple[list, dict]:
    """How a numpy reference takes the buffers: by name when every parameter names a
    buffer (``def ref(y, x)`` gets y as y); else all of them in (group, binding) order
    when its parameters fit that; else by name when every parameter it needs names a
    buffer (``def ref(x, y)`` of a kernel that also has a uniform); else the inputs alone
    in order, without the uniform or with it, when that fits (``def ref(a, b): return
    a + b``, the outputs returned). A keyword-only parameter named after a buffer gets
    that buffer (``def ref(x, *, out)``), whichever way the others are given.

    A parameter named like no buffer but like a value the kernel passes by value at
    ``size`` (a dimension of the size, what ``defaults`` or ``params(size)`` give: the
    scalars a CUDA kernel takes as ``const float eps``) gets that value by name, when
    it comes after the parameters the buffers are given to in order (``def ref(output,
    input, gamma, eps)``): a kernel without a uniform block had no other way to hand
    its reference such a value."""
    try:
        parameters = list(inspect.signature(reference).parameters.values())
    except (TypeError, ValueError):  # a builtin or C function: no signature to read
        return list(arrays), {}
    parameters = [p for p in parameters if p.name != "constraints"]
    labels = _labels(kernel, arrays)
    keyword_only = {
        p.name: labels[p.name] for p in parameters if p.kind is p.KEYWORD_ONLY and p.name in labels
    }
    taken = {id(a) for a in keyword_only.values()}
    pairs = [(spec, a) for spec, a in zip(kernel.buffers, arrays) if id(a) not in taken]
    scalars = _scalar_values(kernel, parameters, labels, size)
    if scalars:
        rest = [p for p in parameters if p.name not in scalars]
        args, named = _positional_call(reference, kernel, pairs, rest, labels)
        given = _given_positionally(rest, len(args))
        if given is not None:
            last = parameters.index(given[-1]) if given else -1
            if all(parameters.index(p) > last for p in parameters if p.name in scalars):
                return args, {**named, **keyword_only, **scalars}
    args, named = _positional_call(reference, kernel, pairs, parameters, labels)
    valued = [p.name for p in _given_positionally(parameters, len(args)) or () if p.name in scalars]
    if valued:  # ``def ref(alpha)``: an array for a value would run it on nonsense
        raise InvalidArgument(
            f"the parameters of {getattr(reference, '__qualname__', 'the reference')} "
            f"({', '.join(p.name for p in parameters)}) would give a buffer to "
            f"{', '.join(valued)}, named like a value kernel {kernel.id} passes by value: "
            f"name its other parameters after the buffers ({', '.join(labels)}) or take "
            "them in (group, binding) order, before the values"
        )
    return args, {**named, **keyword_only}


def _given_positionally(parameters: list, count: int) -> list | None:
    """The parameters ``count`` positional arguments land in (a ``*args`` takes what is
    left over), or None where they do not fit: a reference whose parameters name only
    values (``def ref(alpha)``) is then called with the buffers, and its own error says
    why, not an index error of ours."""
    slots = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if count <= len(slots):
        return slots[:count]
    star = [p for p in parameters if p.kind is p.VAR_POSITIONAL]
    return slots + star if star else None


def _scalar_values(kernel: KernelSpec, parameters: list, labels: dict, size: Any) -> dict:
    """The values (``forge.arguments.values_by_name``) of the reference's parameters
    named like one and like no buffer."""
    wanted = [
        p.name
        for p in parameters
        if p.name not in labels and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if not wanted or size is None:
        return {}
    from .arguments import values_by_name  # forge.arguments reads the kernel's sources

    values = values_by_name(kernel, size)
    return {name: values[name] for name in wanted if name in values}


def _labels(kernel: KernelSpec, arrays: Sequence[Any]) -> dict[str, Any]:
    """Each buffer's array by label, and the uniform also as ``params``."""
    labels = {spec.label: a for spec, a in zip(kernel.buffers, arrays)}
    if kernel.uniform is not None:
        labels.setdefault("params", arrays[kernel.buffers.index(kernel.uniform)])
    return labels


def _positional_call(
    reference: Callable, kernel: KernelSpec, pairs: list, parameters: list, labels: dict
) -> tuple[list, dict]:
    """``reference_call`` for the parameters that may be given positionally; ``pairs``
    are the buffers (spec, array) in order, less those given by keyword only."""
    arrays = [a for _, a in pairs]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return list(arrays), {}
    takes = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    needs = [p for p in takes if p.default is p.empty]
    # a parameter with a default that names no buffer keeps its default, and so do those
    # after it (``def ref(x, scale=2.0)``, ``np.cumsum(a, axis=None)``): given the output
    # in order, it was a false reference-error
    for i, p in enumerate(takes):
        if p.default is not p.empty and p.name not in labels:
            takes = takes[:i]
            break
    named = [p for p in takes if p.name in labels and p.kind is not p.POSITIONAL_ONLY]
    if needs and len(named) == len(takes):  # every parameter names a buffer: by name
        return [], {p.name: labels[p.name] for p in named}
    if len(needs) <= len(arrays) <= len(takes):
        return _in_order(reference, kernel, takes, labels, list(arrays)), {}
    if needs and all(p in named for p in needs):
        return [], {p.name: labels[p.name] for p in named}
    read = [(s, a) for s, a in pairs if not s.is_output or s.inout]
    for inputs in ([a for s, a in read if s.access is not Access.UNIFORM], [a for _, a in read]):
        if len(needs) <= len(inputs) <= len(takes):
            return _in_order(reference, kernel, takes, labels, inputs), {}
    return list(arrays), {}  # does not fit: the call raises, and the error says why


def _in_order(reference: Callable, kernel: KernelSpec, takes: list, labels: dict, given: list):
    """``given`` (arrays in order) for the reference's parameters, refused where a
    parameter named after a buffer would get another one: its parameters mix names of
    buffers with other names (``def ref(out, inp, bias)`` for buffers in, bias, out)."""
    wrong = [
        p.name for p, array in zip(takes, given) if p.name in labels and labels[p.name] is not array
    ]
    if wrong:
        unknown = [p.name for p in takes if p.name not in labels]
        raise InvalidArgument(
            f"the parameters of {getattr(reference, '__qualname__', 'the reference')} "
            f"({', '.join(p.name for p in takes)}) name buffers ({', '.join(wrong)}) but "
            f"not in the order they would be given, and "
            f"{', '.join(unknown) or 'some'} name{'s' if len(unknown) == 1 else ''} no "
            f"buffer of kernel {kernel.id} ({', '.join(labels)}): name every parameter "
            "after a buffer, or take them all in (group, binding) order"
        )
    return given


def reads_device(kernel: KernelSpec) -> bool:
    """Whether the numpy reference takes the adapter's ``constraints``."""
    function = kernel.reference
    if function is None:
        return False
    try:
        return "constraints" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def reference_arrays(kernel: KernelSpec, arrays: Sequence[Any], size: Any) -> list[Any]:
    """The arrays the reference sees: each buffer reshaped to its ``shape``, the
    uniform as its record."""
    shaped = []
    for spec, array in zip(kernel.buffers, arrays):
        if spec.access is Access.UNIFORM:  # a record: p["alpha"] and p.alpha
            record = array.view(np.recarray) if isinstance(array, np.ndarray) else array
            shaped.append(record[0] if isinstance(record, np.ndarray) and record.ndim else record)
        elif spec.shape is not None and size is not None:
            array = np.asarray(array)  # a vector's lanes stay trailing axes: (H, W, 2)
            shaped.append(array.reshape(spec.shape_at(size) + array.shape[1:]))
        else:
            shaped.append(array)
    return shaped


def run_reference(
    kernel: KernelSpec, arrays: Sequence[Any], size: Any = None, constraints: Any = None
) -> None:
    """Evaluate the kernel's numpy meaning over ``arrays`` (buffers in (group,
    binding) order, each trimmed to its element count; the uniform as a record) and
    leave the outputs in them, whether the function wrote them in place or returned
    them. Raises ``ReferenceFailed`` naming the output and the fix when it returned
    something that does not fit, and when the function itself raised."""
    if len(arrays) != len(kernel.buffers):
        raise InvalidArgument(
            f"kernel {kernel.id} has {len(kernel.buffers)} buffers, got {len(arrays)} arrays"
        )
    shaped = reference_arrays(kernel, arrays, size)
    before = _output_bytes(kernel, shaped)
    bound = _bound_s
    try:
        if bound is None:
            returned = kernel.body.evaluate(kernel, shaped, size, constraints)
        else:
            with _Watch(bound) as watch:
                returned = kernel.body.evaluate(kernel, shaped, size, constraints)
            if watch.overran:
                raise _Overran
    except _Overran:
        raise ReferenceFailed(
            f"the reference of kernel {kernel.id} "
            f"({getattr(kernel.reference, '__qualname__', 'its numpy function')}) ran "
            f"past {bound:g} s and was stopped; a reference in Python loops over a large "
            "size is slow: give the kernel smaller test sizes, write the reference with "
            "numpy's array operations, or raise the bound (kforge check "
            "--reference-timeout SECONDS, forge.set_reference_bound)"
        ) from None
    except ForgeError as exc:
        if isinstance(exc, UnsupportedFeature):
            raise
        raise ReferenceFailed(
            f"the reference of kernel {kernel.id} raised {type(exc).__name__}: {exc}"
        ) from exc
    except (Exception, SystemExit) as exc:  # sys.exit() in it must not end the whole run
        where = getattr(kernel.reference, "__qualname__", "the reference")
        hint = (
            "; it is called with the buffers "
            f"({', '.join(b.label for b in kernel.buffers)}) in (group, binding) order, by "
            "name when its parameters name buffers, or with the inputs alone; a "
            "parameter after those named like a dimension of the size or a value "
            f"defaults/params(size) give ({_value_names(kernel, size)}) gets that value"
            if isinstance(exc, TypeError) and "argument" in str(exc)
            else _index_hint(kernel)
            if isinstance(exc, IndexError)
            else ""
        )
        raise ReferenceFailed(
            f"the reference of kernel {kernel.id} ({where}) raised "
            f"{type(exc).__name__}: {exc}{hint}"
        ) from exc
    if returned is not None:
        _store_returned(kernel, returned, shaped, before)


def _value_names(kernel: KernelSpec, size: Any) -> str:
    """The names a reference's parameter may take a value by, for an error."""
    if size is None:
        return "none"
    from .arguments import values_by_name

    try:
        return ", ".join(values_by_name(kernel, size)) or "none"
    except Exception:  # the error being reported is the reference's, not this one
        return "none"


# Outputs up to this many bytes in all are copied before the reference runs, so that one
# writing some outputs in place and returning the others can be told apart.
_SNAPSHOT_LIMIT = 64 << 20


def _output_bytes(kernel: KernelSpec, shaped: list) -> dict[int, bytes] | None:
    """The bytes of each output before the reference runs, by buffer index, for a
    kernel of several outputs not too large to copy; None otherwise."""
    outputs = [i for i, spec in enumerate(kernel.buffers) if spec.is_output]
    arrays = [shaped[i] for i in outputs if isinstance(shaped[i], np.ndarray)]
    if len(outputs) < 2 or len(arrays) < len(outputs):
        return None
    if sum(a.nbytes for a in arrays) > _SNAPSHOT_LIMIT:
        return None
    return {i: shaped[i].tobytes() for i in outputs}


def _index_hint(kernel: KernelSpec) -> str:
    """For a reference that indexed out of range: integer inputs without a domain or a
    fill are drawn over their whole range, so indices (tokens, gathers) need one."""
    free = [
        b.label
        for b in kernel.inputs
        if b.dtype.kind in "iu" and b.fill is None and b.label not in (kernel.domain or {})
    ]
    if not free:
        return ""
    example = free[0]
    return (
        f"; integer inputs are drawn over their whole range unless the kernel declares "
        f"their domain: if {', '.join(free)} index into another buffer, give "
        f"domain={{{example!r}: (0, LAST_INDEX)}} (or a fill)"
    )


def _store_returned(
    kernel: KernelSpec, returned: Any, shaped: list, before: dict[int, bytes] | None = None
) -> None:
    """What the reference returned (an array, a tuple in output order, or a dict keyed by
    output name) written into the outputs' arrays, refused with the fix when its count,
    shape or dtype is off. With ``before`` (the outputs' bytes before the call), fewer
    values than outputs fill, in order, the outputs the reference did not write in
    place."""
    outputs = [(i, spec) for i, spec in enumerate(kernel.buffers) if spec.is_output]
    if isinstance(returned, Mapping):
        returned = _by_output_name(kernel, returned, [spec for _, spec in outputs])
    values = returned if isinstance(returned, tuple) else (returned,)
    if isinstance(returned, list) and len(outputs) > 1:
        values = tuple(returned)
    if len(values) < len(outputs) and before is not None:
        untouched = [(i, s) for i, s in outputs if shaped[i].tobytes() == before[i]]
        if len(untouched) == len(values):  # the rest were written in place
            outputs = untouched
    if len(values) != len(outputs):
        written = (
            [s.label for i, s in outputs if shaped[i].tobytes() != before[i]]
            if before is not None
            else []
        )
        also = (
            f"; it wrote {', '.join(written)} in place, and values returned besides fill "
            "the outputs it did not write, in order"
            if written
            else ""
        )
        raise ReferenceFailed(
            f"the reference of kernel {kernel.id} returned {len(values)} value(s), but the "
            f"kernel has {len(outputs)} output(s) ({', '.join(s.label for _, s in outputs)})"
            f"{also}; return them as a tuple in that order, or write them in place"
        )
    for (index, spec), value in zip(outputs, values):
        target = shaped[index]
        got = np.asarray(value)
        if got.ndim == 0 and target.size == 1:  # return x.sum() for a one-element output
            got = got.reshape(target.shape)
        if got.shape != target.shape and _squeezed(got.shape) == _squeezed(target.shape):
            got = got.reshape(target.shape)  # x.sum(axis=1, keepdims=True): (R, 1) for (R,)
        if _widened_to_fit(got, target, spec) or _value_cast(got, target):
            got = got.astype(target.dtype)
        if got.shape != target.shape or got.dtype != target.dtype:
            hint = (
                f" (declare shape=... on the BufferSpec, or return {spec.label}.reshape(-1))"
                if got.size == target.size and got.dtype == target.dtype
                else f" (its bytes are what a kernel writes: .view(np.{target.dtype.name}); "
                f".astype would convert the values)"
                if got.shape == target.shape and _float_bits(got.dtype, target.dtype)
                else f" (cast it: .astype(np.{target.dtype.name}))"
                if got.shape == target.shape
                else ""
            )
            raise ReferenceFailed(
                f"the reference of kernel {kernel.id} returned for output {spec.label} an "
                f"array of shape {got.shape} and dtype {got.dtype}; the output holds shape "
                f"{target.shape} of {target.dtype}{hint}"
            )
        target[...] = got


def _float_bits(got: np.dtype, target: np.dtype) -> bool:
    """Whether ``got`` is a one-byte float (ml_dtypes' ``float8_e4m3fn`` and the like)
    returned for a byte buffer (``u8``, as an FP8 output is declared): the buffer holds
    its bits, which ``.view`` keeps and ``.astype`` would convert (448.0 -> 0)."""
    if got.itemsize != 1 or target.itemsize != 1 or target.kind not in "iu":
        return False
    if got.kind == "f":
        return True
    try:
        import ml_dtypes

        ml_dtypes.finfo(got)
    except (ImportError, ValueError, TypeError):
        return False
    return True


def _squeezed(shape: tuple) -> tuple:
    """``shape`` without its unit dimensions: two shapes equal so hold the same elements
    in the same order."""
    return tuple(n for n in shape if n != 1)


def _by_output_name(kernel: KernelSpec, returned: Mapping, outputs: list) -> tuple:
    """A dict returned by the reference, keyed by output name, in output order: every
    output named once, nothing else."""
    labels = [spec.label for spec in outputs]
    keys = [str(k) for k in returned]
    if sorted(keys) != sorted(labels):
        missing = [label for label in labels if label not in keys]
        extra = [k for k in keys if k not in labels]
        raise ReferenceFailed(
            f"the reference of kernel {kernel.id} returned a dict keyed "
            f"{', '.join(keys) or '(nothing)'}; a dict must name each output once "
            f"({', '.join(labels)})"
            + (f": missing {', '.join(missing)}" if missing else "")
            + (f"; not outputs: {', '.join(extra)}" if extra else "")
        )
    by_key = {str(k): v for k, v in returned.items()}
    return tuple(by_key[label] for label in labels)


def _widened_to_fit(got: np.ndarray, target: np.ndarray, spec: BufferSpec) -> bool:
    """Whether ``got`` fits an output the oracle widened (a float32 output run in
    float64, to bound rounding): a reference that returns its output's declared dtype,
    as numpy code casts its result, is right there too, and is taken cast. Where the
    output holds its declared dtype, the dtype must be that one exactly."""
    return (
        got.shape == target.shape
        and target.dtype != spec.dtype
        and got.dtype != target.dtype
        and np.can_cast(got.dtype, target.dtype, "safe")
    )


def _value_cast(got: np.ndarray, target: np.ndarray) -> bool:
    """Whether ``got`` is the output's values in a wider type, as numpy code computes
    them, taken cast: floats for a float output (``2.0 * x.astype(np.float64)`` for an
    f32 one, round 28: refused until then, the right kernel never judged), integers
    or booleans for an integer output that holds each exactly (``x.sum(axis=1)`` is
    int64 for an i32 ``x``), integers or booleans for a float output. Floats for an
    integer output stay refused: which rounding was meant is the reference's to say."""
    if got.shape != target.shape or got.dtype == target.dtype:
        return False
    floats = target.dtype.kind == "f" or target.dtype.name in ("bfloat16", "float8_e4m3fn")
    if floats:
        return got.dtype.kind in "fiub"
    if target.dtype.kind in "iu" and got.dtype.kind in "iub":
        if got.size == 0 or got.dtype.kind == "b":
            return True
        limits = np.iinfo(target.dtype)
        return bool(got.min() >= limits.min and got.max() <= limits.max)
    return False


def tolerance_at(kernel: KernelSpec, size: Any) -> Mapping[str, Any]:
    """The tolerance table at ``size``: ``tolerance``, or what ``tolerance(size)``
    returns (the rounding error of a k-long dot product grows with k, so a GEMM's
    budget at k = 4096 is not its budget at k = 64)."""
    if not callable(kernel.tolerance):
        return kernel.tolerance
    found = resolve(kernel.tolerance, None, size, f"kernel {kernel.id}'s tolerance", False)
    if not isinstance(found, Mapping):
        raise InvalidArgument(
            f"kernel {kernel.id}: tolerance(size) must return a mapping of tolerances "
            f"(keys: a dtype name or 'backend:NAME'), got {type(found).__name__}"
        )
    return found
