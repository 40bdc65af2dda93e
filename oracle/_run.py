"""``oracle.run(ctx, kernel, inputs, size=None)``: a kernel run on the user's own
arrays, returning its outputs as numpy arrays by buffer name.

Inputs are numpy arrays or anything with ``__dlpack__`` (torch and CuPy tensors);
their dtype and element count are checked against the spec (a float64 array for an
f32 buffer is an error, never reinterpreted bytes). The size is taken from the arrays
when a buffer's count is the size itself (or its ``shape`` names the dimensions);
otherwise give it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from forge.errors import InvalidArgument
from forge.kernel import Access, KernelSpec
from forge.layout import as_elements
from forge.schedule import Schedule

from ._evaluate import DEFAULT_TIMEOUT_S, as_runner, bound_for, choose_schedule
from ._inputs import buffer_label, make_case
from ._plan import build_plan

__all__ = ["run"]


def _as_array(value: Any) -> np.ndarray:
    if hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray):
        try:
            return np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError):
            if hasattr(value, "cpu"):
                return np.asarray(value.detach().cpu() if hasattr(value, "detach") else value.cpu())
            if hasattr(value, "get"):  # CuPy
                return np.asarray(value.get())
            raise
    return np.asarray(value)


def _infer_size(kernel: KernelSpec, arrays: Mapping[str, np.ndarray]) -> Any:
    """The size the arrays imply, or None when they do not say."""
    named: dict[str, int] = {}
    for spec in kernel.buffers:
        array = arrays.get(buffer_label(spec))
        if array is None or spec.access is Access.UNIFORM:
            continue
        lanes = int(np.prod(spec.dtype.shape)) if spec.dtype.shape else 1
        if spec.count is None and len(kernel.dims) == 1:
            return array.size // lanes
        if isinstance(spec.shape, (tuple, list)) and array.ndim == len(spec.shape):
            for dim, extent in zip(spec.shape, array.shape):
                if isinstance(dim, str) and dim in kernel.dims:
                    named[dim] = extent
    if set(named) == set(kernel.dims):
        return named
    return None


def run(
    ctx: Any,
    kernel: KernelSpec,
    inputs: Mapping[str, Any],
    size: Any = None,
    *,
    schedule: Schedule | None = None,
    uniform: Mapping[str, Any] | None = None,
    timeout_s: Any = DEFAULT_TIMEOUT_S,
) -> dict[str, np.ndarray]:
    """Run ``kernel`` once on ``ctx`` (an open context) with ``inputs`` (arrays by
    buffer name: every input, and the initial contents of inout buffers) and return
    every read-write buffer's contents by name, shaped as the spec says. Raises the
    backend's ``ForgeError`` when the run fails."""
    if not isinstance(kernel, KernelSpec):
        raise InvalidArgument(f"expected a KernelSpec, got {type(kernel).__name__}")
    if not isinstance(inputs, Mapping):
        raise InvalidArgument(
            f"inputs are a mapping of buffer names to arrays, got {type(inputs).__name__}"
        )
    arrays = {name: _as_array(value) for name, value in inputs.items()}
    missing = [
        buffer_label(s)
        for s in kernel.buffers
        if (s.access is Access.READ or s.inout) and buffer_label(s) not in arrays
    ]
    if missing:
        raise InvalidArgument(f"kernel {kernel.id} needs inputs {missing}; give an array for each")
    if size is None:
        size = _infer_size(kernel, arrays)
        if size is None:
            raise InvalidArgument(
                f"the size of kernel {kernel.id} does not follow from the "
                f"arrays; give size= (its dimensions: {', '.join(kernel.dims)})"
            )
    size = kernel.size(size)
    runner = as_runner(ctx)
    timeout_s = bound_for(timeout_s, runner)
    case = make_case(kernel, size, 0, uniform, given=arrays)
    info = runner.info
    schedule = schedule or choose_schedule(info, kernel)
    plan = dataclasses.replace(
        build_plan(
            kernel, case, info, schedule, guard=0, warmups=0, samples=0, timeout_s=timeout_s
        ),
        rerun=False,
    )
    outcome = runner.execute(plan)
    if outcome.error is not None:
        raise outcome.error.as_exception()
    outputs = {}
    for spec, region, raw in zip(kernel.buffers, plan.regions, outcome.first):
        if spec.access is not Access.READ_WRITE:
            continue
        data = raw[region.start : region.start + region.count * region.itemsize]
        values = as_elements(
            np.frombuffer(data.tobytes(), np.uint8), spec.dtype_for(info.target), region.count
        )
        logical = kernel.buffer_values(spec, values, info.target).copy()
        shape = spec.shape_at(size) + logical.shape[1:] if spec.shape is not None else logical.shape
        outputs[buffer_label(spec)] = (
            logical.reshape(shape) if spec.dtype.names is None else logical
        )
    return outputs
