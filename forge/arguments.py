"""What each parameter of a CUDA ``__global__`` function receives at launch.

A raw CUDA kernel declares its parameters in its own order (``const float* x, float* y,
int n, float eps``); a ``KernelSpec`` names buffers, a uniform block's fields, the
dimensions of the problem size and the values ``params(size)``/``defaults`` give, and
a launch may give values of its own (``overrides``, ``Dispatch.overrides``). This
module matches the two and returns one entry per parameter, which the CUDA backend
packs:

- ``("buffer", index)``: the device pointer of ``kernel.buffers[index]``;
- ``("field", name)``: one field of the uniform block, by value;
- ``("uniform", None)``: the whole uniform block as its C struct, by value;
- ``("value", (name, bytes))``: a scalar that is no uniform field (a dimension of the
  size, what ``params(size)`` or ``defaults`` gives, or a launch's override), already
  packed in the C type the kernel declares; ``name`` is the spec's name for the value,
  which may differ from the parameter's (``arguments=("d_in", "d_out", "n")`` for
  ``int num_items``);
- ``("texture", index)``: a texture object (``cudaTextureObject_t``) the backend makes
  over ``kernel.buffers[index]`` before the launches: over its own memory for a plain
  buffer (``tex1Dfetch``), over an array copied from it for a texture buffer
  (``BufferSpec(texture=FORMAT, shape=(H, W), sampler=Sampler(...))``: ``tex2D``);
- ``("surface", index)``: a surface object (``cudaSurfaceObject_t``) over an array
  copied from texture buffer ``index`` before the launches and back into it after;
- ``("offset", (index, bytes))``: the device pointer of a buffer that many bytes on,
  for ``arguments=("d_data + 256", ...)`` (a host's ``d_data + blockSize``);
- ``("accessor", (index, dims, index_bytes))``: PyTorch's ``PackedTensorAccessor32``
  (``64``) by value over ``kernel.buffers[index]``: its data pointer, then its ``dims``
  sizes and strides (in elements, C order) as ``index_bytes``-byte integers, the
  layout ATen's ``GenericPackedTensorAccessorBase`` declares (``accessor_bytes``);
  ``("accessor", (index, dims, index_bytes, "faiss"))``: FAISS's
  ``faiss::gpu::Tensor<T, Dim, InnerContig, IndexT>`` by value, its data pointer, then
  its strides, then its sizes (``Tensor.cuh``'s ``data_``, ``stride_[Dim]``,
  ``size_[Dim]``);
- ``("default", (name, bytes))``: a trailing parameter ``arguments=`` leaves out,
  packed from its declared default (``int *partial_sums = NULL``: a null pointer), or
  a null pointer ``arguments=`` gives by name, anywhere (``"nullptr"`` or ``"NULL"``,
  its name: a host's ``_use_mean ? means : nullptr``).

The rules, in order:

1. ``arguments=(...)`` (the kernel's or a ``Dispatch``'s) lists, in the kernel's
   order, the name of what each parameter receives: a buffer, a uniform field (or the
   uniform block, ``params`` unless named), a dimension of the size (``n``), a value
   ``params(size)``/``defaults`` gives or one of the launch's overrides. A value is
   packed in the type the parameter at that position declares; when the declaration
   cannot be read, a Python int as a C ``int`` and a float as a C ``float`` (give a
   numpy scalar, ``np.int64(n)``, for another type).
2. Else, when every parameter is named like one of those, by name.
3. Else by position and kind: pointers take the buffers in binding order (const ones
   the read-only buffers where that fits); a scalar named like a value is that value
   wherever it sits; the other values take the uniform's fields in order, or the
   whole uniform for one struct parameter. A 1-D kernel (one size dimension) without
   a uniform block whose one unnamed integer scalar is its only unmatched value, as
   in cuda-samples' ``vectorAdd(const float* A, const float* B, float* C, int
   numElements)``, passes the size there. When kinds and counts do not fit, an error
   names the parameters and what to write, rather than guessing an order.
4. A source whose declaration cannot be read (no ``__global__`` function of that
   name, a parameter without a name) and no ``arguments=`` is an error saying so:
   guessing "buffers by binding, the uniform last" passed nothing to its by-value
   parameters. Without a source, or for one whose parameter list never closes (a
   broken source, which NVRTC refuses with its own log), that convention stands.

A buffer named like a ``__constant__`` or ``__device__`` variable of the source's file
scope (``__constant__ float c_Kernel[17]``, which cuda-samples fill with
``cudaMemcpyToSymbol``) that no parameter is named like is no argument: the backend
copies its contents into that variable before the launches (``symbol_buffers``).

A template's type parameters take the entry point's arguments (``scale<float>``: a
``scalar_t alpha`` is a ``float``), and a kernel stamped out by a macro is read from
the macro's body (``forge.sources.cuda_parameters``). A launch's override that names
no parameter of the kernel (nor a WGSL ``override`` of its WGSL source) is an error.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import sources as _sources
from .buffers import Access, _field_problem
from .errors import CompileError, InvalidArgument, UnsupportedFeature
from .expressions import resolve
from .size import is_int

if TYPE_CHECKING:
    from .kernel import KernelSpec

__all__ = [
    "accessor_bytes",
    "accessor_size",
    "accessor_type",
    "argument_order",
    "cuda_arguments",
    "symbol_buffers",
    "values_by_name",
]

Argument = tuple[str, Any]


def cuda_arguments(
    kernel: KernelSpec,
    entry: str,
    explicit: Sequence[str] | None,
    source: str | None,
    size: Any = None,
    launch_values: Mapping[str, Any] | None = None,
    symbols: Mapping[int, str] | None = None,
    aliases: Mapping[str, int] | None = None,
) -> tuple[Argument, ...]:
    """The argument of each parameter of ``entry`` (rendered: ``"scan<128, 4>"``) in
    ``source`` at ``size``; ``launch_values``: the launch's own values by name (its
    overrides), over the kernel's; ``symbols``: ``symbol_buffers``' answer, when the
    caller has it; ``aliases``: other names of buffers in this launch, over their own
    (``Dispatch.bindings``: a pointer named like the WGSL variable ``src`` gets the
    buffer the launch binds there)."""
    params = (
        _sources.cuda_parameters(source, entry, kernel.include_dirs) if source is not None else None
    )
    # an accessor takes a buffer, as a pointer does (matched so, by name or position)
    accessors = [accessor_type(p.type, source) for p in params or ()]
    if any(accessors):
        params = [
            dataclasses.replace(p, pointer=True) if a else p
            for p, a in zip(params or (), accessors)
        ]
    if symbols is None:
        symbols = symbol_buffers(kernel, entry, explicit, source)
    uniform_copied = kernel.uniform is not None and _passed_uniform(kernel, symbols) is None
    known = {
        name: arg
        for name, arg in _spec_names(kernel).items()
        if (arg[1] not in symbols if arg[0] == "buffer" else not uniform_copied)
    }
    for name, index in (aliases or {}).items():
        if index not in symbols:
            known[name] = ("buffer", index)
    values = {**(values_by_name(kernel, size) if size is not None else {}), **(launch_values or {})}
    if launch_values:
        _check_launch_values(kernel, entry, launch_values, params, explicit)
    if not explicit:
        _unmatched_handles(kernel, entry, params, known)
    if explicit:
        found = _through_pointers(
            kernel, params, _explicit(kernel, entry, list(explicit), params, known, values, size)
        )
        found = _accessors(
            kernel, entry, params, accessors, _handles(kernel, entry, params, found), size
        )
        _check_structs(kernel, entry, params, found, source)
        return found
    if (
        params is None
        and source is not None
        and _sources.cuda_parameters_problem(source, entry, kernel.include_dirs)
    ):
        raise _unreadable(kernel, entry, source)
    if params is None:  # no source, or a broken one NVRTC will refuse: the convention
        return tuple(
            ("uniform", None) if b.access is Access.UNIFORM else ("buffer", i)
            for i, b in enumerate(kernel.buffers)
            if i not in symbols
        )
    known.update(_scalars(kernel, entry, params, values, known))
    if all(p.name in known for p in params):
        found = tuple(known[p.name] for p in params)
    else:
        found = _by_position(kernel, entry, params, known, values, size, symbols)
    found = _handles(kernel, entry, params, _through_pointers(kernel, params, found))
    found = _accessors(kernel, entry, params, accessors, found, size)
    _check_structs(kernel, entry, params, found, source)
    return found


#: PyTorch's packed tensor accessors, as a parameter's type names them (``const
#: torch::PackedTensorAccessor32<float,3,torch::RestrictPtrTraits>``, its template's
#: arguments already substituted): the element type, the dimensions, the rest.
_ACCESSOR = re.compile(
    r"^(?:const\s+)?(?:(?:torch|at)::)?(?P<kind>PackedTensorAccessor(?:32|64)?|"
    r"GenericPackedTensorAccessor)\s*<\s*(?P<args>.*)>\s*(?:const)?$"
)


#: FAISS's GPU tensor by value (``faiss/gpu/utils/Tensor.cuh``): ``Tensor<T, Dim,
#: InnerContig, IndexT, PtrTraits>``, read as one where the type names its namespace or
#: the source includes FAISS's tensor header (a bare ``Tensor<...>`` is anyone's).
_FAISS_TENSOR = re.compile(
    r"^(?:const\s+)?(?P<ns>(?:::)?(?:faiss::gpu|gpu)::)?Tensor\s*<\s*(?P<args>.*)>\s*(?:const)?$"
)
_FAISS_HEADER = re.compile(r'#\s*include\s*[<"]faiss/gpu/utils/(?:Device)?Tensor\.cuh[>"]')
#: The layout tag of a FAISS tensor's ``accessor`` argument (strides before sizes).
FAISS_TENSOR = "faiss"

#: An index type's bytes, as an accessor's last template argument names it.
_INDEX_BYTES = {
    "int32_t": 4,
    "int": 4,
    "int32": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "uint32_t": 4,
}
#: A project's own name for an accessor: ``template <typename T, size_t N> using CudaAcsr
#: = const at::PackedTensorAccessor<T, N, at::RestrictPtrTraits, int32_t>;`` (box-
#: convolutions), or a plain ``using``/``typedef`` of one.
_ALIAS_TEMPLATE = re.compile(
    r"template\s*<(?P<params>[^<>]*)>\s*using\s+(?P<name>\w+)\s*=\s*(?P<body>[^;]+);"
)
_ALIAS_PLAIN = re.compile(
    r"(?<![\w>])\s*using\s+(?P<name>\w+)\s*=\s*(?P<body>[^;]*PackedTensorAccessor[^;]*);"
    r"|\btypedef\s+(?P<tbody>[^;]*PackedTensorAccessor[^;]*?)\s+(?P<tname>\w+)\s*;"
)


def accessor_type(type_: str, source: str | None = None) -> tuple | None:
    """(dimensions, bytes of its index type) of a PyTorch ``PackedTensorAccessor32``
    (4-byte indices), ``PackedTensorAccessor64`` (8), or ``PackedTensorAccessor`` or
    ``GenericPackedTensorAccessor<T, N, Traits, index_t>`` (``index_t``'s, 8 unless
    given) parameter type, also through an alias ``source`` declares; (dimensions,
    bytes, ``FAISS_TENSOR``) of FAISS's ``Tensor<T, Dim, InnerContig, IndexT>``
    (``IndexT``'s, 8 unless given: FAISS's ``idx_t``); None for any other type."""
    text = " ".join(type_.split())
    faiss = _FAISS_TENSOR.match(text)
    if faiss is not None and (
        faiss["ns"] or (source is not None and _FAISS_HEADER.search(source) is not None)
    ):
        args = [a.strip() for a in _sources._split_top_level(faiss["args"])]
        if len(args) < 2 or not args[1].isdigit():
            return None
        index = 8
        if len(args) >= 4:
            name = args[3].replace("std::", "").replace("const ", "")
            index = _INDEX_BYTES.get(name, 8)
        return int(args[1]), index, FAISS_TENSOR
    found = _ACCESSOR.match(text)
    if found is None and source is not None:
        resolved = _through_alias(text, source)
        found = _ACCESSOR.match(resolved) if resolved is not None else None
    if found is None:
        return None
    args = [a.strip() for a in _sources._split_top_level(found["args"])]
    if len(args) < 2 or not args[1].isdigit():
        return None
    index = {"PackedTensorAccessor32": 4}.get(found["kind"], 8)
    if found["kind"] in ("GenericPackedTensorAccessor", "PackedTensorAccessor") and len(args) >= 4:
        index = _INDEX_BYTES.get(args[3].replace("std::", "").replace("const ", ""), 8)
    return int(args[1]), index


def _through_alias(type_: str, source: str) -> str | None:
    """``type_`` (``const CudaAcsr<float, 2>``) with a ``source``'s alias of an accessor
    put in its place, its template parameters given the arguments; None where it names
    no such alias."""
    named = re.match(r"^(?:const\s+)?(?P<name>\w+)\s*(?:<(?P<args>.*)>)?\s*(?:const)?$", type_)
    if named is None:
        return None
    text = _sources.strip_comments(source)
    for alias in _ALIAS_TEMPLATE.finditer(text):
        if alias["name"] != named["name"] or "PackedTensorAccessor" not in alias["body"]:
            continue
        params = [p.split()[-1] for p in _sources._split_top_level(alias["params"]) if p.split()]
        given = [a.strip() for a in _sources._split_top_level(named["args"] or "")]
        if len(given) != len(params):
            return None
        body = alias["body"]
        for param, arg in zip(params, given):
            body = re.sub(rf"\b{re.escape(param)}\b", arg, body)
        return " ".join(body.split())
    for alias in _ALIAS_PLAIN.finditer(text):
        name, body = alias["name"] or alias["tname"], alias["body"] or alias["tbody"]
        if name == named["name"] and not named["args"]:
            return " ".join(body.split())
    return None


def accessor_size(dims: int, index_bytes: int) -> int:
    """The bytes of a packed tensor accessor by value (``accessor_bytes``): the pointer,
    ``dims`` sizes and strides, padded to the pointer's 8-byte alignment."""
    return -(-(8 + 2 * dims * index_bytes) // 8) * 8


def accessor_bytes(
    address: int, shape: Sequence[int], index_bytes: int, layout: Sequence[str] = ()
) -> bytes:
    """A packed tensor accessor by value, as ATen lays it out: the data pointer, then
    the sizes and the C-order strides (in elements) as ``index_bytes``-byte integers,
    padded to the pointer's 8-byte alignment; with ``layout`` ``(FAISS_TENSOR,)``, a
    FAISS tensor: the pointer, then the strides, then the sizes."""
    strides = [int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape))]
    dtype = np.dtype("<i4" if index_bytes == 4 else "<i8")
    numbers = [*strides, *shape] if FAISS_TENSOR in layout else [*shape, *strides]
    raw = address.to_bytes(8, "little") + np.array(numbers, dtype).tobytes()
    return raw.ljust(accessor_size(len(shape), index_bytes), b"\0")


