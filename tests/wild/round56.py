"""Round 56 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
as tutorials, blog posts and small WebGPU projects teach and write it, each written
for this corpus after the public source named below (read, not copied: the project's
rule for public code). What is theirs is kept: the entry point, the bindings (names,
groups, types, access, the struct that wraps a runtime array, a bare ``vec4<f32>``
uniform, a bare ``atomic<u32>`` output), the workgroup sizes, the idioms (sizes read
as floats from a header of the data buffer, ``select`` over two reads, a tree in
``var<workgroup>`` memory folded into one atomic), the launch geometry and the
numerics, and every real bug of the original (named with each). What is ours: the
comments, the locals' and helpers' names, the order of equivalent statements and the
formatting, and any value the host sets that the source does not show (said where).

- Chrome's "Get started with GPU Compute on the web" (François Beaufort,
  https://developer.chrome.com/docs/capabilities/web-apis/gpu-compute; the page's
  text CC BY 4.0, its code samples Apache-2.0): a matrix product whose three buffers
  are ``struct Matrix { size: vec2f, numbers: array<f32> }``, the rows and columns
  written by the page as the buffer's first two floats, read back with ``u32(...)``,
  an 8 x 8 workgroup per tile of the result (x its rows, y its columns), and every
  invocation in range writing the result's own size header. The page dispatches
  ``ceil(rows / 8)`` by ``ceil(cols / 8)``.
- A reduction from Emmanuel Roche's "NervLand Adventures" blog series on GPU
  reductions in WebGPU (roche-emmanuel/nervland_adventures at 1b0c05cd, MIT,
  ``experiments/001_gpu_reduction/shaders/reduc4.wgsl``): Mark Harris's reduction #4
  (the first add during the load, two elements an invocation, a tree of sequential
  addressing with a barrier after each level) in a workgroup of 256 u32s, each
  workgroup's sum added into one ``var<storage, read_write> output: atomic<u32>``.
  Its real limit, kept: no bound on the loads ("we don't need to check the bounds if
  using an input array size that can be divided by wgsize"), so it is right only for
  sizes that are multiples of 512; the entry's sizes are such.
- A Jacobi pressure iteration of a stable-fluids demo (AnuKritiW/WebGPU-FluidSim at
  8b4dae8d, ``src/shaders/pressure.wgsl``; the repository states no licence): the
  grid's width, height and cell size as floats in a bare ``var<uniform> uGridSize:
  vec4<f32>``, an 8 x 8 workgroup, each neighbour read through ``select(centre,
  neighbour, inside)`` (both reads happen: the one past the edge wraps the u32 index,
  which WGSL's robust access keeps inside the buffer, and ``select`` discards it),
  ``alpha = -(dx * dx)`` and ``0.25``. The value the host writes in ``z`` is not in
  the shader; here 1/8 (ours).
- Learn Wgpu's compute chapter (sotrh/learn-wgpu at 272d8ef1, its licence not read here,
  ``code/compute/src/sort_odd.wgsl`` and ``sort_even.wgsl``, with ``sort.rs``'s host
  loop at 5c91cb03): an odd-even transposition sort in place, one compare-and-swap
  pass a dispatch over ``arrayLength(&data)`` u32s, workgroups of 64 a pair an
  invocation, the host alternating the odd and the even pass ``ceil(n / 2)`` times over
  ``ceil(n / 64)`` workgroups. Ours: the two files' entry points (both
  ``odd_even_sort``) are two entry points of one module here, ``odd_even_sort_odd``
  and ``odd_even_sort_even`` (a kernel is one module).
- Chrome's "Your first WebGPU app" codelab (Brandon Jones and François Beaufort,
  https://codelabs.developers.google.com/your-first-webgpu-app; code Apache-2.0): the
  Game of Life's compute step, ``var<uniform> grid: vec2f``, ``var<storage>`` (read)
  and ``read_write`` cell arrays, ``cellIndex`` wrapping by the u32 remainder, the
  eight ``cellActive`` calls, a ``switch`` on the count, an 8 x 8 workgroup templated
  from the page's ``${WORKGROUP_SIZE}``, and no bound (the grid's sides are multiples
  of 8). Its real bug, kept: ``cell.x - 1`` at column 0 wraps to ``0xFFFFFFFF``, whose
  remainder is the last column only where the side divides 2^32 (the codelab's 32);
  tests/test_wild_round56.py shows the oracle failing it at 24.
- andrewdr0st/webgpu-image-processing at 71fd73e9 (no licence file; read for its
  behaviour, as round 53 read its Sobel filter), ``shaders/tint.wgsl``: a uniform
  ``valueStruct { amount, dx, dy: f32, color: vec3f }`` in group 1, whose ``vec3f``
  WGSL aligns to 16 bytes (a gap after ``dy``), read and write ``rgba8unorm`` storage
  textures, an amount that runs linearly across the image by ``mix(-dx, dx, x / W)``
  and past 1, where ``mix`` extrapolates and the unorm store clamps. Its guard ``id.x >
  max_x`` (the column past the image gets through, its store dropped) is kept. The
  colour picker's value is ours.

What they showed is in tests/test_wild_round56.py: every original passes on the
reference, lavapipe and SwiftShader and every mutant fails on both; one false alarm,
fixed in the oracle (the matrix product's size header made every float64 run behind
the rounding bounds raise, so a right product failed at seed 3).
"""

