"""Round 10 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL idioms of
graphics and compute code people publish, and the shader-writing habits that trip a
verifier up. Each kernel is written the way such code is written (a PCG hash turned into
floats by a bitcast under 1.0's exponent, gradient noise with its table in a ``const``
array and cells that go negative, floored integer division and modulo built from WGSL's
truncating ``/`` and ``%``, a Hilbert curve through ``ptr<function>`` helpers, a
Teschner spatial hash in wrapping i32, frustum culling that appends to an atomic counter,
reflect and refract of padded ``vec3`` arrays, quaternion rotation of mixed-field
instances under a ``mat3x3`` from a uniform, semi-Lagrangian advection on a 2-D grid with
tails in both dimensions, log-average tone mapping in three entry points sharing a
helper, a shadertoy SDF port with ``smoothstep``, ``select`` and a y that points up, a
Verlet step over struct-of-arrays with pinned particles and a substep count from the
uniform, RGB9E5 shared-exponent packing with ``frexp`` and ``ldexp``, and an int8 GEMV
through ``dot4I8Packed`` and ``pack4xI8Clamp``), with a numpy reference written the
natural way and mutants that each hold one plausible bug.

The kernels are the project's own, written for this corpus in the manner of such code
(none copies a file, and they stay as written), but for three that followed published
text closely and were rewritten on 2026-12-06, read, not copied (the project's rule for
public code). What is theirs is kept: the entry points (``white_noise``, ``d2xy`` and
``xy2d``, ``main_image``), the bindings and uniforms, the workgroup sizes, the
algorithms and their numerics (the PCG constants, shift counts and xorshifts; the
quadrant digit ``(3 * rx) ^ ry`` and the fold of the sub-curve through ``ptr<function>``
parameters with its loops, coarsest and finest level first; the box distance
``length(max(d, 0)) + min(max(d.x, d.y), 0)`` and the quadratic smooth minimum
``mix(b, a, h) - k h (1 - h)``). What is ours: the comments, the helpers' and locals'
names, the order of equivalent statements, the quadrant fold's early return and the
formatting.

- The PCG hash of Jarzynski and Olano ("Hash Functions for GPU Rendering", JCGT 9(3),
  2020) as Nathan Reed's blog post of the same name writes it in GLSL
  (https://www.reedbeta.com/blog/hash-functions-for-gpu-rendering/, no licence stated:
  the algorithm and its constants kept, not the text).
- The Hilbert curve's ``d2xy``, ``xy2d`` and ``rot`` in C from Wikipedia's "Hilbert
  curve" article (CC BY-SA 4.0; its algorithm kept, not its code or comments).
- The signed distance of a box and the polynomial smooth minimum from Inigo Quilez's
  articles (https://iquilezles.org/articles/distfunctions2d/ and
  https://iquilezles.org/articles/smin/; the formulas kept, not the text).

References that a naive port of the WGSL gets wrong, written here the right way: WGSL's
``/`` and ``%`` on i32 truncate (``np.trunc`` and ``np.fmod``, where ``//`` and ``%``
floor); WGSL's i32 multiply wraps (the hash is taken in int32 arrays, whose products wrap
too; in int64 the same code never wraps, and ``%`` of the unwrapped value is another
bucket); ``u32(i)`` of a negative i32 keeps its bits (``.view(np.uint32)``).

What they found, fixed since with a test: a ``shape`` on a buffer of vectors
(``vec2<f32>`` over an ``H x W`` image) was refused by the reference's reshape (the
lanes were not kept as a trailing axis; ``forge._reference`` and ``oracle.run``); and
the builtins a kernel calls were read from its source with the comments, so the noise
kernel's comment ``vec2(cos(a), sin(a))`` gave its output sin and cos's 2**-11
tolerance (a diagonal gradient rounded to 0.707, 1.5e-4 off, passed); calls are now
read without comments. Fixed in the kernels: a PCG reference that wrapped the frame's
product through a Python int (OverflowError), and an int8 mutant that did not type-check
(``dot4U8Packed`` returns u32).

And the rounding bound ran the reference with every numpy result moved by a float32
rounding, ``np.floor``'s too, so ``floor(x)`` = 5.0 became 4.9999997 and ``.astype(int)``
gave 4: where a reference indexes with a floored value (the noise cell here, the
advection's texel, round 6's bilinear resize and round 8's nearest resize) 3 elements in
4 were accepted anywhere between two texels, and a Perlin mutant that rounds one
diagonal gradient to 0.707 passed. Exact results (floor, min, max, clip, ...) are no
longer moved, nor a sum or product that is a float32 number; a quotient moves by WGSL's
2.5 ulp; and besides random directions per element, runs with directions by operation
(all up; by the bits of the operation's index) keep two roundings from cancelling (round
6's right bilinear resize was otherwise off by 2.7e-5 against a bound of 1.6e-5 on
lavapipe). The mutant is in the corpus.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import I32_REMAINDER, RACE_HIDDEN, Wild

# -- a PCG hash (Jarzynski and Olano 2020) as white noise over an image, two samples a pixel --
# The float comes from 23 hash bits under the exponent of 1.0, a float in [1, 2), minus 1.

_PCG = """
struct Params { frame: u32, width: u32, height: u32 }
@group(0) @binding(0) var<storage, read_write> noise: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> next_seed: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

// One LCG step, then a permutation: an xorshift by a count the top four bits pick,
// a multiply, and a last fold of the high bits into the low ones.
fn pcg_mix(seed: u32) -> u32 {
    let lcg = seed * 747796405u + 2891336453u;
    let permuted = ((lcg >> ((lcg >> 28u) + 4u)) ^ lcg) * 277803737u;
    return (permuted >> 22u) ^ permuted;
}

// 23 hash bits as the mantissa of a float in [1, 2), minus one: [0, 1)
fn to_unit(bits: u32) -> f32 {
    return bitcast<f32>((bits >> 9u) | 0x3f800000u) - 1.0;
}

@compute @workgroup_size(8, 8)
fn white_noise(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) { return; }
    let at = id.y * params.width + id.x;
    let first = pcg_mix(at ^ (params.frame * 719393u));
    let second = pcg_mix(first);
    next_seed[at] = second;
    noise[at] = vec2<f32>(to_unit(first), to_unit(second));
}
"""


def _pcg(v):
    state = v * np.uint32(747796405) + np.uint32(2891336453)
    word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
    return (word >> np.uint32(22)) ^ word


def _pcg_reference(noise, next_seed, params):
    h, w = noise.shape[:2]
    pixel = np.arange(h * w, dtype=np.uint32).reshape(h, w)
    h1 = _pcg(pixel ^ np.uint32(int(params["frame"]) * 719393 % 2**32))
    h2 = _pcg(h1)
    for k, bits in enumerate((h1, h2)):
        noise[..., k] = ((bits >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32) - 1
    next_seed[:] = h2


PCG = Wild(
    KernelSpec(
        id="wild_r10_pcg_hash_bitcast_unit_floats",
        entry_point="white_noise",
        sources={"wgsl": _PCG},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, "vec2<f32>", "read_write", name="noise", count="H*W", shape=("H", "W")),
            BufferSpec(1, "u32", "read_write", name="next_seed", count="H*W", shape=("H", "W")),
            BufferSpec.uniform(2, (("frame", "u32"), ("width", "u32"), ("height", "u32"))),
        ),
        reference=_pcg_reference,
        params=lambda s: {"width": s.W, "height": s.H},
        defaults={"frame": 6007},
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8)),),
        test_sizes=("H=37,W=29", "H=1,W=1", "H=64,W=70"),
    ),
    {
        "nine mantissa shifts too few": (
            "wgsl",
            "(bits >> 9u) | 0x3f800000u",
            "(bits >> 8u) | 0x3f800000u",
        ),
        "second sample rehashes the seed": (
            "wgsl",
            "let second = pcg_mix(first);",
            "let second = pcg_mix(at ^ params.frame);",
        ),
        "rotation of three": ("wgsl", "(lcg >> 28u) + 4u", "(lcg >> 28u) + 3u"),
    },
)

# -- 2-D gradient noise (Perlin) with its gradients in a const array, fBm over octaves -------
# Cells below zero are where a port goes wrong: vec2<i32>(p) truncates, floor does not.

_PERLIN = """
struct Params { octaves: u32, count: u32 }
@group(0) @binding(0) var<storage, read> positions: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> value: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// unit gradients at a = k * pi / 4, vec2(cos(a), sin(a)), written out
const GRADIENTS = array<vec2<f32>, 8>(
    vec2<f32>(1.0, 0.0), vec2<f32>(-1.0, 0.0), vec2<f32>(0.0, 1.0), vec2<f32>(0.0, -1.0),
    vec2<f32>(0.70710678, 0.70710678), vec2<f32>(-0.70710678, 0.70710678),
    vec2<f32>(0.70710678, -0.70710678), vec2<f32>(-0.70710678, -0.70710678),
);

