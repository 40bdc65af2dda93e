"""``oracle.certify``: a canonical-JSON manifest keyed by what the verdict depends on,
written atomically, reused by a later certify on the same machine, and invalidated
by any change to the kernel's source."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

import forge
import oracle
from forge import OracleMismatch
from oracle import _certify
from tests.oracle_broken import CASES

AFFINE = forge.get_kernel("raw_affine")


@pytest.fixture
def ctx():
    with forge.open_context("reference") as context:
        yield context


def test_certify_writes_a_canonical_manifest_keyed_by_what_the_verdict_depends_on(ctx, tmp_path):
    cert = oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2)
    assert not cert.reused and cert.path.is_file()
    assert cert.path.parent == tmp_path / "certificates" / "raw_affine"
    text = cert.path.read_text()
    assert text == oracle.canonical_json(json.loads(text)) + "\n"
    key = cert.manifest["key"]
    assert key["semantic_hash"] == AFFINE.semantic_hash
    assert key["schedule"] == str(AFFINE.schedules[0])
    assert key["adapter"] == ctx.adapter.as_dict() and key["driver"] == ctx.adapter.driver
    assert {"python", "kernel-forge", "numpy"} <= set(key["libraries"])
    assert len(key["source_sha256"]) == 64
    assert cert.path.stem == cert.key_hash == cert.manifest["key_hash"]
    runs = [(run["size"], run["seed"]) for run in cert.manifest["evaluations"]]
    assert runs == [
        (str(s), seed) for s in AFFINE.checked_sizes() for seed in AFFINE.checked_seeds()
    ]
    assert all(run["verdict"] == "pass" for run in cert.manifest["evaluations"])
    assert [p.name for p in cert.path.parent.iterdir()] == [cert.path.name]  # no temp files


def test_a_second_certify_reuses_the_manifest_without_running(ctx, tmp_path, monkeypatch):
    first = oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2)
    monkeypatch.setattr(_certify, "evaluate", lambda *a, **k: pytest.fail("evaluated again"))
    again = oracle.certify(ctx, AFFINE, cache=tmp_path)
    assert again.reused and again.path == first.path and again.manifest == first.manifest
    assert again.evaluations == () and "reused" in again.report()


def test_a_changed_kernel_source_invalidates_the_manifest(ctx, tmp_path):
    first = oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2)
    edited = dataclasses.replace(
        AFFINE, sources={**AFFINE.sources, "wgsl": AFFINE.sources["wgsl"] + "\n// edited\n"}
    )
    assert oracle.find_certificate(ctx, edited, cache=tmp_path) is None
    second = oracle.certify(ctx, edited, cache=tmp_path, samples=2)
    assert not second.reused and second.path != first.path
    assert oracle.find_certificate(ctx, AFFINE, cache=tmp_path).path == first.path


def test_a_manifest_whose_key_does_not_match_is_not_trusted(ctx, tmp_path):
    cert = oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2)
    manifest = json.loads(cert.path.read_text())
    manifest["key"]["schedule"] = "wg=1,ipt=1,vec=1"
    cert.path.write_text(json.dumps(manifest))
    assert oracle.find_certificate(ctx, AFFINE, cache=tmp_path) is None
    cert.path.write_text("{ damaged")
    assert oracle.find_certificate(ctx, AFFINE, cache=tmp_path) is None
    assert not oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2).reused


def test_the_cache_dir_comes_from_forge_cache_dir(ctx, tmp_path, monkeypatch):
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "env"))
    cert = oracle.certify(ctx, AFFINE, samples=2)
    assert cert.path.is_relative_to(tmp_path / "env" / "certificates")


def test_a_failing_kernel_is_not_certified_and_nothing_is_written(ctx, tmp_path):
    # a numpy meaning that overwrites its input fails even when it is its own truth
    clobbering = CASES["inputs_overwritten"].broken_reference
    with pytest.raises(OracleMismatch, match="cannot be certified") as info:
        oracle.certify(ctx, clobbering, cache=tmp_path, samples=2)
    assert info.value.report and info.value.report[0].inputs_modified
    assert not (tmp_path / "certificates").exists()


def test_an_interrupted_write_leaves_no_file_behind(ctx, tmp_path, monkeypatch):
    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(forge.ForgeError, match="disk full"):
        oracle.certify(ctx, AFFINE, cache=tmp_path, samples=2)
    folder = tmp_path / "certificates" / "raw_affine"
    assert list(folder.iterdir()) == []