# ruff: noqa: E501  (the WGSL keeps its sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. Chrome's GPU Compute article: a matrix product with sizes in the buffers --------

_CHROME_MATMUL = """// A matrix product; each buffer starts with its (rows, columns) as two floats.
struct Matrix {
  size : vec2f,
  numbers : array<f32>,
}

@group(0) @binding(0) var<storage, read> firstMatrix : Matrix;
@group(0) @binding(1) var<storage, read> secondMatrix : Matrix;
@group(0) @binding(2) var<storage, read_write> resultMatrix : Matrix;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) global_id : vec3u) {
  // the grid is rounded up to whole workgroups: the ones past the result do nothing
  if (global_id.x >= u32(firstMatrix.size.x) || global_id.y >= u32(secondMatrix.size.y)) {
    return;
  }

  resultMatrix.size = vec2(firstMatrix.size.x, secondMatrix.size.y);

  let row = global_id.x;
  let col = global_id.y;
  let inner = u32(firstMatrix.size.y);
  let width = u32(secondMatrix.size.y);
  var acc = 0.0;
  for (var k = 0u; k < inner; k = k + 1u) {
    acc = acc + firstMatrix.numbers[row * inner + k] * secondMatrix.numbers[k * width + col];
  }
  resultMatrix.numbers[row * width + col] = acc;
}
"""


def _with_size(rows: int, cols: int, rng) -> np.ndarray:
    """A matrix as the page writes it: (rows, cols) as floats, then its values (a
    normal draw with some zeros, negatives and values of 1e3 among them)."""
    values = rng.normal(0.0, 1.5, rows * cols)
    pick = rng.random(rows * cols)
    values[pick < 0.05] = 0.0
    values[(pick >= 0.05) & (pick < 0.1)] *= 1e3
    return np.concatenate(([rows, cols], values)).astype(np.float32)


def _first_matrix(rng, count, size):
    return _with_size(size.M, size.K, rng)


def _second_matrix(rng, count, size):
    return _with_size(size.K, size.N, rng)


def _chrome_matmul_reference(firstMatrix, secondMatrix, resultMatrix):
    m, k = (int(v) for v in firstMatrix[:2])
    n = int(secondMatrix[1])
    a = firstMatrix[2:].astype(np.float64).reshape(m, k)
    b = secondMatrix[2:].astype(np.float64).reshape(k, n)
    out = np.empty(2 + m * n, np.float64)
    out[:2] = (m, n)
    out[2:] = (a @ b).ravel()
    return out.astype(np.float32)


