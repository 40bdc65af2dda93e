"""Texture bindings: a kernel's buffer that its WGSL reads as a ``texture_2d`` or a
``texture_storage_2d``, or its CUDA source as a texture or surface object
(``BufferSpec(texture=FORMAT, shape=(H, W))``), and the samplers that read them.

The contract and the oracle still deal in buffers: a texture binding's buffer holds
its texels' bytes, row-major (``H`` rows of ``W`` texels), tightly packed, as the
format stores them. A WebGPU backend makes a texture of that extent and format, copies
the buffer into it before the launches and, for a writable storage texture, back after
them. What the reference sees of each format (``FORMATS``):

- ``r32float``, ``r32uint``: one ``f32`` / ``u32`` per texel, shape ``(H, W)``;
- ``rgba32float``: ``vec4<f32>`` per texel, shape ``(H, W, 4)``;
- ``rgba32uint``: ``vec4<u32>`` per texel, shape ``(H, W, 4)`` (PlayCanvas keeps a
  splat's centre in one as the bits of three floats, round 78);
- ``rgba16float``: ``vec4<f16>`` per texel, shape ``(H, W, 4)`` of float16;
- ``rgba8uint``: four ``u8`` channels, shape ``(H, W, 4)``;
- ``r8uint``: one ``u8`` per texel, shape ``(H, W)`` (a host's
  ``cudaCreateChannelDesc<unsigned char>()`` array, cuda-samples' SobelFilter; WGSL
  reads it as ``texture_2d<u32>``; WebGPU's core makes no storage texture of it, so it
  is read-only);
- ``rgba8unorm``: four channels as the shader sees them, floats ``k / 255`` of the
  stored bytes ``k``, shape ``(H, W, 4)`` of float32. An input is drawn, or filled,
  as bytes (its values are always of that form); an output is the floats the kernel
  stores, before the device converts them (``unorm8_codes`` says which bytes the
  judge accepts for them).

The float-to-unorm conversion is the one place where a correct device may store other
bytes than the reference's rounding to nearest. The judge takes the rule of Vulkan,
the API under both adapters here (wgpu on lavapipe, Dawn on SwiftShader) and under
wgpu and Dawn on Linux and Android GPUs; Metal's and D3D12's rules were not read for
this and are assumed to allow no result outside it. Vulkan's specification,
"Conversion From Floating-Point to Normalized Fixed-Point"
(KhronosGroup/Vulkan-Docs, chapters/fundamentals.adoc, section
``fundamentals-fpfixedconv``, read at commit 043260d06e96c8586492be41cc109945e92a69ff,
CC-BY-4.0): ``f`` is first clamped to [0, 1], then ``c = convertFloatToUint(f * (2^b -
1), b)``, "where convertFloatToUint(r,b) returns one of the two unsigned binary integer
values with exactly b bits which are closest to the floating-point value r.
Implementations should round to nearest. If r is equal to an integer, then that integer
value must be returned." So a stored float ``f`` may become ``floor(255 f')`` or
``ceil(255 f')`` (``f'`` clamped, ``255 f'`` in exact arithmetic), and nothing else:
the judge (``unorm8_codes``, ``oracle._judge.unorm_accepted``) accepts exactly those.
Where the reference's float comes from a computation that rounds (its float64 run
gives another float32), the kernel's float may differ from it by the f32 tolerance
and lie on the other side of a whole number: there the codes of every float within
that tolerance are accepted. Where it does not (a copy's ``k / 255``, one product),
no tolerance is added, so a kernel one code off still fails. The
same chapter says a NaN given where the API needs a float "yields unspecified
results": a NaN stored to rgba8unorm may become any byte.

Samplers. A WGSL kernel that reads a ``texture_2d<f32>`` through a ``sampler``
(``textureSampleLevel(t, s, uv, 0.0)``) declares the sampler's binding and state on the
kernel (``KernelSpec(samplers=(SamplerSpec(k, Sampler(...), name="s"),))``); a CUDA
kernel's texture object keeps its state in the object, so the texture buffer declares
it (``BufferSpec(..., texture=FORMAT, shape=(H, W), sampler=Sampler(...))``). The
reference still sees the texels and filters them itself; ``sample`` filters as WebGPU
(and CUDA's ``tex2D``) does: a linear filter reads the four texels around ``coords *
extent - 0.5`` with the fraction's weights, nearest reads ``floor(coords * extent)``,
each index wrapped by the address mode. A linear sampler over r32float or rgba32float
is unsupported: WebGPU's core does not filter them (the ``float32-filterable``
feature, "Texture Format Capabilities" in the WebGPU specification, gpuweb/gpuweb
spec/index.bs, W3C).

Filtering precision. WebGPU leaves the precision of a linear filter to the
implementation; NVIDIA's texture units compute its weights "in 9-bit fixed point
format with 8 bits of fractional value" (NVIDIA, CUDA C++ Programming Guide, appendix
"Texture Fetching", linear filtering), and lavapipe (llvmpipe) filters rgba8unorm with
8-bit weights too, CPU adapters otherwise in float. NVIDIA rounds a second time: the
four texels' weights (the products ``(1 - a)(1 - b)``, ``a (1 - b)``, ...) are held in 8
bits of fraction too, ``a b`` rounded half up and the others what makes each row and
column sum to its fraction (measured on an H100, 2026-12-07: 18 reads of a CUDA r32float
texture far off the exact blend came back exactly so, and its Vulkan driver's
rgba8unorm reads within 0.002 of a code of it). Both roundings move a bilinear read by
less than (2 * 2**-8 + 2**-16) times the spread of its four texels. The judge allows
that error, carried through the reference (``oracle._expected._filtering_bounds``):
where the reference samples through ``sample``, by running it with the weights rounded
to 8 bits of fraction down, up, to nearest and as NVIDIA rounds them, so reads whose
weights are exact in 8 bits (texel centres, quarter texels) allow none and a kernel one
code off there still fails; where it filters by hand, by moving each linearly sampled
texel by that much of its 3 x 3 neighbourhood's spread.

How each format's output is judged:

- ``r32float``, ``rgba32float``: the f32 the kernel stores lands as it is; judged as
  any f32 output (the kernel's tolerance, default ``f32``'s).
- ``r32uint``, ``rgba32uint``: exactly.
- ``rgba8uint``, ``r8uint``: the bytes exactly. A u32 stored outside 0..255 does not fit the
  format; kernel-forge makes no claim about which byte a device keeps then (keep the
  reference's values in range: a kernel that stores such values is judged on them).
- ``rgba16float``: the device rounds the f32 it is given to f16, and a conforming one
  may take either neighbour (WGSL's conversion of a value not representable in the
  destination type); the reference returns float16 rounded to nearest, judged at
  f16's tolerance (2 ulps by default: one more than the rule needs).
- ``rgba8unorm``: by the conversion rule above, exactly.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidArgument

__all__ = [
    "Sampler",
    "SamplerSpec",
    "sample",
    "FILTER_WEIGHT_BITS",
    "CODE_FILTERING_ADAPTERS",
    "filters_in_codes",
    "TextureFormat",
    "FORMATS",
    "texture_format",
    "unorm8_codes",
    "unorm8_bytes",
    "unorm8_values",
]


@dataclass(frozen=True)
class TextureFormat:
    """A texel format kernel-forge binds: its WebGPU name, the element type the
    reference sees (``forge.layout``), how many of them one texel holds (4 where the
    channels are elements of their own), the bytes of one texel, the WGSL sampled
    type a ``texture_2d<T>`` over it declares, and whether its channels are unsigned
    normalized bytes."""

    name: str
    element: str
    lanes: int
    texel_bytes: int
    sampled: str
    unorm: bool = False
    # whether WebGPU's core lets a linear sampler filter it (r32float and rgba32float
    # need the ``float32-filterable`` feature, which kernel-forge does not ask for)
    filterable: bool = False
    # whether WebGPU's core makes a storage texture of it (r8uint: no; the texture is
    # then made without STORAGE_BINDING and bound only as a texture_2d)
    storage: bool = True

    @property
    def sample_type(self) -> str:
        """The bind group layout's ``sampleType`` for a sampled texture of it: ``float``
        for a filterable format (a filtering sampler may read it; ``textureLoad`` reads
        it the same), else ``unfilterable-float`` or ``uint``."""
        if self.sampled == "u32":
            return "uint"
        return "float" if self.filterable else "unfilterable-float"


FORMATS: dict[str, TextureFormat] = {
    f.name: f
    for f in (
        TextureFormat("r32float", "f32", 1, 4, "f32"),
        TextureFormat("r32uint", "u32", 1, 4, "u32"),
        TextureFormat("rgba32float", "vec4<f32>", 1, 16, "f32"),
        TextureFormat("rgba32uint", "vec4<u32>", 1, 16, "u32"),
        TextureFormat("rgba16float", "vec4<f16>", 1, 8, "f32", filterable=True),
        TextureFormat("rgba8uint", "u8", 4, 4, "u32"),
        TextureFormat("r8uint", "u8", 1, 1, "u32", storage=False),
        TextureFormat("rgba8unorm", "f32", 4, 4, "f32", unorm=True, filterable=True),
    )
}


def texture_format(name: Any, label: str) -> TextureFormat:
    """The format named ``name``, refused with the known ones."""
    if not isinstance(name, str) or name not in FORMATS:
        raise InvalidArgument(
            f"buffer {label}: texture format must be one of {', '.join(FORMATS)}, got {name!r}"
        )
    return FORMATS[name]


def unorm8_bytes(values: Any) -> np.ndarray:
    """Floats in the shader's terms as the bytes an rgba8unorm texture holds: clamped
    to [0, 1], NaN as 0, rounded to nearest (how inputs are uploaded; the reference
    sees them as ``unorm8_values`` of these bytes)."""
    x = np.nan_to_num(np.asarray(values, np.float64), nan=0.0)
    return np.rint(np.clip(x, 0.0, 1.0) * 255.0).astype(np.uint8)


def unorm8_values(codes: np.ndarray) -> np.ndarray:
    """The floats a shader reads from rgba8unorm bytes ``codes``: ``k / 255`` in f32."""
    return (np.asarray(codes, np.float32) / np.float32(255.0)).astype(np.float32)


def unorm8_codes(want: Any, slack: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest byte a conforming device may store for the floats
    ``want`` (see the module docstring): ``floor`` and ``ceil`` of ``255 * clamp(w)``,
    over ``w`` within ``slack`` (per element, the float tolerance of ``want``); any
    byte for a NaN."""
    w = np.asarray(want, np.float64)
    nan = np.isnan(w)
    w = np.where(nan, 0.0, w)
    slack = np.asarray(slack, np.float64)
    with np.errstate(invalid="ignore"):
        low = np.floor(np.clip(w - slack, 0.0, 1.0) * 255.0)
        high = np.ceil(np.clip(w + slack, 0.0, 1.0) * 255.0)
    low = np.where(nan, 0.0, low)
    high = np.where(nan, 255.0, high)
    return low.astype(np.uint8), high.astype(np.uint8)


