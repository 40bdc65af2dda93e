"""``certify(ctx, kernel, ...)``: prove a kernel under one schedule on one adapter and
keep the proof as a manifest.

The manifest is canonical JSON keyed by everything the verdict depends on: the
kernel's semantic hash, the hash of the source the backend compiles, the schedule,
the adapter identity, and the driver and library versions. Its file name is the hash
of that key, so a later certify with the same key finds it and reuses it, and any
change (a kernel source, a driver, numpy) misses it and certifies afresh. Files are
written atomically (a temporary file in the same directory, then ``os.replace``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import forge
from forge.cache import cache_root, write_atomically
from forge.errors import ForgeError, InvalidArgument, OracleMismatch
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._evaluate import DEFAULT_TIMEOUT_S, backend_info, choose_schedule, evaluate
from ._plan import BackendInfo
from ._results import Evaluation

__all__ = [
    "certify",
    "Certification",
    "certificate_key",
    "find_certificate",
    "cache_dir",
    "canonical_json",
    "MANIFEST_FORMAT",
]

MANIFEST_FORMAT = 2
_PROJECT = "kernel-forge"


def canonical_json(data: Any) -> str:
    """Sorted keys, no whitespace, no NaN: equal data gives equal text in any process."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def cache_dir(path: str | os.PathLike | None = None) -> Path:
    """Where manifests live: the ``certificates`` folder of the cache root (``path``,
    else ``$FORGE_CACHE_DIR``, else ``~/.cache/kernel-forge``)."""
    return cache_root(path) / "certificates"


def _library_versions() -> dict[str, str]:
    """Versions of the project and of every library it depends on (what computes and
    compiles the kernels), plus Python's."""
    versions = {"python": platform.python_version()}
    try:
        versions[_PROJECT] = metadata.version(_PROJECT)
        requirements = metadata.requires(_PROJECT) or []
    except metadata.PackageNotFoundError:
        versions[_PROJECT] = forge.__version__
        requirements = []
    for requirement in requirements:
        if "extra ==" in requirement:
            continue
        name = requirement.split(";")[0].split("[")[0]
        for stop in "<>=!~ ":
            name = name.split(stop)[0]
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _source_hash(
    info: BackendInfo, kernel: KernelSpec, schedule: Schedule, sizes: Sequence[Any]
) -> str:
    """sha256 of the text the backend compiles at each size (a host backend: of the
    kernel's meaning)."""
    digest = hashlib.sha256()
    for size in sizes:
        text = (
            kernel.source(info.target, schedule, size)
            if info.target is not None
            else kernel.semantic_hash
        )
        digest.update(text.encode())
    return digest.hexdigest()


def certificate_key(
    target: Any, kernel: KernelSpec, schedule: Schedule, sizes: Sequence[Any] | None = None
) -> dict:
    """Everything a certificate's verdict depends on (``target``: a context or runner)."""
    info = backend_info(target)
    sizes = tuple(kernel.checked_sizes() if sizes is None else sizes)
    adapter = info.adapter
    return {
        "format": MANIFEST_FORMAT,
        "kernel": kernel.id,
        "semantic_hash": kernel.semantic_hash,
        "source_sha256": _source_hash(info, kernel, schedule, sizes),
        "sizes": [str(s) for s in sizes],
        "schedule": str(schedule),
        "backend": info.name,
        "adapter": adapter.as_dict(),
        "driver": adapter.driver,
        "driver_info": adapter.driver_info,
        "float_semantics": {
            "subnormals_may_flush": info.constraints.subnormals_may_flush,
            "nonfinite_indeterminate": info.constraints.nonfinite_indeterminate,
        },
        "libraries": _library_versions(),
    }


def _key_hash(key: dict) -> str:
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()


def _path(root: Path, key: dict) -> Path:
    return root / key["kernel"] / f"{_key_hash(key)}.json"


@dataclass(frozen=True)
class Certification:
    """A manifest and where it lives. ``reused``: found in the cache rather than
    produced now (``evaluations`` is then empty). ``replaced``: why a stored manifest
    for the same key was not trusted and this one written instead ("" when none was)."""

    manifest: dict
    path: Path
    reused: bool
    evaluations: tuple[Evaluation, ...] = ()
    replaced: str = ""

    @property
    def key_hash(self) -> str:
        return self.manifest["key_hash"]

    def report(self) -> str:
        key = self.manifest["key"]
        how = "reused the manifest at" if self.reused else "wrote"
        lines = [
            f"certified {key['kernel']} under {key['schedule']} on {key['backend']} "
            f"({key['adapter']['name']}): {how} {self.path}"
        ]
        if self.replaced:
            lines.append(f"  (re-certified: the stored manifest was not trusted: {self.replaced})")
        for run in self.manifest["evaluations"]:
            lines.append(
                f"  size {run['size']:>8} seed {run['seed']}: {run['verdict']}, "
                f"max ulp {run['max_ulp']}, inputs sha256 {run['input_hash'][:16]}"
            )
        return "\n".join(lines)