def _accessors(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam] | None,
    accessors: Sequence[tuple[int, int] | None],
    found: Sequence[Argument],
    size: Any,
) -> tuple[Argument, ...]:
    """``found`` with the buffer given to each PyTorch accessor parameter (``accessors``:
    each parameter's ``accessor_type``) as ``("accessor", (index, dims, index_bytes))``,
    its shape at ``size`` checked against the accessor's dimensions; one given anything
    but a buffer is refused."""
    if params is None or not any(accessors) or len(params) != len(found):
        return tuple(found)
    out: list[Argument] = []
    for param, accessor, argument in zip(params, accessors, found):
        if accessor is None:
            out.append(argument)
            continue
        dims, index_bytes = accessor[0], accessor[1]
        layout: tuple[str, ...] = tuple(accessor[2:])
        what = "FAISS tensor" if FAISS_TENSOR in layout else "PyTorch accessor"
        if argument[0] != "buffer":
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {entry}'s parameter `{param.type} {param.name}` is a "
                f"{what}, made over a buffer, but the launch gives it "
                f"{_describe(kernel, argument)}: give it the buffer it reads"
            )
        spec = kernel.buffers[argument[1]]
        if size is not None:
            # a buffer without a shape is flat: a 1-D accessor's (shape_at gives its count)
            shape = spec.shape_at(size) if spec.shape is not None or dims == 1 else None
            if shape is None or len(shape) != dims:
                raise InvalidArgument(
                    f"kernel {kernel.id}: {entry}'s parameter `{param.type} {param.name}` "
                    f"is a {dims}-D {what} over buffer {spec.label}, whose shape "
                    f"at size {size} is {shape if shape is not None else 'not declared'}: "
                    f"declare the buffer's shape=(...) with {dims} axes, the tensor's sizes"
                )
            if index_bytes == 4 and int(np.prod(shape, dtype=np.int64)) >= 2**31:
                raise InvalidArgument(
                    f"kernel {kernel.id}: buffer {spec.label}'s shape {tuple(shape)} does "
                    f"not fit {param.name}'s 32-bit accessor (PackedTensorAccessor32): "
                    "PyTorch refuses it too; use a PackedTensorAccessor64"
                )
        out.append(("accessor", (argument[1], dims, index_bytes, *layout)))
    return tuple(out)