# -- samplers ------------------------------------------------------------------------

_FILTERS = ("nearest", "linear")
_ADDRESSES = ("clamp", "repeat", "mirror")

#: The bits of fraction NVIDIA's texture units give a linear filter's weights (CUDA C++
#: Programming Guide, "Texture Fetching" appendix: alpha, beta "are stored in 9-bit
#: fixed point format with 8 bits of fractional value"). WebGPU leaves the precision to
#: the implementation; CPU adapters filter in float (or, llvmpipe on 8-bit formats, in
#: 8-bit fixed point too). The judge allows the error this makes (``sample``).
FILTER_WEIGHT_BITS = 8
#: How far, relative to a normalised coordinate times the extent, the device's texel
#: position may lie from the exact one: a float32 quotient and product, a few roundings
_COORD_SLACK = 2.0**-21


@dataclass(frozen=True)
class Sampler:
    """How a texture is sampled: ``filter`` (``"nearest"`` or ``"linear"``, for both
    magnification and minification; kernel-forge binds no mipmaps), ``address`` (what
    a coordinate outside the texture reads: ``"clamp"`` to the edge, ``"repeat"``,
    ``"mirror"``-ed repeat, on both axes) and ``normalized`` (coordinates in [0, 1]
    of the extent, as WGSL's samplers always take them; False: in texels, as a CUDA
    texture object may). WGSL binds it as a binding of its own (``SamplerSpec``);
    CUDA keeps it in the texture object, declared on the texture's buffer
    (``BufferSpec(..., texture=FORMAT, shape=(H, W), sampler=Sampler(...))``)."""

    filter: str = "nearest"
    address: str = "clamp"
    normalized: bool = True

    def __post_init__(self) -> None:
        if self.filter not in _FILTERS:
            raise InvalidArgument(f"Sampler filter must be one of {_FILTERS}, got {self.filter!r}")
        if self.address not in _ADDRESSES:
            raise InvalidArgument(
                f"Sampler address must be one of {_ADDRESSES}, got {self.address!r}"
            )
        if not isinstance(self.normalized, bool):
            raise InvalidArgument(f"Sampler normalized is a bool, got {self.normalized!r}")

    @property
    def linear(self) -> bool:
        return self.filter == "linear"

    def describe(self) -> dict:
        return {"filter": self.filter, "address": self.address, "normalized": self.normalized}


