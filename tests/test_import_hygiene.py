"""Importing the packages must not import cuda or wgpu: a machine without CUDA must be
able to use everything else."""

import subprocess
import sys

CODE = """
import sys
import forge, oracle, backends, backends.reference, backends.wgpu, backends.cuda
import forge.cli, oracle.pytest_plugin
forge.list_kernels()
forge.registry.backend_names()
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('cuda', 'wgpu'))
print(','.join(heavy))
"""


def test_importing_the_packages_imports_neither_cuda_nor_wgpu():
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_forge_does_not_import_backends_or_oracle():
    code = "import sys, forge; print(sorted(m for m in sys.modules if m.split('.')[0] in ('backends', 'oracle')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