CHROME_MATMUL = Wild(
    KernelSpec(
        id="wild_r56_chrome_gpu_compute_matmul_size_header",
        entry_point="main",
        sources={"wgsl": _CHROME_MATMUL},
        dims=("M", "K", "N"),
        buffers=(
            BufferSpec(0, "f32", "read", name="firstMatrix", count="2+M*K", fill=_first_matrix),
            BufferSpec(1, "f32", "read", name="secondMatrix", count="2+K*N", fill=_second_matrix),
            BufferSpec(2, "f32", "read_write", name="resultMatrix", count="2+M*N"),
        ),
        reference=_chrome_matmul_reference,
        grid=lambda s, size: (ceil_div(size.M, 8), ceil_div(size.N, 8), 1),
        schedules=(Schedule((8, 8)),),
        # no side a multiple of 8; K > N, so a guard on K instead of N writes past a row
        test_sizes=("M=19,K=23,N=13",),
    ),
    {
        "columns guarded by the inner size": (
            "wgsl",
            "global_id.y >= u32(secondMatrix.size.y)",
            "global_id.y >= u32(secondMatrix.size.x)",
        ),
        "size header written transposed": (
            "wgsl",
            "vec2(firstMatrix.size.x, secondMatrix.size.y)",
            "vec2(secondMatrix.size.y, firstMatrix.size.x)",
        ),
        "second matrix read with the inner stride": (
            "wgsl",
            "secondMatrix.numbers[k * width + col]",
            "secondMatrix.numbers[k * inner + col]",
        ),
        "last product left out": ("wgsl", "k < inner;", "k + 1u < inner;"),
    },
)

# -- 2. NervLand Adventures: Harris's reduction #4 into one atomic ----------------------

_NERVLAND_REDUCE4 = """// Harris's reduction #4: two elements added as they are loaded, then a tree with
// sequential addressing; each workgroup's total goes into one atomic.
@group(0) @binding(0) var<storage,read> inputBuffer: array<u32>;
@group(0) @binding(1) var<storage,read_write> output: atomic<u32>;

const wgsize : u32 = 256;
// workgroup memory starts zeroed
var<workgroup> sdata: array<u32, wgsize>;

@compute @workgroup_size(wgsize)
fn main(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>) {
    var tid: u32 = local_id.x;
    // each workgroup covers twice its size
    var idx: u32 = gid.x * wgsize * 2 + tid;

    // no bound: the input is taken to be a multiple of 2 * wgsize long
    sdata[tid] = inputBuffer[idx] + inputBuffer[idx + wgsize];
    workgroupBarrier();

    for (var s: u32 = wgsize / 2; s > 0; s >>= 1) {
        if tid < s {
            sdata[tid] += sdata[tid + s];
        }
        workgroupBarrier();
    }

    if tid == 0 {
        atomicAdd(&output, sdata[0]);
    }
}
"""


def _nervland_reduce_reference(inputBuffer, output):
    total = int(inputBuffer.astype(np.uint64).sum() % (1 << 32))
    return np.array([(int(output[0]) + total) % (1 << 32)], np.uint32)


