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
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

import forge
from forge.errors import ForgeError, InvalidArgument, OracleMismatch
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._evaluate import DEFAULT_TIMEOUT_S, Evaluation, choose_schedule, evaluate

__all__ = ["certify", "Certification", "certificate_key", "find_certificate", "cache_dir",
           "canonical_json", "MANIFEST_FORMAT"]

MANIFEST_FORMAT = 1
_PROJECT = "kernel-forge"


def canonical_json(data: Any) -> str:
    """Sorted keys, no whitespace, no NaN: equal data gives equal text in any process."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def cache_dir(path: str | os.PathLike | None = None) -> Path:
    """Where manifests live: ``path``, else ``$FORGE_CACHE_DIR``, else
    ``~/.cache/kernel-forge``; certificates go in its ``certificates`` folder."""
    root = Path(path) if path is not None else Path(
        os.environ.get("FORGE_CACHE_DIR") or Path.home() / ".cache" / "kernel-forge")
    return root / "certificates"


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


def _source_hash(ctx, kernel: KernelSpec, schedule: Schedule) -> str:
    return hashlib.sha256(ctx.kernel_source(kernel, schedule).encode()).hexdigest()


def certificate_key(ctx, kernel: KernelSpec, schedule: Schedule) -> dict:
    """Everything a certificate's verdict depends on."""
    adapter = ctx.adapter
    return {"format": MANIFEST_FORMAT, "kernel": kernel.id,
            "semantic_hash": kernel.semantic_hash,
            "source_sha256": _source_hash(ctx, kernel, schedule),
            "schedule": str(schedule), "backend": ctx.backend_name,
            "adapter": adapter.as_dict(), "driver": adapter.driver,
            "driver_info": adapter.driver_info, "libraries": _library_versions()}


def _key_hash(key: dict) -> str:
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()


def _path(root: Path, key: dict) -> Path:
    return root / key["kernel"] / f"{_key_hash(key)}.json"


@dataclass(frozen=True)
class Certification:
    """A manifest and where it lives. ``reused``: found in the cache rather than
    produced now (``evaluations`` is then empty)."""

    manifest: dict
    path: Path
    reused: bool
    evaluations: tuple[Evaluation, ...] = ()

    @property
    def key_hash(self) -> str:
        return self.manifest["key_hash"]

    def report(self) -> str:
        key = self.manifest["key"]
        how = "reused the manifest at" if self.reused else "wrote"
        lines = [f"certified {key['kernel']} under {key['schedule']} on {key['backend']} "
                 f"({key['adapter']['name']}): {how} {self.path}"]
        for run in self.manifest["evaluations"]:
            lines.append(f"  size {run['size']:>8} seed {run['seed']}: {run['verdict']}, "
                         f"max ulp {run['max_ulp']}, inputs sha256 {run['input_hash'][:16]}")
        return "\n".join(lines)


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def find_certificate(ctx, kernel: KernelSpec, schedule: Schedule | None = None,
                     cache: str | os.PathLike | None = None) -> Certification | None:
    """The stored certificate matching this kernel, schedule and machine, or None. A
    file that does not hold exactly the expected key (damaged, or a hash collision)
    is ignored."""
    schedule = schedule or choose_schedule(ctx, kernel)
    return _stored(cache_dir(cache), certificate_key(ctx, kernel, schedule))


def _stored(root: Path, key: dict) -> Certification | None:
    path = _path(root, key)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("key") != key:
        return None
    return Certification(manifest, path, reused=True)


def _summary(ev: Evaluation) -> dict:
    data = ev.as_dict()
    return {k: data[k] for k in ("size", "seed", "input_hash", "verdict", "level", "max_ulp",
                                 "max_abs", "timing")}


def certify(ctx, kernel: KernelSpec, schedule: Schedule | None = None, *,
            sizes: Sequence[int] | None = None, seed: int = 0, samples: int = 5,
            cache: str | os.PathLike | None = None, force: bool = False,
            tolerance: Any = None, reference=None,
            timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Certification:
    """Certify ``kernel`` under ``schedule`` (default: its first the context admits) on
    ``ctx``: reuse a matching manifest unless ``force``, else evaluate at every size of
    ``sizes`` (default: the kernel's test sizes) and write the manifest. Raises
    ``UnsupportedFeature`` when the backend cannot generate the kernel's source, and
    ``OracleMismatch`` (with the reports) when any evaluation fails; nothing is written
    then."""
    schedule = schedule or choose_schedule(ctx, kernel)
    root, key = cache_dir(cache), certificate_key(ctx, kernel, schedule)
    if not force:
        found = _stored(root, key)
        if found is not None:
            return found
    sizes = tuple(kernel.test_sizes if sizes is None else sizes)
    if not sizes:
        raise InvalidArgument("certify needs at least one size")
    evaluations = tuple(evaluate(ctx, kernel, schedule, size, seed, samples=samples,
                                 tolerance=tolerance, reference=reference, timeout_s=timeout_s)
                        for size in sizes)
    failed = [ev for ev in evaluations if not ev.passed]
    if failed:
        raise OracleMismatch(f"{kernel.id} cannot be certified under {schedule} on "
                             f"{ctx.backend_name}:\n" + "\n".join(ev.report() for ev in failed),
                             report=failed)
    manifest = {"key": key, "key_hash": _key_hash(key), "level": "CERTIFIED",
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                    timespec="seconds"),
                "timing_source": ctx.timing_source,
                "evaluations": [_summary(ev) for ev in evaluations]}
    path = _path(root, key)
    try:
        _write_atomically(path, canonical_json(manifest) + "\n")
    except OSError as exc:
        raise ForgeError(f"cannot write the certificate {path}: {exc}") from exc
    return Certification(manifest, path, reused=False, evaluations=evaluations)
