"""The layers' import rules (docs/DESIGN.md section 1), checked two ways: in the code
itself (every import statement, at any depth, also the ones run lazily), and at import
time in a fresh interpreter (what importing a package actually loads)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# package -> packages its modules must never import. forge/__main__.py is the one
# documented exception: a thin launcher of the CLI, which lives above everything.
FORBIDDEN = {
    "forge": {"backends", "oracle", "kforge", "bench", "tests"},
    "backends": {"oracle", "kforge", "bench", "tests"},
    "oracle": {"kforge", "bench", "tests"},
}
EXCEPTIONS = {ROOT / "forge" / "__main__.py"}


def _imported_packages(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {(alias.name.split(".")[0], node.lineno) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.module.split(".")[0], node.lineno))
    return found


def test_every_import_statement_points_down_the_layers():
    wrong = []
    for package, forbidden in FORBIDDEN.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            if path in EXCEPTIONS:
                continue
            wrong += [
                f"{path.relative_to(ROOT)}:{line} imports {name}"
                for name, line in sorted(_imported_packages(path))
                if name in forbidden
            ]
    assert not wrong, "\n".join(wrong)


def test_the_import_check_sees_lazy_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from oracle import evaluate\n    import backends.cuda\n")
    assert {name for name, _ in _imported_packages(module)} == {"oracle", "backends"}


CODE = """
import sys
import forge, oracle, backends, backends.reference, backends.wgpu, backends.cuda
import backends.browser
import kforge, oracle.pytest_plugin
forge.list_kernels()
forge.registry.backend_names()
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('cuda', 'wgpu', 'ray', 'playwright',
                                                          'optuna', 'pynvml'))
print(','.join(heavy))
"""


def test_importing_the_packages_imports_no_gpu_browser_cluster_or_tuning_library():
    result = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_importing_forge_or_a_backend_loads_neither_the_oracle_nor_the_cli():
    for module, unwanted in (
        ("forge", ("backends", "oracle", "kforge")),
        ("backends.reference", ("oracle", "kforge")),
    ):
        code = (
            f"import sys, {module}; print(sorted(m for m in sys.modules "
            f"if m.split('.')[0] in {unwanted!r}))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert result.stdout.strip() == "[]", (module, result.stdout)


# wgpu-py's private internals have one home, checked against wgpu-py's versions by the
# test beside it; everything else goes through that module's functions.
WGPU_INTERNALS_HOME = {
    ROOT / "backends" / "wgpu" / "_native.py",
    ROOT / "tests" / "test_wgpu_native.py",
}
_WGPU_PRIVATE_ATTRIBUTES = {"_internal", "_poller"}
_CODE_DIRS = ("forge", "backends", "oracle", "kforge", "bench", "tests", "examples")


def _wgpu_internals_used(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [
                (node.lineno, f"imports {a.name}")
                for a in node.names
                if a.name.startswith("wgpu.backends")
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("wgpu.backends") or (
                node.module == "wgpu" and any(a.name == "backends" for a in node.names)
            ):
                found.append((node.lineno, f"imports from {node.module}"))
        elif isinstance(node, ast.Attribute) and node.attr in _WGPU_PRIVATE_ATTRIBUTES:
            found.append((node.lineno, f"reads .{node.attr}"))
        elif isinstance(node, ast.Constant) and node.value == "READ_NOSYNC":
            found.append((node.lineno, "maps with 'READ_NOSYNC'"))
    return found


def test_wgpu_internals_are_reached_only_through_their_one_module():
    wrong = [
        f"{path.relative_to(ROOT)}:{line} {what}"
        for folder in _CODE_DIRS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in WGPU_INTERNALS_HOME and path != Path(__file__).resolve()
        for line, what in _wgpu_internals_used(path)
    ]
    assert not wrong, (
        "use backends/wgpu/_native.py (and add what is missing there, with "
        "its check in tests/test_wgpu_native.py):\n" + "\n".join(wrong)
    )


def test_the_wgpu_internals_check_sees_each_kind_of_use(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from wgpu.backends.wgpu_native._api import libf\n"
        "import wgpu.backends.wgpu_native\n"
        "def f(device, buffer):\n"
        "    return (device._internal, device._poller,\n"
        "            buffer.map_async('READ_NOSYNC'))\n"
    )
    assert [what for _, what in _wgpu_internals_used(module)] == [
        "imports from wgpu.backends.wgpu_native._api",
        "imports wgpu.backends.wgpu_native",
        "reads ._internal",
        "reads ._poller",
        "maps with 'READ_NOSYNC'",
    ]


def _private_backend_imports(path: Path) -> list[tuple[int, str]]:
    """Imports of a ``backends`` module or name that starts with an underscore."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found += [
            (node.lineno, name)
            for name in names
            if name.split(".")[0] == "backends"
            and any(part.startswith("_") for part in name.split("."))
        ]
    return found


def test_the_bench_reaches_backends_only_through_their_public_names():
    """The bench measures backends from outside: what it needs of one (CUDA's driver
    handle, wgpu's wait_idle, the browser's INLINE_LIMIT...) is exported by the
    backend's package (DEVELOPERS.md, "Layers")."""
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / "bench").rglob("*.py"))
        for line, name in _private_backend_imports(path)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_private_backend_import_check_sees_both_forms(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import backends.cuda._driver\nfrom backends.wgpu import _native, entry\n"
        "from backends.cuda import driver\nfrom forge import _checks\n"
    )
    assert [name for _, name in _private_backend_imports(module)] == [
        "backends.cuda._driver",
        "backends.wgpu._native",
    ]


# -- no module imports one that imports it back, at any depth ---------------------------
_PACKAGES = ("forge", "backends", "oracle", "kforge")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _typing_only(tree: ast.Module) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    return {
        id(node)
        for block in tree.body
        if isinstance(block, ast.If)
        and isinstance(block.test, ast.Name)
        and block.test.id == "TYPE_CHECKING"
        for node in ast.walk(block)
    }


def _module_imports(path: Path, modules: set[str], root: Path) -> set[str]:
    """The project modules ``path`` imports, lazily or not, resolved to the deepest
    module named (``from .x import y`` is ``pkg.x.y`` when that is a module)."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    skip, found = _typing_only(tree), set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
            targets = subs if len(subs) == len(node.names) else [base, *subs]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _import_cycles(root: Path, packages: tuple[str, ...]) -> list[list[str]]:
    paths = [p for package in packages for p in sorted((root / package).rglob("*.py"))]
    modules = {_module_name(p, root) for p in paths}
    graph = {_module_name(p, root): _module_imports(p, modules, root) for p in paths}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_back_even_lazily():
    """A function-level import that closes a circle is still a circle: the code of the
    two modules can only be understood together (issue 14 found a ten-module one)."""
    assert _import_cycles(ROOT, _PACKAGES) == []


def test_the_cycle_check_sees_a_lazy_circle_and_ignores_typing_only_imports(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import g\ndef f():\n    return g()\n")
    (package / "b.py").write_text("def g():\n    from .a import f\n    return f\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n"
    )
    (package / "d.py").write_text("from .c import *\n")
    assert _import_cycles(tmp_path, ("pkg",)) == [["pkg.a", "pkg.b"]]