#: Parameter types that are handles the host makes with the runtime or the driver
#: (``cudaCreateTextureObject``, ``cuTexObjectCreate``), not values a buffer or a scalar
#: can stand for: passing a buffer's address there makes ``tex1Dfetch`` read through a
#: handle that does not exist.
_HANDLE_TYPES = {
    "cudaTextureObject_t": "texture object",
    "CUtexObject": "texture object",
    "cudaSurfaceObject_t": "surface object",
    "CUsurfObject": "surface object",
}


def _handle_kind(param: _sources.CudaParam) -> str | None:
    """``"texture object"`` or ``"surface object"`` for a parameter of such a type."""
    return None if param.pointer else _handle_of_type(param.type)


def _handle_of_type(type_: str) -> str | None:
    """What handle the CUDA type ``type_`` names (``_HANDLE_TYPES``), ``const`` aside."""
    return _HANDLE_TYPES.get(" ".join(type_.replace("const", " ").split()))


def _unmatched_handles(
    kernel: KernelSpec, entry: str, params: Any, known: Mapping[str, Argument]
) -> None:
    """Refuse a texture or surface object parameter no buffer is named like (without
    ``arguments=``): kernel-forge makes such an object over the buffer of its name."""
    for param in params or ():
        what = _handle_kind(param)
        if what is not None and known.get(param.name, ("", None))[0] != "buffer":
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {entry}'s parameter `{param.type} {param.name}` is a "
                f"CUDA {what}, and no buffer of the kernel is named {param.name!r}: "
                f"kernel-forge makes a {what} over the buffer named like the parameter "
                f"(or the one arguments= names there); name the buffer {param.name!r}"
                + (
                    " and declare it texture=FORMAT, shape=(height, width), sampler="
                    "Sampler(...) for tex2D"
                    if what == "texture object"
                    else " and declare it texture=FORMAT, shape=(height, width)"
                )
            )


def _handles(
    kernel: KernelSpec, entry: str, params: Sequence[_sources.CudaParam] | None, found: Any
) -> tuple[Argument, ...]:
    """``found`` with the buffer given to each texture or surface object parameter as
    ``("texture", index)`` or ``("surface", index)`` (``texture_handle``), refusing one
    given anything but a buffer."""
    if params is None or len(params) != len(found):
        return tuple(found)
    out: list[Argument] = []
    for param, argument in zip(params, found):
        what = _handle_kind(param)
        if what is None:
            out.append(argument)
            continue
        if argument[0] != "buffer":
            raise UnsupportedFeature(
                f"kernel {kernel.id}: {entry}'s parameter `{param.type} {param.name}` is a "
                f"CUDA {what}, made over a buffer, but the launch gives it "
                f"{_describe(kernel, argument)}: give it the buffer it reads"
            )
        out.append(texture_handle(kernel, entry, param.type, param.name, argument[1]))
    return tuple(out)