@dataclass(frozen=True)
class SamplerSpec:
    """A WGSL ``var name: sampler;`` binding at ``@group(group) @binding(binding)`` and
    the state the backend creates it with (``KernelSpec(..., samplers=(SamplerSpec(1,
    Sampler(filter="linear"), name="samp"),))``). It holds no data: the reference
    never sees it."""

    binding: int
    sampler: Sampler = Sampler()
    name: str = ""
    group: int = 0

    def __post_init__(self) -> None:
        for attribute in ("binding", "group"):
            value = getattr(self, attribute)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgument(
                    f"sampler {self.name or self.binding!r}: {attribute} must be an int >= 0, "
                    f"got {value!r}"
                )
        if not isinstance(self.sampler, Sampler):
            raise InvalidArgument(
                f"sampler {self.name or self.binding!r}: sampler must be a forge.Sampler, "
                f"got {self.sampler!r}"
            )
        if not isinstance(self.name, str):
            raise InvalidArgument(f"sampler {self.binding}: name must be a str")

    @property
    def label(self) -> str:
        return self.name or f"@group({self.group}) @binding({self.binding})"

    def describe(self) -> dict:
        return {
            "binding": self.binding,
            "group": self.group,
            "name": self.name,
            **self.sampler.describe(),
        }


#: How ``sample`` rounds a linear filter's weights while the oracle bounds their error
#: (None: exactly, as a reference computes them; "round", "floor", "ceil": to
#: ``FILTER_WEIGHT_BITS`` bits of fraction so; "products", "products_down",
#: "products_up": as NVIDIA's texture units do (``_NVIDIA_MODES``); "codes": as
#: llvmpipe filters 8-bit unorm texels, ``CODE_FILTERING_ADAPTERS``), and the calls it
#: counts meanwhile.
_WEIGHTS: contextvars.ContextVar[tuple[str, list] | None] = contextvars.ContextVar(
    "forge_texture_weights", default=None
)