fn hash_cell(c: vec2<i32>) -> u32 {
    var h = (bitcast<u32>(c.x) * 1619u) ^ (bitcast<u32>(c.y) * 31337u);
    h = (h ^ (h >> 13u)) * 1274126177u;
    return h ^ (h >> 16u);
}

fn corner(cell: vec2<i32>, offset: vec2<f32>) -> f32 {
    var table = GRADIENTS;
    return dot(table[hash_cell(cell) & 7u], offset);
}

fn fade(t: vec2<f32>) -> vec2<f32> {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn perlin(p: vec2<f32>) -> f32 {
    let i = vec2<i32>(floor(p));
    let f = fract(p);
    let n00 = corner(i, f);
    let n10 = corner(i + vec2<i32>(1, 0), f - vec2<f32>(1.0, 0.0));
    let n01 = corner(i + vec2<i32>(0, 1), f - vec2<f32>(0.0, 1.0));
    let n11 = corner(i + vec2<i32>(1, 1), f - vec2<f32>(1.0, 1.0));
    let u = fade(f);
    return mix(mix(n00, n10, u.x), mix(n01, n11, u.x), u.y);
}

@compute @workgroup_size(64)
fn fbm(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.count) { return; }
    var q = positions[i];
    var amplitude = 0.5;
    var sum = 0.0;
    for (var o = 0u; o < params.octaves; o++) {
        sum += amplitude * perlin(q);
        q *= 2.0;
        amplitude *= 0.5;
    }
    value[i] = sum;
}
"""

_GRADIENTS = np.array(
    [[1, 0], [-1, 0], [0, 1], [0, -1], [0.70710678, 0.70710678], [-0.70710678, 0.70710678]]
    + [[0.70710678, -0.70710678], [-0.70710678, -0.70710678]],
    np.float32,
)


def _hash_cells(cx, cy):
    h = (cx.view(np.uint32) * np.uint32(1619)) ^ (cy.view(np.uint32) * np.uint32(31337))
    h = (h ^ (h >> np.uint32(13))) * np.uint32(1274126177)
    return h ^ (h >> np.uint32(16))


def _perlin(p):
    cell = np.floor(p).astype(np.int32)
    f = (p - np.floor(p)).astype(np.float64)
    u = f**3 * (f * (f * 6 - 15) + 10)
    n = {}
    for dx in (0, 1):
        for dy in (0, 1):
            g = _GRADIENTS[_hash_cells(cell[:, 0] + dx, cell[:, 1] + dy) & np.uint32(7)]
            n[dx, dy] = g[:, 0] * (f[:, 0] - dx) + g[:, 1] * (f[:, 1] - dy)
    lerp = lambda a, b, t: a + (b - a) * t  # noqa: E731
    return lerp(lerp(n[0, 0], n[1, 0], u[:, 0]), lerp(n[0, 1], n[1, 1], u[:, 0]), u[:, 1])


def _fbm_reference(positions, params):
    total = np.zeros(len(positions))
    for octave in range(int(params["octaves"])):
        total += 0.5 ** (octave + 1) * _perlin(positions * np.float32(2**octave))
    return total.astype(np.float32)


PERLIN = Wild(
    KernelSpec(
        id="wild_r10_perlin_fbm_const_gradient_table",
        entry_point="fbm",
        sources={"wgsl": _PERLIN},
        buffers=(
            BufferSpec(0, "vec2<f32>", "read", name="positions"),
            BufferSpec(1, "f32", "read_write", name="value"),
            BufferSpec.uniform(2, (("octaves", "u32"), ("count", "u32"))),
        ),
        reference=_fbm_reference,
        params=lambda n: {"count": n},
        defaults={"octaves": 4},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        domain={"positions": (-6.0, 6.0)},
        nonfinite_inputs=False,
        test_sizes=(2000, 1, 64),
    ),
    {
        "cubic fade": (
            "wgsl",
            "return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);",
            "return t * t * (3.0 - 2.0 * t);",
        ),
        "axis gradients only": ("wgsl", "hash_cell(cell) & 7u", "hash_cell(cell) & 3u"),
        "a diagonal gradient rounded to 0.707": (
            "wgsl",
            "vec2<f32>(0.70710678, 0.70710678), vec2<f32>(-0.70710678, 0.70710678),",
            "vec2<f32>(0.707, 0.707), vec2<f32>(-0.70710678, 0.70710678),",
        ),
        "cell truncated toward zero": (
            "wgsl",
            "let i = vec2<i32>(floor(p));",
            "let i = vec2<i32>(p);",
        ),
    },
)

# -- floored division and modulo built from WGSL's truncating / and % (tile coordinates) -----

_DIVMOD = """
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> quot: array<vec2<i32>>;  // (a / b, floor_div)
@group(0) @binding(3) var<storage, read_write> rem: array<vec2<i32>>;   // (a % b, floor_mod)

// Python's // and %: WGSL's / and % truncate toward zero, like C's.
fn floor_div(a: i32, b: i32) -> i32 {
    let q = a / b;
    let r = a % b;
    return select(q, q - 1, r != 0 && ((r < 0) != (b < 0)));
}

fn floor_mod(a: i32, b: i32) -> i32 {
    let r = a % b;
    return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}

@compute @workgroup_size(64)
fn divmod(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&a)) { return; }
    let x = a[i];
    let y = b[i];
    quot[i] = vec2<i32>(x / y, floor_div(x, y));
    rem[i] = vec2<i32>(x % y, floor_mod(x, y));
}
"""


def _dividends(rng, count, size):
    """Small ones (exact divisions often) and the whole i32 range but its minimum (the
    contract leaves out INT_MIN / -1, which WGSL defines as INT_MIN and numpy warns on)."""
    small = rng.integers(-200, 201, count)
    large = rng.integers(-(2**31) + 1, 2**31, count)
    return np.where(rng.random(count) < 0.7, small, large).astype(np.int32)


def _divisors(rng, count, size):
    """Nonzero divisors of both signs, -1 and 1 among them, some large."""
    small = rng.integers(1, 18, count) * rng.choice([-1, 1], count)
    large = rng.integers(1, 2**31, count) * rng.choice([-1, 1], count)
    return np.where(rng.random(count) < 0.85, small, large).astype(np.int32)


def _divmod_reference(a, b):
    # WGSL's / truncates toward zero and its % takes the dividend's sign: np.trunc and
    # np.fmod (a // b and a % b floor, which is what floor_div and floor_mod compute)
    truncated = np.trunc(a.astype(np.float64) / b).astype(np.int32), np.fmod(a, b)
    return np.stack([truncated[0], a // b], axis=1), np.stack([truncated[1], a % b], axis=1)


DIVMOD = Wild(
    KernelSpec(
        id="wild_r10_i32_floor_div_mod_from_truncating",
        entry_point="divmod",
        sources={"wgsl": _DIVMOD},
        buffers=(
            BufferSpec(0, "i32", "read", name="a", fill=_dividends),
            BufferSpec(1, "i32", "read", name="b", fill=_divisors),
            BufferSpec(2, "vec2<i32>", "read_write", name="quot"),
            BufferSpec(3, "vec2<i32>", "read_write", name="rem"),
        ),
        reference=_divmod_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(3000, 1, 64),
    ),
    {
        "floor_mod tests the remainder's sign only": (
            "wgsl",
            "return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));",
            "return select(r, r + b, r < 0);",
        ),
        "floor_div steps down on exact divisions": (
            "wgsl",
            "return select(q, q - 1, r != 0 && ((r < 0) != (b < 0)));",
            "return select(q, q - 1, (a < 0) != (b < 0));",
        ),
        "quotient through f32": ("wgsl", "vec2<i32>(x / y,", "vec2<i32>(i32(f32(x) / f32(y)),"),
    },
    # seen on the H200, 2026-12-02: 861 floor quotients and 3906 remainders differ
    platform={("wgpu", "NVIDIA", "quot+rem"): I32_REMAINDER},
)


# -- a Hilbert curve both ways (Wikipedia's d2xy and xy2d), rot through ptr<function> --------

_HILBERT = """
struct Params { side: u32 }
@group(0) @binding(0) var<storage, read_write> curve: array<vec2<u32>>;  // d -> (x, y)
@group(0) @binding(1) var<storage, read_write> order: array<u32>;        // (x, y) -> d
@group(0) @binding(2) var<uniform> params: Params;