def texture_handle(kernel: KernelSpec, entry: str, type_: str, name: str, index: int) -> Argument:
    """The argument of texture or surface object parameter ``type_ name`` made over
    ``kernel.buffers[index]``, refused (``UnsupportedFeature``, ``InvalidArgument``)
    where kernel-forge makes no such object over that buffer: a texture object over a
    plain buffer is a 1-D one over its memory (``tex1Dfetch``, point reads of its
    elements), over a texture buffer a 2-D one over an array with the buffer's declared
    ``Sampler`` (required: the host's ``cudaTextureDesc`` is not guessed); a surface
    object is made over a texture buffer only. 3-D, layered, mipmapped and cubemap
    objects are not made."""
    from .textures import cuda_channel_format

    spec = kernel.buffers[index]
    what = _handle_of_type(type_)
    assert what is not None, type_  # called for texture and surface object parameters
    where = (
        f"kernel {kernel.id}: {entry}'s parameter `{type_} {name}` ({what} over buffer "
        f"{spec.label})"
    )
    if spec.access is Access.UNIFORM:
        raise InvalidArgument(f"{where}: a uniform block is no texture")
    if what == "surface object":
        if spec.texture is None:
            raise UnsupportedFeature(
                f"{where}: kernel-forge makes a surface object over a 2-D texture buffer "
                "only; declare it texture=FORMAT, shape=(height, width)"
            )
        return ("surface", index)
    if spec.texture is None:
        cuda_channel_format(spec.element, f"{where}: its element type")  # refused here
        return ("texture", index)
    if spec.sampler is None:
        raise InvalidArgument(
            f"{where}: a 2-D texture object samples as its host's cudaTextureDesc says; "
            f"declare it on the buffer: BufferSpec(..., texture={spec.texture!r}, shape=(height, "
            "width), sampler=Sampler(filter='nearest' or 'linear', address='clamp', "
            "'repeat' or 'mirror', normalized=True or False))"
        )
    fmt = spec.texture_format
    assert fmt is not None
    if spec.sampler.linear and fmt.sampled == "u32":
        raise UnsupportedFeature(
            f"{where}: CUDA filters linearly only textures read as floats; a {fmt.name} "
            "texture is read as integers (use Sampler(filter='nearest'))"
        )
    if not spec.sampler.normalized and spec.sampler.address != "clamp":
        # cuda-samples' SobelFilter and convolutionTexture set cudaAddressModeWrap with
        # normalizedCoords = false; the driver clamps there ("if the flag
        # CU_TRSF_NORMALIZED_COORDINATES is not set, the only supported address mode is
        # CU_TR_ADDRESS_MODE_CLAMP", cuTexRefSetAddressMode): normalized=True, which the
        # message once offered, would read the kernel's texel coordinates as fractions
        raise UnsupportedFeature(
            f"{where}: CUDA wraps and mirrors only normalised coordinates; without them "
            "the driver supports clamp alone, which is what a host's "
            f"cudaAddressMode{'Wrap' if spec.sampler.address == 'repeat' else 'Mirror'} "
            "with normalizedCoords = false reads as: declare "
            f"Sampler(filter={spec.sampler.filter!r}, address='clamp', normalized=False) "
            "(normalized=True would take the kernel's coordinates in texels as fractions "
            "of the extent)"
        )
    return ("texture", index)


def _through_pointers(
    kernel: KernelSpec, params: Sequence[_sources.CudaParam] | None, found: Sequence[Argument]
) -> tuple[Argument, ...]:
    """The uniform block given to a pointer parameter (``const Params* p``) as its
    buffer's device address: packed by value there, the struct's first 8 bytes were
    passed as the pointer, and the kernel read through garbage."""
    uniform = kernel.uniform
    if params is None or uniform is None or len(params) != len(found):
        return tuple(found)
    index = kernel.buffers.index(uniform)
    return tuple(
        ("buffer", index) if argument == ("uniform", None) and param.pointer else argument
        for param, argument in zip(params, found)
    )


def _check_structs(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam] | None,
    found: Sequence[Argument],
    source: str | None,
) -> None:
    """Refuse a uniform block passed by value to a struct parameter whose C declaration
    in ``source`` lays its members out otherwise than the spec's fields (another order,
    another size or kind): packed in the spec's order, each member would read another
    one's bytes, silently (round 23; WGSL's uniform structs get the same check,
    ``forge._bindings.check_uniform_layout``). Compared by byte offset, so the spec may
    name its fields otherwise; a struct this cannot read (a template, a nested type, a
    member function with a body, a member of a type it does not know) is not checked:
    say nothing rather than refuse a right kernel."""
    uniform = kernel.uniform
    if params is None or source is None or uniform is None or len(params) != len(found):
        return
    index = kernel.buffers.index(uniform)
    for param, argument in zip(params, found):
        if argument not in (("uniform", None), ("buffer", index)):
            continue
        struct = _sources.cuda_struct_type(param.type)
        members = _sources.cuda_struct_fields(source, struct) if struct else None
        theirs = _c_layout(members) if members else None
        if theirs is None:
            continue
        problem = _struct_problem(uniform, theirs)
        if problem:
            declared = ", ".join(f"{m.type} {m.name}" for m in members or ())
            raise InvalidArgument(
                f"kernel {kernel.id}: uniform {uniform.label} is passed by value to parameter "
                f"'{param.type} {param.name}' of {entry}, but struct {struct} in the CUDA "
                f"source ({{{declared}}}) {problem}; packed as the spec declares it, the "
                f"kernel would read other bytes. List the uniform's fields as the struct "
                f"declares them{_struct_remedy(theirs)}"
            )


# CUDA's C layout of one struct member: (name, offset, size, kind "f"/"i"/"p"/"", C type)
_Member = tuple[str, int, int, str, str]