NERVLAND_REDUCE4 = Wild(
    KernelSpec(
        id="wild_r56_nervland_reduction4_atomic_total",
        entry_point="main",
        sources={"wgsl": _NERVLAND_REDUCE4},
        buffers=(
            BufferSpec(0, "u32", "read", name="inputBuffer"),
            BufferSpec(1, "u32", "read_write", name="output", count=1, initial=0),
        ),
        reference=_nervland_reduce_reference,
        grid=lambda s, n: (n // 512, 1, 1),
        schedules=(Schedule(256),),
        # multiples of 512 only, as the post says (the loads have no bound)
        test_sizes=(512 * 5,),
    ),
    {
        "no barrier between the levels": (
            "wgsl",
            "            sdata[tid] += sdata[tid + s];\n        }\n        workgroupBarrier();\n",
            "            sdata[tid] += sdata[tid + s];\n        }\n",
        ),
        "workgroups a size apart": ("wgsl", "gid.x * wgsize * 2 + tid", "gid.x * wgsize + tid"),
        "second element not loaded": (
            "wgsl",
            "sdata[tid] = inputBuffer[idx] + inputBuffer[idx + wgsize];",
            "sdata[tid] = inputBuffer[idx];",
        ),
        "last level left out": ("wgsl", "s > 0; s >>= 1", "s > 1; s >>= 1"),
    },
)

# -- 3. WebGPU-FluidSim: one Jacobi iteration of the pressure solve ---------------------

_FLUIDSIM_PRESSURE = """// One Jacobi iteration of the pressure Poisson equation. uGridSize: (width,
// height, cell size, unused), as floats.
@group(0) @binding(0) var<storage, read> divergence: array<f32>;
@group(0) @binding(1) var<storage, read> pressure: array<f32>;
@group(0) @binding(2) var<uniform> uGridSize: vec4<f32>;
@group(0) @binding(3) var<storage, read_write> pressureOut: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let x: u32 = global_id.x;
  let y: u32 = global_id.y;
  let w: u32 = u32(uGridSize.x);
  let h: u32 = u32(uGridSize.y);
  if (x >= w || y >= h) {
    return;
  }
  let cell: u32 = x + y * w;

  // a neighbour past the edge is the cell itself
  let west:  f32 = select(pressure[cell], pressure[cell - 1u], (x > 0u));
  let east:  f32 = select(pressure[cell], pressure[cell + 1u], (x < w - 1u));
  let north: f32 = select(pressure[cell], pressure[cell - w], (y > 0u));
  let south: f32 = select(pressure[cell], pressure[cell + w], (y < h - 1u));

  let alpha: f32 = -(uGridSize.z * uGridSize.z);
  let rBeta = 0.25;
  pressureOut[cell] = (alpha * divergence[cell] + west + east + north + south) * rBeta;
}
"""

_CELL = 0.125  # the host's cell size (ours: the shader does not show it)


def _grid_size(rng, count, size):
    return np.array([size.W, size.H, _CELL, 0.0], np.float32)


def _fluidsim_pressure_reference(divergence, pressure, uGridSize, pressureOut):
    w, h, dx = int(uGridSize[0]), int(uGridSize[1]), float(uGridSize[2])
    p = pressure.astype(np.float64).reshape(h, w)
    d = divergence.astype(np.float64).reshape(h, w)
    padded = np.pad(p, 1, mode="edge")
    around = padded[1:-1, :-2] + padded[1:-1, 2:] + padded[:-2, 1:-1] + padded[2:, 1:-1]
    alpha = -np.float64(np.float32(dx) * np.float32(dx))
    return ((alpha * d + around) * 0.25).astype(np.float32)


FLUIDSIM_PRESSURE = Wild(
    KernelSpec(
        id="wild_r56_webgpu_fluidsim_jacobi_pressure",
        entry_point="main",
        sources={"wgsl": _FLUIDSIM_PRESSURE},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="divergence", count="H*W", shape=("H", "W")),
            BufferSpec(1, "f32", "read", name="pressure", count="H*W", shape=("H", "W")),
            # a bare vec4<f32> the shader declares var<uniform>: bound as a uniform
            BufferSpec(2, "f32", "read", name="uGridSize", count=4, fill=_grid_size),
            BufferSpec(3, "f32", "read_write", name="pressureOut", count="H*W", shape=("H", "W")),
        ),
        reference=_fluidsim_pressure_reference,
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8)),),
        # not square (a row stride of the height shows) and no side a multiple of 8
        test_sizes=("H=29,W=37",),
    ),
    {
        "east read past the last column": (
            "wgsl",
            "(x < w - 1u)",
            "(x < w)",
        ),
        "alpha of the wrong sign": (
            "wgsl",
            "-(uGridSize.z * uGridSize.z)",
            "(uGridSize.z * uGridSize.z)",
        ),
        "north with the height as the row stride": (
            "wgsl",
            "pressure[cell - w], (y > 0u)",
            "pressure[cell - h], (y > 0u)",
        ),
        "averaged over five": ("wgsl", "let rBeta = 0.25;", "let rBeta = 0.2;"),
    },
)