// In a lower-half quadrant (hy == 0) the sub-curve is transposed, and in the lower
// right one also mirrored through the centre of a square `side` wide.
fn orient(side: u32, px: ptr<function, u32>, py: ptr<function, u32>, hx: u32, hy: u32) {
    if (hy != 0u) { return; }
    if (hx == 1u) {
        *px = side - 1u - *px;
        *py = side - 1u - *py;
    }
    let keep = *px;
    *px = *py;
    *py = keep;
}

// index along the curve -> cell: two bits of the index per level, finest level first
@compute @workgroup_size(64)
fn d2xy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let side = params.side;
    if (gid.x >= side * side) { return; }
    var digits = gid.x;
    var cx = 0u;
    var cy = 0u;
    for (var level = 1u; level < side; level *= 2u) {
        let hx = 1u & (digits / 2u);
        let hy = 1u & (digits ^ hx);
        orient(level, &cx, &cy, hx, hy);
        cx += level * hx;
        cy += level * hy;
        digits /= 4u;
    }
    curve[gid.x] = vec2<u32>(cx, cy);
}

// cell -> index along the curve, coarsest level first
@compute @workgroup_size(64)
fn xy2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let side = params.side;
    if (gid.x >= side * side) { return; }
    var cy = gid.x / side;
    var cx = gid.x % side;
    var along = 0u;
    for (var level = side / 2u; level > 0u; level /= 2u) {
        let hx = select(0u, 1u, (cx & level) > 0u);
        let hy = select(0u, 1u, (cy & level) > 0u);
        along += level * level * ((3u * hx) ^ hy);
        orient(side, &cx, &cy, hx, hy);
    }
    order[gid.x] = along;
}
"""


def _rot(n, x, y, rx, ry):
    if ry == 0:
        if rx == 1:
            x, y = n - 1 - x, n - 1 - y
        x, y = y, x
    return x, y


def _hilbert_reference(curve, order, params):
    n = int(params["side"])
    for d in range(n * n):
        t, x, y, s = d, 0, 0, 1
        while s < n:
            rx = 1 & (t // 2)
            ry = 1 & (t ^ rx)
            x, y = _rot(s, x, y, rx, ry)
            x, y, t, s = x + s * rx, y + s * ry, t // 4, s * 2
        curve[d] = x, y
    for y0 in range(n):
        for x0 in range(n):
            x, y, dd, s = x0, y0, 0, n // 2
            while s > 0:
                rx, ry = int(x & s > 0), int(y & s > 0)
                dd += s * s * ((3 * rx) ^ ry)
                x, y = _rot(n, x, y, rx, ry)
                s //= 2
            order[y0 * n + x0] = dd


HILBERT = Wild(
    KernelSpec(
        id="wild_r10_hilbert_d2xy_xy2d_ptr_function",
        entry_point="d2xy",
        sources={"wgsl": _HILBERT},
        buffers=(
            BufferSpec(0, "vec2<u32>", "read_write", name="curve", count=lambda n: n * n),
            BufferSpec(1, "u32", "read_write", name="order", count=lambda n: n * n),
            BufferSpec.uniform(2, (("side", "u32"),)),
        ),
        reference=_hilbert_reference,
        params=lambda n: {"side": n},
        launches=(
            Dispatch("d2xy", grid=lambda s, n: (ceil_div(n * n, 64), 1, 1)),
            Dispatch("xy2d", grid=lambda s, n: (ceil_div(n * n, 64), 1, 1)),
        ),
        test_sizes=(32, 1, 2),
    ),
    {
        "quadrant not flipped": (
            "wgsl",
            "        *px = side - 1u - *px;\n        *py = side - 1u - *py;\n",
            "",
        ),
        "d2xy rotates in the whole square": (
            "wgsl",
            "orient(level, &cx, &cy, hx, hy);",
            "orient(side, &cx, &cy, hx, hy);",
        ),
        "quadrant digit added, not xored": ("wgsl", "((3u * hx) ^ hy)", "(3u * hx + hy)"),
    },
)

# -- a uniform-grid spatial hash (Teschner et al. 2003) in wrapping i32, with bucket counts ---
# The cell is floor(p / cell) with the reciprocal in the uniform (a product rounds the same
# on every backend; a quotient WGSL allows 2.5 ULP).

_SPATIAL_HASH = """
struct Params { inv_cell: f32, table_size: u32, count: u32 }
@group(0) @binding(0) var<storage, read> positions: array<vec4<f32>>;  // xyz, w = radius
@group(0) @binding(1) var<storage, read_write> cell_hash: array<u32>;
@group(0) @binding(2) var<storage, read_write> cell_count: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> params: Params;

fn hash_cell(c: vec3<i32>) -> u32 {
    let h = (c.x * 73856093) ^ (c.y * 19349663) ^ (c.z * 83492791);
    return u32(h) % params.table_size;
}

@compute @workgroup_size(128)
fn insert(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.count) { return; }
    let cell = vec3<i32>(floor(positions[i].xyz * params.inv_cell));
    let h = hash_cell(cell);
    cell_hash[i] = h;
    atomicAdd(&cell_count[h], 1u);
}
"""


def _spatial_hash_reference(positions, cell_hash, cell_count, params):
    cell = np.floor(positions[:, :3] * np.float32(params["inv_cell"])).astype(np.int32)
    # int32 products wrap like WGSL's i32 (in int64 they would not, and % would differ)
    h = (cell[:, 0] * 73856093) ^ (cell[:, 1] * 19349663) ^ (cell[:, 2] * 83492791)
    cell_hash[:] = h.view(np.uint32) % np.uint32(params["table_size"])
    cell_count += np.bincount(cell_hash, minlength=len(cell_count)).astype(np.uint32)


SPATIAL_HASH = Wild(
    KernelSpec(
        id="wild_r10_spatial_hash_i32_wrap_floor_cells",
        entry_point="insert",
        sources={"wgsl": _SPATIAL_HASH},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="positions", fill=(-60.0, 60.0)),
            BufferSpec(1, "u32", "read_write", name="cell_hash"),
            BufferSpec(2, "u32", "read_write", name="cell_count", count=97, initial=0),
            BufferSpec.uniform(3, (("inv_cell", "f32"), ("table_size", "u32"), ("count", "u32"))),
        ),
        reference=_spatial_hash_reference,
        params=lambda n: {"count": n},
        defaults={"inv_cell": 0.75, "table_size": 97},
        grid=lambda s, n: (ceil_div(n, 128), 1, 1),
        test_sizes=(3000, 1, 128),
    ),
    {
        "cell truncated toward zero": (
            "wgsl",
            "vec3<i32>(floor(positions[i].xyz * params.inv_cell))",
            "vec3<i32>(positions[i].xyz * params.inv_cell)",
        ),
        "signed remainder": (
            "wgsl",
            "return u32(h) % params.table_size;",
            "return u32(h % i32(params.table_size));",
        ),
        "hash of the absolute value": (
            "wgsl",
            "return u32(h) % params.table_size;",
            "return u32(abs(h)) % params.table_size;",
        ),
    },
    # its signed remainder of a negative hash is the unsigned one there: the mutant is
    # the original on that driver (H200, 2026-12-02)
    invisible_on={("signed remainder", "wgsl", "NVIDIA"): I32_REMAINDER},
)

# -- frustum culling of bounding spheres, visible instances appended through an atomic -------
# The order of ``visible`` is whatever order the invocations reach the atomic: unordered.

_CULL = """
struct Frustum { planes: array<vec4<f32>, 6>, count: u32 }
struct Instance { center: vec3<f32>, radius: f32 }
@group(0) @binding(0) var<storage, read> instances: array<Instance>;
@group(0) @binding(1) var<storage, read_write> draw_count: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> visible: array<u32>;
@group(0) @binding(3) var<uniform> frustum: Frustum;