#: NVIDIA's filter ("products" in ``_WEIGHTS``): the texel position (``coords * extent -
#: 0.5``) in 8 bits of fraction, to nearest, then the four weights in 8 bits, the
#: product ``a b`` rounded half up and the other three what makes each row, column and
#: the whole sum to one. The position's own precision moves a fraction near a half
#: either way ("products_down", "products_up": by ``_nvidia_slack``). Fitted on an H100
#: (2026-12-07) to 18 reads of a CUDA rotation (r32float, wrapped, normalised
#: coordinates) off the exact blend by up to 0.03: each one is one of these three runs,
#: to a float32 sum's rounding (tests/test_wild_round79.py).
_NVIDIA_MODES = {"products": 0.0, "products_down": -1.0, "products_up": 1.0}
#: How far a normalised coordinate may lie from the float32 one the kernel passed, as
#: NVIDIA's unit holds it: the 18 reads fit it held in 20 bits of fraction.
_NORMALIZED_SLACK = 2.0**-20


def _nvidia_slack(x: np.ndarray, extent: int, normalized: bool) -> np.ndarray:
    """How far NVIDIA's texture unit may hold texel position ``x`` from it: a
    normalised coordinate's fixed point (``_NORMALIZED_SLACK`` of the extent), and a
    few float32 roundings of the coordinate (``_COORD_SLACK``)."""
    held = extent * _NORMALIZED_SLACK if normalized else 0.0
    return held + _COORD_SLACK * (np.abs(x) + 1.0)


#: Adapters (a part of their name) whose linear filter over 8-bit unorm texels returns
#: codes: llvmpipe (lavapipe, Mesa) weighs each pair of texels with 8-bit weights and
#: rounds the blend to a code (half up), along x and then along y. Measured on lavapipe
#: (Mesa, LLVM 15, 2026-12-07): 1024 reads of random rgba8unorm texels at random
#: sixty-fourths of a texel came back exactly so, up to 0.98 of a code from the exact
#: blend (SwiftShader's within 2e-5 of a code); tests/test_wgsl_samplers.py. A right
#: kernel's float outputs there carry that error, which the weights' 8 bits alone do
#: not bound where neighbouring texels are close.
CODE_FILTERING_ADAPTERS = ("llvmpipe",)