# -- 4. Learn Wgpu: odd-even transposition sort, a pass a dispatch ----------------------

_LEARN_WGPU_SORT = """// Odd-even transposition sort in place, one compare-and-swap pass a dispatch: the
// host alternates the odd pass and the even pass ceil(n / 2) times.
@group(0)
@binding(0)
var<storage, read_write> data: array<u32>;

@compute
@workgroup_size(64, 1, 1)
fn odd_even_sort_odd(
    @builtin(global_invocation_id)
    gid: vec3<u32>,
) {
    let num_items = arrayLength(&data);
    let pair_index = gid.x;

    // pairs (1, 2), (3, 4), ...
    let a = pair_index * 2u + 1u;
    let b = a + 1u;
    if a < num_items && b < num_items && data[a] > data[b] {
        let held = data[a];
        data[a] = data[b];
        data[b] = held;
    }
}

@compute
@workgroup_size(64, 1, 1)
fn odd_even_sort_even(
    @builtin(global_invocation_id)
    gid: vec3<u32>,
) {
    let num_items = arrayLength(&data);
    let pair_index = gid.x;

    // pairs (0, 1), (2, 3), ...
    let a = pair_index * 2u;
    let b = a + 1u;
    if a < num_items && b < num_items && data[a] > data[b] {
        let held = data[a];
        data[a] = data[b];
        data[b] = held;
    }
}
"""


def _sort_passes(size):
    # the host's loop: ceil(n / 2) times the odd pass, then the even pass, each over
    # ceil(n / 64) workgroups (twice the pairs there are; the bound drops the rest)
    n = int(size)
    grid = (ceil_div(n, 64), 1, 1)
    one = (
        Dispatch("odd_even_sort_odd", grid=grid),
        Dispatch("odd_even_sort_even", grid=grid),
    )
    return one * ceil_div(n, 2)


LEARN_WGPU_SORT = Wild(
    KernelSpec(
        id="wild_r56_learn_wgpu_odd_even_sort",
        entry_point="odd_even_sort_odd",
        sources={"wgsl": _LEARN_WGPU_SORT},
        buffers=(BufferSpec(0, "u32", "read_write", name="data", inout=True),),
        reference=lambda data: np.sort(data),
        launches=_sort_passes,
        schedules=(Schedule(64),),
        # odd, so the last element is in no even pair; 62 dispatches (CI time)
        test_sizes=(61,),
    ),
    {
        "odd pass on the even pairs": (
            "wgsl",
            "let a = pair_index * 2u + 1u;",
            "let a = pair_index * 2u;",
        ),
        "odd pass swap keeps one value twice": (
            "wgsl",
            "        data[a] = data[b];\n        data[b] = held;\n    }\n}\n",
            "        data[a] = data[b];\n        data[b] = data[a];\n    }\n}\n",
        ),
        "odd pass leaves its last pair": (
            "wgsl",
            "if a < num_items && b < num_items && data[a] > data[b]",
            "if a < num_items && b + 1u < num_items && data[a] > data[b]",
        ),
        "odd pass sorts descending": (
            "wgsl",
            "b < num_items && data[a] > data[b]",
            "b < num_items && data[a] < data[b]",
        ),
    },
)

# -- 5. "Your first WebGPU app": the Game of Life step --------------------------------