def _c_layout(members: Sequence[_sources.CudaField]) -> list[_Member] | None:
    """Each member's offset, size and kind as CUDA lays the struct out (natural
    alignment; CUDA's 2- and 4-lane vector types aligned to their size up to 16); None
    where a member's type is not one this knows."""
    laid: list[_Member] = []
    offset = 0
    for member in members:
        if "*" in member.type:
            size = align = 8
            kind = "p"
        else:
            dtype = _sources.scalar_dtype(member.type)
            if dtype is None:
                return None
            if dtype.subdtype is not None:
                base, (lanes,) = dtype.subdtype
                size = base.itemsize * lanes
                align = min(size, 16) if lanes in (2, 4) else base.itemsize
                kind = _kind(base)
            else:
                size = align = dtype.itemsize
                kind = _kind(dtype)
        offset = -(-offset // align) * align
        laid.append((member.name, offset, size * member.count, kind, member.type))
        offset += size * member.count
    return laid


def _kind(dtype: np.dtype) -> str:
    """Float or integer, for comparing a C member with a spec field (bfloat16, whose
    numpy kind is "V", is a float)."""
    if dtype.kind == "f" or "bfloat16" in dtype.name:
        return "f"
    return "i" if dtype.kind in "iub" else ""


def _struct_problem(uniform: Any, theirs: list[_Member]) -> str:
    """How the spec's fields, in C's layout, differ from the struct's members; "" when
    every member's bytes hold the field of the same name (or, for a member named like
    no field, a field of its size at its offset), of the same kind."""
    from . import layout

    dtype = layout.target_dtype(uniform.fields, "c")
    fields: Mapping[str, Any] = dtype.fields or {}
    ours = {
        name: (int(fields[name][1]), fields[name][0].itemsize, _kind(fields[name][0].base), t)
        for name, t in uniform.fields
    }
    spec_text = {
        name: f"{name} ({t}, {ours[name][1]} bytes at byte {ours[name][0]})"
        for name, t in uniform.fields
    }
    names = [m[0] for m in theirs]
    if set(names) == set(ours) and names != list(ours):
        return (
            f"declares its members in the order ({', '.join(names)}), and the spec lists "
            f"its fields as ({', '.join(ours)})"
        )
    for name, offset, size, kind, c_type in theirs:
        member = f"declares {name} ({c_type}, {size} bytes) at byte {offset}"
        if name in ours:
            at, width, ours_kind, _ = ours[name]
            if (at, width) != (offset, size):
                return f"{member}, and the spec's field is {spec_text[name]}"
            if kind in "fi" and ours_kind in "fi" and kind != ours_kind and kind and ours_kind:
                kinds = {"f": "a float", "i": "an integer"}
                return f"{member}, {kinds[kind]}, and the spec's field {name} is {kinds[ours_kind]}"
            continue
        same = next((n for n, (at, _, _, _) in ours.items() if at == offset), None)
        if same is None or ours[same][1] != size:
            there = spec_text[same] if same is not None else "no field starting there"
            return f"{member}, and the spec has {there}"
    return ""


def _struct_remedy(theirs: list[_Member]) -> str:
    """The ``fields`` to write, where every member is a plain scalar."""
    types = {("f", 2): "f16", ("f", 4): "f32", ("f", 8): "f64", ("i", 8): "i64"}
    spelled = []
    for name, _, size, kind, c_type in theirs:
        dtype = _sources.scalar_dtype(c_type)
        if dtype is None or dtype.subdtype is not None or kind not in "fi" or not kind:
            return ""
        if kind == "i" and dtype.kind in "iu":
            spelled.append(f'("{name}", "{dtype.kind}{dtype.itemsize * 8}")')
        elif (kind, size) in types:
            spelled.append(f'("{name}", "{types[kind, size]}")')
        else:
            return ""
    return f": fields=({', '.join(spelled)})"


def _unreadable(kernel: KernelSpec, entry: str, source: str) -> CompileError:
    """The error for a declaration that cannot be read: guessing "buffers by binding,
    the uniform last" passed nothing to by-value parameters (round 23: vLLM's
    ``const int d``), and the launch read garbage without a word. A ``CompileError``,
    as the driver's own parameter check on the device raises for a launch that does
    not fit its function."""
    names = [b.name or f"<buffer {i}>" for i, b in enumerate(kernel.buffers)]
    declared = _sources.cuda_parameter_texts(source, entry, kernel.include_dirs)
    takes = (
        f" takes {len(declared)} parameters ({', '.join(declared)}), but"
        if declared is not None
        else ""
    )
    return CompileError(
        f"kernel {kernel.id}: CUDA entry point {entry}{takes} kernel-forge cannot read its "
        f"declaration ({_sources.cuda_parameters_problem(source, entry, kernel.include_dirs)}), "
        "so it cannot "
        "tell what each parameter receives. Say it: arguments=(...) lists, in the "
        "kernel's order, the name of what each parameter receives (a buffer, a uniform "
        "field or the uniform block, a dimension of the size, a value params(size) or "
        f"defaults give), e.g. arguments=({', '.join(repr(n) for n in names)}, ...)",
        source=source,
        target="cuda",
    )


def symbol_buffers(
    kernel: KernelSpec, entry: str, explicit: Sequence[str] | None, source: str | None
) -> dict[int, str]:
    """The buffers (by index) the CUDA backend copies into a file-scope ``__constant__``
    or ``__device__`` variable of ``source`` before ``entry``'s launch, with the
    variable's name: those named like such a variable that no parameter of ``entry``
    (nor ``arguments=``) is named like; a uniform block so named is copied whole, its C
    struct (``__constant__ SimParams params``, as cuda-samples' particles fill it)."""
    if source is None:
        return {}
    variables = set(_sources.cuda_device_variables(source))
    if not variables:
        return {}
    params = _sources.cuda_parameters(source, entry, kernel.include_dirs)
    takes = set(explicit or ()) | {p.name for p in params or ()}
    return {
        i: b.name
        for i, b in enumerate(kernel.buffers)
        if b.name and b.name in variables and b.name not in takes
    }


def _passed_uniform(kernel: KernelSpec, symbols: Mapping[int, str]) -> Any:
    """The kernel's uniform block, unless it is copied into a ``__constant__`` variable
    (then no parameter takes it or its fields): None."""
    uniform = kernel.uniform
    if uniform is None or kernel.buffers.index(uniform) in symbols:
        return None
    return uniform


def _explicit(
    kernel: KernelSpec,
    entry: str,
    order: list[str],
    params: Sequence[_sources.CudaParam] | None,
    known: Mapping[str, Argument],
    values: Mapping[str, Any],
    size: Any,
) -> tuple[Argument, ...]:
    """Rule 1: ``arguments=(...)``, one name per parameter; the trailing parameters
    it leaves out take the defaults their declaration gives (``int *partial_sums =
    NULL``, which cuda-samples' shfl_scan launches with two arguments), and a buffer
    may be passed at an offset of its elements (``"d_data + 256"``, as a host passes
    ``d_data + blockSize``), and a pointer may be given a null pointer by name
    (``"nullptr"``, ``"NULL"``), as LightSeq's host passes ``means`` unless it keeps
    them."""
    defaulted: Sequence[_sources.CudaParam] = ()
    if params is not None and len(order) < len(params):
        defaulted = params[len(order) :]
    if params is not None and (
        len(params) < len(order) or any(p.default is None for p in defaulted)
    ):
        raise InvalidArgument(
            f"kernel {kernel.id}: arguments= names {len(order)} arguments "
            f"({', '.join(order)}), but {entry} declares {len(params)} parameters "
            f"({_signature(params)}); give one name per parameter, in the kernel's order "
            "(trailing parameters that declare a default may be left out)"
        )
    offsets = {
        name: at
        for name in order
        if name not in known and (at := _offset(kernel, name, known, values, size)) is not None
    }
    unknown = [
        name
        for name in order
        if name not in known and name not in values and name not in offsets and name not in _NULL
    ]
    if unknown:
        raise InvalidArgument(
            f"kernel {kernel.id}: CUDA arguments {unknown} of {entry} name no buffer, "
            "uniform field, dimension of the size or value params(size)/defaults/overrides "
            f"give; known: {_known_text(kernel, known, values, size)}"
        )
    found = []
    for index, name in enumerate(order):
        param = params[index] if params is not None else None
        if name in known:
            found.append(known[name])
        elif name in offsets:
            if param is not None and not param.pointer:
                raise InvalidArgument(
                    f"kernel {kernel.id}: parameter {param.type} {param.name} of {entry} is "
                    f"passed by value, but arguments= gives it the buffer offset {name!r}"
                )
            found.append(offsets[name])
        elif name in _NULL and name not in values:
            if param is not None and not param.pointer:
                raise InvalidArgument(
                    f"kernel {kernel.id}: parameter {param.type} {param.name} of {entry} is "
                    f"passed by value, but arguments= gives it the null pointer {name!r}"
                )
            # a host's nullptr for an optional pointer (LightSeq's ``means``, unless the
            # op keeps them): the kernel's ``if (means != nullptr)`` is what runs
            found.append(("default", (name, bytes(8))))
        elif param is not None and param.pointer:
            raise InvalidArgument(
                f"kernel {kernel.id}: parameter {param.type} {param.name} of {entry} is a "
                f"pointer, but arguments= gives it the value {name!r}; name a buffer there"
            )
        else:
            found.append(_value(kernel, entry, name, values[name], param))
    return tuple(found) + tuple(_default(kernel, entry, p) for p in defaulted)


_OFFSET = re.compile(r"^\s*([A-Za-z_]\w*)\s*\+\s*(\S.*?)\s*$", re.S)


def _offset(
    kernel: KernelSpec,
    name: str,
    known: Mapping[str, Argument],
    values: Mapping[str, Any],
    size: Any,
) -> Argument | None:
    """``"buffer + count"`` as ``("offset", (index, bytes))``: the buffer's address
    ``count`` elements on (an int or an expression over the size's dimensions and the
    values by name), as C's pointer arithmetic; None for any other name."""
    match = _OFFSET.match(name)
    if match is None or known.get(match.group(1), ("", None))[0] != "buffer":
        return None
    index = known[match.group(1)][1]
    spec = kernel.buffers[index]
    what = f"kernel {kernel.id}'s argument {name!r}"
    if size is None:
        return ("offset", (index, 0))  # no size to count at: checked where there is one
    count = resolve(match.group(2), None, size, what, names=values)
    length = spec.element_count(size)
    if not is_int(count) or not 0 <= count <= length:
        raise InvalidArgument(
            f"{what}: the offset {match.group(2)} is {count!r} at size {size}; it must be a "
            f"whole number of elements within the buffer's {length}"
        )
    return ("offset", (index, int(count) * spec.dtype_for("cuda").itemsize))


_NULL = frozenset({"NULL", "nullptr", "0", "0L", "(void*)0", "(void *)0"})


def _default(kernel: KernelSpec, entry: str, param: _sources.CudaParam) -> Argument:
    """What a parameter left out of ``arguments=`` receives: its declared default, a
    null pointer or a number literal, as ``("default", (name, bytes))``."""
    text = param.default or ""
    if param.pointer and text in _NULL:
        return ("default", (param.name, bytes(8)))
    literal = re.fullmatch(r"([-+]?(?:0[xX][0-9a-fA-F]+|[\d.]+(?:[eE][-+]?\d+)?))[uUlLfF]*", text)
    if param.pointer or literal is None:
        raise InvalidArgument(
            f"kernel {kernel.id}: parameter {param.type} {param.name} of {entry} is left "
            f"out of arguments=, and its default {text!r} is no null pointer or number "
            "kernel-forge can pass; name what it receives"
        )
    number = literal.group(1)
    value: Any = (
        int(number, 0)
        if not re.search(r"[.eE]", number) or number.lower().startswith("0x")
        else float(number)
    )
    _, (_, packed) = _value(kernel, entry, param.name, value, param)
    return ("default", (param.name, packed))


def _value(
    kernel: KernelSpec, entry: str, name: str, value: Any, param: _sources.CudaParam | None
) -> Argument:
    """Value ``name`` packed in the C type ``param`` declares (without a declaration,
    in the type the Python value has: int as ``int``, float as ``float``)."""
    if isinstance(value, (bytes, bytearray)):
        # an object passed by value as its bytes (thrust's and CUSP's functors, an
        # empty struct's one byte): the PTX's parameter size checks their count
        return ("value", (name, bytes(value)))
    declared = _sources.scalar_dtype(param.type) if param is not None else None
    if param is None:
        dtype, what = _python_dtype(value), f"the value {name} of {entry}"
    elif declared is None:
        raise InvalidArgument(
            f"kernel {kernel.id}: parameter {param.type} {param.name} of {entry} is given "
            f"the value {name!r}, but {param.type!r} is no scalar type kernel-forge can "
            "pack (int, float, half, the fixed-width integers, ...); pass it in a uniform "
            'block instead, or as its bytes (b"\\0" for an empty functor)'
        )
    else:
        dtype, what = declared, f"parameter {param.type} {param.name}"
        if isinstance(value, (bool, np.bool_)) and re.search(r"\bbool\b", param.type):
            value = int(value)  # a C++ bool takes True and False
    if dtype.subdtype is not None:  # a vector type (float2, int4): its lanes in order
        base, (lanes,) = dtype.subdtype
        if np.shape(value) != (lanes,):
            raise InvalidArgument(
                f"kernel {kernel.id}: {what} cannot hold {value!r}: it takes {lanes} "
                f"values, its lanes in order (x, y{', z' if lanes > 2 else ''}"
                f"{', w' if lanes > 3 else ''})"
            )
        dtype = base
    problem = _field_problem(value, dtype)
    if problem:
        raise InvalidArgument(f"kernel {kernel.id}: {what} cannot hold {value!r}: {problem}")
    return ("value", (name, np.asarray(value).astype(dtype).tobytes()))


def _python_dtype(value: Any) -> np.dtype:
    if isinstance(value, (np.generic, np.ndarray)):
        return np.asarray(value).dtype
    if isinstance(value, bool):
        return np.dtype("u1")
    return np.dtype("i4") if isinstance(value, int) else np.dtype("f4")


def _check_launch_values(
    kernel: KernelSpec,
    entry: str,
    launch_values: Mapping[str, Any],
    params: Sequence[_sources.CudaParam] | None,
    explicit: Sequence[str] | None,
) -> None:
    """A launch's override must name a parameter of ``entry`` (or a name its
    ``arguments=`` lists, or a WGSL ``override`` its WGSL twin declares): one that
    names nothing would be dropped without a word."""
    if params is None and not explicit:
        return  # nothing to check against; the default convention passes no values
    takes = set(explicit or ()) | {p.name for p in params or ()}
    wgsl = kernel.sources.get("wgsl") if isinstance(kernel.sources, Mapping) else None
    declared = _sources.wgsl_override_keys(wgsl) if wgsl else frozenset()
    unknown = sorted(name for name in launch_values if name not in takes | declared)
    if unknown:
        names = sorted(explicit) if explicit else [p.name for p in params or ()]
        raise InvalidArgument(
            f"kernel {kernel.id}: overrides {unknown} name no parameter of the CUDA "
            f"kernel {entry} (its parameters: {', '.join(names) or 'none'}); on CUDA an "
            "override gives a by-value parameter of that name its value for the launch"
        )


def argument_order(kernel: KernelSpec, arguments: Sequence[Argument]) -> tuple[str, ...] | None:
    """The names that give ``arguments`` again as an explicit ``arguments=(...)`` (for a
    kernel frozen at one size); None when an unnamed buffer makes that impossible."""
    if not arguments:
        return None
    names = []
    for kind, key in arguments:
        if kind in ("buffer", "texture", "surface", "accessor"):
            name = kernel.buffers[key if kind != "accessor" else key[0]].name
            if not name:
                return None
            names.append(name)
        elif kind == "field":
            names.append(key)
        elif kind == "value":
            names.append(key[0])
        elif kind == "offset":
            spec = kernel.buffers[key[0]]
            if not spec.name:
                return None
            names.append(f"{spec.name} + {key[1] // spec.dtype_for('cuda').itemsize}")
        elif kind == "default":
            if key[0] in _NULL:  # a null pointer arguments= gave
                names.append(key[0])
            # else a trailing parameter left to its default
        else:
            names.append((kernel.uniform.name or "params") if kernel.uniform else "params")
    return tuple(names)


def values_by_name(kernel: KernelSpec, size: Any) -> dict[str, Any]:
    """The values a kernel passes by value outside its uniform block, by name: the problem
    size's dimensions (``n``, or ``rows`` and ``cols``, ...), then what
    ``KernelSpec.scalar_values`` gives (``defaults``, then ``params(size)``)."""
    return {**kernel.size(size).dims, **kernel.scalar_values(size)}


def _spec_names(kernel: KernelSpec) -> dict[str, Argument]:
    """Every name the spec gives a parameter may use: named buffers, the uniform block
    (``params`` unless named) and its fields."""
    names: dict[str, Argument] = {}
    for index, spec in enumerate(kernel.buffers):
        if spec.access is Access.UNIFORM:
            names[spec.name or "params"] = ("uniform", None)
            for field_name, _ in spec.fields:
                names.setdefault(field_name, ("field", field_name))
        elif spec.name:
            names[spec.name] = ("buffer", index)
    return names


def _scalars(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam],
    values: Mapping[str, Any],
    known: Mapping[str, Any],
) -> dict[str, Argument]:
    """Each scalar parameter the kernel takes by value (``int n``, ``float eps``) that is
    no uniform field but is named like one of ``values`` (a dimension of the size,
    ``defaults``, ``params(size)``, the launch's overrides), packed in the C type the
    kernel declares, as people write ``__global__ void k(float* y, int n)`` with ``n``
    the problem size; also beside a uniform block, which a spec shared with a WGSL
    source has."""
    return {
        p.name: _value(kernel, entry, p.name, values[p.name], p)
        for p in params
        if not p.pointer
        and p.name not in known
        and p.name in values
        and (
            _sources.scalar_dtype(p.type) is not None
            or isinstance(values[p.name], (bytes, bytearray))
        )
    }