def filters_in_codes(adapter_name: str) -> bool:
    """Whether an adapter of this name filters 8-bit unorm texels to codes
    (``CODE_FILTERING_ADAPTERS``)."""
    return any(part in adapter_name for part in CODE_FILTERING_ADAPTERS)


def _as_codes(t: np.ndarray) -> np.ndarray | None:
    """``t`` (a reference's texels) as 8-bit unorm codes, where every texel is one
    (``k / 255``); else None."""
    with np.errstate(invalid="ignore"):
        codes = np.rint(t * 255.0)
        if t.size == 0 or not np.all((codes >= 0) & (codes <= 255)):
            return None
        if np.abs(t * 255.0 - codes).max() > 1e-4:
            return None
    return codes


def _address(i: np.ndarray, n: int, address: str) -> np.ndarray:
    if address == "clamp":
        return np.clip(i, 0, n - 1)
    if address == "repeat":
        return np.mod(i, n)
    period = np.mod(i, 2 * n)  # mirror-repeat: 0..n-1 then n-1..0
    return np.where(period < n, period, 2 * n - 1 - period)


def sample(texels: Any, coords: Any, sampler: Sampler = Sampler()) -> np.ndarray:
    """What a texture read through ``sampler`` returns, in float64, for a reference:
    ``texels`` as the reference sees the texture (``(H, W)`` or ``(H, W, C)``),
    ``coords`` an array of ``(..., 2)`` coordinates ``(x, y)`` (normalised to the
    extent, or in texels where ``sampler.normalized`` is False), as WGSL's
    ``textureSampleLevel(t, s, coords, 0.0)`` and CUDA's ``tex2D<T>(tex, x, y)`` take
    them. A linear filter reads the four texels around ``coords * extent - 0.5`` with
    weights of its fraction; nearest reads ``floor(coords * extent)``; each index
    wrapped by ``sampler.address``. The result is ``coords.shape[:-1]`` (then ``C``).

    A reference that samples with it lets the oracle bound a right kernel's filtering
    error exactly where it arises: it runs the reference again with the weights
    rounded to ``FILTER_WEIGHT_BITS`` bits of fraction each way, and as NVIDIA's
    texture units round them (the fractions, then the four products), so a read
    at a texel centre or a quarter texel in texels (weights 8-bit exact) allows no
    error at all. Normalised coordinates reach the device as float32 quotients (``(x
    + 0.25) / W``), a few float32 roundings from the exact point, which a texture unit
    that truncates the fraction to 8 bits may take one step down (H100, 2026-12-06: a
    CUDA blur at quarter texels came out up to 2**-10 relative off): there each
    rounding's fraction is moved first by ``_COORD_SLACK`` of the coordinate."""
    # a subclass stays one: the oracle's rounding runs move what the kernel computes from
    # the reads (a box filter's float32 sums), not only the reads' own arithmetic
    t = np.asanyarray(texels).astype(np.float64)
    c = np.asarray(coords, np.float64)
    if t.ndim not in (2, 3) or c.shape[-1:] != (2,):
        raise InvalidArgument(
            f"sample: texels are (H, W) or (H, W, C), coords (..., 2); got {t.shape} and {c.shape}"
        )
    height, width = t.shape[:2]
    x, y = c[..., 0], c[..., 1]
    if sampler.normalized:
        x, y = x * width, y * height
    if not sampler.linear:
        i = _address(np.floor(x).astype(np.int64), width, sampler.address)
        j = _address(np.floor(y).astype(np.int64), height, sampler.address)
        return t[j, i]
    x, y = x - 0.5, y - 0.5
    mode = _WEIGHTS.get()
    nvidia = mode is not None and mode[0] in _NVIDIA_MODES
    if nvidia:  # the texel position as NVIDIA's unit may hold it, moved (or not) first
        way = _NVIDIA_MODES[mode[0]]  # type: ignore[index]
        x = x + way * _nvidia_slack(x, width, sampler.normalized)
        y = y + way * _nvidia_slack(y, height, sampler.normalized)
    x0, y0 = np.floor(x), np.floor(y)
    a, b = x - x0, y - y0
    codes = _as_codes(t) if mode is not None and mode[0] == "codes" else None
    if mode is not None:
        mode[1].append(1)
        scale = float(1 << FILTER_WEIGHT_BITS)
        how = "round" if mode[0] == "codes" or nvidia else mode[0]
        rounding = {"round": np.rint, "floor": np.floor, "ceil": np.ceil}[how]
        if sampler.normalized and not nvidia:  # a float32 coordinate may bring it
            way = {"round": 0.0, "floor": -1.0, "ceil": 1.0}[how]
            a = a + way * _COORD_SLACK * (np.abs(x) + 1.0)
            b = b + way * _COORD_SLACK * (np.abs(y) + 1.0)
        a, b = rounding(a * scale) / scale, rounding(b * scale) / scale
    i0 = _address(x0.astype(np.int64), width, sampler.address)
    i1 = _address(x0.astype(np.int64) + 1, width, sampler.address)
    j0 = _address(y0.astype(np.int64), height, sampler.address)
    j1 = _address(y0.astype(np.int64) + 1, height, sampler.address)
    if t.ndim == 3:
        a, b = a[..., None], b[..., None]
    if mode is not None:  # the weights in 8 bits, as integers of 1 / scale
        wa, wb = a * scale, b * scale
    if codes is not None:  # each blend of two rounded to a code, half up (llvmpipe)
        top = np.floor(((scale - wa) * codes[j0, i0] + wa * codes[j0, i1]) / scale + 0.5)
        bottom = np.floor(((scale - wa) * codes[j1, i0] + wa * codes[j1, i1]) / scale + 0.5)
        return np.floor(((scale - wb) * top + wb * bottom) / scale + 0.5) / 255.0
    if nvidia:  # the four weights in 8 bits: a b rounded half up, the rest to sum to one
        both = np.floor(wa * wb / scale + 0.5)
        return (
            (scale - wa - wb + both) * t[j0, i0]
            + (wa - both) * t[j0, i1]
            + (wb - both) * t[j1, i0]
            + both * t[j1, i1]
        ) / scale
    top = (1 - a) * t[j0, i0] + a * t[j0, i1]
    bottom = (1 - a) * t[j1, i0] + a * t[j1, i1]
    return (1 - b) * top + b * bottom