_CODELAB_LIFE = """// One Game of Life step on a torus; grid holds (columns, rows) as floats.
@group(0) @binding(0) var<uniform> grid: vec2f;

@group(0) @binding(1) var<storage> cellStateIn: array<u32>;
@group(0) @binding(2) var<storage, read_write> cellStateOut: array<u32>;

// wraps by the u32 remainder: 0u - 1u lands on the last column only where the grid's
// side divides 2^32
fn cellIndex(cell: vec2u) -> u32 {
  return (cell.y % u32(grid.y)) * u32(grid.x) +
         (cell.x % u32(grid.x));
}

fn cellActive(x: u32, y: u32) -> u32 {
  return cellStateIn[cellIndex(vec2(x, y))];
}

@compute @workgroup_size(${WORKGROUP_SIZE}, ${WORKGROUP_SIZE})
fn computeMain(@builtin(global_invocation_id) cell: vec3u) {
  let around = cellActive(cell.x+1, cell.y+1) +
               cellActive(cell.x+1, cell.y) +
               cellActive(cell.x+1, cell.y-1) +
               cellActive(cell.x, cell.y-1) +
               cellActive(cell.x-1, cell.y-1) +
               cellActive(cell.x-1, cell.y) +
               cellActive(cell.x-1, cell.y+1) +
               cellActive(cell.x, cell.y+1);

  let i = cellIndex(cell.xy);
  switch around {
    case 2: { // stays as it is
      cellStateOut[i] = cellStateIn[i];
    }
    case 3: { // born, or stays alive
      cellStateOut[i] = 1;
    }
    default: { // lonely or crowded
      cellStateOut[i] = 0;
    }
  }
}
"""


def _life_grid(rng, count, size):
    return np.array([size.W, size.H], np.float32)


def _life_cells(rng, count, size):
    # as the codelab seeds it: a cell alive where Math.random() > 0.6
    return (rng.random(count) > 0.6).astype(np.uint32)


def _codelab_life_reference(grid, cellStateIn, cellStateOut):
    cells = cellStateIn.astype(np.int64)
    around = sum(
        np.roll(np.roll(cells, dy, axis=0), dx, axis=1)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )
    out = np.where(around == 3, 1, np.where(around == 2, cells, 0))
    return out.astype(np.uint32)