@compute @workgroup_size(64)
fn cull(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= frustum.count) { return; }
    let inst = instances[i];
    for (var p = 0u; p < 6u; p++) {
        let plane = frustum.planes[p];
        if (dot(plane.xyz, inst.center) + plane.w < -inst.radius) { return; }
    }
    let slot = atomicAdd(&draw_count, 1u);
    visible[slot] = i;
}
"""


def _frustum_planes():
    """A symmetric perspective frustum looking down -z (near 0.5, far 20), as
    normalised (n, d) with n . p + d >= 0 inside."""
    s = 1 / np.sqrt(2)
    planes = [(s, 0, -s, 0), (-s, 0, -s, 0), (0, s, -s, 0), (0, -s, -s, 0)]
    planes += [(0, 0, -1, -0.5), (0, 0, 1, 20)]
    return np.array(planes, np.float32)


def _instances(rng, count, size):
    out = np.zeros(count, [("center", np.float32, (3,)), ("radius", np.float32)])
    out["center"] = rng.uniform(-15, 15, (count, 3)) + np.array([0, 0, -8])
    out["radius"] = rng.uniform(0.1, 3.0, count)
    return out


def _cull_reference(instances, frustum):
    planes = frustum["planes"].astype(np.float64)
    dist = instances["center"] @ planes[:, :3].T + planes[:, 3]
    keep = np.all(dist >= -instances["radius"][:, None], axis=1)
    visible = np.full(len(instances), 0xFFFFFFFF, np.uint32)
    visible[: keep.sum()] = np.flatnonzero(keep)
    return np.array([keep.sum()], np.uint32), visible


CULL = Wild(
    KernelSpec(
        id="wild_r10_frustum_cull_sphere_atomic_append",
        entry_point="cull",
        sources={"wgsl": _CULL},
        buffers=(
            BufferSpec(
                0,
                (("center", "vec3<f32>"), ("radius", "f32")),
                "read",
                name="instances",
                fill=_instances,
            ),
            BufferSpec(1, "u32", "read_write", name="draw_count", count=1, initial=0),
            BufferSpec(2, "u32", "read_write", name="visible", initial=0xFFFFFFFF, unordered=True),
            BufferSpec.uniform(
                3, (("planes", "array<vec4<f32>, 6>"), ("count", "u32")), name="frustum"
            ),
        ),
        reference=_cull_reference,
        params=lambda n: {"count": n},
        defaults={"planes": _frustum_planes()},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(2000, 1, 64),
    ),
    {
        "culls spheres that straddle a plane": (
            "wgsl",
            "+ plane.w < -inst.radius",
            "+ plane.w < inst.radius",
        ),
        "far plane never tested": ("wgsl", "p < 6u; p++", "p < 5u; p++"),
        "slot written one past": ("wgsl", "visible[slot] = i;", "visible[slot + 1u] = i;"),
    },
)

# -- reflect and refract of rays off surfaces, vec3 arrays with their 16-byte stride ---------

_BOUNCE = """
struct Params { eta: f32, count: u32 }
@group(0) @binding(0) var<storage, read> dirs: array<vec3<f32>>;
@group(0) @binding(1) var<storage, read> normals: array<vec3<f32>>;
@group(0) @binding(2) var<storage, read_write> reflected: array<vec3<f32>>;
@group(0) @binding(3) var<storage, read_write> refracted: array<vec3<f32>>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(64)
fn bounce(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.count) { return; }
    let d = normalize(dirs[i]);
    var n = normalize(normals[i]);
    if (dot(d, n) > 0.0) { n = -n; }  // face the incoming ray
    reflected[i] = reflect(d, n);
    refracted[i] = refract(d, n, params.eta);  // zero on total internal reflection
}
"""


def _rays(rng, count, size):
    v = rng.normal(size=(count, 3))
    return (v * rng.uniform(0.5, 2.0, (count, 1)) / np.linalg.norm(v, axis=1)[:, None]).astype(
        np.float32
    )


def _bounce_reference(dirs, normals, params):
    d = dirs / np.linalg.norm(dirs.astype(np.float64), axis=1, keepdims=True)
    n = normals / np.linalg.norm(normals.astype(np.float64), axis=1, keepdims=True)
    cos_i = np.einsum("ij,ij->i", d, n)
    n = np.where(cos_i[:, None] > 0, -n, n)
    cos_i = np.abs(cos_i)[:, None] * -1  # dot(d, n) after the flip
    reflected = d - 2 * cos_i * n
    eta = float(params["eta"])
    k = 1 - eta**2 * (1 - cos_i**2)
    refracted = np.where(k < 0, 0.0, eta * d - (eta * cos_i + np.sqrt(np.maximum(k, 0))) * n)
    return reflected.astype(np.float32), refracted.astype(np.float32)


BOUNCE = Wild(
    KernelSpec(
        id="wild_r10_reflect_refract_padded_vec3",
        entry_point="bounce",
        sources={"wgsl": _BOUNCE},
        buffers=(
            BufferSpec(0, "vec3<f32>", "read", name="dirs", fill=_rays),
            BufferSpec(1, "vec3<f32>", "read", name="normals", fill=_rays),
            BufferSpec(2, "vec3<f32>", "read_write", name="reflected"),
            BufferSpec(3, "vec3<f32>", "read_write", name="refracted"),
            BufferSpec.uniform(4, (("eta", "f32"), ("count", "u32"))),
        ),
        reference=_bounce_reference,
        params=lambda n: {"count": n},
        defaults={"eta": 1.5},  # leaving glass: total internal reflection past 41.8 degrees
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(2000, 1, 64),
    ),
    {
        "eta inverted": ("wgsl", "refract(d, n, params.eta)", "refract(d, n, 1.0 / params.eta)"),
        "normal not turned to the ray": ("wgsl", "    if (dot(d, n) > 0.0) { n = -n; }", ""),
        "reflects off the unnormalised normal": (
            "wgsl",
            "reflect(d, n)",
            "reflect(d, normals[i])",
        ),
    },
)


# -- instances rotated by a quaternion into view space; a mat3x3 in the uniform --------------
# Array of structs with mixed fields (a vec3 then a u32 in its padding, a vec4, a vec2, a
# u32 flag word); the uniform's mat3x3 has 16-byte columns.

_INSTANCES = """
struct Instance {
    position: vec3<f32>,
    id: u32,
    rotation: vec4<f32>,  // unit quaternion (x, y, z, w)
    scale: vec2<f32>,     // (xy, z)
    flags: u32,
}
struct Camera { view: mat3x3<f32>, eye: vec3<f32>, count: u32 }
@group(0) @binding(0) var<storage, read> instances: array<Instance>;
@group(0) @binding(1) var<storage, read_write> view_pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> pick_id: array<u32>;
@group(0) @binding(3) var<uniform> camera: Camera;