def _by_position(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam],
    known: Mapping[str, Argument],
    values: Mapping[str, Any],
    size: Any,
    symbols: Mapping[int, str],
) -> tuple[Argument, ...]:
    """Rule 3, for parameters that are not all named like the spec's names: pointers
    take the buffers in binding order (const ones the read-only buffers where that
    fits, ``_pointer_order``), scalars named like a value take it, the lone unnamed
    integer of a 1-D kernel without a uniform block takes the size (``_lone_size``),
    the other values the uniform's fields in order (or the whole uniform, for one
    struct parameter). A parameter whose name does match must sit where its buffer or
    field does, and when the kinds and counts do not fit, the error names what did not
    match and what to write (guessing an order ran kernels on the wrong arguments)."""
    # a texture or surface object takes the buffer it is named like (``_handles``)
    handles = {p.name: known[p.name] for p in params if _handle_kind(p) and p.name in known}
    buffers = [
        ("buffer", i)
        for i, b in enumerate(kernel.buffers)
        if b.access is not Access.UNIFORM
        and i not in symbols
        and ("buffer", i) not in handles.values()
    ]
    uniform = _passed_uniform(kernel, symbols)
    fields = [("field", name) for name, _ in uniform.fields] if uniform is not None else []
    pointers = [p for p in params if p.pointer]
    # a scalar named like a value the kernel gives (``int n``: the size's dimension) is
    # that value wherever it sits, as in ``(const float* in, float* out, int n)``
    by_name = {p.name: known[p.name] for p in params if not p.pointer and p.name in known}
    by_name = {name: arg for name, arg in by_name.items() if arg[0] == "value"}
    by_name.update(handles)
    by_name.update(_lone_size(kernel, entry, params, by_name, values, size, uniform))
    rest = [p for p in params if not p.pointer and p.name not in by_name]
    value_args: list[Argument] | None = None
    if len(rest) == 1 and uniform is not None and not _sources.is_scalar_type(rest[0].type):
        value_args = [("uniform", None)]  # a struct: the whole uniform, padding and all
    elif len(rest) == len(fields) and (fields or uniform is None):
        value_args = fields
    unmatched = [p.name for p in params if p.name not in known]
    if len(pointers) != len(buffers) or value_args is None:
        raise InvalidArgument(
            _no_fit(kernel, entry, params, known, values, size, unmatched, len(buffers), fields)
        )
    buffer_args, value_iter = iter(_pointer_order(kernel, pointers, buffers)), iter(value_args)
    found = tuple(
        next(buffer_args)
        if p.pointer
        else by_name[p.name]
        if p.name in by_name
        else next(value_iter)
        for p in params
    )
    for param, argument in zip(params, found):
        if param.name in known and known[param.name] != argument:
            raise InvalidArgument(
                f"kernel {kernel.id}: parameter {param.name!r} of {entry} is named like "
                f"{_describe(kernel, known[param.name])} but sits where "
                f"{_describe(kernel, argument)} goes by position (the "
                f"parameters {unmatched} match no name); name every parameter as the "
                "spec does, or give arguments=(...)"
            )
    return found