# -- CUDA texture and surface objects ------------------------------------------------

#: The CUDA array format (``CUarray_format``, less ``CU_AD_FORMAT_``) of each element
#: scalar a texture object may read.
_CUDA_SCALARS = {
    "f32": "FLOAT",
    "f16": "HALF",
    "i32": "SIGNED_INT32",
    "u32": "UNSIGNED_INT32",
    "i16": "SIGNED_INT16",
    "u16": "UNSIGNED_INT16",
    "i8": "SIGNED_INT8",
    "u8": "UNSIGNED_INT8",
}


def cuda_channel_format(element: Any, what: str) -> tuple[str, int]:
    """(``CUarray_format`` name less ``CU_AD_FORMAT_``, channels) of a 1-D texture
    object over a plain buffer of ``element`` (``tex1Dfetch<float>`` over f32,
    ``tex1Dfetch<float4>`` over ``vec4<f32>``): 1, 2 or 4 channels of an 8-, 16- or
    32-bit scalar; else ``UnsupportedFeature`` (a double is read as ``int2``: declare
    the buffer ``vec2<i32>``)."""
    from . import layout as _layout
    from .errors import UnsupportedFeature

    t = _layout.parse_type(element)
    channels = 1 if t.kind == "scalar" else t.count if t.kind == "vec" else 0
    if t.scalar not in _CUDA_SCALARS or channels not in (1, 2, 4):
        raise UnsupportedFeature(
            f"{what} is {_layout.type_text(t)!r}; a CUDA texture holds 1, 2 or 4 channels "
            f"of {', '.join(_CUDA_SCALARS)} (a double is fetched as int2: declare the "
            "buffer vec2<i32>)"
        )
    return _CUDA_SCALARS[t.scalar], channels


#: The CUDA array (format name, channels, read as integers) of each texture format: a
#: texture object over rgba8unorm reads normalised floats (``cudaReadModeNormalizedFloat``,
#: ``k / 255``, as WGSL's texture_2d<f32> sees it); integer formats read as integers.
CUDA_ARRAYS: dict[str, tuple[str, int, bool]] = {
    "r32float": ("FLOAT", 1, False),
    "r32uint": ("UNSIGNED_INT32", 1, True),
    "rgba32float": ("FLOAT", 4, False),
    "rgba32uint": ("UNSIGNED_INT32", 4, True),
    "rgba16float": ("HALF", 4, False),
    "rgba8uint": ("UNSIGNED_INT8", 4, True),
    "r8uint": ("UNSIGNED_INT8", 1, True),
    "rgba8unorm": ("UNSIGNED_INT8", 4, False),
}