def find_certificate(
    target: Any,
    kernel: KernelSpec,
    schedule: Schedule | None = None,
    cache: str | os.PathLike | None = None,
) -> Certification | None:
    """The stored certificate matching this kernel, schedule and machine, or None. A
    file that is not exactly a valid manifest for this key (damaged, altered, a hash
    collision) is not trusted."""
    schedule = schedule or choose_schedule(target, kernel)
    found, _ = _stored(cache_dir(cache), certificate_key(target, kernel, schedule))
    return found


_MANIFEST_FIELDS = {
    "key",
    "key_hash",
    "level",
    "created",
    "timing_source",
    "evaluations",
    "checksum",
}


def _checksum(manifest: dict) -> str:
    """sha256 of the manifest's canonical JSON without its checksum field."""
    return hashlib.sha256(
        canonical_json({k: v for k, v in manifest.items() if k != "checksum"}).encode()
    ).hexdigest()


def _why_untrusted(manifest: Any, key: dict) -> str:
    """Why a parsed manifest cannot be trusted for ``key`` ("" when it can)."""
    if not isinstance(manifest, dict):
        return f"it holds a {type(manifest).__name__}, not a manifest"
    missing = _MANIFEST_FIELDS - set(manifest)
    if missing:
        return f"it lacks {', '.join(sorted(missing))}"
    if manifest["checksum"] != _checksum(manifest):
        return "its checksum does not match its content (it was altered)"
    if manifest["key"] != key or manifest["key_hash"] != _key_hash(key):
        return "it was made for another key"
    evaluations = manifest["evaluations"]
    if manifest["level"] != "CERTIFIED" or not isinstance(evaluations, list) or not evaluations:
        return "it does not record a certification"
    if not all(isinstance(run, dict) and run.get("verdict") == "pass" for run in evaluations):
        return "it records an evaluation that did not pass"
    return ""


def _stored(root: Path, key: dict) -> tuple[Certification | None, str]:
    """(the trusted manifest for ``key``, why a stored one was not trusted)."""
    path = _path(root, key)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"it could not be read: {exc}"
    try:
        manifest = json.loads(text)
    except ValueError:
        return None, "it is not valid JSON (truncated?)"
    why = _why_untrusted(manifest, key)
    if why:
        return None, why
    return Certification(manifest, path, reused=True), ""


def _summary(ev: Evaluation) -> dict:
    data = ev.as_dict()
    return {
        k: data[k]
        for k in (
            "size",
            "seed",
            "input_hash",
            "verdict",
            "level",
            "max_ulp",
            "max_abs",
            "timing",
            "outputs",
        )
    }


def certify(
    target: Any,
    kernel: KernelSpec,
    schedule: Schedule | None = None,
    *,
    sizes: Sequence[int] | None = None,
    seed: int = 0,
    samples: int = 5,
    cache: str | os.PathLike | None = None,
    force: bool = False,
    tolerance: Any = None,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    seeds: Sequence[int] | None = None,
) -> Certification:
    """Certify ``kernel`` under ``schedule`` (default: its first the backend admits) on
    ``target`` (an open context, or a runner): reuse a matching, intact manifest unless
    ``force``, else evaluate at every size of ``sizes`` (default: the kernel's checked
    sizes, each with its checked seeds) and write the manifest. Raises
    ``UnsupportedFeature`` when the backend cannot generate the kernel's source, and
    ``OracleMismatch`` (with the reports) when any evaluation fails; nothing is written
    then."""
    schedule = schedule or choose_schedule(target, kernel)
    info = backend_info(target)
    sizes = tuple(kernel.size(s) for s in sizes) if sizes is not None else kernel.checked_sizes()
    root, key = cache_dir(cache), certificate_key(target, kernel, schedule, sizes)
    found, replaced = _stored(root, key)
    if found is not None and not force:
        return found
    if not sizes:
        raise InvalidArgument("certify needs at least one size")
    seeds = (
        tuple(seeds) if seeds is not None else (kernel.checked_seeds() if seed == 0 else (seed,))
    )
    evaluations = tuple(
        evaluate(
            target,
            kernel,
            schedule,
            size,
            run_seed,
            samples=samples,
            tolerance=tolerance,
            timeout_s=timeout_s,
        )
        for size in sizes
        for run_seed in seeds
    )
    failed = [ev for ev in evaluations if not ev.passed]
    if failed:
        raise OracleMismatch(
            f"{kernel.id} cannot be certified under {schedule} on "
            f"{info.name}:\n" + "\n".join(ev.report() for ev in failed),
            report=failed,
        )
    manifest = {
        "key": key,
        "key_hash": _key_hash(key),
        "level": "CERTIFIED",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timing_source": info.timing_source,
        "evaluations": [_summary(ev) for ev in evaluations],
    }
    manifest["checksum"] = _checksum(manifest)
    path = _path(root, key)
    try:
        write_atomically(path, canonical_json(manifest) + "\n")
    except OSError as exc:
        raise ForgeError(f"cannot write the certificate {path}: {exc}") from exc
    why = replaced if found is None else "re-certified on request (--force)"
    return Certification(manifest, path, reused=False, evaluations=evaluations, replaced=why)
