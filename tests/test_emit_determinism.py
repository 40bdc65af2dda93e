"""Emitters are pure and byte-deterministic, and say where their output came from."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

import forge
from forge import Schedule, ir
from forge.emit import EMITTER_VERSION, emit

_DIGEST = """
import hashlib, forge
from tests.test_emit_determinism import _jobs
h = hashlib.sha256()
for k, target, s in _jobs():
    h.update(k.source(target, s).encode())
print(h.hexdigest())
"""


def _ir_kernels():
    return [k for k in forge.list_kernels() if k.body.kind != "raw"]


def _jobs():
    """(kernel, target, schedule) of every built-in IR kernel where the target has the
    kernel's dtypes and the schedule's instructions (WGSL has no bf16 and no mma=1)."""
    from forge.emit import check

    found = []
    for kernel in _ir_kernels():
        for target in kernel.targets:
            for schedule in kernel.schedules:
                try:
                    check(kernel, schedule, target)
                except forge.UnsupportedFeature as exc:
                    assert "unsupported, because" in str(exc), exc
                    continue
                found.append((kernel, target, schedule))
    return found


def test_the_emitters_are_an_ordinary_package_and_emit_is_called_by_name():
    import types

    assert type(forge.emit) is types.ModuleType and not callable(forge.emit)
    assert forge.emit.emit is emit


def test_emitting_twice_gives_identical_text():
    from forge.emit import _emit

    for kernel, target, schedule in _jobs():
        first = emit(kernel, schedule, target)
        _emit.cache_clear()  # the second text is made again, not served from the cache
        assert emit(kernel, schedule, target) == first


def test_two_processes_with_different_hash_seeds_emit_identical_bytes():
    digests = {
        subprocess.run(
            [sys.executable, "-c", _DIGEST],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "4242")
    }
    assert len(digests) == 1
    here = hashlib.sha256()
    for k, target, s in _jobs():
        here.update(k.source(target, s).encode())
    assert digests == {here.hexdigest()}


@pytest.mark.parametrize("target, comment", [("wgsl", "//"), ("cuda", "//")])
def test_the_header_names_kernel_hash_schedule_and_emitter_version(target, comment):
    kernel = forge.get_kernel("softmax")
    schedule = kernel.schedules[1]
    head = emit(kernel, schedule, target).splitlines()[:8]
    assert head[0].startswith(f"{comment} kernel-forge generated")
    assert f"emitter version {EMITTER_VERSION}" in head[0]
    assert f"{comment} kernel: softmax v1, entry point softmax_kernel" in head
    assert f"{comment} semantic hash: {kernel.semantic_hash}" in head
    assert f"{comment} schedule: {schedule}" in head
    assert any("exp((x - row_max(x)))" in line for line in head)


def test_generated_lines_point_back_to_the_ir_they_came_from():
    kernel = ir.kernel("traced", ir.map(y=ir.tanh(ir.input("x") * 3.0) + 1.0))
    for target in ("wgsl", "cuda"):
        text = emit(kernel, Schedule(64), target)
        assert "// (x * 3.0)" in text and "// tanh((x * 3.0))" in text
        assert "// (tanh((x * 3.0)) + 1.0)" in text


def test_the_source_changes_with_the_schedule_and_the_kernel():
    kernel = forge.get_kernel("affine")
    texts = {emit(kernel, s, "cuda") for s in kernel.schedules}
    assert len(texts) == len(kernel.schedules)
    other = ir.kernel(
        "affine",
        ir.map(y=ir.param("a") * ir.input("x") - ir.param("b")),
        defaults={"a": 2.0, "b": 0.5},
    )
    assert emit(other, kernel.schedules[0], "cuda") != emit(kernel, kernel.schedules[0], "cuda")
