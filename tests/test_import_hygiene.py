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
            wrong += [f"{path.relative_to(ROOT)}:{line} imports {name}"
                      for name, line in sorted(_imported_packages(path)) if name in forbidden]
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
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_importing_forge_or_a_backend_loads_neither_the_oracle_nor_the_cli():
    for module, unwanted in (("forge", ("backends", "oracle", "kforge")),
                             ("backends.reference", ("oracle", "kforge"))):
        code = (f"import sys, {module}; print(sorted(m for m in sys.modules "
                f"if m.split('.')[0] in {unwanted!r}))")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True)
        assert result.stdout.strip() == "[]", (module, result.stdout)
