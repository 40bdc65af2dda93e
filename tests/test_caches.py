"""Caches are never trusted blindly (issues 11 and 12): a manifest is reused only if it
parses into the full expected shape and its checksum matches; anything else is
certified again and says why; two processes certifying at once both succeed;
``kforge cache info`` / ``kforge cache clear`` show and empty the cache root."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import forge
import oracle
from kforge import main

KERNEL = forge.get_kernel("mul")


@pytest.fixture
def certified(tmp_path):
    with forge.open_context("reference") as ctx:
        cert = oracle.certify(ctx, KERNEL, samples=1, cache=tmp_path)
    assert not cert.reused
    return tmp_path, cert


def _recertify(root):
    with forge.open_context("reference") as ctx:
        return oracle.certify(ctx, KERNEL, samples=1, cache=root)


def test_an_intact_manifest_is_reused(certified):
    root, _ = certified
    assert _recertify(root).reused


@pytest.mark.parametrize(
    "tamper, why",
    [
        (lambda m: m.pop("key_hash"), "lacks key_hash"),
        (lambda m: m.update(level="NONE"), "checksum"),
        (lambda m: m.update(evaluations=None), "checksum"),
        (lambda m: m["evaluations"][0].update(verdict="mismatch"), "checksum"),
    ],
)
def test_an_altered_manifest_is_not_trusted_and_says_why(certified, tamper, why):
    root, cert = certified
    manifest = json.loads(cert.path.read_text())
    tamper(manifest)
    cert.path.write_text(json.dumps(manifest))
    again = _recertify(root)
    assert not again.reused and why in again.replaced, again.replaced
    assert again.path == cert.path and _recertify(root).reused  # rewritten, then trusted


def test_an_altered_manifest_with_its_checksum_recomputed_still_must_record_a_pass(certified):
    from oracle._certify import _checksum

    root, cert = certified
    manifest = json.loads(cert.path.read_text())
    manifest["evaluations"][0]["verdict"] = "mismatch"
    manifest["checksum"] = _checksum(manifest)
    cert.path.write_text(json.dumps(manifest))
    again = _recertify(root)
    assert not again.reused and "did not pass" in again.replaced


def test_truncated_json_is_certified_again(certified):
    root, cert = certified
    cert.path.write_text(cert.path.read_text()[:40])
    again = _recertify(root)
    assert not again.reused and "not valid JSON" in again.replaced


def test_two_processes_certifying_the_same_kernel_at_once_both_succeed(tmp_path):
    code = (
        "import forge, oracle, sys\n"
        "with forge.open_context('reference') as ctx:\n"
        "    c = oracle.certify(ctx, forge.get_kernel('mul'), samples=1, cache=sys.argv[1])\n"
        "print(c.path)\n"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    paths = {out.strip() for out, _ in outputs}
    assert len(paths) == 1 and _recertify(tmp_path).reused
    kept = [p.name for p in Path(paths.pop()).parent.iterdir()]
    assert kept == [Path(outputs[0][0].strip()).name]


def test_cache_info_and_clear(certified, capsys):
    root, _ = certified
    assert main(["cache", "info", "--cache-dir", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["folders"]["certificates"]["files"] == 1
    assert main(["cache", "clear", "certificates", "--cache-dir", str(root)]) == 0
    assert "cleared certificates" in capsys.readouterr().out
    assert not (root / "certificates").exists()
    assert main(["cache", "clear", "nope", "--cache-dir", str(root)]) == 2


def test_a_float_semantics_entry_of_the_wrong_types_is_measured_again(
    request, monkeypatch, tmp_path
):
    """A damaged entry that still parses (strings for the flags: bool("false") is True)
    declared non-finite results indeterminate on lavapipe, and a mismatch everywhere
    was masked as inconclusive: only booleans, as measured, are taken."""
    from backends import _probe
    from oracle.pytest_plugin import require_available

    require_available(request.config, "wgpu")
    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_probe, "_MEASURED", {})
    with forge.open_context("wgpu") as ctx:
        measured = _probe.probe_float_semantics(ctx)
        (path,) = (tmp_path / "semantics").iterdir()
        damaged = json.loads(path.read_text())
        damaged.update({k: str(v).lower() for k, v in damaged.items() if isinstance(v, bool)})
        path.write_text(json.dumps(damaged))
        _probe._MEASURED.clear()
        again = _probe.probe_float_semantics(ctx)
        # (the subgroup width is measured only where the context does not know it yet:
        # this one learnt it from the first probe, so the second has none of its own)
        assert dataclasses.replace(again, subgroup_size=None) == dataclasses.replace(
            measured, subgroup_size=None
        )
    assert (
        json.loads(path.read_text())["nonfinite_indeterminate"] is measured.nonfinite_indeterminate
    )


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: entry.update(schedule=5),
        lambda entry: entry.update(tunables=[1]),
        lambda entry: entry.update(saved=7),
        None,  # the entry itself replaced by a number
    ],
)
def test_a_damaged_tuned_schedule_is_not_run_and_does_not_crash(tmp_path, damage):
    """A saved tuned schedule that parses as JSON but holds the wrong types crashed
    ``kforge check --tuned`` (AttributeError: 'int' object has no attribute 'split')."""
    from oracle._plan import BackendInfo
    from oracle._tuning_cache import find_tuned, save_tuned

    with forge.open_context("reference") as ctx:
        info = BackendInfo.of(ctx)
    path = save_tuned(info, KERNEL, KERNEL.schedules[0], {}, {}, root=tmp_path)
    data = json.loads(path.read_text())
    (key,) = data["entries"]
    if damage is None:
        data["entries"][key] = 7
    else:
        damage(data["entries"][key])
    path.write_text(json.dumps(data))
    kernel, schedule, why = find_tuned(info, KERNEL, root=tmp_path)
    if damage is not None and kernel is not None:  # only the date was damaged
        assert schedule == KERNEL.schedules[0]
    else:
        assert kernel is None and schedule is None and KERNEL.id in why


def test_cache_clear_removes_a_file_or_link_where_a_folder_belongs(tmp_path, capsys):
    """shutil.rmtree refuses both: `kforge cache clear` ended in a traceback. A link is
    removed, never what it points to (outside the cache root)."""
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("")
    (root / "certificates").write_text("not a folder")
    (root / "tuning").symlink_to(elsewhere)
    assert main(["cache", "clear", "--cache-dir", str(root)]) == 0
    assert "cleared certificates, tuning" in capsys.readouterr().out
    assert list(root.iterdir()) == [] and (elsewhere / "keep").exists()
