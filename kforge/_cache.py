"""``kforge cache info`` and ``kforge cache clear``: what the cache root holds, and
removing it (all of it, or some folders)."""

from __future__ import annotations

from forge.cache import FOLDERS, cache_root, cache_usage, clear_cache

from ._output import add_json_flag, print_json, print_table


def register(subparsers) -> None:
    parser = subparsers.add_parser("cache", help="what the cache root holds, or clear it")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    info = actions.add_parser("info", help="folders of the cache root, their files and sizes")
    add_json_flag(info)
    info.set_defaults(run=_info)
    clear = actions.add_parser("clear", help="remove the cache (or some of its folders)")
    clear.add_argument(
        "folders",
        nargs="*",
        metavar="FOLDER",
        help=f"folders to clear (default: all): {', '.join(FOLDERS)}",
    )
    clear.set_defaults(run=_clear)
    for sub in (info, clear):
        sub.add_argument(
            "--cache-dir", help="cache root (default: $FORGE_CACHE_DIR or ~/.cache/kernel-forge)"
        )


def _info(args) -> int:
    root = cache_root(args.cache_dir)
    usage = cache_usage(root)
    if args.json:
        print_json(
            {
                "root": str(root),
                "folders": {
                    k: {"files": f, "bytes": b, "holds": FOLDERS[k]} for k, (f, b) in usage.items()
                },
            }
        )
        return 0
    print_table(
        f"cache root {root}",
        ["folder", "holds", "files", "size"],
        [(k, FOLDERS[k], str(f), f"{b / 2**20:.1f} MiB") for k, (f, b) in usage.items()],
    )
    return 0


def _clear(args) -> int:
    unknown = [f for f in args.folders if f not in FOLDERS]
    if unknown:
        from forge.errors import InvalidArgument

        raise InvalidArgument(
            f"no cache folder {', '.join(unknown)}; the folders are {', '.join(FOLDERS)}"
        )
    removed = clear_cache(args.cache_dir, args.folders or None)
    print(f"cleared {', '.join(removed)}" if removed else "the cache was already empty")
    return 0
