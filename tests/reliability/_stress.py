"""Several threads hammering one context: runs, dispatches, reads, releases and
checkpoints from worker threads while another thread closes the context. Run by
test_threads.py in a fresh interpreter (a crash must not take the test run with it)."""

from __future__ import annotations

import json
import random
import threading
import time
import traceback

import numpy as np

import forge
from forge import BindingUsage, ContextClosed, ForgeError, Schedule

N = 256
KERNEL = forge.get_kernel("raw_affine")


class Worker:
    """One thread's loop. Each iteration computes ``y = a*x + b`` with values only this
    thread and iteration use, and checks them whenever the iteration ran without a
    typed error; other threads' releases make some iterations fail, by design."""

    def __init__(self, ctx, index: int) -> None:
        self.ctx, self.index = ctx, index
        self.rng = random.Random(index)
        self.ok = 0
        self.errors: dict[str, int] = {}
        self.failures: list[str] = []  # wrong data or untyped errors
        self.closed = False  # ended by ContextClosed

    def run(self, until: float) -> None:
        step = 0
        while time.monotonic() < until and not self.closed:
            step += 1
            try:
                self.iteration(step)
                self.ok += 1
            except ContextClosed:
                self.closed = True
            except ForgeError as exc:
                name = type(exc).__name__
                self.errors[name] = self.errors.get(name, 0) + 1
            except BaseException:  # noqa: BLE001 - exactly what the test must catch
                self.failures.append(traceback.format_exc())
                return

    def iteration(self, step: int) -> None:
        action = self.rng.choice(["run", "run", "dispatch", "read_into", "clear", "checkpoint"])
        if action == "clear":
            self.ctx.clear_transient_allocations()
            return
        if action == "checkpoint":
            mark = self.ctx.write_checkpoint()
            self.ctx.allocate_transient(self.rng.randint(1, 4096), self.index)
            self.ctx.restore_checkpoint(mark)
            return
        a, b = float(self.index + 1), float(step % 1000)
        x = np.arange(N, dtype=np.float32) + step % 7
        views = [
            self.ctx.allocate_and_write(x, 0),
            self.ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            self.ctx.allocate_and_write(
                KERNEL.pack_uniform(N, a=a, b=b), 2, usage=BindingUsage.UNIFORM
            ),
        ]
        if action == "dispatch":
            self.ctx.wait(self.ctx.dispatch(KERNEL, Schedule(64), views, N))
        else:
            self.ctx.run_kernel(KERNEL, Schedule(64), views, N)
        if action == "read_into":
            got = np.empty(N, np.uint32)
            self.ctx.read_buffer_u32_into(views[1], got)
            got = got.view(np.float32)
        else:
            got = self.ctx.read_buffer_f32(views[1])
        want = np.float32(a) * x + np.float32(b)
        if not np.array_equal(got, want):
            wrong = int(np.flatnonzero(got != want)[0])
            self.failures.append(
                f"thread {self.index} step {step} ({action}): element "
                f"{wrong} is {got[wrong]}, want {want[wrong]}"
            )


def hammer(
    backend: str, threads: int = 4, close_after: float = 3.0, patience: float = 60.0
) -> dict:
    """Run ``threads`` workers on one context of ``backend``; close it from the main
    thread after ``close_after`` seconds. Each worker goes on until it sees
    ContextClosed (or ``patience`` seconds pass, which the test reports as a thread that
    never saw it): a deadline of its own, shortly after the close, let a worker stop
    before its next call when the close itself took long on a loaded machine (seen on
    an H100 with 14 test processes beside it). Prints and returns a JSON summary."""
    ctx = forge.open_context(backend, capacity_bytes=4 << 20)
    ctx.timeout_s = 60
    until = time.monotonic() + close_after + patience
    workers = [Worker(ctx, i) for i in range(threads)]
    pool = [threading.Thread(target=w.run, args=(until,)) for w in workers]
    for thread in pool:
        thread.start()
    time.sleep(close_after)
    ctx.close()
    for thread in pool:
        thread.join(timeout=120)
    summary = {
        "ok": [w.ok for w in workers],
        "errors": [w.errors for w in workers],
        "closed": [w.closed for w in workers],
        "alive": [t.is_alive() for t in pool],
        "failures": [f for w in workers for f in w.failures],
    }
    print(json.dumps(summary), flush=True)
    return summary