const HIDDEN: u32 = 4u;
const CORNER = vec3<f32>(1.0, 0.5, -0.25);

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

@compute @workgroup_size(64)
fn to_view(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= camera.count) { return; }
    let inst = instances[i];
    let local = CORNER * vec3<f32>(inst.scale.x, inst.scale.x, inst.scale.y);
    let world = quat_rotate(inst.rotation, local) + inst.position;
    view_pos[i] = vec4<f32>(camera.view * (world - camera.eye), 1.0);
    pick_id[i] = select(inst.id, 0xffffffffu, (inst.flags & HIDDEN) != 0u);
}
"""

_INSTANCE_TYPE = (
    ("position", "vec3<f32>"),
    ("id", "u32"),
    ("rotation", "vec4<f32>"),
    ("scale", "vec2<f32>"),
    ("flags", "u32"),
)


def _instance_records(rng, count, size):
    out = np.zeros(
        count,
        [
            ("position", np.float32, (3,)),
            ("id", np.uint32),
            ("rotation", np.float32, (4,)),
            ("scale", np.float32, (2,)),
            ("flags", np.uint32),
        ],
    )
    out["position"] = rng.uniform(-20, 20, (count, 3))
    out["id"] = rng.integers(0, 2**31, count)
    q = rng.normal(size=(count, 4))
    out["rotation"] = q / np.linalg.norm(q, axis=1, keepdims=True)
    out["scale"] = rng.uniform(0.25, 4.0, (count, 2))
    out["flags"] = rng.integers(0, 16, count)
    return out


def _view_matrix():
    yaw, pitch = np.radians(30.0), np.radians(-20.0)
    ry = np.array([[np.cos(yaw), 0, -np.sin(yaw)], [0, 1, 0], [np.sin(yaw), 0, np.cos(yaw)]])
    rx = np.array(
        [[1, 0, 0], [0, np.cos(pitch), np.sin(pitch)], [0, -np.sin(pitch), np.cos(pitch)]]
    )
    return (rx @ ry).T.astype(np.float32)  # WGSL's columns: view[c] is column c


def _to_view_reference(instances, camera):
    q = instances["rotation"].astype(np.float64)
    corner = np.array([1.0, 0.5, -0.25])
    local = corner * instances["scale"][:, [0, 0, 1]]
    u, w = q[:, :3], q[:, 3:]
    t = 2 * np.cross(u, local)
    world = local + w * t + np.cross(u, t) + instances["position"]
    view = (world - camera["eye"]) @ camera["view"]  # M * v with M's columns as rows
    hidden = (instances["flags"] & 4) != 0
    pick = np.where(hidden, np.uint32(0xFFFFFFFF), instances["id"]).astype(np.uint32)
    return np.concatenate([view, np.ones((len(view), 1))], axis=1).astype(np.float32), pick


INSTANCES = Wild(
    KernelSpec(
        id="wild_r10_quaternion_instances_mat3x3_uniform",
        entry_point="to_view",
        sources={"wgsl": _INSTANCES},
        buffers=(
            BufferSpec(0, _INSTANCE_TYPE, "read", name="instances", fill=_instance_records),
            BufferSpec(1, "vec4<f32>", "read_write", name="view_pos"),
            BufferSpec(2, "u32", "read_write", name="pick_id"),
            BufferSpec.uniform(
                3,
                (("view", "mat3x3<f32>"), ("eye", "vec3<f32>"), ("count", "u32")),
                name="camera",
            ),
        ),
        reference=_to_view_reference,
        params=lambda n: {"count": n},
        defaults={"view": _view_matrix(), "eye": np.array([2.0, 3.0, 10.0], np.float32)},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        test_sizes=(1000, 1, 64),
    ),
    {
        "rotates by the conjugate": (
            "wgsl",
            "let t = 2.0 * cross(q.xyz, v);\n    return v + q.w * t + cross(q.xyz, t);",
            "let t = 2.0 * cross(v, q.xyz);\n    return v + q.w * t + cross(t, q.xyz);",
        ),
        "view matrix transposed": (
            "wgsl",
            "camera.view * (world - camera.eye)",
            "(world - camera.eye) * camera.view",
        ),
        "hidden flag tested on bit 0": (
            "wgsl",
            "const HIDDEN: u32 = 4u;",
            "const HIDDEN: u32 = 1u;",
        ),
    },
)

# -- semi-Lagrangian advection (Stam's stable fluids): trace back, sample bilinearly ---------
# A 2-D grid of 8x8 workgroups over an image whose sides are no multiple of 8.

_ADVECT = """
struct Params { width: u32, height: u32, dt: f32, dissipation: f32 }
@group(0) @binding(0) var<storage, read> velocity: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> source: array<f32>;
@group(0) @binding(2) var<storage, read_write> advected: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

fn fetch(x: u32, y: u32) -> f32 {
    return source[y * params.width + x];
}

fn sample_bilinear(p: vec2<f32>) -> f32 {
    let size = vec2<f32>(f32(params.width), f32(params.height));
    let q = clamp(p, vec2<f32>(0.0), size - 1.0);
    let i0 = vec2<u32>(floor(q));
    let i1 = min(i0 + 1u, vec2<u32>(params.width - 1u, params.height - 1u));
    let t = fract(q);
    let top = mix(fetch(i0.x, i0.y), fetch(i1.x, i0.y), t.x);
    let bottom = mix(fetch(i0.x, i1.y), fetch(i1.x, i1.y), t.x);
    return mix(top, bottom, t.y);
}

@compute @workgroup_size(8, 8)
fn advect(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.width || id.y >= params.height) { return; }
    let idx = id.y * params.width + id.x;
    let back = vec2<f32>(id.xy) - params.dt * velocity[idx];
    advected[idx] = params.dissipation * sample_bilinear(back);
}
"""


def _advect_reference(velocity, source, params):
    h, w = source.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dt = np.float32(params["dt"])
    bx = np.clip(xs - dt * velocity[..., 0], 0, w - 1)
    by = np.clip(ys - dt * velocity[..., 1], 0, h - 1)
    x0, y0 = np.floor(bx).astype(int), np.floor(by).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    tx, ty = (bx - x0).astype(np.float64), (by - y0).astype(np.float64)
    top = source[y0, x0] * (1 - tx) + source[y0, x1] * tx
    bottom = source[y1, x0] * (1 - tx) + source[y1, x1] * tx
    return (params["dissipation"] * (top * (1 - ty) + bottom * ty)).astype(np.float32)


ADVECT = Wild(
    KernelSpec(
        id="wild_r10_semi_lagrangian_advect_2d_tails",
        entry_point="advect",
        sources={"wgsl": _ADVECT},
        dims=("H", "W"),
        buffers=(
            BufferSpec(0, "vec2<f32>", "read", name="velocity", count="H*W", shape=("H", "W")),
            BufferSpec(1, "f32", "read", name="source", count="H*W", shape=("H", "W")),
            BufferSpec(2, "f32", "read_write", name="advected", count="H*W", shape=("H", "W")),
            BufferSpec.uniform(
                3, (("width", "u32"), ("height", "u32"), ("dt", "f32"), ("dissipation", "f32"))
            ),
        ),
        reference=_advect_reference,
        params=lambda s: {"width": s.W, "height": s.H},
        defaults={"dt": 0.7, "dissipation": 0.99},
        grid=lambda s, size: (ceil_div(size.W, 8), ceil_div(size.H, 8), 1),
        schedules=(Schedule((8, 8)),),
        domain={"velocity": (-4.0, 4.0), "source": (0.0, 1.0)},
        nonfinite_inputs=False,
        test_sizes=("H=37,W=23", "H=1,W=1", "H=40,W=67"),
    ),
    {
        "x weight used for the rows": (
            "wgsl",
            "return mix(top, bottom, t.y);",
            "return mix(top, bottom, t.x);",
        ),
        "clamped to the size, not the last texel": (
            "wgsl",
            "clamp(p, vec2<f32>(0.0), size - 1.0)",
            "clamp(p, vec2<f32>(0.0), size)",
        ),
        "traces forward": (
            "wgsl",
            "vec2<f32>(id.xy) - params.dt * velocity[idx]",
            "vec2<f32>(id.xy) + params.dt * velocity[idx]",
        ),
    },
)


# -- log-average luminance tone mapping (Reinhard et al. 2002) in three entry points ---------
# A workgroup tree reduction of log2 luminance (barriers in uniform control flow), one
# invocation that averages the partial sums, then the extended Reinhard operator; the
# luminance helper is shared by the first and the last.

_TONEMAP = """
struct Params { n: u32, key: f32, white: f32 }
@group(0) @binding(0) var<storage, read> hdr: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> partial_sums: array<f32>;
@group(0) @binding(2) var<storage, read_write> avg_luminance: array<f32>;
@group(0) @binding(3) var<storage, read_write> ldr: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> params: Params;