CODELAB_LIFE = Wild(
    KernelSpec(
        id="wild_r56_first_webgpu_app_game_of_life",
        entry_point="computeMain",
        sources={"wgsl": _CODELAB_LIFE},
        dims=("H", "W"),
        constants={"WORKGROUP_SIZE": 8},
        buffers=(
            BufferSpec(0, "f32", "read", name="grid", count=2, fill=_life_grid),
            BufferSpec(
                1,
                "u32",
                "read",
                name="cellStateIn",
                count="H*W",
                shape=("H", "W"),
                fill=_life_cells,
            ),
            BufferSpec(2, "u32", "read_write", name="cellStateOut", count="H*W", shape=("H", "W")),
        ),
        reference=_codelab_life_reference,
        # no bound in the shader: the grid's sides are multiples of 8 (the codelab's 32)
        grid=lambda s, size: (size.W // 8, size.H // 8, 1),
        schedules=(Schedule((8, 8)),),
        # powers of two, where the u32 wrap is right; not square, so the two sides'
        # roles show (the codelab's grid is 32 x 32)
        test_sizes=("H=16,W=32",),
    ),
    {
        "three neighbours keep the cell as it is": (
            "wgsl",
            "cellStateOut[i] = 1;",
            "cellStateOut[i] = cellStateIn[i];",
        ),
        "one neighbour left out": (
            "wgsl",
            "               cellActive(cell.x+1, cell.y-1) +\n",
            "",
        ),
        "rows strided by the height": (
            "wgsl",
            "(cell.y % u32(grid.y)) * u32(grid.x)",
            "(cell.y % u32(grid.y)) * u32(grid.y)",
        ),
        "columns wrapped by the height": (
            "wgsl",
            "(cell.x % u32(grid.x))",
            "(cell.x % u32(grid.y))",
        ),
    },
)

# -- 6. webgpu-image-processing's tint: a uniform struct with a vec3f after three f32s ---

_IMAGE_TINT = """// Tints an image towards a colour by an amount that runs linearly across it (dx, dy:
// the amount's change from the left edge to the right and from the top to the bottom).
struct valueStruct {
    amount: f32,
    dx: f32,
    dy: f32,
    color: vec3f
}

@group(0) @binding(0) var img_in: texture_storage_2d<rgba8unorm, read>;
@group(0) @binding(1) var img_out: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(0) var<uniform> values: valueStruct;

@compute @workgroup_size(8, 8, 1) fn tint(@builtin(global_invocation_id) id: vec3u) {
    let max_x = textureDimensions(img_in).x;
    let max_y = textureDimensions(img_in).y;
    // (lets the column and row one past the image through: their stores are dropped)
    if (id.x > max_x || id.y > max_y) {
        return;
    }

    let across = f32(id.x) / f32(max_x);
    let down = f32(id.y) / f32(max_y);
    let amount = values.amount + mix(-values.dx, values.dx, across) + mix(-values.dy, values.dy, down);

    let texel = textureLoad(img_in, id.xy);
    let tinted = texel.rgb * values.color;
    textureStore(img_out, id.xy, vec4f(mix(texel.rgb, tinted, amount), texel.a));
}
"""

_TINT = {"amount": 0.6, "dx": 0.5, "dy": -0.3}
_TINT_COLOR = np.array([0.9, 0.35, 0.6], np.float32)  # the colour picker's value (ours)


def _image_tint_reference(img_in, img_out, values):
    height, width = img_in.shape[:2]
    f32 = np.float32
    amount, dx, dy = (float(f32(values[k])) for k in ("amount", "dx", "dy"))
    across = (np.arange(width, dtype=f32) / f32(width)).astype(np.float64)
    down = (np.arange(height, dtype=f32) / f32(height)).astype(np.float64)
    # WGSL's mix(a, b, t) = a * (1 - t) + b * t
    t = (
        amount
        + (-dx * (1 - across) + dx * across)[None, :]
        + (-dy * (1 - down) + dy * down)[:, None]
    )
    rgb = img_in[..., :3].astype(np.float64)
    tinted = rgb * values["color"].astype(np.float64)
    out = rgb * (1 - t[..., None]) + tinted * t[..., None]
    return np.concatenate([out, img_in[..., 3:]], axis=-1).astype(np.float32)


IMAGE_TINT = Wild(
    KernelSpec(
        id="wild_r56_webgpu_image_processing_tint_vec3_uniform",
        entry_point="tint",
        sources={"wgsl": _IMAGE_TINT},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, access="read", name="img_in", texture="rgba8unorm", shape=("H", "W")),
            BufferSpec(
                1, access="read_write", name="img_out", texture="rgba8unorm", shape=("H", "W")
            ),
            BufferSpec.uniform(
                0,
                (
                    ("amount", "f32"),
                    ("dx", "f32"),
                    ("dy", "f32"),
                    ("color", "vec3<f32>"),
                ),
                group=1,
                name="values",
            ),
        ),
        reference=_image_tint_reference,
        defaults={**_TINT, "color": _TINT_COLOR},
        # EffectPipeline.run: ceil(width / 8) x ceil(height / 8) workgroups
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8, 1)),),
        test_sizes=("H=13,W=21",),
    ),
    {
        "gradient from the height across": (
            "wgsl",
            "f32(id.x) / f32(max_x)",
            "f32(id.x) / f32(max_y)",
        ),
        "tint mixed the wrong way round": (
            "wgsl",
            "mix(texel.rgb, tinted, amount)",
            "mix(tinted, texel.rgb, amount)",
        ),
        "alpha tinted too": (
            "wgsl",
            "vec4f(mix(texel.rgb, tinted, amount), texel.a)",
            "vec4f(mix(texel.rgb, tinted, amount), texel.a * values.color.z)",
        ),
        "vertical change signed the other way": (
            "wgsl",
            "mix(-values.dy, values.dy, down)",
            "mix(values.dy, -values.dy, down)",
        ),
    },
)

ROUND56: dict[str, Wild] = {
    w.kernel.id: w
    for w in (
        CHROME_MATMUL,
        NERVLAND_REDUCE4,
        FLUIDSIM_PRESSURE,
        LEARN_WGPU_SORT,
        CODELAB_LIFE,
        IMAGE_TINT,
    )
}
