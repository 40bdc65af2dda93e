"""``kforge list-backends`` and ``kforge list-kernels``."""

from __future__ import annotations

from typing import Any

from forge import registry

from ._output import add_json_flag, print_json, print_table


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "list-backends", help="every known backend, whether it is available here, and why not"
    )
    add_json_flag(parser)
    parser.set_defaults(run=_list_backends)

    parser = subparsers.add_parser("list-kernels", help="every known kernel")
    add_json_flag(parser)
    parser.set_defaults(run=_list_kernels)


def _list_backends(args) -> int:
    entries = registry.backend_entries()
    status = registry.available_backends()
    rows = [
        {
            "name": name,
            "available": status[name][0],
            "reason": status[name][1],
            "origin": entry.origin,
            "description": entry.description,
        }
        for name, entry in entries.items()
    ]
    if args.json:
        print_json(rows)
    else:
        print_table(
            "backends",
            ["backend", "available", "detail", "origin"],
            [
                (r["name"], "yes" if r["available"] else "no", r["reason"], r["origin"])
                for r in rows
            ],
        )
    return 0


def _list_kernels(args) -> int:
    kernels = registry.list_kernels()
    rows: list[dict[str, Any]] = [
        {
            "id": k.id,
            "version": k.version,
            "targets": list(k.targets),
            "reference": k.has_reference,
            "buffers": len(k.buffers),
            "semantic_hash": k.semantic_hash,
            "description": k.description,
        }
        for k in kernels
    ]
    if args.json:
        print_json(rows)
    else:
        print_table(
            "kernels",
            ["kernel", "targets", "reference", "description"],
            [
                (
                    r["id"],
                    ", ".join(r["targets"]) or "-",
                    "yes" if r["reference"] else "no",
                    r["description"],
                )
                for r in rows
            ],
        )
    return 0
