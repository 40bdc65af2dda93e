"""The executor of the public-API fuzz (test_fuzz.py generates the programs).

A program is a list of operations on one fresh context, written as JSON-able data so
that it can cross into a fresh interpreter: ``["alloc", size, binding, group, usage]``,
``["run", kernel, schedule, buffers, n, warmups, samples]``... Their arguments are
value descriptions that ``Program.make`` turns into the real (often hostile) values:
plain JSON values stand for themselves, tagged lists for the rest (``["np", "int64",
5]`` is ``numpy.int64(5)``, ``["view", 2]`` the program's third view, ...).

Each operation must return, or raise a ``ForgeError``. After each one, every view the
program wrote and still holds must read back the bytes written into it (or be refused
as released), and a sentinel view the program never names must keep its bytes: a
bad call that wrote through a stale or forged view, or past a view's end, shows here.

Run as ``python -m tests.reliability._fuzz BACKEND < programs.json``: prints one JSON
line per program, ``{"program": i, "failures": [...]}``; a crash or a hang is for the
caller to see (the exit status, a timeout).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import traceback

import numpy as np

import forge
from forge import (
    Access,
    BindingUsage,
    BufferView,
    ContextClosed,
    DeviceLost,
    ForgeError,
    KernelSpec,
    Schedule,
)

CAPACITY = 1 << 20
KERNELS = ("raw_affine", "affine", "add", "softmax", "gemm")
AFFINE = forge.get_kernel("raw_affine")


def _variant(kernel: KernelSpec, how: str) -> KernelSpec:
    """``kernel`` with a hostile geometry or count function, or a repeated field."""
    grid = {
        "grid4": lambda s, n: (1, 1, 1, 1),
        "grid_float": lambda s, n: (1.5, 1, 1),
        "grid_raises": lambda s, n: 1 // 0,
        "grid_huge": lambda s, n: (2**40, 1, 1),
        "grid_zero": lambda s, n: (0, 0, 0),
    }
    if how in grid:
        return dataclasses.replace(kernel, id=f"{kernel.id}_{how}", grid=grid[how])
    count = {
        "count_negative": lambda n: -n,
        "count_float": lambda n: n / 2,
        "count_huge": lambda n: 2**62,
    }[how]
    buffers = tuple(
        dataclasses.replace(b, count=count) if b.access is Access.READ_WRITE else b
        for b in kernel.buffers
    )
    return dataclasses.replace(kernel, id=f"{kernel.id}_{how}", buffers=buffers)


class Program:
    """One program's run on a fresh context, with the model of what its views hold."""

    def __init__(self, backend: str, ops: list) -> None:
        self.backend, self.ops = backend, ops
        self.views: list = []  # every view the program got, live or not
        self.expected: dict = {}  # view -> the bytes it must hold while live
        self.checkpoints: list[int] = []
        self.fences: list[int] = []
        self.failures: list[str] = []

    # -- values --------------------------------------------------------------------
    def make(self, spec):
        """The value ``spec`` describes (see the module docstring)."""
        if not isinstance(spec, list) or not spec or not isinstance(spec[0], str):
            return spec
        tag, *rest = spec
        maker = getattr(self, f"_make_{tag}", None)
        return spec if maker is None else maker(*rest)

    def _make_list(self, *items):
        return [self.make(item) for item in items]

    def _make_tuple(self, *items):
        return tuple(self.make(item) for item in items)

    def _make_np(self, dtype, value):
        return np.dtype(dtype).type(value)

    def _make_usage(self, name):
        return BindingUsage[name]

    def _make_array(self, dtype, shape, layout):
        count = int(np.prod(shape)) if shape else 1
        if dtype == "object":
            array = np.array([object()] * count, dtype=object).reshape(shape)
        else:
            raw = np.random.default_rng(count).integers(
                0, 256, count * np.dtype(dtype).itemsize, dtype=np.uint8
            )
            array = raw.view(dtype).reshape(shape)
        if layout == "strided" and array.ndim:
            array = array[::2]
        elif layout == "readonly":
            array.flags.writeable = False
        return array

    def _make_bytes(self, size, kind):
        data = bytes(range(256)) * (size // 256 + 1)
        data = data[:size]
        if kind == "bytearray":
            return bytearray(data)
        if kind == "memoryview":
            return memoryview(data)
        if kind == "released":
            view = memoryview(data)
            view.release()
            return view
        return data

    def _make_view(self, index):
        return self.views[index % len(self.views)] if self.views else BufferView(0, 16, 0)

    def _make_forged(self, index, field, delta):
        view = self._make_view(index)
        return dataclasses.replace(view, **{field: getattr(view, field) + delta})

    def _make_kernel(self, name, variant):
        kernel = forge.get_kernel(name)
        return kernel if variant is None else _variant(kernel, variant)

    def _make_schedule(self, *args):
        return Schedule(*(self.make(a) for a in args))

    def _make_checkpoint(self, index, delta):
        base = self.checkpoints[index % len(self.checkpoints)] if self.checkpoints else 0
        return base + delta

    def _make_fence(self, index, delta):
        base = self.fences[index % len(self.fences)] if self.fences else 0
        return base + delta

    def _make_end(self, index):  # a view's end: where advance_read_head releases to
        view = self._make_view(index)
        return view.end

    # -- operations ----------------------------------------------------------------
    def op_alloc(self, ctx, size, binding, group, usage):
        self.views.append(ctx.allocate_transient(size, binding, group, usage))

    def op_alloc_write(self, ctx, data, binding, group, usage):
        view = ctx.allocate_and_write(data, binding, group, usage)
        self.views.append(view)
        self.expected[view] = bytes(_payload(data))

    def op_write(self, ctx, view, data):
        ctx.write_view(view, data)
        payload = bytes(_payload(data))
        old = self.expected.get(view)
        if old is not None:
            self.expected[view] = payload + old[len(payload) :]

    def op_read(self, ctx, kind, view):
        got = getattr(ctx, f"read_buffer_{kind}")(view)
        self._compare(view, got.tobytes(), f"read_buffer_{kind}")

    def op_read_into(self, ctx, view, out):
        ctx.read_buffer_u32_into(view, out)
        self._compare(view, out.tobytes(), "read_buffer_u32_into", prefix=True)

    def op_checkpoint(self, ctx):
        self.checkpoints.append(ctx.write_checkpoint())

    def op_restore(self, ctx, checkpoint):
        ctx.restore_checkpoint(checkpoint)

    def op_advance(self, ctx, offset, slab):
        ctx.advance_read_head(offset, slab)

    def op_clear(self, ctx):
        ctx.clear_transient_allocations()

    def op_run(self, ctx, kernel, schedule, buffers, n, warmups, samples):
        self._forget_outputs(buffers)
        ctx.run_kernel(kernel, schedule, buffers, n, warmups, samples)

    def op_dispatch(self, ctx, kernel, schedule, buffers, n):
        self._forget_outputs(buffers)
        self.fences.append(ctx.dispatch(kernel, schedule, buffers, n))

    def op_prepared(self, ctx, kernel, schedule, size, n, how):
        """Views made for ``kernel`` at ``size`` (inputs written, the uniform packed),
        then a run or dispatch of it at ``n`` (None: ``size``)."""
        if not isinstance(kernel, KernelSpec):
            return
        views = []
        for spec in kernel.buffers:
            if spec.access is Access.UNIFORM:
                view = ctx.allocate_and_write(
                    kernel.pack_uniform(size), spec.binding, spec.group, BindingUsage.UNIFORM
                )
            elif spec.byte_size(size) > CAPACITY:  # the context refuses it, no array needed
                view = ctx.allocate_transient(
                    spec.byte_size(size), spec.binding, spec.group, spec.access.default_usage
                )
            else:
                data = np.arange(max(1, spec.element_count(size)), dtype=spec.dtype) % 17
                view = ctx.allocate_and_write(
                    data, spec.binding, spec.group, spec.access.default_usage
                )
            self.views.append(view)
            views.append(view)
            if spec.access is not Access.READ_WRITE:
                self.expected[view] = ctx.read_buffer_u32(view).tobytes()
        if how == "run":
            ctx.run_kernel(kernel, schedule, views, size if n is None else n)
        else:
            self.fences.append(ctx.dispatch(kernel, schedule, views, size if n is None else n))

    def op_wait(self, ctx, fence):
        ctx.wait(fence)

    def op_timeout(self, ctx, value):
        ctx.timeout_s = value

    def op_pack(self, ctx, kernel, n, values):
        if isinstance(kernel, KernelSpec):  # a method of kernels, not of anything
            kernel.pack_uniform(n, **values)

    def op_affine(self, ctx, n):
        """A valid run of raw_affine whose result must be exactly right."""
        x = np.arange(n, dtype=np.float32) - n // 3
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(4 * n, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(AFFINE.pack_uniform(n), 2, usage=BindingUsage.UNIFORM),
        ]
        self.views += views
        self.expected[views[0]] = x.tobytes()
        ctx.run_kernel(AFFINE, Schedule(64), views, n)
        got = ctx.read_buffer_f32(views[1])
        want = np.float32(2.0) * x + np.float32(0.5)
        if not np.array_equal(got, want):
            self.failures.append(f"raw_affine at n={n} computed a wrong result")

    # -- checks --------------------------------------------------------------------
    def _forget_outputs(self, buffers) -> None:
        """Views a kernel may write no longer have known contents."""
        try:
            for view in buffers:
                if isinstance(view, BufferView) and view.usage is BindingUsage.STORAGE_READ_WRITE:
                    self.expected.pop(view, None)
        except TypeError:
            pass  # not iterable: the call refuses it

    def _compare(self, view, got: bytes, what: str, prefix: bool = False) -> None:
        want = self.expected.get(view)
        if want is None:
            return
        if prefix:
            want = want[: len(got)]
        if got[: len(want)] != want:
            self.failures.append(f"{what} of {view} returned other bytes than were written")

    def check_views(self, ctx, sentinel, sentinel_bytes, after: str) -> None:
        """Every written view still live holds its bytes; the sentinel too."""
        for view, want in [(sentinel, sentinel_bytes), *self.expected.items()]:
            try:
                got = (
                    ctx.read_buffer_u32(view).tobytes()
                    if view.length_bytes % 4 == 0
                    else _read_bytes(ctx, view)
                )
            except (ContextClosed, DeviceLost):
                return
            except ForgeError:
                continue  # released: its bytes are no longer its own
            shared = min(len(got), len(want))  # _read_bytes reads whole words only
            if got[:shared] != want[:shared]:
                name = "the sentinel" if view is sentinel else f"{view}"
                self.failures.append(f"after {after}: {name} changed")

    def run(self) -> list[str]:
        ctx = forge.open_context(self.backend, capacity_bytes=CAPACITY)
        ctx.timeout_s = 30
        try:
            sentinel_bytes = np.random.default_rng(1).integers(0, 2**32, 64, np.uint32)
            sentinel = ctx.allocate_and_write(
                sentinel_bytes, 9, usage=BindingUsage.STORAGE_READ_RESIDENT
            )
            sentinel_bytes = sentinel_bytes.tobytes()
            for step, (name, *args) in enumerate(self.ops):
                label = f"op {step} {name}"
                try:
                    # Making the values can fail too: a hostile Schedule refuses itself.
                    values = [self.make(a) for a in args]
                    getattr(self, f"op_{name}")(ctx, *values)
                except ForgeError:
                    pass
                except Exception:  # noqa: BLE001 - an untyped error is what we hunt
                    self.failures.append(f"{label}: untyped {traceback.format_exc(limit=-3)}")
                self.check_views(ctx, sentinel, sentinel_bytes, label)
        finally:
            ctx.close()
        return self.failures


def _payload(data) -> memoryview:
    from forge._checks import byte_payload

    return byte_payload(data)


def _read_bytes(ctx, view) -> bytes:
    """A view whose length is not a multiple of 4, read through a u32 prefix."""
    out = np.zeros(view.length_bytes // 4, np.uint32)
    ctx.read_buffer_u32_into(view, out)
    return out.tobytes()


def main() -> None:
    backend = sys.argv[1]
    for index, ops in enumerate(json.load(sys.stdin)):
        failures = Program(backend, ops).run()
        print(json.dumps({"program": index, "failures": failures}), flush=True)


if __name__ == "__main__":
    main()