def _lone_size(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam],
    by_name: Mapping[str, Argument],
    values: Mapping[str, Any],
    size: Any,
    uniform: Any,
) -> dict[str, Argument]:
    """cuda-samples' ``vectorAdd(..., int numElements)``: in a kernel of one size
    dimension, without a uniform block, whose size no parameter takes by name, the one
    integer scalar that matches no name, when it is the only value left, is the size.
    Anything more ambiguous (two such integers, a float left over, a 2-D size) is left
    to the error."""
    dims = kernel.size(size).names if size is not None else ()
    if uniform is not None or len(dims) != 1 or dims[0] not in values:
        return {}
    if any(arg[1][0] == dims[0] for arg in by_name.values()):
        return {}
    rest = [p for p in params if not p.pointer and p.name not in by_name]
    dtype = _sources.scalar_dtype(rest[0].type) if len(rest) == 1 else None
    if dtype is None or dtype.kind not in "iu":
        return {}
    return {rest[0].name: _value(kernel, entry, dims[0], values[dims[0]], rest[0])}


def _no_fit(
    kernel: KernelSpec,
    entry: str,
    params: Sequence[_sources.CudaParam],
    known: Mapping[str, Argument],
    values: Mapping[str, Any],
    size: Any,
    unmatched: list[str],
    buffers: int,
    field_args: list,
) -> str:
    """The by-position error: what did not fit, and the ways to say what each parameter
    receives."""
    pointers = sum(p.pointer for p in params)
    fields = len(field_args)
    unknown = [p for p in params if not p.pointer and p.name not in known]
    struct = next((p for p in unknown if _sources.scalar_dtype(p.type) is None), None)
    scalar = next((p.name for p in unknown if p is not struct), None) if struct is None else None
    dims = kernel.size(size).names if size is not None else tuple(kernel.dims)
    lines = [
        f"kernel {kernel.id}: the parameters {unmatched} of {entry} name no buffer, "
        "uniform field, dimension of the size or value params(size)/defaults give "
        f"(known: {_known_text(kernel, known, values, size)}), and by position its "
        f"{pointers} pointer and {len(params) - pointers} value parameters do not fit the "
        f"{buffers} buffers and {fields} uniform fields. Say what each receives: name the "
        "parameters as the BufferSpecs, uniform fields and the size's dimensions "
        f"({', '.join(dims)}) are named;",
    ]
    if scalar is not None:
        argument = "n" if dims == ("n",) else "size"
        lines.append(
            f'or give {scalar} its value by its own name, params=lambda {argument}: {{"{scalar}": '
            f"{argument if argument == 'n' else '...'}}}"
            + (f' (or dims=("{scalar}",) when it is the size)' if len(dims) == 1 else "")
            + ";"
        )
    if struct is not None:
        binding = max((b.binding for b in kernel.buffers), default=-1) + 1
        lines.append(
            f"'{struct.type} {struct.name}' is a struct by value (a functor, as CUB's and "
            "PyTorch's 'Op op'), which no scalar value can fill: give the spec a uniform "
            f'block named "{struct.name}" whose fields are the struct\'s members in order, '
            f'BufferSpec.uniform({binding}, (("alpha", "f32"),), name="{struct.name}") for '
            "a functor holding a float alpha, or one byte for an empty functor, "
            f'BufferSpec.uniform({binding}, (("_empty", "u8"),), name="{struct.name}"); '
            f'or give it its bytes by name, defaults={{"{struct.name}": b"\\0"}} for an '
            "empty functor (as a kernel with several functors must: a spec has one uniform "
            "block);"
        )
    named = [kernel.buffers[i].name or "?" for _, i in _buffer_slots(kernel)][:pointers]
    lines.append(
        "or list what each parameter receives, in the kernel's order, arguments=("
        + ", ".join(f'"{n}"' for n in named)
        + (", ..." if len(params) > len(named) else "")
        + f") (the signature: {_signature(params)})"
    )
    return " ".join(lines)


