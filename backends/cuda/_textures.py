"""CUDA texture and surface objects over a kernel's buffers (``forge.arguments``'
``("texture", index)`` and ``("surface", index)`` arguments), made with the driver API as
a host would make them with ``cudaCreateTextureObject`` / ``cudaCreateSurfaceObject``:

- a texture object over a plain buffer (``tex1Dfetch<T>(tex, i)``): a linear resource
  over the buffer's own device memory (``CU_RESOURCE_TYPE_LINEAR``), its element format
  from the buffer's element type (``forge.textures.cuda_channel_format``), point
  filtering, elements read as they are stored;
- a texture object over a texture buffer (``BufferSpec(texture=FORMAT, shape=(H, W),
  sampler=Sampler(...))``, ``tex2D<T>(tex, x, y)``): a 2-D CUDA array of the format
  (``forge.textures.CUDA_ARRAYS``; rgba8unorm read as normalised floats, as WGSL's
  ``texture_2d<f32>`` reads it), filled from the buffer before the launches, with the
  declared sampler's filter, address mode and coordinates;
- a surface object over a texture buffer (``surf2Dwrite``, ``surf2Dread``): a 2-D array
  made with ``CUDA_ARRAY3D_SURFACE_LDST``, filled from the buffer before the launches
  and copied back into it after them (what the WebGPU backends do with a storage
  texture).

What this module decides without a device (``plan``, ``descriptors``) is unit-tested;
the objects are made once per (buffer, view, extent, state) and kept with the context's
other handles (``Resources.textures``), destroyed when it is released, and destroyed
at once where a later step of making them fails (no leak, the context stays usable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forge.errors import DeviceLost, ForgeError, InvalidArgument, UnsupportedFeature
from forge.kernel import KernelSpec
from forge.textures import CUDA_ARRAYS, Sampler, cuda_channel_format

from ._driver import call, driver
from ._resources import destroy_textures, quietly

__all__ = ["TexturePlan", "plan", "descriptors"]

_ADDRESS = {"clamp": "CLAMP", "repeat": "WRAP", "mirror": "MIRROR"}
#: The device attributes ``plan`` and ``TextureObjects`` read.
_LIMITS = (
    "TEXTURE_ALIGNMENT",
    "MAXIMUM_TEXTURE1D_LINEAR_WIDTH",
    "MAXIMUM_TEXTURE2D_WIDTH",
    "MAXIMUM_TEXTURE2D_HEIGHT",
    "MAXIMUM_SURFACE2D_WIDTH",
    "MAXIMUM_SURFACE2D_HEIGHT",
)
#: How many texture and surface objects a context keeps made before it destroys them all.
_KEPT = 64


@dataclass(frozen=True)
class TexturePlan:
    """What to make for one texture or surface argument: ``kind`` ``"texture"`` or
    ``"surface"``; ``linear`` (a 1-D texture over the buffer's memory, ``size_bytes``
    of it) or a ``width`` x ``height`` array; its ``format`` (a ``CUarray_format`` name
    less ``CU_AD_FORMAT_``) and ``channels``; ``texel_bytes`` (a row is ``width *
    texel_bytes`` bytes, tightly packed in the buffer); whether it reads as integers;
    and the sampler (None for a linear texture or a surface)."""

    kind: str
    linear: bool
    format: str
    channels: int
    width: int
    height: int
    texel_bytes: int
    size_bytes: int
    read_as_integer: bool
    sampler: Sampler | None = None

    @property
    def row_bytes(self) -> int:
        return self.width * self.texel_bytes


def plan(
    kernel: KernelSpec,
    kind: str,
    index: int,
    size: Any,
    view_bytes: int,
    limits: dict,
) -> TexturePlan:
    """The ``TexturePlan`` of argument (``kind``, ``index``) at ``size`` over a view of
    ``view_bytes``, refused past the device's limits (``limits``: its attributes, by
    their ``CU_DEVICE_ATTRIBUTE_`` names; an absent one is not checked)."""
    spec = kernel.buffers[index]
    what = f"kernel {kernel.id}: the {kind} object over buffer {spec.label}"
    if spec.texture is None:
        if kind != "texture":
            raise UnsupportedFeature(f"{what}: a surface object needs a texture buffer")
        fmt, channels = cuda_channel_format(spec.element, f"{what}: its element type")
        element = spec.dtype_for("cuda").itemsize
        count = view_bytes // element
        widest = limits.get("MAXIMUM_TEXTURE1D_LINEAR_WIDTH")
        if widest is not None and count > widest:
            raise UnsupportedFeature(
                f"{what} holds {count} elements; the device's linear textures hold at "
                f"most {widest} (cudaDevAttrMaxTexture1DLinearWidth)"
            )
        if count < 1:
            raise InvalidArgument(f"{what}: the buffer is empty")
        # elements as stored: integers read as integers (cudaReadModeElementType; the
        # flag is for integer formats only), floats and halves as floats
        integer = fmt not in ("FLOAT", "HALF")
        return TexturePlan(
            kind, True, fmt, channels, count, 1, element, count * element, integer, None
        )
    texture = spec.texture_format
    assert texture is not None
    fmt, channels, integer = CUDA_ARRAYS[texture.name]
    width, height = spec.texture_extent(size)
    need = width * height * texture.texel_bytes
    if view_bytes < need:
        raise InvalidArgument(
            f"{what}: {width} x {height} {texture.name} texels need {need} bytes, its view "
            f"has {view_bytes}"
        )
    prefix = "SURFACE2D" if kind == "surface" else "TEXTURE2D"
    for extent, side in ((width, "WIDTH"), (height, "HEIGHT")):
        largest = limits.get(f"MAXIMUM_{prefix}_{side}")
        if largest is not None and extent > largest:
            raise UnsupportedFeature(
                f"{what} is {width} x {height} texels; the device's 2-D "
                f"{kind}s are at most {largest} texels {side.lower()}"
            )
    sampler = spec.sampler if kind == "texture" else None
    if kind == "texture" and sampler is None:
        raise InvalidArgument(
            f"{what}: declare the state its host's cudaTextureDesc sets, "
            "BufferSpec(..., sampler=Sampler(...))"
        )
    return TexturePlan(
        kind, False, fmt, channels, width, height, texture.texel_bytes, need, integer, sampler
    )


def descriptors(p: TexturePlan, address: int, array: Any = None) -> tuple[Any, Any, Any]:
    """The driver structs of ``p``: (``CUDA_RESOURCE_DESC``, ``CUDA_TEXTURE_DESC`` or
    None for a surface, ``CUDA_ARRAY3D_DESCRIPTOR`` or None for a linear texture), over
    device ``address`` (linear) or ``array``."""
    resource = driver.CUDA_RESOURCE_DESC()
    array_desc = None
    fmt = getattr(driver.CUarray_format, "CU_AD_FORMAT_" + p.format)
    if p.linear:
        resource.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
        resource.res.linear.devPtr = address
        resource.res.linear.format = fmt
        resource.res.linear.numChannels = p.channels
        resource.res.linear.sizeInBytes = p.size_bytes
    else:
        array_desc = driver.CUDA_ARRAY3D_DESCRIPTOR()
        array_desc.Width, array_desc.Height, array_desc.Depth = p.width, p.height, 0
        array_desc.Format, array_desc.NumChannels = fmt, p.channels
        array_desc.Flags = driver.CUDA_ARRAY3D_SURFACE_LDST if p.kind == "surface" else 0
        resource.resType = driver.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
        if array is not None:
            resource.res.array.hArray = array
    if p.kind == "surface":
        return resource, None, array_desc
    texture = driver.CUDA_TEXTURE_DESC()
    sampler = p.sampler or Sampler()
    mode = getattr(driver.CUaddress_mode, "CU_TR_ADDRESS_MODE_" + _ADDRESS[sampler.address])
    texture.addressMode = [mode] * 3
    texture.filterMode = (
        driver.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR
        if sampler.linear
        else driver.CUfilter_mode.CU_TR_FILTER_MODE_POINT
    )
    flags = driver.CU_TRSF_READ_AS_INTEGER if p.read_as_integer else 0
    if not p.linear and sampler.normalized:
        flags |= driver.CU_TRSF_NORMALIZED_COORDINATES
    texture.flags = flags
    return resource, texture, array_desc


def copy_descriptor(p: TexturePlan, address: int, array: Any, back: bool) -> Any:
    """A ``CUDA_MEMCPY2D`` between the buffer at device ``address`` (rows of
    ``p.row_bytes``, tightly packed) and ``array``: into the array, or ``back`` out."""
    copy = driver.CUDA_MEMCPY2D()
    device, on_array = (
        driver.CUmemorytype.CU_MEMORYTYPE_DEVICE,
        driver.CUmemorytype.CU_MEMORYTYPE_ARRAY,
    )
    if back:
        copy.srcMemoryType, copy.srcArray = on_array, array
        copy.dstMemoryType, copy.dstDevice, copy.dstPitch = device, address, p.row_bytes
    else:
        copy.srcMemoryType, copy.srcDevice, copy.srcPitch = device, address, p.row_bytes
        copy.dstMemoryType, copy.dstArray = on_array, array
    copy.WidthInBytes, copy.Height = p.row_bytes, p.height
    return copy


class TextureObjects:
    """The texture and surface objects of one context, by what they were made for; their
    handles are kept in ``res.textures`` ((object, kind, array or None)) so that
    releasing the context destroys them."""

    def __init__(self, res: Any) -> None:
        self._res = res
        self._limits: dict = {}
        self._made: dict[tuple, tuple[int, Any, TexturePlan, int | None]] = {}

    def handle(
        self,
        kernel: KernelSpec,
        kind: str,
        index: int,
        size: Any,
        address: int,
        view_bytes: int,
        idle: bool = True,
    ) -> tuple[int, Any, TexturePlan, int | None]:
        """(object handle, array or None, plan, the address of the aligned copy a linear
        texture reads where the buffer is not aligned as textures need, else None) of
        argument (``kind``, ``index``) over the buffer at ``address``: made on first
        use, then reused. Past ``_KEPT``
        objects, and ``idle`` (no graph capture in progress), the context waits for its
        stream and destroys them all first."""
        p = plan(kernel, kind, index, size, view_bytes, self._device_limits())
        key = (kind, address, p)
        found = self._made.get(key)
        # (object handle, array or None, plan, aligned copy's address or None)
        if found is not None:
            return found
        if len(self._made) >= _KEPT and idle:
            self._destroy_all()
        alignment = self._device_limits().get("TEXTURE_ALIGNMENT") or 1
        staged = None  # a linear texture's own aligned copy of a misaligned buffer
        resource, texture, array_desc = descriptors(p, address)
        array = memory = None
        try:
            if p.linear and address % alignment:
                # devPtr must be aligned to textureAlignment (512 bytes on most GPUs),
                # and the slab's views are 256-byte aligned: texture a copy, refreshed
                # from the buffer before each run (``fill``)
                memory = call(driver.cuMemAlloc, p.size_bytes + alignment)
                staged = -(-int(memory) // alignment) * alignment
                self._res.textures.append((memory, "memory", None))
                resource.res.linear.devPtr = staged
            if array_desc is not None:
                array = call(driver.cuArray3DCreate, array_desc)
                resource.res.array.hArray = array
            if kind == "surface":
                made = call(driver.cuSurfObjectCreate, resource)
            else:
                made = call(driver.cuTexObjectCreate, resource, texture, None)
        except BaseException:
            if array is not None:
                quietly(driver.cuArrayDestroy, array)
            raise
        self._res.textures.append((made, kind, array))
        found = self._made[key] = (int(made), array, p, staged)
        return found

    def _device_limits(self) -> dict:
        """The device's texture limits and alignment, by ``CU_DEVICE_ATTRIBUTE_`` name
        (asked of the current context's device once; one the driver does not give is
        left out, and not checked)."""
        if not self._limits:
            self._limits["asked"] = True
            found = quietly(driver.cuCtxGetDevice)
            if found is not None and not found[0]:
                for name in _LIMITS:
                    value = quietly(
                        driver.cuDeviceGetAttribute,
                        getattr(driver.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name),
                        found[1],
                    )
                    if value is not None and not value[0]:
                        self._limits[name] = int(value[1])
        return self._limits

    def _destroy_all(self) -> None:
        """Wait for the compute stream, then destroy every object made (and its array
        and aligned copy)."""
        call(driver.cuStreamSynchronize, self._res.stream_compute)
        destroy_textures(self._res.textures, driver)
        self._res.textures = []
        self._made.clear()

    def fill(self, address: int, made: tuple, stream: Any) -> None:
        """Copy the buffer into the object's array, or its aligned copy, on ``stream``
        (before the launches)."""
        _, array, p, staged = made
        if staged is not None:
            call(driver.cuMemcpyDtoDAsync, staged, address, p.size_bytes, stream)
        if array is not None:
            _copy_2d(p, address, array, False, stream)

    def drain(self, address: int, made: tuple, stream: Any) -> None:
        """Copy a surface's array back into its buffer on ``stream`` (after them)."""
        _, array, p, _ = made
        if array is not None and p.kind == "surface":
            _copy_2d(p, address, array, True, stream)


def _copy_2d(p: TexturePlan, address: int, array: Any, back: bool, stream: Any) -> None:
    """One 2-D copy between the buffer and the array; where the driver refuses the
    buffer's pitch (``cuMemcpy2D`` "may fail for pitches not computed by
    cuMemAllocPitch" between device memory and an array), a copy per row, whose pitch
    is not used."""
    try:
        call(driver.cuMemcpy2DAsync, copy_descriptor(p, address, array, back), stream)
        return
    except DeviceLost:
        raise
    except ForgeError:
        pass
    for row in range(p.height):
        copy = copy_descriptor(p, address + row * p.row_bytes, array, back)
        copy.Height = 1
        pitch = -(-p.row_bytes // 512) * 512
        if back:
            copy.srcY, copy.dstPitch = row, pitch
        else:
            copy.dstY, copy.srcPitch = row, pitch
        call(driver.cuMemcpy2DAsync, copy, stream)