const WG: u32 = 256u;
const DELTA: f32 = 1e-4;  // keeps black pixels out of log2(0)
var<workgroup> shared_sum: array<f32, WG>;

fn luminance(c: vec3<f32>) -> f32 {
    return dot(c, vec3<f32>(0.2126, 0.7152, 0.0722));
}

@compute @workgroup_size(256)
fn reduce_log_luminance(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32,
                        @builtin(workgroup_id) wid: vec3<u32>) {
    var v = 0.0;
    if (gid.x < params.n) { v = log2(DELTA + luminance(hdr[gid.x].rgb)); }
    shared_sum[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) { shared_sum[lid] += shared_sum[lid + s]; }
        workgroupBarrier();
    }
    if (lid == 0u) { partial_sums[wid.x] = shared_sum[0]; }
}

@compute @workgroup_size(1)
fn average() {
    let groups = (params.n + WG - 1u) / WG;
    var total = 0.0;
    for (var g = 0u; g < groups; g++) { total += partial_sums[g]; }
    avg_luminance[0] = exp2(total / f32(params.n));
}

@compute @workgroup_size(256)
fn tonemap(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.n) { return; }
    let c = hdr[gid.x];
    let l = luminance(c.rgb);
    let scaled = params.key / avg_luminance[0] * l;
    let mapped = scaled * (1.0 + scaled / (params.white * params.white)) / (1.0 + scaled);
    ldr[gid.x] = vec4<f32>(c.rgb * (mapped / max(l, 1e-6)), c.a);
}
"""


def _hdr_pixels(rng, count, size):
    rgb = rng.exponential(0.6, (count, 3)) * rng.exponential(1.0, (count, 1))
    rgb[rng.random(count) < 0.05] = 0.0  # black pixels
    alpha = rng.random((count, 1))
    return np.concatenate([rgb, alpha], axis=1).astype(np.float32)


def _tonemap_reference(hdr, params):
    rgb = hdr[:, :3].astype(np.float64)
    lum = rgb @ np.array([0.2126, 0.7152, 0.0722])
    avg = np.exp2(np.mean(np.log2(1e-4 + lum)))
    scaled = params["key"] / avg * lum
    mapped = scaled * (1 + scaled / params["white"] ** 2) / (1 + scaled)
    ldr = np.concatenate([rgb * (mapped / np.maximum(lum, 1e-6))[:, None], hdr[:, 3:]], axis=1)
    return np.array([avg], np.float32), ldr.astype(np.float32)


_TONEMAP_PASS = lambda s, n: (ceil_div(n, 256), 1, 1)  # noqa: E731

TONEMAP = Wild(
    KernelSpec(
        id="wild_r10_log_average_reinhard_three_entries",
        entry_point="reduce_log_luminance",
        sources={"wgsl": _TONEMAP},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="hdr", fill=_hdr_pixels),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="partial_sums",
                count=lambda n: ceil_div(n, 256),
                scratch=True,
            ),
            BufferSpec(2, "f32", "read_write", name="avg_luminance", count=1),
            BufferSpec(3, "vec4<f32>", "read_write", name="ldr"),
            BufferSpec.uniform(4, (("n", "u32"), ("key", "f32"), ("white", "f32"))),
        ),
        reference=_tonemap_reference,
        params=lambda n: {"n": n},
        defaults={"key": 0.18, "white": 2.5},
        launches=(
            Dispatch("reduce_log_luminance", grid=_TONEMAP_PASS),
            Dispatch("average", grid=(1, 1, 1)),
            Dispatch("tonemap", grid=_TONEMAP_PASS),
        ),
        schedules=(Schedule(256),),
        test_sizes=(3000, 1, 256),
    ),
    {
        "tree read while written": (
            "wgsl",
            "shared_sum[lid + s]; }\n        workgroupBarrier();\n",
            "shared_sum[lid + s]; }\n",
        ),
        "last group's sum left out": ("wgsl", "g < groups; g++", "g + 1u < groups; g++"),
        "mean over the groups": (
            "wgsl",
            "exp2(total / f32(params.n))",
            "exp2(total / f32(groups))",
        ),
        "black pixels in log2(0)": ("wgsl", "log2(DELTA + luminance(", "log2(luminance("),
    },
    invisible_on={("tree read while written", "wgsl", "NVIDIA"): RACE_HIDDEN},
)

# -- a shadertoy port: SDF of a circle and a box with a smooth union, IQ's distance colours --
# Shadertoy's fragCoord has y up and its centre at + 0.5; the compute port flips the row.

_SDF = """
struct Uniforms { resolution: vec2<f32>, width: u32, height: u32 }
@group(0) @binding(0) var<storage, read_write> frag_color: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> u: Uniforms;

fn disc_distance(at: vec2<f32>, radius: f32) -> f32 {
    return length(at) - radius;
}

// outside: the distance to the nearest corner or edge; inside: minus the nearest edge's
fn rect_distance(at: vec2<f32>, half_size: vec2<f32>) -> f32 {
    let e = abs(at) - half_size;
    return length(max(e, vec2<f32>(0.0))) + min(max(e.x, e.y), 0.0);
}

// union of two distances rounded over a band `k` wide (a quadratic blend)
fn blend_min(a: f32, b: f32, k: f32) -> f32 {
    let w = clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0);
    return mix(b, a, w) - k * w * (1.0 - w);
}

