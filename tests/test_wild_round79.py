"""What round 79 of the wild kernels (tests/wild/round79.py: cuda-samples' simpleTexture,
convolutionTexture's two passes and SobelFilter's texture path, the corpus's first
kernels that take a ``cudaTextureObject_t``, each with a WebGPU port) showed of the
oracle and of the CUDA texture support, pinned.

Every original passes on the reference, lavapipe and SwiftShader (the WebGPU ports),
every WGSL mutant fails on both (``KFORGE_SLOW_TESTS=1``), and every CUDA original and
mutant compiles with NVRTC for sm_90 with each launch's arguments what its PTX declares
(a 64-bit object where the kernel takes its texture). The texture objects the backend
plans for each (``backends/cuda/_textures.plan``, ``descriptors``) carry the state each
host's ``cudaCreateTextureObject`` sets (filter, address mode, normalised coordinates,
read mode, the array's format and channels), and on the simulated driver the objects
made at launch are those and reach the kernel's texture parameter (tests below).

Findings, closed the same day:

- SobelFilter could not be declared: ``tex2D<unsigned char>`` over the host's
  ``cudaCreateChannelDesc<unsigned char>()`` array had no format (``rgba8uint`` is four
  channels). ``r8uint`` is a format now (tests/test_wgsl_textures.py,
  tests/test_cuda_arguments.py).
- convolutionTexture and SobelFilter set ``cudaAddressModeWrap`` with unnormalised
  coordinates, which the driver supports only as clamp; the refusal of
  ``Sampler(address="repeat", normalized=False)`` offered ``normalized=True`` (which
  would read texel coordinates as fractions) and now names ``address='clamp'``.

No misjudgement: the rotation's reads between texels are judged within the filtering
bound (NVIDIA's 8-bit weights), the convolutions' reads at texel centres exactly.

Not shown on the CPU adapters, for the GPU run: the CUDA mutants. Each has its bug
written into the WebGPU port below and that twin fails on lavapipe, so each must fail
on the H100.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import forge
import oracle
from forge import Sampler
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401  (the fixture)
from tests.wild import CORPUS, mutant
from tests.wild.round79 import ROUND79

_ROTATE = "wild_r79_cuda_samples_simple_texture_rotate"
_ROWS = "wild_r79_cuda_samples_convolution_texture_rows"
_COLUMNS = "wild_r79_cuda_samples_convolution_texture_columns"
_SOBEL = "wild_r79_cuda_samples_sobel_filter_tex"

_CUDA = [n for n, w in ROUND79.items() if "cuda" in w.kernel.targets]
_CUDA_MUTANTS = [
    (n, m) for n in _CUDA for m, (t, _, _) in ROUND79[n].mutants.items() if t == "cuda"
]


def _compile(kernel: forge.KernelSpec):
    """NVRTC's build of ``kernel`` at its largest size, each launch checked against the
    parameters its PTX declares (as tests/test_wild_kernels.py compiles the corpus)."""
    from backends.cuda._modules import check_steps, module_build

    schedule, size = kernel.schedules[0], kernel.largest_size()
    source = kernel.source("cuda", schedule, size)
    steps = kernel.steps("cuda", schedule, size, 2**31 - 1, source)
    image, names, entries = module_build(kernel, steps, source, "sm_90").build()
    assert image
    check_steps(kernel, steps, entries, source)
    return steps, names


def test_the_round_is_in_the_corpus():
    assert set(ROUND79) <= set(CORPUS)
    assert len(_CUDA) == 4 and len(_CUDA_MUTANTS) == 9


@pytest.mark.parametrize(
    "name, what", _CUDA_MUTANTS, ids=[f"{n}-{m.replace(' ', '_')}" for n, m in _CUDA_MUTANTS]
)
def test_every_cuda_mutant_compiles_with_nvrtc_and_binds_its_texture(name, what):
    steps, _ = _compile(mutant(CORPUS[name], what))
    assert [kind for kind, _ in steps[0].arguments].count("texture") == 1


# -- the texture objects: what each host's cudaCreateTextureObject sets ----------------------

#: Per entry: (the texture parameter's position, the array's format and channels, read
#: as integers, filter, address mode, normalised coordinates), from each host's
#: cudaChannelFormatDesc and cudaTextureDesc (tests/wild/round79.py's docstring; the
#: hosts' Wrap with unnormalised coordinates is the driver's clamp).
_HOSTS = {
    _ROTATE: (4, "FLOAT", 1, False, "LINEAR", "WRAP", True),
    _ROWS: (3, "FLOAT", 1, False, "LINEAR", "CLAMP", False),
    _COLUMNS: (3, "FLOAT", 1, False, "LINEAR", "CLAMP", False),
    _SOBEL: (5, "UNSIGNED_INT8", 1, True, "POINT", "CLAMP", False),
}


def _texture_state(texture) -> tuple[str, str, bool, bool]:
    from cuda.bindings import driver

    flags = int(texture["flags"] if isinstance(texture, dict) else texture.flags)
    filter_mode = texture["filter"] if isinstance(texture, dict) else texture.filterMode
    address = texture["address_mode"] if isinstance(texture, dict) else texture.addressMode[0]
    return (
        driver.CUfilter_mode(filter_mode).name.removeprefix("CU_TR_FILTER_MODE_"),
        driver.CUaddress_mode(address).name.removeprefix("CU_TR_ADDRESS_MODE_"),
        bool(flags & driver.CU_TRSF_NORMALIZED_COORDINATES),
        bool(flags & driver.CU_TRSF_READ_AS_INTEGER),
    )


@pytest.mark.parametrize("name", sorted(_HOSTS))
def test_each_texture_object_is_planned_as_its_host_creates_it(name):
    from backends.cuda._textures import descriptors, plan

    position, fmt, channels, integer, filter_mode, address, normalized = _HOSTS[name]
    kernel = CORPUS[name].kernel
    size = kernel.size(kernel.test_sizes[0])
    (step,) = kernel.steps("cuda", kernel.schedules[0], size)
    kind, index = step.arguments[position]
    assert kind == "texture" and kernel.buffers[index].name in ("tex", "texSrc")
    height, width = kernel.buffers[index].texture_extent(size)[::-1]
    texel = kernel.buffers[index].texture_format.texel_bytes
    p = plan(kernel, "texture", index, size, width * height * texel, {})
    assert (p.format, p.channels, p.read_as_integer, p.linear) == (fmt, channels, integer, False)
    assert (p.width, p.height, p.row_bytes) == (width, height, width * texel)
    _, texture, array = descriptors(p, 0)
    assert array.NumChannels == channels
    assert _texture_state(texture) == (filter_mode, address, normalized, integer)


def test_a_hosts_wrap_with_unnormalised_coordinates_is_refused_naming_the_drivers_clamp():
    """convolutionTexture's host, as written (Wrap, unnormalised): refused, naming the
    declaration that reads as the driver does."""
    kernel = CORPUS[_ROWS].kernel
    texture = kernel.buffers[2]
    as_written = dataclasses.replace(texture, sampler=Sampler("linear", "repeat", normalized=False))
    wrapped = dataclasses.replace(
        kernel, buffers=(*kernel.buffers[:2], as_written, kernel.buffers[3])
    )
    size = wrapped.size(wrapped.test_sizes[0])
    with pytest.raises(forge.UnsupportedFeature, match=r"address='clamp', normalized=False\)"):
        wrapped.steps("cuda", wrapped.schedules[0], size, 2**31 - 1, wrapped.sources["cuda"])


@pytest.mark.parametrize("name", [_ROTATE, _SOBEL])
def test_on_the_simulated_driver_the_kernel_gets_the_object_its_host_makes(fake_driver, name):
    """The rotation and Sobel launched on the simulated driver
    (tests/test_cuda_fake_driver.py) and judged by the oracle: the texture parameter
    holds an object over a 2-D array of the host's format and extent, with the host's
    filter, address mode and flags; each stand-in computes the kernel's result from the
    texels in that array (the round's references), so the PASS shows the texels reached
    it as the buffer held them. (The convolutions copy ``c_Kernel`` into a
    ``__constant__`` symbol, which the simulated driver does not model; their objects
    are checked as planned above.)"""
    from backends.cuda import CudaComputeContext
    from tests.test_cuda_fake_driver import device_array, f32, ptr, u32
    from tests.wild.round79 import _rotate, _sobel_bytes

    position, fmt, channels, integer, filter_mode, address, normalized = _HOSTS[name]
    kernel = CORPUS[name].kernel
    _, names = _compile(kernel)
    seen = []

    def launched(args, grid, block):
        texture = fake_driver.objects[ptr(args[position])]
        array = fake_driver.arrays[texture["array"]]
        seen.append((_texture_state(texture), array["texel"], array["width"], array["height"]))
        height, width = array["height"], array["width"]
        data = bytes(array["data"])
        if name == _SOBEL:  # SobelTex(Pixel*, unsigned Pitch, int w, int h, float fScale, tex)
            assert (u32(args[1]), u32(args[2]), u32(args[3])) == (width, width, height)
            texels = np.frombuffer(data, np.uint8).reshape(height, width)
            out = _sobel_bytes(texels, f32(args[4])).astype(np.uint8)
            device_array(ptr(args[0]), out.size, np.uint8)[:] = out.reshape(-1)
        else:  # transformKernel(float*, int width, int height, float theta, tex)
            assert (u32(args[1]), u32(args[2])) == (width, height)
            texels = np.frombuffer(data, np.float32).reshape(height, width)
            out = _rotate(texels, None, f32(args[3]))
            device_array(ptr(args[0]), out.size, np.float32)[:] = out.reshape(-1)

    sizes = tuple(8 if i in (0, position) else 4 for i in range(position + 1))
    fake_driver.kernels[names[kernel.entry_point]] = (launched, sizes)
    size = kernel.size(kernel.test_sizes[0])
    with CudaComputeContext(1 << 24) as ctx:
        ev = oracle.evaluate(ctx, kernel, size=size, samples=0, reorder=False)
    assert ev.verdict is Verdict.PASS, ev.report()
    texel_bytes = channels * (1 if fmt == "UNSIGNED_INT8" else 4)
    index = [b.name for b in kernel.buffers].index("tex")
    width, height = kernel.buffers[index].texture_extent(size)
    assert seen and set(seen) == {
        ((filter_mode, address, normalized, integer), texel_bytes, width, height)
    }


# -- the CUDA mutants' bugs, shown in the ports ----------------------------------------------


def _wgsl_variant(name: str, old: str, new: str) -> forge.KernelSpec:
    kernel = CORPUS[name].kernel
    text = kernel.sources["wgsl"]
    assert text.count(old) == 1, (name, old)
    return dataclasses.replace(
        kernel, id=f"{kernel.id}__twin", sources={"wgsl": text.replace(old, new)}
    )


_SOBEL_PORT = "wild_r79_cuda_samples_sobel_filter_tex_webgpu_port"
#: the columns' entry point down to its texel centre's y
_COLUMNS_HEAD = (
    "fn convolutionColumnsKernel(@builtin(global_invocation_id) gid : vec3u) {\n"
    "  let ix = i32(gid.x);\n  let iy = i32(gid.y);\n  let x = f32(ix) + 0.5;\n"
)

# Each CUDA mutant of the round has the same bug written into the WebGPU port here: the
# CPU adapters cannot run CUDA, so these show that the bug is visible in the entry's own
# draws (the GPU run must see the CUDA mutants fail too).
_CUDA_TWINS = {
    (_ROTATE, "CUDA: ry normalised by the width"): (
        _ROTATE,
        "ry /= f32(params.height);",
        "ry /= f32(params.width);",
    ),
    (_ROTATE, "CUDA: the coordinates swapped in tex2D"): (
        _ROTATE,
        "tex2D(rx + 0.5, ry + 0.5)",
        "tex2D(ry + 0.5, rx + 0.5)",
    ),
    (_ROWS, "CUDA: the taps reversed"): (
        _ROWS,
        "sum = tex2D(x + f32(KERNEL_RADIUS - i), y) * c_Kernel[i] + sum;",
        "sum = tex2D(x + f32(i - KERNEL_RADIUS), y) * c_Kernel[i] + sum;",
    ),
    (_ROWS, "CUDA: the row pitch the height"): (
        _ROWS,
        # the rows' store: the one a compute entry point follows
        "d_Dst[iy * params.imageW + ix] = sum;\n}\n\n@compute",
        "d_Dst[iy * params.imageH + ix] = sum;\n}\n\n@compute",
    ),
    (_COLUMNS, "CUDA: the coordinates swapped in tex2D"): (
        _COLUMNS,
        "sum = tex2D(x, y + f32(KERNEL_RADIUS - i)) * c_Kernel[i] + sum;",
        "sum = tex2D(y + f32(KERNEL_RADIUS - i), x) * c_Kernel[i] + sum;",
    ),
    (_COLUMNS, "CUDA: the texel centre's + 0.5 dropped"): (
        _COLUMNS,
        _COLUMNS_HEAD + "  let y = f32(iy) + 0.5;",
        _COLUMNS_HEAD + "  let y = f32(iy);",
    ),
    (_SOBEL, "CUDA: a Sobel weight's sign"): (
        _SOBEL_PORT,
        "let Horz = ur + 2 * mr + lr - ul - 2 * ml - ll;",
        "let Horz = ur + 2 * mr + lr - ul + 2 * ml - ll;",
    ),
    (_SOBEL, "CUDA: pix01 read transposed"): (
        _SOBEL_PORT,
        "let pix01 = tex2D(col + 0.0, row - 1.0);",
        "let pix01 = tex2D(row - 1.0, col + 0.0);",
    ),
    (_SOBEL, "CUDA: the byte clamp dropped"): (
        _SOBEL_PORT,
        # C's unsigned char keeps a sum past 255 modulo 256; WGSL's u32 keeps it whole
        "  } else if (Sum > 0xff) {\n    return 0xffu;\n  }\n  return u32(Sum);",
        "  }\n  return u32(Sum) & 0xffu;",
    ),
}


def test_every_cuda_mutant_has_a_twin_here():
    assert set(_CUDA_TWINS) == set(_CUDA_MUTANTS)


@pytest.mark.parametrize(
    "key", sorted(_CUDA_TWINS), ids=lambda k: f"{k[0]}-{k[1].replace(' ', '_')}"
)
def test_the_cuda_mutants_bug_fails_in_the_port(request, key):
    require_available(request.config, "wgpu")
    name, old, new = _CUDA_TWINS[key]
    wrong = _wgsl_variant(name, old, new)
    with forge.open_context("wgpu") as ctx:
        ev = oracle.evaluate(ctx, wrong, size=wrong.test_sizes[0], samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