def _buffer_slots(kernel: KernelSpec) -> list[Argument]:
    return [("buffer", i) for i, b in enumerate(kernel.buffers) if b.access is not Access.UNIFORM]


def _known_text(
    kernel: KernelSpec, known: Mapping[str, Argument], values: Mapping[str, Any], size: Any
) -> str:
    """The names a parameter may take, the size's dimensions marked."""
    dims = set(kernel.size(size).names) if size is not None else set()
    names = list(dict.fromkeys([*known, *values]))
    return ", ".join(f"{n} (the size)" if n in dims else n for n in names) or "none"


def _signature(params: Sequence[_sources.CudaParam]) -> str:
    return ", ".join(f"{p.type} {p.name}" for p in params)


def _pointer_order(kernel: KernelSpec, pointers: Sequence[Any], buffers: list) -> list:
    """The buffers for ``pointers`` in their order: where the kernel marks its inputs
    ``const`` and they are as many as the spec's read-only buffers, const pointers take
    those and the others the writable ones, each in binding order (``(float* out, const
    float* in, int n)`` over buffers in, out: out is the output); else binding order."""
    const = [p.reads_only for p in pointers]
    read = [b for b in buffers if kernel.buffers[b[1]].access is Access.READ]
    written = [b for b in buffers if kernel.buffers[b[1]].access is not Access.READ]
    if not any(const) or sum(const) != len(read) or len(pointers) - sum(const) != len(written):
        return buffers
    reads, writes = iter(read), iter(written)
    return [next(reads) if c else next(writes) for c in const]


def _describe(kernel: KernelSpec, argument: Argument) -> str:
    kind, key = argument
    if kind in ("texture", "surface"):
        return f"a {kind} object over buffer {kernel.buffers[key].name or key!r}"
    if kind == "buffer":
        return f"buffer {kernel.buffers[key].name or key!r}"
    if kind == "accessor":
        return f"buffer {kernel.buffers[key[0]].name or key[0]!r} as an accessor"
    if kind == "value":
        return f"value {key[0]!r}"
    return f"uniform field {key!r}" if kind == "field" else "the uniform struct"