@compute @workgroup_size(16, 16)
fn main_image(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= u.width || id.y >= u.height) { return; }
    let frag_coord = vec2<f32>(f32(id.x), f32(u.height - 1u - id.y)) + 0.5;
    let p = (2.0 * frag_coord - u.resolution) / u.resolution.y;
    let disc = disc_distance(p - vec2<f32>(0.3, 0.1), 0.4);
    let rect = rect_distance(p + vec2<f32>(0.35, 0.2), vec2<f32>(0.3, 0.2));
    let d = blend_min(disc, rect, 0.15);
    var col = select(vec3<f32>(0.65, 0.85, 1.0), vec3<f32>(0.9, 0.6, 0.3), d > 0.0);
    col *= 1.0 - exp(-6.0 * abs(d));
    col = mix(col, vec3<f32>(1.0), 1.0 - smoothstep(0.0, 0.02, abs(d)));
    frag_color[id.y * u.width + id.x] = vec4<f32>(col, 1.0);
}
"""


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def _sdf_reference(frag_color, u):
    h, w = frag_color.shape[:2]
    res = u["resolution"].astype(np.float64)
    y, x = np.mgrid[0:h, 0:w]
    p = np.stack([x + 0.5, (h - 1 - y) + 0.5], axis=-1)  # shadertoy's fragCoord, y up
    p = (2 * p - res) / res[1]
    circle = np.linalg.norm(p - [0.3, 0.1], axis=-1) - 0.4
    q = np.abs(p + [0.35, 0.2]) - [0.3, 0.2]
    box = np.linalg.norm(np.maximum(q, 0), axis=-1) + np.minimum(q.max(axis=-1), 0)
    k = 0.15
    hh = np.clip(0.5 + 0.5 * (box - circle) / k, 0, 1)
    d = box * (1 - hh) + circle * hh - k * hh * (1 - hh)
    col = np.where((d > 0)[..., None], [0.9, 0.6, 0.3], [0.65, 0.85, 1.0])
    col = col * (1 - np.exp(-6 * np.abs(d)))[..., None]
    edge = (1 - _smoothstep(0.0, 0.02, np.abs(d)))[..., None]
    col = col * (1 - edge) + edge
    frag_color[:] = np.concatenate([col, np.ones((h, w, 1))], axis=-1)


SDF = Wild(
    KernelSpec(
        id="wild_r10_shadertoy_sdf_smin_smoothstep",
        entry_point="main_image",
        sources={"wgsl": _SDF},
        dims=("H", "W"),
        buffers=(
            BufferSpec(
                0, "vec4<f32>", "read_write", name="frag_color", count="H*W", shape=("H", "W")
            ),
            BufferSpec.uniform(
                1, (("resolution", "vec2<f32>"), ("width", "u32"), ("height", "u32")), name="u"
            ),
        ),
        reference=_sdf_reference,
        params=lambda s: {
            "resolution": np.array([s.W, s.H], np.float32),
            "width": s.W,
            "height": s.H,
        },
        grid=lambda s, size: (ceil_div(size.W, 16), ceil_div(size.H, 16), 1),
        schedules=(Schedule((16, 16)),),
        test_sizes=("H=45,W=80", "H=1,W=1", "H=17,W=33"),
    ),
    {
        "y not flipped": (
            "wgsl",
            "vec2<f32>(f32(id.x), f32(u.height - 1u - id.y)) + 0.5",
            "vec2<f32>(f32(id.x), f32(id.y)) + 0.5",
        ),
        "aspect from the width": (
            "wgsl",
            "(2.0 * frag_coord - u.resolution) / u.resolution.y",
            "(2.0 * frag_coord - u.resolution) / u.resolution.x",
        ),
        "smooth union blends the wrong way": ("wgsl", "mix(b, a, w) - k", "mix(a, b, w) - k"),
    },
)


# -- a Verlet step over struct-of-arrays particles: pinned ones return early, substeps from --
# -- the uniform, a ground plane with friction (cloth and rope demos) ------------------------

_VERLET = """
struct SimParams {
    gravity: vec2<f32>,
    dt: f32,
    damping: f32,
    ground: f32,
    friction: f32,
    substeps: u32,
    count: u32,
}
@group(0) @binding(0) var<storage, read_write> pos_x: array<f32>;
@group(0) @binding(1) var<storage, read_write> pos_y: array<f32>;
@group(0) @binding(2) var<storage, read_write> prev: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> wind: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read> inv_mass: array<f32>;
@group(0) @binding(5) var<storage, read> flags: array<u32>;
@group(0) @binding(6) var<uniform> sim: SimParams;

const PINNED: u32 = 1u;

@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= sim.count) { return; }
    if ((flags[i] & PINNED) != 0u) { return; }
    var p = vec2<f32>(pos_x[i], pos_y[i]);
    var q = prev[i];
    let h = sim.dt / f32(sim.substeps);
    let accel = sim.gravity + wind[i] * inv_mass[i];
    for (var s = 0u; s < sim.substeps; s++) {
        let v = (p - q) * sim.damping;
        q = p;
        p = p + v + accel * (h * h);
        if (p.y < sim.ground) {
            p.y = sim.ground;
            q.x = mix(q.x, p.x, sim.friction);  // friction: damp the tangential velocity
        }
    }
    pos_x[i] = p.x;
    pos_y[i] = p.y;
    prev[i] = q;
}
"""


def _verlet_flags(rng, count, size):
    """Bit 0 pins a particle; bit 1 (sleeping, ignored here) is set at random too."""
    return ((rng.random(count) < 0.1) | ((rng.random(count) < 0.3) << 1)).astype(np.uint32)


def _prev_positions(rng, count, size):
    return rng.uniform(-0.05, 0.05, (count, 2)).astype(np.float32)  # displacement from pos


def _verlet_reference(pos_x, pos_y, prev, wind, inv_mass, flags, sim):
    free = (flags & 1) == 0
    p = np.stack([pos_x, pos_y], axis=1)[free]
    q = prev[free].copy()
    f32 = np.float32
    h = f32(sim["dt"]) / f32(sim["substeps"])
    accel = sim["gravity"] + wind[free] * inv_mass[free, None]
    for _ in range(int(sim["substeps"])):
        v = (p - q) * f32(sim["damping"])
        q = p
        p = p + v + accel * (h * h)
        low = p[:, 1] < sim["ground"]
        p[low, 1] = sim["ground"]
        q = q.copy()
        q[low, 0] = q[low, 0] + (p[low, 0] - q[low, 0]) * f32(sim["friction"])
    pos_x[free], pos_y[free], prev[free] = p[:, 0], p[:, 1], q


VERLET = Wild(
    KernelSpec(
        id="wild_r10_verlet_soa_pinned_substeps",
        entry_point="integrate",
        sources={"wgsl": _VERLET},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="pos_x", inout=True, fill=(-5.0, 5.0)),
            BufferSpec(1, "f32", "read_write", name="pos_y", inout=True, fill=(-0.5, 5.0)),
            BufferSpec(2, "vec2<f32>", "read_write", name="prev", inout=True, fill=(-5.0, 5.0)),
            BufferSpec(3, "vec2<f32>", "read", name="wind", fill=(-2.0, 2.0)),
            BufferSpec(4, "f32", "read", name="inv_mass", fill=(0.1, 2.0)),
            BufferSpec(5, "u32", "read", name="flags", fill=_verlet_flags),
            BufferSpec.uniform(
                6,
                (
                    ("gravity", "vec2<f32>"),
                    ("dt", "f32"),
                    ("damping", "f32"),
                    ("ground", "f32"),
                    ("friction", "f32"),
                    ("substeps", "u32"),
                    ("count", "u32"),
                ),
                name="sim",
            ),
        ),
        reference=_verlet_reference,
        params=lambda n: {"count": n},
        defaults={
            "gravity": np.array([0.0, -9.81], np.float32),
            "dt": 1 / 60,
            "damping": 0.99,
            "ground": 0.0,
            "friction": 0.5,
            "substeps": 4,
        },
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        nonfinite_inputs=False,
        test_sizes=(2000, 1, 64),
    ),
    {
        "pinned particles integrated": (
            "wgsl",
            "    if ((flags[i] & PINNED) != 0u) { return; }\n",
            "",
        ),
        "any flag pins": ("wgsl", "if ((flags[i] & PINNED) != 0u)", "if (flags[i] != 0u)"),
        "whole step every substep": (
            "wgsl",
            "let h = sim.dt / f32(sim.substeps);",
            "let h = sim.dt;",
        ),
        "previous position not advanced": ("wgsl", "        q = p;\n", ""),
    },
)

# -- RGB9E5 shared-exponent packing (EXT_texture_shared_exponent) with frexp and ldexp, and --
# -- its unpacking, two entry points sharing the constants -----------------------------------

_RGB9E5 = """
const N: i32 = 9;   // mantissa bits
const B: i32 = 15;  // exponent bias
const MAX_RGB9E5: f32 = 65408.0;  // (2^9 - 1) / 2^9 * 2^(31 - 15)

@group(0) @binding(0) var<storage, read> rgb: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> packed: array<u32>;
@group(0) @binding(2) var<storage, read_write> unpacked: array<vec4<f32>>;

fn pack_rgb9e5(color: vec3<f32>) -> u32 {
    let c = clamp(color, vec3<f32>(0.0), vec3<f32>(MAX_RGB9E5));
    let max_c = max(c.r, max(c.g, c.b));
    // floor(log2(max_c)) is frexp's exponent minus one, exactly
    var exp_shared = max(-B - 1, frexp(max_c).exp - 1) + 1 + B;
    var scale = ldexp(1.0, exp_shared - B - N);
    let max_m = i32(floor(max_c / scale + 0.5));
    if (max_m == (1 << u32(N))) {
        scale *= 2.0;
        exp_shared += 1;
    }
    let m = vec3<u32>(floor(c / scale + 0.5));
    return (u32(exp_shared) << 27u) | (m.b << 18u) | (m.g << 9u) | m.r;
}

