"""What tuning keeps between runs: every measurement, streamed to a tuning cache as it
is made (so an interrupted run resumes and a re-run with nothing changed measures
nothing), and the tuned schedules ``kforge tune --save`` stores per kernel and adapter.

Both live in the cache root's ``tuning`` folder:

- ``tuning/<kernel>/<key hash>.jsonl`` (or the file ``--cache PATH`` names): one JSON
  line per measurement, appended and flushed as each finishes; a process killed
  mid-write leaves at most one torn line, which is skipped. The key is certify's
  (``oracle._certify``): the kernel's semantic hash, the backend, adapter, driver,
  measured float semantics and library versions, plus the problem size, input seed and
  warm-ups. Each line also carries its candidate's semantic hash (which covers its
  parameter values) and the hash of the text compiled, and is reused only while both
  still match, and only when its own checksum does.
- ``tuning/tuned/<kernel>.json``: the saved winners, one per backend and adapter, each
  with the semantic hash of the kernel it was tuned for (a changed kernel's saved
  schedule is not used).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge.cache import cache_root, write_atomically
from forge.errors import ForgeError, InvalidArgument
from forge.kernel import KernelSpec
from forge.schedule import Schedule

from ._certify import _library_versions, canonical_json
from ._plan import BackendInfo

__all__ = [
    "TuningCache",
    "tuning_key",
    "candidate_source_hash",
    "save_tuned",
    "find_tuned",
    "TUNED_FORMAT",
    "CACHE_FORMAT",
]

CACHE_FORMAT = "kforge-tuning-cache/1"
TUNED_FORMAT = "kforge-tuned/1"


def tuning_key(info: BackendInfo, kernel: KernelSpec, size: Any, seed: int, warmups: int) -> dict:
    """Everything a measurement of ``kernel``'s candidates depends on, but the
    candidate itself (each record carries its own hashes)."""
    adapter = info.adapter
    return {
        "format": CACHE_FORMAT,
        "kernel": kernel.id,
        "semantic_hash": kernel.semantic_hash,
        "backend": info.name,
        "adapter": adapter.as_dict(),
        "driver": adapter.driver,
        "float_semantics": {
            "subnormals_may_flush": info.constraints.subnormals_may_flush,
            "nonfinite_indeterminate": info.constraints.nonfinite_indeterminate,
        },
        "libraries": _library_versions(),
        "size": str(size),
        "seed": seed,
        "warmups": warmups,
    }


def _digest(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def candidate_source_hash(
    kernel: KernelSpec,
    target: str | None,
    schedule: Schedule,
    size: Any,
    max_per_dimension: int = 65535,
) -> str:
    """sha256 of what a backend of ``target`` compiles and launches for this candidate:
    the source text, the compile options, override values and launch geometry (for a
    host backend, the kernel's meaning)."""
    if target is None:
        return _digest([kernel.semantic_hash, str(schedule)])
    source = kernel.source(target, schedule, size)
    steps = kernel.steps(target, schedule, size, max_per_dimension, source)
    return _digest(
        [
            source,
            list(kernel.compile_options(target)),
            [
                [
                    s.entry_point,
                    list(s.workgroups),
                    list(s.block),
                    s.shared_bytes,
                    [list(o) for o in s.overrides],
                ]
                for s in steps
            ],
        ]
    )


class TuningCache:
    """The measurements of one tuning key, read from ``path`` and appended to it
    (``path`` None: nothing is kept). Thread-safe: measurements finish on several
    threads when the work is spread over workers."""

    def __init__(self, path: str | os.PathLike | None, key: dict) -> None:
        self.path = None if path is None else Path(path)
        self.key_hash = _digest(key)
        self._records: dict[tuple[str, int, str], dict] = {}
        self._lock = threading.Lock()
        self.torn = 0
        if self.path is not None:
            self._load(self.path)

    @classmethod
    def default_path(cls, key: dict, root: str | os.PathLike | None = None) -> Path:
        return cache_root(root) / "tuning" / key["kernel"] / f"{_digest(key)[:32]}.jsonl"

    def _load(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ForgeError(f"cannot read the tuning cache {self.path}: {exc}") from exc
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                self.torn += 1
                continue
            if not isinstance(record, dict) or record.get("checksum") != _record_checksum(record):
                self.torn += 1
                continue
            if record.get("key_hash") == self.key_hash:
                self._records[(record["candidate"], record["samples"], record["phase"])] = record

    def __len__(self) -> int:
        return len(self._records)

    def get(
        self, candidate: str, samples: int, phase: str, kernel_hash: str, source_hash: str
    ) -> dict | None:
        """The stored measurement, when it was made of exactly this candidate."""
        record = self._records.get((candidate, samples, phase))
        if (
            record is None
            or record["kernel_hash"] != kernel_hash
            or record["source_sha256"] != source_hash
        ):
            return None
        return record

    def put(self, record: Mapping[str, Any]) -> None:
        """Keep ``record`` and append it to the file at once (flushed and synced)."""
        record = {**record, "key_hash": self.key_hash}
        record["checksum"] = _record_checksum(record)
        with self._lock:
            self._records[(record["candidate"], record["samples"], record["phase"])] = record
            if self.path is None:
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as handle:
                    handle.write(canonical_json(record) + "\n")
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                raise ForgeError(f"cannot append to the tuning cache {self.path}: {exc}") from exc


def _record_checksum(record: Mapping[str, Any]) -> str:
    return _digest({k: v for k, v in record.items() if k != "checksum"})[:16]


# -- saved tuned schedules ------------------------------------------------------------------
def _tuned_path(kernel: KernelSpec, root: str | os.PathLike | None) -> Path:
    return cache_root(root) / "tuning" / "tuned" / f"{kernel.id}.json"


def _adapter_key(info: BackendInfo) -> str:
    adapter = info.adapter
    return f"{info.name}|{adapter.name}|{adapter.vendor_id:#x}:{adapter.device_id:#x}"


def _read_tuned(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # damaged: a save starts it again, a lookup finds nothing
    if not isinstance(data, dict) or data.get("format") != TUNED_FORMAT:
        return {}
    return data.get("entries", {}) if isinstance(data.get("entries"), dict) else {}


def save_tuned(
    info: BackendInfo,
    kernel: KernelSpec,
    schedule: Schedule,
    values: Mapping[str, Any],
    summary: Mapping[str, Any],
    root: str | os.PathLike | None = None,
) -> Path:
    """Store ``schedule`` and parameter ``values`` as ``kernel``'s tuned schedule on
    ``info``'s backend and adapter; returns the file."""
    path = _tuned_path(kernel, root)
    entries = _read_tuned(path)
    entries[_adapter_key(info)] = {
        "semantic_hash": kernel.semantic_hash,
        "schedule": str(schedule),
        "tunables": dict(values),
        "backend": info.name,
        "adapter": info.adapter.name,
        "saved": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **dict(summary),
    }
    try:
        write_atomically(
            path,
            json.dumps(
                {"format": TUNED_FORMAT, "kernel": kernel.id, "entries": entries},
                indent=2,
                sort_keys=True,
            )
            + "\n",
        )
    except OSError as exc:
        raise ForgeError(f"cannot write the tuned schedule {path}: {exc}") from exc
    return path


def find_tuned(
    info: BackendInfo, kernel: KernelSpec, root: str | os.PathLike | None = None
) -> tuple[KernelSpec, Schedule, str] | tuple[None, None, str]:
    """``(kernel with the saved values, saved schedule, how it was found)`` for this
    backend and adapter, or ``(None, None, why not)``."""
    entry = _read_tuned(_tuned_path(kernel, root)).get(_adapter_key(info))
    if entry is not None and not isinstance(entry, dict):
        return None, None, f"the tuned schedule saved for {kernel.id} is damaged; tune it again"
    if entry is None:
        return (
            None,
            None,
            f"no tuned schedule saved for {kernel.id} on {info.name} ({info.adapter.name})",
        )
    if entry.get("semantic_hash") != kernel.semantic_hash:
        return (
            None,
            None,
            (
                f"the tuned schedule saved for {kernel.id} on {info.name} was "
                "tuned for another version of the kernel; tune it again"
            ),
        )
    try:
        tuned = kernel.with_tunables(entry.get("tunables") or {})
        schedule = Schedule.parse(entry["schedule"])
    except (InvalidArgument, KeyError, TypeError, ValueError, AttributeError) as exc:
        # a damaged entry (a schedule of 5, tunables of a list) is no schedule: no crash
        return None, None, f"the tuned schedule saved for {kernel.id} no longer fits: {exc}"
    return tuned, schedule, f"tuned {str(entry.get('saved', ''))[:10]}"
