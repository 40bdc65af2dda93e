"""The device part of a ``.cu`` file as people write it, for NVRTC.

A kernel is often taken from a file that also holds its host side: a PyTorch extension
(``#include <torch/extension.h>``, a ``torch::Tensor forward(...)`` that launches it with
``<<<grid, block>>>``, a ``PYBIND11_MODULE`` block), a sample's ``main`` with its
``cudaMalloc`` calls, KernelBench's ``load_inline`` sources. nvcc splits such a file in
two; NVRTC compiles device code only and refuses all of it (a header it cannot find, a
launch it cannot parse). ``device_code`` gives NVRTC what nvcc's device pass would see:

- ``#include`` lines of host-only headers (``HOST_HEADERS``: PyTorch's, pybind11's,
  the C++ library's containers and streams, the CUDA libraries' host APIs) are blanked;
- each function defined at namespace scope with no ``__global__`` or ``__device__``
  (spelled out or through an object-like macro, ``#define HD __host__ __device__``) is
  blanked, body and all: device code cannot call a host function under nvcc either, so
  no kernel needs one; a ``constexpr`` one, which nvcc lets device code call
  (``--expt-relaxed-constexpr``), is declared ``__host__ __device__`` instead;
- ``PYBIND11_MODULE(...) { ... }`` and ``TORCH_LIBRARY...(...) { ... }`` blocks are
  blanked.

Blanked text becomes spaces with its newlines kept, so NVRTC's line numbers are the
file's (an annotation added moves columns only). A source with none of the three (no
``<<<`` launch, no host-only header, no binding block) is left as it is: it already is
device code, and any host function in it is NVRTC's to report (``_nvrtc`` declares host
prototypes as device ones).
"""

from __future__ import annotations

import re

from forge.sources import matching_close

__all__ = ["HOST_HEADERS", "device_code"]

#: Headers no device code needs, by path prefix: what host code includes.
HOST_HEADERS = (
    "torch/",
    "ATen/",
    "c10/",
    "pybind11/",
    "Python.h",
    "iostream",
    "fstream",
    "sstream",
    "iomanip",
    "vector",
    "string",
    "map",
    "unordered_map",
    "set",
    "unordered_set",
    "list",
    "deque",
    "queue",
    "stack",
    "chrono",
    "random",
    "thread",
    "mutex",
    "functional",
    "numeric",
    "memory",
    "exception",
    "stdexcept",
    "cuda_profiler_api.h",
    "cublas_v2.h",
    "cublas.h",
    "cublasLt.h",
    "cudnn.h",
    "cusparse.h",
    "cufft.h",
    "curand.h",
    "nvtx3/",
    "nvToolsExt.h",
)

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"][^\n]*$', re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*)$", re.M)
_DEVICE_SPACE = re.compile(r"\b(?:__global__|__device__)\b")
_BINDING_BLOCK = re.compile(r"^\s*(?:PYBIND11_MODULE|TORCH_LIBRARY\w*)\s*\(")
_LAUNCH = re.compile(r"<<<")
# a function's parameter list closing its head, then qualifiers or a trailing return type
_FUNCTION_HEAD = re.compile(r"\)\s*(?:(?:const|noexcept|override|final)\b\s*|->[^{;]*)*$")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _code_only(text: str) -> str:
    """``text`` with comments, string and character literals blanked (same length), so
    braces and ``<<<`` inside them are not read as code."""
    pattern = r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    return re.sub(pattern, lambda m: _blank(m.group(0)), text, flags=re.S)


def _is_host_header(path: str) -> bool:
    return any(
        path == h or (h.endswith("/") and path.startswith(h)) or path == h.rstrip("/")
        for h in HOST_HEADERS
    )


def _device_macros(code: str) -> frozenset[str]:
    """Object-like macros that stand for a device execution space (``#define HD
    __host__ __device__``), followed through other such macros."""
    defines = {name: body for name, body in _DEFINE.findall(code)}
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in defines.items():
            if name in found:
                continue
            if _DEVICE_SPACE.search(body) or any(re.search(rf"\b{m}\b", body) for m in found):
                found.add(name)
                changed = True
    return frozenset(found)


def _host_definitions(code: str, device: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, name) of each namespace-scope function definition or binding block
    in ``code`` (comments and literals blanked) that device code cannot use. Namespace
    and ``extern "C"`` bodies are read as namespace scope; class bodies are skipped."""
    spans: list[tuple[int, int, str]] = []
    start = 0  # where the current declaration's text begins
    index = 0
    while index < len(code):
        char = code[index]
        if char == "#" and code[code.rfind("\n", 0, index) + 1 : index].strip() == "":
            # a preprocessor line (with its continuations) ends any declaration's text
            end = index
            while True:
                end = code.find("\n", end)
                if end < 0 or code[end - 1] != "\\":
                    break
                end += 1
            index = len(code) if end < 0 else end + 1
            start = index
            continue
        if char == ";" or char == "}":
            index += 1
            start = index
            continue
        if char != "{":
            index += 1
            continue
        head = code[start:index]
        closing = matching_close(code, index, "{", "}")
        closing = len(code) - 1 if closing is None else closing  # unclosed: to the end
        if re.fullmatch(r'\s*(?:(?:inline\s+)?namespace\b[\w\s:]*|extern\s+"C(?:\+\+)?"\s*)', head):
            index += 1  # read the namespace's body as namespace scope
            start = index
            continue
        words = set(re.findall(r"\w+", head))
        is_function = (
            _FUNCTION_HEAD.search(head) is not None
            and "=" not in head.split("(")[0]  # a variable initialised from a lambda
            and not re.search(r"\b(?:struct|class|union|enum)\b", head)
        )
        annotated = bool(_DEVICE_SPACE.search(head)) or bool(words & device)
        if _BINDING_BLOCK.match(head):
            spans.append((start, closing + 1, head.strip().split("(")[0].strip()))
        elif is_function and not annotated and "constexpr" in words:
            # nvcc lets device code call it (--expt-relaxed-constexpr); NVRTC refuses an
            # unannotated one: it becomes __host__ __device__, as device code sees it
            at = start + re.search(r"\bconstexpr\b", head).start()  # type: ignore[union-attr]
            spans.append((at, at, ""))
        elif is_function and not annotated:
            name = re.findall(r"([A-Za-z_]\w*)\s*\(", head)
            spans.append((start, closing + 1, name[0] if name else "?"))
        index = closing + 1
        start = index
    return spans


def device_code(source: str) -> tuple[str, tuple[str, ...]]:
    """``source`` as nvcc's device pass sees it (the module's docstring), and what was
    left out (``"<torch/extension.h>"``, ``"forward"``); ``source`` itself and ``()``
    where it has no host side."""
    code = _code_only(source)
    headers = [
        (m.start(), m.end(), m.group(1))
        for m in _INCLUDE.finditer(code)
        if _is_host_header(source[m.start(1) : m.end(1)])
    ]
    has_binding = any(_BINDING_BLOCK.match(line) for line in code.splitlines())
    if not headers and not _LAUNCH.search(code) and not has_binding:
        return source, ()
    spans = [(a, b, f"<{name}>") for (a, b, name) in headers]
    spans += _host_definitions(code, _device_macros(code))
    if not spans:
        return source, ()
    out, last = [], 0
    for a, b, _ in sorted(spans):
        if a < last:
            continue
        # an empty span is where a constexpr function's annotation goes
        out += [source[last:a], _blank(source[a:b]) if b > a else "__host__ __device__ "]
        last = b
    out.append(source[last:])
    return "".join(out), tuple(dict.fromkeys(name for *_, name in sorted(spans) if name))