fn unpack_rgb9e5(v: u32) -> vec3<f32> {
    let e = i32(v >> 27u) - B - N;
    let m = vec3<u32>(v & 0x1ffu, (v >> 9u) & 0x1ffu, (v >> 18u) & 0x1ffu);
    return ldexp(vec3<f32>(m), vec3<i32>(e));
}

@compute @workgroup_size(64)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&packed)) { return; }
    packed[gid.x] = pack_rgb9e5(rgb[gid.x].rgb);
}

@compute @workgroup_size(64)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&packed)) { return; }
    unpacked[gid.x] = vec4<f32>(unpack_rgb9e5(packed[gid.x]), 1.0);
}
"""


def _hdr_colors(rng, count, size):
    """HDR colours over many octaves, with the cases packing turns on: zeros, negatives
    (clamped), exact powers of two, values that round up to a 512 mantissa, and some
    past the format's maximum. No subnormals (their exponent is the implementation's)."""
    rgb = np.exp2(rng.uniform(-20, 17, (count, 3))) * rng.choice([1, 1, 1, -1], (count, 3))
    rgb[rng.random((count, 3)) < 0.05] = 0.0
    power = rng.random(count) < 0.1
    rgb[power, 0] = np.exp2(rng.integers(-12, 15, int(power.sum())))
    carry = rng.random(count) < 0.15
    rgb[carry, 1] = (511.5 + rng.random(int(carry.sum())) * 0.5) * np.exp2(
        rng.integers(-20, 6, int(carry.sum()))
    )
    return np.concatenate([rgb, np.ones((count, 1))], axis=1).astype(np.float32)


def _rgb9e5_reference(rgb):
    f32 = np.float32
    c = np.clip(rgb[:, :3], f32(0), f32(65408.0))
    max_c = c.max(axis=1)
    exp_shared = np.maximum(-16, np.frexp(max_c)[1] - 1) + 16
    scale = np.ldexp(f32(1), exp_shared - 24).astype(np.float32)
    max_m = np.floor(max_c / scale + f32(0.5))
    carry = max_m == 512
    scale[carry] *= 2
    exp_shared[carry] += 1
    m = np.floor(c / scale[:, None] + f32(0.5)).astype(np.uint32)
    packed = (exp_shared.astype(np.uint32) << 27) | (m[:, 2] << 18) | (m[:, 1] << 9) | m[:, 0]
    back = m * np.exp2(exp_shared - 24.0)[:, None]
    unpacked = np.concatenate([back, np.ones((len(rgb), 1))], axis=1).astype(np.float32)
    return packed, unpacked


RGB9E5 = Wild(
    KernelSpec(
        id="wild_r10_rgb9e5_frexp_ldexp_pack_unpack",
        entry_point="pack",
        sources={"wgsl": _RGB9E5},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read", name="rgb", fill=_hdr_colors),
            BufferSpec(1, "u32", "read_write", name="packed"),
            BufferSpec(2, "vec4<f32>", "read_write", name="unpacked"),
        ),
        reference=_rgb9e5_reference,
        launches=(
            Dispatch("pack", grid=lambda s, n: (ceil_div(n, 64), 1, 1)),
            Dispatch("unpack", grid=lambda s, n: (ceil_div(n, 64), 1, 1)),
        ),
        test_sizes=(3000, 1, 64),
    ),
    {
        "mantissas truncated": (
            "wgsl",
            "vec3<u32>(floor(c / scale + 0.5))",
            "vec3<u32>(floor(c / scale))",
        ),
        "no carry into the exponent": (
            "wgsl",
            "if (max_m == (1 << u32(N))) {",
            "if (false) {",
        ),
        "unpacked without the mantissa bits": (
            "wgsl",
            "let e = i32(v >> 27u) - B - N;",
            "let e = i32(v >> 27u) - B;",
        ),
    },
)

# -- an int8 GEMV through dot4I8Packed, requantised four rows to a word by pack4xI8Clamp ------

_I8_GEMV = """
struct Params { rows: u32, k_words: u32, requant_scale: f32 }
@group(0) @binding(0) var<storage, read> weights: array<u32>;  // (rows, K / 4) int8x4
@group(0) @binding(1) var<storage, read> x: array<u32>;        // K / 4 int8x4
@group(0) @binding(2) var<storage, read_write> acc: array<i32>;  // rows
@group(0) @binding(3) var<storage, read_write> y_q: array<u32>;  // rows / 4 int8x4
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(32)
fn gemv_i8(@builtin(global_invocation_id) gid: vec3<u32>) {
    let word = gid.x;
    if (4u * word >= params.rows) { return; }
    var sums = vec4<i32>(0);
    for (var k = 0u; k < params.k_words; k++) {
        let xk = x[k];
        for (var r = 0u; r < 4u; r++) {
            sums[r] += dot4I8Packed(weights[(4u * word + r) * params.k_words + k], xk);
        }
    }
    for (var r = 0u; r < 4u; r++) { acc[4u * word + r] = sums[r]; }
    let q = vec4<i32>(round(vec4<f32>(sums) * params.requant_scale));
    y_q[word] = pack4xI8Clamp(q);
}
"""


def _random_words(rng, count, size):
    return rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)


def _i8_gemv_reference(weights, x, params):
    w = weights.view(np.int8).reshape(weights.shape[0], -1).astype(np.int32)
    acc = w @ x.view(np.int8).astype(np.int32)
    q = np.rint(acc.astype(np.float32) * np.float32(params["requant_scale"]))
    y_q = np.clip(q, -128, 127).astype(np.int8).view(np.uint32)
    return acc.astype(np.int32), y_q


I8_GEMV = Wild(
    KernelSpec(
        id="wild_r10_dot4i8packed_gemv_pack4xi8clamp",
        entry_point="gemv_i8",
        sources={"wgsl": _I8_GEMV},
        dims=("R", "K"),
        buffers=(
            BufferSpec(
                0,
                "u32",
                "read",
                name="weights",
                count="R*K//4",
                shape=("R", "K//4"),
                fill=_random_words,
            ),
            BufferSpec(1, "u32", "read", name="x", count="K//4", fill=_random_words),
            BufferSpec(2, "i32", "read_write", name="acc", count="R"),
            BufferSpec(3, "u32", "read_write", name="y_q", count="R//4"),
            BufferSpec.uniform(4, (("rows", "u32"), ("k_words", "u32"), ("requant_scale", "f32"))),
        ),
        reference=_i8_gemv_reference,
        params=lambda s: {"rows": s.R, "k_words": s.K // 4},
        defaults={"requant_scale": 1 / 1000},
        grid=lambda s, size: (ceil_div(size.R // 4, 32), 1, 1),
        test_sizes=("R=160,K=256", "R=4,K=4", "R=32,K=64"),
    ),
    {
        "unsigned dot": (
            "wgsl",
            "dot4I8Packed(weights[(4u * word + r) * params.k_words + k], xk)",
            "i32(dot4U8Packed(weights[(4u * word + r) * params.k_words + k], xk))",
        ),
        "wrapping pack": ("wgsl", "pack4xI8Clamp(q)", "pack4xI8(q)"),
        "truncated requantisation": ("wgsl", "vec4<i32>(round(", "vec4<i32>(trunc("),
    },
)

ROUND10 = {
    w.kernel.id: w
    for w in (
        PCG,
        PERLIN,
        DIVMOD,
        HILBERT,
        SPATIAL_HASH,
        CULL,
        BOUNCE,
        INSTANCES,
        ADVECT,
        TONEMAP,
        SDF,
        VERLET,
        RGB9E5,
        I8_GEMV,
    )
}
