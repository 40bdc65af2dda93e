"""Round 32 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
from web graphics and simulation projects, taken as their projects write it.

- Brush's ``project_visible.wgsl`` (ArthurBrussee/brush at 5db441ed, the last all-f32
  WGSL version before the port to CubeCL): a 3-D Gaussian's covariance from its
  normalised quaternion and exp(log scale), projected with the perspective Jacobian
  (its x/z and y/z clamped to 15 % past the image), 0.3 px of blur, the conic its 2x2
  inverse, and the colour from real spherical harmonics of degree 0 to 4 (Sloan's
  evaluation) at the view direction; the helpers that naga_oil's ``#import helpers;``
  composes are inlined, the ``uniforms`` a storage struct as Brush binds it.
- Vello's ``pathtag_reduce.wgsl`` and ``pathtag_scan.wgsl`` (linebender/vello at 3fabef93,
  the "small" scan): bit-packed path tags, four a word, reduced to a five-field monoid
  by ``countOneBits`` tricks, a workgroup tree of 256 and an exclusive scan, two
  launches; the full 22-field ``Config`` uniform.
- rend3's GPU skinning (``rend3-routine/shaders/src/skinning.wgsl``): four joints a
  vertex, u16 joint indices unpacked from u32 pairs, tightly packed ``Vec3`` structs,
  normals by the joint's 3x3 over its squared column lengths, the skinned copy written
  in place to the skeleton's range of the buffers the mesh's range is read from.
- toji's webgpu-clustered-shading ``ClusterBoundsSource``: each of 32 x 18 x 48
  clusters' view-space AABB from its screen tile unprojected through the inverse
  projection and exponential depth slices (``pow``), the canvas size as the problem size.
- WebGPU-Ocean's MLS-MPM grid-to-particle step (``mls-mpm/g2p.wgsl``): quadratic
  B-spline weights over 27 cells, 1e7 fixed-point cell velocities, the APIC matrix,
  a clamp to the box and a wall spring; ``override`` constants ``dt`` and
  ``fixed_point_multiplier`` without defaults, as mls-mpm.ts sets them.

What they showed (lavapipe and SwiftShader, this round; not run on a GPU):

- A crash, fixed: a buffer whose element is a matrix (``array<mat4x4<f32>>``, rend3's
  joint matrices, as Bevy and others bind model transforms) could not be evaluated at
  all. Drawn (no fill) or as an output, ``oracle.evaluate`` raised a bare ValueError
  ("cannot reshape array of size 1600 into shape (100,4)"); with a fill, any array was
  refused with a suggestion that could not help ("an array of float32 for a buffer of
  ('<f4', (4,)) lanes (mat4x4<f32>) (convert it explicitly, e.g. .astype(np.void128))");
  ``array<vec4<f32>, 4>`` the same. numpy keeps a sub-array of sub-arrays nested, and
  the logical dtype of a matrix was one: it is now one scalar sub-array, (4, 4) for a
  mat4x4 (``forge.layout``). A matrix inside a struct (g2p's ``Particle.C``) worked.
- A gap, closed: a module that binds two ``var<uniform>`` variables could not be run. A
  KernelSpec has one uniform block, and a ``read`` BufferSpec where the WGSL declares
  ``var<uniform>`` was bound as storage, so the pipeline was refused (ERROR: "Storage
  class Storage { access: StorageAccess(LOAD) } doesn't match the shader Uniform"),
  though for ``read_write`` the access the shader declares won. It now wins for
  ``var<uniform>`` too. WebGPU-Ocean's g2p binds two (``real_box_size``,
  ``init_box_size``, each a bare ``vec3f``); tile-based 3DGS ports bind six.
- Vello's two modules had to become one (entry points renamed, ``reduced`` declared
  once read_write where the scan's module reads it): a ``Dispatch`` names an entry
  point, not a source of its own.
- Every original passed on reference and wgpu at seeds 0 to 4 and on the browser at 0
  and 1 with the default tolerance (Brush's conic and mean up to 700 ulp, a few
  elements accepted within the carried rounding bound; g2p's C near zero by the
  absolute tolerance), and every mutant failed on both adapters.
- Two mutants tried first were no test of the oracle: toji's perspective divide
  dropped is no bug (each tile corner only gives a ray through the eye, which
  ``lineIntersectionToZPlane`` scales to the slice), and the barrier dropped in Vello's
  scan loop passed on lavapipe and SwiftShader alike: the Hillis-Steele scan reads
  ``lx - 2^i``, and both adapters run a workgroup's invocations in ascending order
  between barriers, so a read below is never stale there. The reduce's barrier,
  whose tree reads ``lx + 2^i``, fails on both.
"""

# ruff: noqa: E501  (the WGSL keeps its projects' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- Brush: project_visible.wgsl, a Gaussian splat projected to 2-D with its SH colour ---------
# ArthurBrussee/brush at 5db441ed (2026-03-30, the last WGSL version with an all-f32
# ProjectedSplat), crates/brush-render/src/shaders/project_visible.wgsl with the helpers
# it calls from helpers.wgsl inlined (naga_oil's ``#import helpers;`` composes them, the
# ``helpers::`` prefix dropped) and ``#ifdef MIP_SPLATTING`` resolved to its ``#else``.

_BRUSH_PROJECT_VISIBLE = """
// ---- helpers.wgsl (the part project_visible calls) ----
// Compute linear workgroup ID from 2D dispatch
fn get_workgroup_id(wid: vec3u, num_wgs: vec3u) -> u32 {
    return wid.x + wid.y * num_wgs.x;
}

// Compute linear global invocation ID from 2D dispatch
fn get_global_id(wid: vec3u, num_wgs: vec3u, lid: u32, wg_size: u32) -> u32 {
    return get_workgroup_id(wid, num_wgs) * wg_size + lid;
}

// Uniforms for projection passes.
struct ProjectUniforms {
    // View matrix transform world to view position.
    viewmat: mat4x4f,

    // Focal of camera (fx, fy)
    focal: vec2f,
    // Img resolution (w, h)
    img_size: vec2u,

    tile_bounds: vec2u,
    // Camera center (cx, cy).
    pixel_center: vec2f,

    // Position of camera (xyz + pad)
    camera_position: vec4f,

    // Degree of sh coefficients used.
    sh_degree: u32,

    total_splats: u32,
    num_visible: u32,

    pad_a: u32,
}

struct ProjectedSplat {
    xy_x: f32,
    xy_y: f32,
    conic_x: f32,
    conic_y: f32,
    conic_z: f32,
    color_r: f32,
    color_g: f32,
    color_b: f32,
    color_a: f32,
}

fn create_projected_splat(xy: vec2f, conic: vec3f, color: vec4f) -> ProjectedSplat {
    return ProjectedSplat(xy.x, xy.y, conic.x, conic.y, conic.z, color.r, color.g, color.b, color.a);
}

struct PackedVec3 {
    x: f32,
    y: f32,
    z: f32,
}

fn sigmoid(x: f32) -> f32 {
    return 1.0f / (1.0f + exp(-x));
}

// device helper to get 3D covariance from scale and quat parameters
fn quat_to_mat(quat: vec4f) -> mat3x3f {
    // quat to rotation matrix
    let w = quat.x;
    let x = quat.y;
    let y = quat.z;
    let z = quat.w;

    let x2 = x * x;
    let y2 = y * y;
    let z2 = z * z;
    let xy = x * y;
    let xz = x * z;
    let yz = y * z;
    let wx = w * x;
    let wy = w * y;
    let wz = w * z;

    // See https://www.songho.ca/opengl/gl_quaternion.html
    return mat3x3f(
        vec3f(
            (1.0 - 2.0 * (y2 + z2)),
            (2.0 * (xy + wz)),
            (2.0 * (xz - wy)), // 1st col
        ),
        vec3f(
            (2.0 * (xy - wz)),
            (1.0 - 2.0 * (x2 + z2)),
            (2.0 * (yz + wx)), // 2nd col
        ),
        vec3f(
            (2.0 * (xz + wy)),
            (2.0 * (yz - wx)),
            (1.0 - 2.0 * (x2 + y2)) // 3rd col
        ),
    );
}

fn scale_to_mat(scale: vec3f) -> mat3x3f {
    return mat3x3(
        vec3f(scale.x, 0.0, 0.0),
        vec3f(0.0, scale.y, 0.0),
        vec3f(0.0, 0.0, scale.z)
    );
}

fn calc_cov3d(scale: vec3f, quat: vec4f) -> mat3x3f {
    let M = quat_to_mat(quat) * scale_to_mat(scale);
    return M * transpose(M);
}

fn calc_cam_J(mean_c: vec3f, focal: vec2f, img_size: vec2u, pixel_center: vec2f) -> mat3x2f {
    let lims_pos = (1.15f * vec2f(img_size.xy) - pixel_center) / focal;
    let lims_neg = (-0.15f * vec2f(img_size.xy) - pixel_center) / focal;
    let rz = 1.0 / mean_c.z;

    // Get normalized image coords +- clipped to the frustum.
    let uv_clipped = clamp(mean_c.xy * rz, lims_neg, lims_pos);

    let duv_dxy = focal * rz;
    let J = mat3x2f(
        vec2f(duv_dxy.x, 0.0),
        vec2f(0.0, duv_dxy.y),
        -duv_dxy * uv_clipped
    );

    return J;
}

fn calc_cov2d(cov3d: mat3x3f, mean_c: vec3f, focal: vec2f, img_size: vec2u, pixel_center: vec2f, viewmat: mat4x4f) -> mat2x2f {
    let R = mat3x3f(viewmat[0].xyz, viewmat[1].xyz, viewmat[2].xyz);
    let covar_cam = R * cov3d * transpose(R);
    let J = calc_cam_J(mean_c, focal, img_size, pixel_center);
    return J * covar_cam * transpose(J);
}

const COV_BLUR: f32 = 0.3;

fn compensate_cov2d(cov2d: ptr<function, mat2x2f>) -> f32 {
    let cov_start = *cov2d;
    var cov_end = *cov2d;
    // add a constant blur along axes.
    cov_end[0][0] += COV_BLUR;
    cov_end[1][1] += COV_BLUR;

    let filter_comp = 1.0f;
    *cov2d = cov_end;
    return filter_comp;
}

fn inverse(m: mat2x2f) -> mat2x2f {
    let det = determinant(m);
    if (det <= 0.0f) {
        return mat2x2f(vec2f(0.0), vec2f(0.0));
    }
    let inv_det = 1.0f / det;
    return mat2x2f(vec2f(m[1][1] * inv_det, -m[0][1] * inv_det), vec2f(-m[0][1] * inv_det, m[0][0] * inv_det));
}

fn as_vec(packed: PackedVec3) -> vec3f {
    return vec3f(packed.x, packed.y, packed.z);
}

// ---- project_visible.wgsl ----
@group(0) @binding(0) var<storage, read> transforms: array<f32>;
@group(0) @binding(1) var<storage, read> coeffs: array<PackedVec3>;
@group(0) @binding(2) var<storage, read> raw_opacities: array<f32>;
@group(0) @binding(3) var<storage, read> global_from_compact_gid: array<u32>;
@group(0) @binding(4) var<storage, read_write> projected: array<ProjectedSplat>;
@group(0) @binding(5) var<storage, read> uniforms: ProjectUniforms;

struct ShCoeffs {
    b0_c0: vec3f,

    b1_c0: vec3f,
    b1_c1: vec3f,
    b1_c2: vec3f,

    b2_c0: vec3f,
    b2_c1: vec3f,
    b2_c2: vec3f,
    b2_c3: vec3f,
    b2_c4: vec3f,

    b3_c0: vec3f,
    b3_c1: vec3f,
    b3_c2: vec3f,
    b3_c3: vec3f,
    b3_c4: vec3f,
    b3_c5: vec3f,
    b3_c6: vec3f,

    b4_c0: vec3f,
    b4_c1: vec3f,
    b4_c2: vec3f,
    b4_c3: vec3f,
    b4_c4: vec3f,
    b4_c5: vec3f,
    b4_c6: vec3f,
    b4_c7: vec3f,
    b4_c8: vec3f,
}

const SH_C0: f32 = 0.2820947917738781f;

// Evaluate spherical harmonics bases at unit direction for high orders using approach described by
// Efficient Spherical Harmonic Evaluation, Peter-Pike Sloan, JCGT 2013
// See https://jcgt.org/published/0002/02/06/ for reference implementation
fn sh_coeffs_to_color(
    degree: u32,
    viewdir: vec3f,
    sh: ShCoeffs,
) -> vec3f {
    var colors = SH_C0 * sh.b0_c0;

    if (degree == 0) {
        return colors;
    }

    let x = viewdir.x;
    let y = viewdir.y;
    let z = viewdir.z;

    let fTmp0A = 0.48860251190292f;
    colors += fTmp0A *
                    (-y * sh.b1_c0 +
                    z * sh.b1_c1 -
                    x * sh.b1_c2);

    if (degree == 1) {
        return colors;
    }
    let z2 = z * z;

    let fTmp0B = -1.092548430592079f * z;
    let fTmp1A = 0.5462742152960395f;
    let fC1 = x * x - y * y;
    let fS1 = 2.f * x * y;
    let pSH6 = (0.9461746957575601f * z2 - 0.3153915652525201f);
    let pSH7 = fTmp0B * x;
    let pSH5 = fTmp0B * y;
    let pSH8 = fTmp1A * fC1;
    let pSH4 = fTmp1A * fS1;

    colors +=
        pSH4 * sh.b2_c0 +
        pSH5 * sh.b2_c1 +
        pSH6 * sh.b2_c2 +
        pSH7 * sh.b2_c3 +
        pSH8 * sh.b2_c4;

    if (degree == 2) {
        return colors;
    }

    let fTmp0C = -2.285228997322329f * z2 + 0.4570457994644658f;
    let fTmp1B = 1.445305721320277f * z;
    let fTmp2A = -0.5900435899266435f;
    let fC2 = x * fC1 - y * fS1;
    let fS2 = x * fS1 + y * fC1;
    let pSH12 = z * (1.865881662950577f * z2 - 1.119528997770346f);
    let pSH13 = fTmp0C * x;
    let pSH11 = fTmp0C * y;
    let pSH14 = fTmp1B * fC1;
    let pSH10 = fTmp1B * fS1;
    let pSH15 = fTmp2A * fC2;
    let pSH9  = fTmp2A * fS2;
    colors +=   pSH9  * sh.b3_c0 +
                pSH10 * sh.b3_c1 +
                pSH11 * sh.b3_c2 +
                pSH12 * sh.b3_c3 +
                pSH13 * sh.b3_c4 +
                pSH14 * sh.b3_c5 +
                pSH15 * sh.b3_c6;

    if (degree == 3) {
        return colors;
    }

    let fTmp0D = z * (-4.683325804901025f * z2 + 2.007139630671868f);
    let fTmp1C = 3.31161143515146f * z2 - 0.47308734787878f;
    let fTmp2B = -1.770130769779931f * z;
    let fTmp3A = 0.6258357354491763f;
    let fC3 = x * fC2 - y * fS2;
    let fS3 = x * fS2 + y * fC2;
    let pSH20 = (1.984313483298443f * z * pSH12 - 1.006230589874905f * pSH6);
    let pSH21 = fTmp0D * x;
    let pSH19 = fTmp0D * y;
    let pSH22 = fTmp1C * fC1;
    let pSH18 = fTmp1C * fS1;
    let pSH23 = fTmp2B * fC2;
    let pSH17 = fTmp2B * fS2;
    let pSH24 = fTmp3A * fC3;
    let pSH16 = fTmp3A * fS3;
    colors += pSH16 * sh.b4_c0 +
                pSH17 * sh.b4_c1 +
                pSH18 * sh.b4_c2 +
                pSH19 * sh.b4_c3 +
                pSH20 * sh.b4_c4 +
                pSH21 * sh.b4_c5 +
                pSH22 * sh.b4_c6 +
                pSH23 * sh.b4_c7 +
                pSH24 * sh.b4_c8;
    return colors;
}

fn num_sh_coeffs(degree: u32) -> u32 {
    return (degree + 1) * (degree + 1);
}

fn read_coeffs(base_id: ptr<function, u32>) -> vec3f {
    let ret = as_vec(coeffs[*base_id]);
    *base_id += 1u;
    return ret;
}

const WG_SIZE: u32 = 256u;

@compute
@workgroup_size(WG_SIZE, 1, 1)
fn main(
    @builtin(workgroup_id) wid: vec3u,
    @builtin(num_workgroups) num_wgs: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let compact_gid = get_global_id(wid, num_wgs, lid, WG_SIZE);

    if compact_gid >= uniforms.num_visible {
        return;
    }

    let global_gid = global_from_compact_gid[compact_gid];

    // Read transform data: means(3) + quats(4) + log_scales(3)
    let base = global_gid * 10u;
    let mean = vec3f(transforms[base], transforms[base + 1u], transforms[base + 2u]);
    let scale = exp(vec3f(transforms[base + 7u], transforms[base + 8u], transforms[base + 9u]));

    // Safe to normalize, splats with length(quat) == 0 are invisible.
    let quat = normalize(vec4f(transforms[base + 3u], transforms[base + 4u], transforms[base + 5u], transforms[base + 6u]));
    var opac = sigmoid(raw_opacities[global_gid]);

    let viewmat = uniforms.viewmat;
    let R = mat3x3f(viewmat[0].xyz, viewmat[1].xyz, viewmat[2].xyz);
    let mean_c = R * mean + viewmat[3].xyz;

    let covar = calc_cov3d(scale, quat);
    var cov2d = calc_cov2d(covar, mean_c, uniforms.focal, uniforms.img_size, uniforms.pixel_center, viewmat);
    opac *= compensate_cov2d(&cov2d);

    let conic = inverse(cov2d);

    // compute the projected mean
    let rz = 1.0 / mean_c.z;
    let mean2d = uniforms.focal * mean_c.xy * rz + uniforms.pixel_center;

    let sh_degree = uniforms.sh_degree;
    let num_coeffs = num_sh_coeffs(sh_degree);
    var base_id = u32(global_gid) * num_coeffs;

    var sh = ShCoeffs();
    sh.b0_c0 = read_coeffs(&base_id);

    if sh_degree >= 1 {
        sh.b1_c0 = read_coeffs(&base_id);
        sh.b1_c1 = read_coeffs(&base_id);
        sh.b1_c2 = read_coeffs(&base_id);

        if sh_degree >= 2 {
            sh.b2_c0 = read_coeffs(&base_id);
            sh.b2_c1 = read_coeffs(&base_id);
            sh.b2_c2 = read_coeffs(&base_id);
            sh.b2_c3 = read_coeffs(&base_id);
            sh.b2_c4 = read_coeffs(&base_id);

            if sh_degree >= 3 {
                sh.b3_c0 = read_coeffs(&base_id);
                sh.b3_c1 = read_coeffs(&base_id);
                sh.b3_c2 = read_coeffs(&base_id);
                sh.b3_c3 = read_coeffs(&base_id);
                sh.b3_c4 = read_coeffs(&base_id);
                sh.b3_c5 = read_coeffs(&base_id);
                sh.b3_c6 = read_coeffs(&base_id);

                if sh_degree >= 4 {
                    sh.b4_c0 = read_coeffs(&base_id);
                    sh.b4_c1 = read_coeffs(&base_id);
                    sh.b4_c2 = read_coeffs(&base_id);
                    sh.b4_c3 = read_coeffs(&base_id);
                    sh.b4_c4 = read_coeffs(&base_id);
                    sh.b4_c5 = read_coeffs(&base_id);
                    sh.b4_c6 = read_coeffs(&base_id);
                    sh.b4_c7 = read_coeffs(&base_id);
                    sh.b4_c8 = read_coeffs(&base_id);
                }
            }
        }
    }

    // Write projected splat information.
    let viewdir = normalize(mean - uniforms.camera_position.xyz);
    var color = sh_coeffs_to_color(sh_degree, viewdir, sh) + vec3f(0.5);

    let conic_packed = vec3f(conic[0][0], conic[0][1], conic[1][1]);

    projected[compact_gid] = create_projected_splat(
        mean2d,
        conic_packed,
        vec4f(color, opac)
    );
}
"""

_PROJECT_UNIFORMS = (
    ("viewmat", "mat4x4<f32>"),
    ("focal", "vec2<f32>"),
    ("img_size", "vec2<u32>"),
    ("tile_bounds", "vec2<u32>"),
    ("pixel_center", "vec2<f32>"),
    ("camera_position", "vec4<f32>"),
    ("sh_degree", "u32"),
    ("total_splats", "u32"),
    ("num_visible", "u32"),
    ("pad_a", "u32"),
)
_PACKED_VEC3 = (("x", "f32"), ("y", "f32"), ("z", "f32"))
_PROJECTED_SPLAT = tuple(
    (name, "f32")
    for name in (
        "xy_x",
        "xy_y",
        "conic_x",
        "conic_y",
        "conic_z",
        "color_r",
        "color_g",
        "color_b",
        "color_a",
    )
)
_IMG = (640, 480)
_FOCAL = (520.0, 515.0)


def _brush_total(size) -> int:
    """Splats in the scene: the visible ones (the size's n) and some project_forward culled."""
    return size.n + size.n // 3 + 5


def _brush_camera():
    """A camera 4 units back from the origin, turned a little about y then x: the view
    matrix (world to camera, +z forward as Brush's) and the camera's world position."""
    a, b = 0.3, -0.2
    ry = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    rot = rx @ ry  # camera from world
    position = np.array([0.5, -0.3, -4.0])
    view = np.eye(4)
    view[:3, :3] = rot
    view[:3, 3] = -rot @ position
    return view, position


def _brush_uniforms(rng, count, size):
    view, position = _brush_camera()
    record = np.zeros(1, BufferSpec(0, _PROJECT_UNIFORMS, "read").dtype)
    record["viewmat"][0] = view.T.astype(np.float32)  # columns, as WGSL's mat4x4f
    record["focal"][0] = _FOCAL
    record["img_size"][0] = _IMG
    record["tile_bounds"][0] = (ceil_div(_IMG[0], 16), ceil_div(_IMG[1], 16))
    record["pixel_center"][0] = (_IMG[0] / 2, _IMG[1] / 2)
    record["camera_position"][0] = (*position, 0.0)
    record["sh_degree"] = size.deg
    record["total_splats"] = _brush_total(size)
    record["num_visible"] = size.n
    return record


def _brush_transforms(rng, count, size):
    """Means in front of the camera, some past the image's sides (where calc_cam_J
    clamps), unnormalised quaternions (w first), log scales of splats 0.01 to 0.4 wide."""
    total = _brush_total(size)
    view, _ = _brush_camera()
    depth = rng.uniform(1.5, 12.0, total)
    spread = np.stack([rng.uniform(-0.85, 0.85, total), rng.uniform(-0.7, 0.7, total)], 1)
    cam = np.concatenate([spread * depth[:, None], depth[:, None]], 1)
    world = (cam - view[:3, 3]) @ view[:3, :3]  # inverse of the rotation
    quats = rng.normal(size=(total, 4))
    log_scales = rng.uniform(-4.5, -1.0, (total, 3))
    return np.concatenate([world, quats, log_scales], 1).astype(np.float32).reshape(-1)


def _brush_coeffs(rng, count, size):
    out = np.zeros(count, BufferSpec(0, _PACKED_VEC3, "read").dtype)
    per = (size.deg + 1) ** 2
    values = rng.normal(0.0, 0.15, (count, 3))
    values[::per] = rng.normal(0.0, 1.0, (len(values[::per]), 3))  # the DC band
    for i, name in enumerate("xyz"):
        out[name] = values[:, i]
    return out


def _brush_compact(rng, count, size):
    return np.sort(rng.choice(_brush_total(size), size.n, replace=False)).astype(np.uint32)


_SH_BANDS = (
    lambda x, y, z: [np.full_like(x, 0.2820947917738781)],
    lambda x, y, z: [-0.4886025119029199 * y, 0.4886025119029199 * z, -0.4886025119029199 * x],
    lambda x, y, z: [
        1.0925484305920792 * x * y,
        -1.0925484305920792 * y * z,
        0.31539156525252005 * (2 * z * z - x * x - y * y),
        -1.0925484305920792 * x * z,
        0.5462742152960396 * (x * x - y * y),
    ],
    lambda x, y, z: [
        -0.5900435899266435 * y * (3 * x * x - y * y),
        2.890611442640554 * x * y * z,
        -0.4570457994644658 * y * (4 * z * z - x * x - y * y),
        0.3731763325901154 * z * (2 * z * z - 3 * x * x - 3 * y * y),
        -0.4570457994644658 * x * (4 * z * z - x * x - y * y),
        1.445305721320277 * z * (x * x - y * y),
        -0.5900435899266435 * x * (x * x - 3 * y * y),
    ],
    lambda x, y, z: [
        2.5033429417967046 * x * y * (x * x - y * y),
        -1.7701307697799304 * y * z * (3 * x * x - y * y),
        0.9461746957575601 * x * y * (7 * z * z - 1),
        -0.6690465435572892 * y * z * (7 * z * z - 3),
        0.10578554691520431 * (35 * z**4 - 30 * z * z + 3),
        -0.6690465435572892 * x * z * (7 * z * z - 3),
        0.47308734787878004 * (x * x - y * y) * (7 * z * z - 1),
        -1.7701307697799304 * x * z * (x * x - 3 * y * y),
        0.6258357354491761 * (x * x * (x * x - 3 * y * y) - y * y * (3 * x * x - y * y)),
    ],
)


def _brush_reference(
    transforms, coeffs, raw_opacities, global_from_compact_gid, projected, uniforms
):
    """The 3DGS forward projection as its papers state it: Sigma = R S S^T R^T from the
    normalised quaternion (w, x, y, z) and exp(log scale), the camera's W Sigma W^T, the
    Jacobian of the perspective map at the mean with x/z and y/z clamped to 15 % past the
    image, 0.3 px of blur on the diagonal, the conic its inverse; real SH of degree
    ``sh_degree`` (Condon-Shortley phase) at the view direction, plus 0.5; opacity the
    sigmoid of its logit."""
    u = uniforms[0]
    view = u["viewmat"].astype(np.float64).T  # rows
    focal = u["focal"].astype(np.float64)
    img = u["img_size"].astype(np.float64)
    center = u["pixel_center"].astype(np.float64)
    degree = int(u["sh_degree"])
    gid = global_from_compact_gid.astype(np.int64)
    t = transforms.astype(np.float64).reshape(-1, 10)[gid]
    mean, quat, log_scale = t[:, :3], t[:, 3:7], t[:, 7:]
    w, x, y, z = (quat / np.linalg.norm(quat, axis=1, keepdims=True)).T
    rot = np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        1,
    )
    m = rot * np.exp(log_scale)[:, None, :]
    sigma = m @ m.transpose(0, 2, 1)
    r = view[:3, :3]
    mean_c = mean @ r.T + view[:3, 3]
    cov_cam = r @ sigma @ r.T
    lims_pos = (1.15 * img - center) / focal
    lims_neg = (-0.15 * img - center) / focal
    uv = np.clip(mean_c[:, :2] / mean_c[:, 2:], lims_neg, lims_pos)
    jac = np.zeros((len(gid), 2, 3))
    jac[:, 0, 0] = focal[0] / mean_c[:, 2]
    jac[:, 1, 1] = focal[1] / mean_c[:, 2]
    jac[:, :, 2] = -(focal / mean_c[:, 2:]) * uv
    cov2d = jac @ cov_cam @ jac.transpose(0, 2, 1) + 0.3 * np.eye(2)
    det = cov2d[:, 0, 0] * cov2d[:, 1, 1] - cov2d[:, 0, 1] * cov2d[:, 1, 0]
    mean2d = focal * mean_c[:, :2] / mean_c[:, 2:] + center
    d = mean - u["camera_position"].astype(np.float64)[:3]
    dx, dy, dz = (d / np.linalg.norm(d, axis=1, keepdims=True)).T
    per = (degree + 1) ** 2
    sh = np.stack([coeffs[c].astype(np.float64) for c in "xyz"], 1)
    sh = sh.reshape(-1, per, 3)[gid]
    basis = [b for band in _SH_BANDS[: degree + 1] for b in band(dx, dy, dz)]
    color = sum(basis[k][:, None] * sh[:, k] for k in range(per)) + 0.5
    out = projected.copy()
    out["xy_x"], out["xy_y"] = mean2d[:, 0], mean2d[:, 1]
    out["conic_x"] = cov2d[:, 1, 1] / det
    out["conic_y"] = -cov2d[:, 0, 1] / det
    out["conic_z"] = cov2d[:, 0, 0] / det
    out["color_r"], out["color_g"], out["color_b"] = color.T
    out["color_a"] = 1.0 / (1.0 + np.exp(-raw_opacities.astype(np.float64)[gid]))
    return out


BRUSH_PROJECT_VISIBLE = Wild(
    KernelSpec(
        id="wild_r32_brush_project_visible_gaussian_conic_sh",
        entry_point="main",
        sources={"wgsl": _BRUSH_PROJECT_VISIBLE},
        dims=("n", "deg"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="transforms",
                count=lambda s: 10 * _brush_total(s),
                fill=_brush_transforms,
            ),
            BufferSpec(
                1,
                _PACKED_VEC3,
                "read",
                name="coeffs",
                count=lambda s: _brush_total(s) * (s.deg + 1) ** 2,
                fill=_brush_coeffs,
            ),
            BufferSpec(
                2, "f32", "read", name="raw_opacities", count=_brush_total, fill=(-4.0, 4.0)
            ),
            BufferSpec(
                3, "u32", "read", name="global_from_compact_gid", count="n", fill=_brush_compact
            ),
            BufferSpec(4, _PROJECTED_SPLAT, "read_write", name="projected", count="n"),
            BufferSpec(
                5, _PROJECT_UNIFORMS, "read", name="uniforms", count=1, fill=_brush_uniforms
            ),
        ),
        reference=_brush_reference,
        grid=lambda s, size: (ceil_div(size.n, 256), 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=("n=300,deg=3", "n=1,deg=0", "n=257,deg=4", "n=64,deg=1"),
    ),
    {
        # glm's (x, y, z, w) where Brush stores the real part first
        "quaternion read with its real part last": (
            "wgsl",
            "let w = quat.x;\n    let x = quat.y;\n    let y = quat.z;\n    let z = quat.w;",
            "let w = quat.w;\n    let x = quat.x;\n    let y = quat.y;\n    let z = quat.z;",
        ),
        "covariance as M^T M": ("wgsl", "return M * transpose(M);", "return transpose(M) * M;"),
        "Jacobian at the unclamped mean": (
            "wgsl",
            "let uv_clipped = clamp(mean_c.xy * rz, lims_neg, lims_pos);",
            "let uv_clipped = mean_c.xy * rz;",
        ),
        "conic's off-diagonal without its sign": (
            "wgsl",
            "vec2f(m[1][1] * inv_det, -m[0][1] * inv_det)",
            "vec2f(m[1][1] * inv_det, m[0][1] * inv_det)",
        ),
        "band 1 without the Condon-Shortley phase": ("wgsl", "(-y * sh.b1_c0 +", "(y * sh.b1_c0 +"),
        # Mip-Splatting's blur without its compensation
        "blur of 0.1 px": ("wgsl", "const COV_BLUR: f32 = 0.3;", "const COV_BLUR: f32 = 0.1;"),
    },
)

# -- Vello: pathtag_reduce.wgsl and pathtag_scan.wgsl (its "small" variant), two passes --------
# linebender/vello at 3fabef93, vello_shaders/shader: the two modules as one (kernel-forge
# takes one module a kernel: the entry points renamed from ``main``, ``reduced`` declared
# once, read_write), shared/config.wgsl's ``Config`` and shared/pathtag.wgsl's monoid
# inlined where ``#import`` puts them, ``#ifdef small`` resolved as the small scan (at most
# 256 reduce workgroups, one level) has it.

_VELLO_PATHTAG = """
// This must be kept in sync with `ConfigUniform` in `vello_encoding/src/config.rs`
struct Config {
    width_in_tiles: u32,
    height_in_tiles: u32,

    target_width: u32,
    target_height: u32,

    // The initial color applied to the pixels in a tile during the fine stage.
    // The format is packed RGBA8 in MSB order.
    base_color: u32,

    n_drawobj: u32,
    n_path: u32,
    n_clip: u32,

    // To reduce the number of bindings, info and bin data are combined
    // into one buffer.
    bin_data_start: u32,

    // offsets within scene buffer (in u32 units)
    pathtag_base: u32,
    pathdata_base: u32,

    drawtag_base: u32,
    drawdata_base: u32,

    transform_base: u32,
    style_base: u32,

    // Sizes of bump allocated buffers (in element size units)
    lines_size: u32,
    binning_size: u32,
    tiles_size: u32,
    seg_counts_size: u32,
    segments_size: u32,
    blend_size: u32,
    ptcl_size: u32,
}

struct TagMonoid {
    trans_ix: u32,
    // TODO: I don't think pathseg_ix is used.
    pathseg_ix: u32,
    pathseg_offset: u32,
    style_ix: u32,
    path_ix: u32,
}

const PATH_TAG_SEG_TYPE = 3u;
const PATH_TAG_LINETO = 1u;
const PATH_TAG_QUADTO = 2u;
const PATH_TAG_CUBICTO = 3u;
const PATH_TAG_F32 = 8u;
const PATH_TAG_TRANSFORM = 0x20u;
const PATH_TAG_PATH = 0x10u;
const PATH_TAG_STYLE = 0x40u;
const PATH_TAG_SUBPATH_END = 4u;

// Size of the `Style` data structure in words
const STYLE_SIZE_IN_WORDS: u32 = 2u;

fn tag_monoid_identity() -> TagMonoid {
    return TagMonoid();
}

fn combine_tag_monoid(a: TagMonoid, b: TagMonoid) -> TagMonoid {
    var c: TagMonoid;
    c.trans_ix = a.trans_ix + b.trans_ix;
    c.pathseg_ix = a.pathseg_ix + b.pathseg_ix;
    c.pathseg_offset = a.pathseg_offset + b.pathseg_offset;
    c.style_ix = a.style_ix + b.style_ix;
    c.path_ix = a.path_ix + b.path_ix;
    return c;
}

fn reduce_tag(tag_word: u32) -> TagMonoid {
    var c: TagMonoid;
    let point_count = tag_word & 0x3030303u;
    c.pathseg_ix = countOneBits((point_count * 7u) & 0x4040404u);
    c.trans_ix = countOneBits(tag_word & (PATH_TAG_TRANSFORM * 0x1010101u));
    let n_points = point_count + ((tag_word >> 2u) & 0x1010101u);
    var a = n_points + (n_points & (((tag_word >> 3u) & 0x1010101u) * 15u));
    a += a >> 8u;
    a += a >> 16u;
    c.pathseg_offset = a & 0xffu;
    c.path_ix = countOneBits(tag_word & (PATH_TAG_PATH * 0x1010101u));
    c.style_ix = countOneBits(tag_word & (PATH_TAG_STYLE * 0x1010101u)) * STYLE_SIZE_IN_WORDS;
    return c;
}

@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage> scene: array<u32>;

@group(0) @binding(2)
var<storage, read_write> reduced: array<TagMonoid>;

@group(0) @binding(3)
var<storage, read_write> tag_monoids: array<TagMonoid>;

const LG_WG_SIZE = 8u;
const WG_SIZE = 256u;

// ---- pathtag_reduce.wgsl ----
var<workgroup> sh_scratch: array<TagMonoid, WG_SIZE>;

@compute @workgroup_size(256)
fn pathtag_reduce(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    let ix = global_id.x;
    let tag_word = scene[config.pathtag_base + ix];
    var agg = reduce_tag(tag_word);
    sh_scratch[local_id.x] = agg;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_scratch[local_id.x + (1u << i)];
            agg = combine_tag_monoid(agg, other);
        }
        workgroupBarrier();
        sh_scratch[local_id.x] = agg;
    }
    if local_id.x == 0u {
        reduced[ix >> LG_WG_SIZE] = agg;
    }
}

// ---- pathtag_scan.wgsl, small ----
var<workgroup> sh_parent: array<TagMonoid, WG_SIZE>;
// These could be combined?
var<workgroup> sh_monoid: array<TagMonoid, WG_SIZE>;

@compute @workgroup_size(256)
fn pathtag_scan(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    var agg = tag_monoid_identity();
    if local_id.x < wg_id.x {
        agg = reduced[local_id.x];
    }
    sh_parent[local_id.x] = agg;
    for (var i = 0u; i < LG_WG_SIZE; i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_parent[local_id.x + (1u << i)];
            agg = combine_tag_monoid(agg, other);
        }
        workgroupBarrier();
        sh_parent[local_id.x] = agg;
    }

    let ix = global_id.x;
    let tag_word = scene[config.pathtag_base + ix];
    var agg_part = reduce_tag(tag_word);
    sh_monoid[local_id.x] = agg_part;
    for (var i = 0u; i < LG_WG_SIZE; i += 1u) {
        workgroupBarrier();
        if local_id.x >= 1u << i {
            let other = sh_monoid[local_id.x - (1u << i)];
            agg_part = combine_tag_monoid(other, agg_part);
        }
        workgroupBarrier();
        sh_monoid[local_id.x] = agg_part;
    }
    workgroupBarrier();
    // prefix up to this workgroup
    var tm = sh_parent[0];
    if local_id.x > 0u {
        tm = combine_tag_monoid(tm, sh_monoid[local_id.x - 1u]);
    }
    // exclusive prefix sum, granularity of 4 tag bytes
    tag_monoids[ix] = tm;
}
"""

_CONFIG = tuple(
    (name, "u32")
    for name in (
        "width_in_tiles", "height_in_tiles", "target_width", "target_height", "base_color",
        "n_drawobj", "n_path", "n_clip", "bin_data_start", "pathtag_base", "pathdata_base",
        "drawtag_base", "drawdata_base", "transform_base", "style_base", "lines_size",
        "binning_size", "tiles_size", "seg_counts_size", "segments_size", "blend_size", "ptcl_size",
    )
)  # fmt: skip
_TAG_MONOID = tuple(
    (name, "u32") for name in ("trans_ix", "pathseg_ix", "pathseg_offset", "style_ix", "path_ix")
)
_PATH_DATA_WORDS = 37  # the path data stream after the tags (read by neither pass)


def _vello_scene(rng, count, size):
    """The scene buffer as vello_encoding's resolve packs it: the path tag stream at
    word 0 (``pathtag_base``), one tag byte per segment, padded with zero bytes to a
    multiple of 4 * 256 tags, then path data. Tags: a line, quad or cubic (f32 or i16
    points), a subpath end now and then, a path, transform or style marker before some."""
    n_tags = 4 * size.n - int(rng.integers(0, 200))  # the padding at the end
    seg = rng.choice(4, n_tags, p=(0.1, 0.5, 0.2, 0.2)).astype(np.uint32)
    tags = seg | np.where(rng.random(n_tags) < 0.8, 0x8, 0)  # f32 points
    tags |= np.where((seg > 0) & (rng.random(n_tags) < 0.15), 0x4, 0)  # subpath end
    tags |= np.where(rng.random(n_tags) < 0.06, 0x10, 0)  # path
    tags |= np.where(rng.random(n_tags) < 0.04, 0x20, 0)  # transform
    tags |= np.where(rng.random(n_tags) < 0.04, 0x40, 0)  # style
    padded = np.zeros(4 * size.n, np.uint8)
    padded[:n_tags] = tags
    data = rng.integers(0, 2**32, _PATH_DATA_WORDS, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([padded.view("<u4"), data])


def _vello_params(size):
    """A 1024 x 768 target (64 x 48 tiles), the streams after the path tags; the bump
    buffer sizes vello_encoding's defaults give (none of them read by these passes)."""
    return {
        "width_in_tiles": 64, "height_in_tiles": 48, "target_width": 1024, "target_height": 768,
        "base_color": 0xFFFFFFFF, "n_drawobj": size.n // 8 + 1, "n_path": size.n // 8 + 1,
        "n_clip": 0, "bin_data_start": 0, "pathtag_base": 0, "pathdata_base": size.n,
        "drawtag_base": size.n + _PATH_DATA_WORDS, "drawdata_base": size.n + _PATH_DATA_WORDS,
        "transform_base": size.n + _PATH_DATA_WORDS, "style_base": size.n + _PATH_DATA_WORDS,
        "lines_size": 1 << 20, "binning_size": (1 << 20) - 1, "tiles_size": 1 << 18,
        "seg_counts_size": 1 << 20, "segments_size": 1 << 20, "blend_size": 1 << 16,
        "ptcl_size": 1 << 21,
    }  # fmt: skip


def _tag_monoids(words):
    """vello_shaders/src/cpu/pathtag_reduce.rs's meaning of each tag byte, counted."""
    tags = words.view(np.uint8).reshape(-1, 4).astype(np.int64)
    seg = tags & 3
    subpath_end = (tags >> 2) & 1
    f32 = (tags >> 3) & 1
    n_points = seg + subpath_end
    return np.stack(
        [
            ((tags & 0x20) != 0).sum(1),  # trans_ix
            (seg != 0).sum(1),  # pathseg_ix
            (n_points * (1 + f32)).sum(1),  # pathseg_offset: f32 points take 2 words
            ((tags & 0x40) != 0).sum(1) * 2,  # style_ix: STYLE_SIZE_IN_WORDS
            ((tags & 0x10) != 0).sum(1),  # path_ix
        ],
        1,
    )


def _vello_reference(scene, reduced, tag_monoids):
    words = scene[: len(tag_monoids)]
    monoids = _tag_monoids(words)
    per_group = monoids.reshape(-1, 256, 5).sum(1)
    exclusive = np.cumsum(monoids, 0) - monoids
    red, out = reduced.copy(), tag_monoids.copy()
    for i, (name, _) in enumerate(_TAG_MONOID):
        red[name] = per_group[:, i]
        out[name] = exclusive[:, i]
    return red, out


VELLO_PATHTAG = Wild(
    KernelSpec(
        id="wild_r32_vello_pathtag_reduce_scan_small_monoid",
        entry_point="pathtag_reduce",
        sources={"wgsl": _VELLO_PATHTAG},
        buffers=(
            BufferSpec.uniform(0, _CONFIG, name="config"),
            BufferSpec(
                1,
                "u32",
                "read",
                name="scene",
                count=lambda n: n + _PATH_DATA_WORDS,
                fill=_vello_scene,
            ),
            BufferSpec(2, _TAG_MONOID, "read_write", name="reduced", count=lambda n: n // 256),
            BufferSpec(3, _TAG_MONOID, "read_write", name="tag_monoids"),
        ),
        reference=_vello_reference,
        params=_vello_params,
        launches=(
            Dispatch("pathtag_reduce", grid=lambda s, n: (n // 256, 1, 1)),
            Dispatch("pathtag_scan", grid=lambda s, n: (n // 256, 1, 1)),
        ),
        schedules=(Schedule(256),),
        # n words of tags (4 n tags), a multiple of 256 as resolve pads them; at most
        # 256 workgroups for the small scan
        test_sizes=(256 * 37, 256, 256 * 5),
    ),
    {
        "inclusive scan where it is exclusive": (
            "wgsl",
            "tm = combine_tag_monoid(tm, sh_monoid[local_id.x - 1u]);",
            "tm = combine_tag_monoid(tm, sh_monoid[local_id.x]);",
        ),
        "parent prefix takes its own workgroup": (
            "wgsl",
            "if local_id.x < wg_id.x {",
            "if local_id.x <= wg_id.x {",
        ),
        "style index in styles, not words": (
            "wgsl",
            "countOneBits(tag_word & (PATH_TAG_STYLE * 0x1010101u)) * STYLE_SIZE_IN_WORDS;",
            "countOneBits(tag_word & (PATH_TAG_STYLE * 0x1010101u));",
        ),
        "f32 flag read from the subpath-end bit": (
            "wgsl",
            "(((tag_word >> 3u) & 0x1010101u) * 15u)",
            "(((tag_word >> 2u) & 0x1010101u) * 15u)",
        ),
        "reduce tree one level short": (
            "wgsl",
            "for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {",
            "for (var i = 1u; i < firstTrailingBit(WG_SIZE); i += 1u) {",
        ),
        # (the same barrier dropped in the scan's loop, which reads lx - 2^i, passed on
        # lavapipe and SwiftShader: both run a workgroup's invocations in ascending order
        # between barriers, so a read below is never stale there)
        "reduce reads its neighbour before the barrier": (
            "wgsl",
            "    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {\n        workgroupBarrier();\n",
            "    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {\n",
        ),
    },
)

# -- rend3: GPU skinning, four joints a vertex, in place in the mesh's vertex buffer ----------
# BVE-Reborn/rend3, rend3-routine/shaders/src/skinning.wgsl as it stands: the skinned
# copy is written to the skeleton's range of the same buffers the mesh's range is read
# from; vec3s tightly packed (``struct Vec3 { x, y, z }``), u16 joint indices unpacked
# from u32 pairs, normals and tangents by the joint's 3x3 divided by its squared column
# lengths, then normalised.

_REND3_SKINNING = """
struct Range {
    start: u32,
    end: u32,
};

/// See documentation for the same struct in skinning/mod.rs
struct GpuSkinningInput {
    mesh_range: Range,
    skeleton_range: Range,
    joints_start_idx: u32,
}

struct JointMatrices {
    matrices: array<mat4x4<f32>>,
}

/// The arrays are tightly packed and `vec3` does not have the right stride
struct Vec3 { x: f32, y: f32, z: f32, }
struct Vec3Array { data: array<Vec3>, }

struct JointWeightVec { ws: array<f32,4> }
struct JointWeightVecArray { data: array<JointWeightVec> }

/// The u16 type does not exist in shaders, so we need to unpack the u16 indices
/// from a pair of u32s
struct JointIndexVec { indices_0_1: u32, indices_2_3: u32, }
struct JointIndexVecArray { data: array<JointIndexVec> }

@group(0) @binding(0)
var<storage, read_write> positions: Vec3Array;

@group(0) @binding(1)
var<storage, read_write> normals: Vec3Array;

@group(0) @binding(2)
var<storage, read_write> tangents: Vec3Array;

@group(0) @binding(3)
var<storage, read_write> joint_indices: JointIndexVecArray;

@group(0) @binding(4)
var<storage, read_write> joint_weights: JointWeightVecArray;

@group(0) @binding(5)
var<storage> joint_matrices: JointMatrices;

@group(1) @binding(0)
var<storage> skin_in : GpuSkinningInput;

fn to_v(v: Vec3) -> vec3<f32> {
    return vec3<f32>(v.x, v.y, v.z);
}
fn from_v(v: vec3<f32>) -> Vec3 {
    var res : Vec3;
    res.x = v.x; res.y = v.y; res.z = v.z;
    return res;
}


fn get_joint_matrix(joint_idx: u32) -> mat4x4<f32> {
    return joint_matrices.matrices[skin_in.joints_start_idx + joint_idx];
}

fn get_inv_scale_squared(value: mat3x3<f32>) -> vec3<f32> {
    return vec3<f32>(
        1.0 / dot(value[0].xyz, value[0].xyz),
        1.0 / dot(value[1].xyz, value[1].xyz),
        1.0 / dot(value[2].xyz, value[2].xyz)
    );
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
    let idx = global_id.x;

    let count = skin_in.mesh_range.end - skin_in.mesh_range.start;
    if (idx >= count) {
        return;
    }

    let joint_is = joint_indices.data[skin_in.mesh_range.start + idx];


    // NOTE: This should use bitfieldExtract once it is available on dx12
    let joint_i0 = joint_is.indices_0_1 & 0x0000ffffu;
    let joint_i1 = (joint_is.indices_0_1 & 0xffff0000u) >> 16u;
    let joint_i2 = joint_is.indices_2_3 & 0x0000ffffu;
    let joint_i3 = (joint_is.indices_2_3 & 0xffff0000u) >> 16u;
    var joint_indices = array<u32,4>(joint_i0, joint_i1, joint_i2, joint_i3);

    // Compute the skinned position
    var pos_acc = vec3<f32>(0.0, 0.0, 0.0);
    var norm_acc = vec3<f32>(0.0, 0.0, 0.0);
    var tang_acc = vec3<f32>(0.0, 0.0, 0.0);

    let pos = to_v(positions.data[skin_in.mesh_range.start + idx]);
    let normal = to_v(normals.data[skin_in.mesh_range.start + idx]);
    let tangent = to_v(tangents.data[skin_in.mesh_range.start + idx]);

    for (var i = 0; i < 4; i = i + 1) {
        let weight = joint_weights.data[skin_in.mesh_range.start + idx].ws[i];

        if (weight > 0.0) {
            let joint_index = joint_indices[i];
            let joint_matrix = get_joint_matrix(joint_index);
            let joint_matrix3 = mat3x3<f32>(joint_matrix[0].xyz, joint_matrix[1].xyz, joint_matrix[2].xyz);
            pos_acc = pos_acc + ((joint_matrix * vec4<f32>(pos, 1.0)) * weight).xyz;
            let inv_scale_sq = get_inv_scale_squared(joint_matrix3);
            norm_acc = norm_acc + (joint_matrix3 * (inv_scale_sq * normal)) * weight;
            tang_acc = tang_acc + (joint_matrix3 * (inv_scale_sq * tangent)) * weight;
        }
    }

    // Write to output region of buffer
    positions.data[skin_in.skeleton_range.start + idx] = from_v(pos_acc);
    normals.data[skin_in.skeleton_range.start + idx] = from_v(normalize(norm_acc));
    tangents.data[skin_in.skeleton_range.start + idx] = from_v(normalize(tang_acc));
}
"""

_VEC3 = (("x", "f32"), ("y", "f32"), ("z", "f32"))
_RANGE = (("start", "u32"), ("end", "u32"))
_SKINNING_INPUT = (("mesh_range", _RANGE), ("skeleton_range", _RANGE), ("joints_start_idx", "u32"))
_N_JOINTS = 23
_JOINTS_START = 4  # another skeleton's joints first
_MESH_START = 7  # another mesh's vertices first


def _rend3_layout(n):
    """(mesh start, skeleton start, vertex count of the buffers): another mesh's 7
    vertices, this mesh's n, a gap of 5, then the skinned copy's n."""
    skeleton = _MESH_START + n + 5
    return _MESH_START, skeleton, skeleton + n


def _rend3_input(rng, count, size):
    mesh, skeleton, _ = _rend3_layout(int(size))
    record = np.zeros(1, BufferSpec(0, _SKINNING_INPUT, "read").dtype)
    record["mesh_range"]["start"], record["mesh_range"]["end"] = mesh, mesh + int(size)
    record["skeleton_range"]["start"] = skeleton
    record["skeleton_range"]["end"] = skeleton + int(size)
    record["joints_start_idx"] = _JOINTS_START
    return record


def _unit_vec3(rng, count, size):
    v = rng.normal(size=(count, 3))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    out = np.zeros(count, BufferSpec(0, _VEC3, "read").dtype)
    out["x"], out["y"], out["z"] = v.T
    return out


def _rend3_positions(rng, count, size):
    out = _unit_vec3(rng, count, size)
    for c in "xyz":
        out[c] *= rng.uniform(0.1, 2.0, count).astype(np.float32)
    return out


def _rend3_joint_indices(rng, count, size):
    """Four joints a vertex, as glTF's JOINTS_0 (u16) packed two a word."""
    j = rng.integers(0, _N_JOINTS, (count, 4)).astype(np.uint32)
    out = np.zeros(count, [("indices_0_1", "<u4"), ("indices_2_3", "<u4")])
    out["indices_0_1"] = j[:, 0] | (j[:, 1] << 16)
    out["indices_2_3"] = j[:, 2] | (j[:, 3] << 16)
    return out


def _rend3_joint_weights(rng, count, size):
    """glTF's WEIGHTS_0: one to four influences summing to 1, the unused ones 0."""
    k = rng.integers(1, 5, count)
    w = rng.dirichlet(np.ones(4), count) * (np.arange(4) < k[:, None])
    w /= w.sum(1, keepdims=True)
    out = np.zeros(count, [("ws", "<f4", (4,))])
    out["ws"] = w
    return out


def _rend3_joint_matrices(rng, count, size):
    """Each joint's matrix (world from bind pose) a rotation, a non-uniform scale of 0.5
    to 2 and a translation: columns of a mat4x4<f32>, 16 floats each."""
    out = np.zeros((count, 4, 4))
    for k in range(count):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        m = np.eye(4)
        m[:3, :3] = q * np.sign(np.linalg.det(q)) * rng.uniform(0.5, 2.0, 3)
        m[:3, 3] = rng.uniform(-3, 3, 3)
        out[k] = m.T  # column j is out[k, j]
    return out.astype(np.float32)


def _rend3_reference(
    positions, normals, tangents, joint_indices, joint_weights, joint_matrices, skin_in
):
    """Linear blend skinning as glTF states it: the skinned position sum_i w_i (J_i p),
    normals and tangents by sum_i w_i (M_i D_i^-2 n), M_i J_i's upper 3x3 and D_i its
    column lengths (its inverse transpose for a rotation times a scale), normalised."""
    mesh = int(skin_in["mesh_range"]["start"][0])
    end = int(skin_in["mesh_range"]["end"][0])
    skeleton = int(skin_in["skeleton_range"]["start"][0])
    rows = slice(mesh, end)
    joints = joint_matrices.astype(np.float64).reshape(-1, 4, 4).transpose(0, 2, 1)  # rows
    joints = joints[int(skin_in["joints_start_idx"][0]) :]
    packed = joint_indices[rows]
    idx = np.stack(
        [
            packed["indices_0_1"] & 0xFFFF,
            packed["indices_0_1"] >> 16,
            packed["indices_2_3"] & 0xFFFF,
            packed["indices_2_3"] >> 16,
        ],
        1,
    ).astype(np.int64)
    w = joint_weights["ws"][rows].astype(np.float64)
    m = joints[idx]  # (n, 4, 4, 4)
    m3 = m[:, :, :3, :3]
    inv_sq = 1.0 / (m3 * m3).sum(axis=2)  # 1 / |column j|^2

    def vec(a):
        return np.stack([a[c][rows].astype(np.float64) for c in "xyz"], 1)

    p = vec(positions)
    pos = (np.einsum("nkij,nj->nki", m3, p) + m[:, :, :3, 3]) * w[:, :, None]
    outs = [pos.sum(1)]
    for a in (normals, tangents):
        v = np.einsum("nkij,nkj->nki", m3, inv_sq * vec(a)[:, None, :]) * w[:, :, None]
        v = v.sum(1)
        outs.append(v / np.linalg.norm(v, axis=1, keepdims=True))
    written = []
    for buffer, value in zip((positions, normals, tangents), outs):
        out = buffer.copy()
        for i, c in enumerate("xyz"):
            out[c][skeleton : skeleton + len(value)] = value[:, i]
        written.append(out)
    return tuple(written)


def _rend3_count(n):
    return _rend3_layout(int(n))[2]


REND3_SKINNING = Wild(
    KernelSpec(
        id="wild_r32_rend3_skinning_packed_vec3_u16_joints_in_place",
        entry_point="main",
        sources={"wgsl": _REND3_SKINNING},
        buffers=(
            BufferSpec(
                0,
                _VEC3,
                "read_write",
                name="positions",
                count=_rend3_count,
                inout=True,
                fill=_rend3_positions,
            ),
            BufferSpec(
                1,
                _VEC3,
                "read_write",
                name="normals",
                count=_rend3_count,
                inout=True,
                fill=_unit_vec3,
            ),
            BufferSpec(
                2,
                _VEC3,
                "read_write",
                name="tangents",
                count=_rend3_count,
                inout=True,
                fill=_unit_vec3,
            ),
            BufferSpec(
                3,
                (("indices_0_1", "u32"), ("indices_2_3", "u32")),
                "read",
                name="joint_indices",
                count=_rend3_count,
                fill=_rend3_joint_indices,
            ),
            BufferSpec(
                4,
                (("ws", "array<f32, 4>"),),
                "read",
                name="joint_weights",
                count=_rend3_count,
                fill=_rend3_joint_weights,
            ),
            BufferSpec(
                5,
                "mat4x4<f32>",
                "read",
                name="joint_matrices",
                count=_JOINTS_START + _N_JOINTS,
                fill=_rend3_joint_matrices,
            ),
            BufferSpec(
                0, _SKINNING_INPUT, "read", group=1, name="skin_in", count=1, fill=_rend3_input
            ),
        ),
        reference=_rend3_reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=(500, 1, 64, 65),
    ),
    {
        "second joint index from the low half": (
            "wgsl",
            "let joint_i1 = (joint_is.indices_0_1 & 0xffff0000u) >> 16u;",
            "let joint_i1 = joint_is.indices_0_1 & 0x0000ffffu;",
        ),
        # rend3's first skinning shader multiplied row vectors (pos4 * M)
        "position as a row vector": (
            "wgsl",
            "((joint_matrix * vec4<f32>(pos, 1.0)) * weight)",
            "((vec4<f32>(pos, 1.0) * joint_matrix) * weight)",
        ),
        "normal not corrected for the scale": (
            "wgsl",
            "norm_acc = norm_acc + (joint_matrix3 * (inv_scale_sq * normal)) * weight;",
            "norm_acc = norm_acc + (joint_matrix3 * normal) * weight;",
        ),
        "skinned position over the bind pose": (
            "wgsl",
            "positions.data[skin_in.skeleton_range.start + idx] = from_v(pos_acc);",
            "positions.data[skin_in.mesh_range.start + idx] = from_v(pos_acc);",
        ),
        "fourth influence dropped": (
            "wgsl",
            "for (var i = 0; i < 4; i = i + 1) {",
            "for (var i = 0; i < 3; i = i + 1) {",
        ),
    },
)

# -- toji/webgpu-clustered-shading: ClusterBoundsSource, each cluster's view-space AABB --------
# js/webgpu-renderer/shaders/clustered-compute.js at 9885e27 with its templates filled as
# the page fills them (TILE_COUNT 32 x 18 x 48, WORKGROUP_SIZE 4 x 2 x 4, BIND_GROUP.Frame
# 0) and common.js's ProjectionUniforms: screen tiles unprojected through the inverse
# projection, depth slices exponential from zNear to zFar.

_CLUSTER_BOUNDS = """
  struct ProjectionUniforms {
    matrix : mat4x4<f32>,
    inverseMatrix : mat4x4<f32>,
    outputSize : vec2<f32>,
    zNear : f32,
    zFar : f32
  };
  @group(0) @binding(0) var<uniform> projection : ProjectionUniforms;

  struct ClusterBounds {
    minAABB : vec3<f32>,
    maxAABB : vec3<f32>
  };
  struct Clusters {
    bounds : array<ClusterBounds, 27648>
  };

  @group(1) @binding(0) var<storage, read_write> clusters : Clusters;

  fn lineIntersectionToZPlane(a : vec3<f32>, b : vec3<f32>, zDistance : f32) -> vec3<f32> {
    let normal = vec3<f32>(0.0, 0.0, 1.0);
    let ab = b - a;
    let t = (zDistance - dot(normal, a)) / dot(normal, ab);
    return a + t * ab;
  }

  fn clipToView(clip : vec4<f32>) -> vec4<f32> {
    let view = projection.inverseMatrix * clip;
    return view / vec4<f32>(view.w, view.w, view.w, view.w);
  }

  fn screen2View(screen : vec4<f32>) -> vec4<f32> {
    let texCoord = screen.xy / projection.outputSize.xy;
    let clip = vec4<f32>(vec2<f32>(texCoord.x, 1.0 - texCoord.y) * 2.0 - vec2<f32>(1.0, 1.0), screen.z, screen.w);
    return clipToView(clip);
  }

  const tileCount = vec3<u32>(32u, 18u, 48u);
  const eyePos = vec3<f32>(0.0);

  @compute @workgroup_size(4, 2, 4)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
    let tileIndex = global_id.x +
                    global_id.y * tileCount.x +
                    global_id.z * tileCount.x * tileCount.y;

    let tileSize = vec2<f32>(projection.outputSize.x / f32(tileCount.x),
                             projection.outputSize.y / f32(tileCount.y));

    let maxPoint_sS = vec4<f32>(vec2<f32>(f32(global_id.x+1u), f32(global_id.y+1u)) * tileSize, 0.0, 1.0);
    let minPoint_sS = vec4<f32>(vec2<f32>(f32(global_id.x), f32(global_id.y)) * tileSize, 0.0, 1.0);

    let maxPoint_vS = screen2View(maxPoint_sS).xyz;
    let minPoint_vS = screen2View(minPoint_sS).xyz;

    let tileNear = -projection.zNear * pow(projection.zFar/ projection.zNear, f32(global_id.z)/f32(tileCount.z));
    let tileFar = -projection.zNear * pow(projection.zFar/ projection.zNear, f32(global_id.z+1u)/f32(tileCount.z));

    let minPointNear = lineIntersectionToZPlane(eyePos, minPoint_vS, tileNear);
    let minPointFar = lineIntersectionToZPlane(eyePos, minPoint_vS, tileFar);
    let maxPointNear = lineIntersectionToZPlane(eyePos, maxPoint_vS, tileNear);
    let maxPointFar = lineIntersectionToZPlane(eyePos, maxPoint_vS, tileFar);

    clusters.bounds[tileIndex].minAABB = min(min(minPointNear, minPointFar),min(maxPointNear, maxPointFar));
    clusters.bounds[tileIndex].maxAABB = max(max(minPointNear, minPointFar),max(maxPointNear, maxPointFar));
  }
"""

_TILE_COUNT = (32, 18, 48)
_Z_RANGE = (0.2, 100.0)  # renderer.js's zRange


def _perspective_zo(fovy, aspect, near, far):
    """gl-matrix's mat4.perspectiveZO (WebGPU's 0..1 depth), as rows."""
    f = 1.0 / np.tan(fovy / 2)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = f / aspect, f
    m[2, 2], m[2, 3] = far / (near - far), far * near / (near - far)
    m[3, 2] = -1.0
    return m


def _cluster_params(size):
    """renderer.js's projection: fovy pi/2, the canvas's aspect, zRange; the matrices
    stored as gl-matrix leaves them in a Float32Array (columns)."""
    proj = _perspective_zo(np.pi * 0.5, size.W / size.H, *_Z_RANGE)
    inverse = np.linalg.inv(proj)
    return {
        "matrix": proj.T.astype(np.float32),
        "inverseMatrix": inverse.T.astype(np.float32),
        "outputSize": np.array([size.W, size.H], np.float32),
        "zNear": _Z_RANGE[0],
        "zFar": _Z_RANGE[1],
    }


def _cluster_bounds_reference(projection, clusters):
    """Each cluster of the 32 x 18 x 48 grid: the view-space rays through its screen
    tile's corners (the inverse projection of NDC (x, y, 0)), cut at view z = -near *
    (far / near)^(k / 48) and ^((k + 1) / 48), and the box around the four points."""
    u = projection
    inverse = u["inverseMatrix"].astype(np.float64).T
    w, h = u["outputSize"].astype(np.float64)
    near, far = float(u["zNear"]), float(u["zFar"])
    nx, ny, nz = _TILE_COUNT
    gx, gy = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    sx, sy = gx * (w / nx), gy * (h / ny)
    clip = np.stack([sx / w * 2 - 1, (1 - sy / h) * 2 - 1, np.zeros_like(sx), np.ones_like(sx)], -1)
    view = clip @ inverse.T
    corner = view[..., :3] / view[..., 3:]  # (nx + 1, ny + 1, 3)
    slices = -near * (far / near) ** (np.arange(nz + 1) / nz)
    lo, hi = corner[:-1, :-1], corner[1:, 1:]  # each tile's min and max screen corners
    points = []
    for c in (lo, hi):
        for zs in (slices[:-1], slices[1:]):
            t = zs[None, None, :] / c[:, :, None, 2]
            points.append(c[:, :, None, :] * t[..., None])  # (nx, ny, nz, 3)
    points = np.stack(points)
    out = clusters.copy()
    # tileIndex = x + y * nx + z * nx * ny
    out["minAABB"] = points.min(0).transpose(2, 1, 0, 3).reshape(-1, 3)
    out["maxAABB"] = points.max(0).transpose(2, 1, 0, 3).reshape(-1, 3)
    return out


CLUSTER_BOUNDS = Wild(
    KernelSpec(
        id="wild_r32_toji_clustered_shading_cluster_bounds",
        entry_point="main",
        sources={"wgsl": _CLUSTER_BOUNDS},
        dims=("W", "H"),
        buffers=(
            BufferSpec.uniform(
                0,
                (
                    ("matrix", "mat4x4<f32>"),
                    ("inverseMatrix", "mat4x4<f32>"),
                    ("outputSize", "vec2<f32>"),
                    ("zNear", "f32"),
                    ("zFar", "f32"),
                ),
                name="projection",
            ),
            BufferSpec(
                0,
                (("minAABB", "vec3<f32>"), ("maxAABB", "vec3<f32>")),
                "read_write",
                group=1,
                name="clusters",
                count=int(np.prod(_TILE_COUNT)),
            ),
        ),
        reference=_cluster_bounds_reference,
        params=_cluster_params,
        grid=lambda s, size: (8, 9, 12),  # DISPATCH_SIZE: TILE_COUNT / WORKGROUP_SIZE
        schedules=(Schedule((4, 2, 4)),),
        # the canvas: 1280 x 720, 4:3 and an odd size, whose tiles are not whole pixels
        test_sizes=("W=1280,H=720", "W=800,H=600", "W=1917,H=1041"),
    ),
    {
        "screen y not flipped": (
            "wgsl",
            "vec2<f32>(texCoord.x, 1.0 - texCoord.y)",
            "vec2<f32>(texCoord.x, texCoord.y)",
        ),
        "far plane at the near slice's exponent": (
            "wgsl",
            "f32(global_id.z+1u)/f32(tileCount.z)",
            "f32(global_id.z)/f32(tileCount.z)",
        ),
        # (the perspective divide dropped, tried first, is no bug here: each corner only
        # gives a ray through the eye, which lineIntersectionToZPlane scales to the slice)
        "max corner one tile short in y": (
            "wgsl",
            "vec2<f32>(f32(global_id.x+1u), f32(global_id.y+1u)) * tileSize",
            "vec2<f32>(f32(global_id.x+1u), f32(global_id.y)) * tileSize",
        ),
        "min corner from the far points only": (
            "wgsl",
            "min(min(minPointNear, minPointFar),min(maxPointNear, maxPointFar))",
            "min(minPointFar, maxPointFar)",
        ),
        "slices in front of the eye": (
            "wgsl",
            "let tileNear = -projection.zNear * pow(",
            "let tileNear = projection.zNear * pow(",
        ),
    },
)

# -- WebGPU-Ocean: MLS-MPM grid-to-particle (g2p), APIC with quadratic B-splines ------------
# matsuoka-601/WebGPU-Ocean at 3bd9327, mls-mpm/g2p.wgsl with mls-mpm.ts's override
# constants (dt 0.20, fixed_point_multiplier 1e7). It binds two uniforms
# (``real_box_size`` and ``init_box_size``, each a bare vec3f): the spec's uniform block
# and a ``read`` buffer, bound as a uniform where the WGSL declares ``var<uniform>``.

_MPM_G2P = """
struct Particle {
    position: vec3f,
    v: vec3f,
    C: mat3x3f,
}
struct Cell {
    vx: i32,
    vy: i32,
    vz: i32,
    mass: i32,
}

override fixed_point_multiplier: f32;
override dt: f32;

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<storage, read> cells: array<Cell>;
@group(0) @binding(2) var<uniform> real_box_size: vec3f;
@group(0) @binding(3) var<uniform> init_box_size: vec3f;

fn decodeFixedPoint(fixed_point: i32) -> f32 {
	return f32(fixed_point) / fixed_point_multiplier;
}


@compute @workgroup_size(64)
fn g2p(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&particles)) {
        particles[id.x].v = vec3f(0.);
        var weights: array<vec3f, 3>;

        let particle = particles[id.x];
        let cell_idx: vec3f = floor(particle.position);
        let cell_diff: vec3f = particle.position - (cell_idx + 0.5f);
        weights[0] = 0.5f * (0.5f - cell_diff) * (0.5f - cell_diff);
        weights[1] = 0.75f - cell_diff * cell_diff;
        weights[2] = 0.5f * (0.5f + cell_diff) * (0.5f + cell_diff);

        var B: mat3x3f = mat3x3f(vec3f(0.), vec3f(0.), vec3f(0.));
        for (var gx = 0; gx < 3; gx++) {
            for (var gy = 0; gy < 3; gy++) {
                for (var gz = 0; gz < 3; gz++) {
                    let weight: f32 = weights[gx].x * weights[gy].y * weights[gz].z;
                    let cell_x: vec3f = vec3f(
                        cell_idx.x + f32(gx) - 1.,
                        cell_idx.y + f32(gy) - 1.,
                        cell_idx.z + f32(gz) - 1.
                    );
                    let cell_dist: vec3f = (cell_x + 0.5f) - particle.position;
                    let cell_index: i32 =
                        i32(cell_x.x) * i32(init_box_size.y) * i32(init_box_size.z) +
                        i32(cell_x.y) * i32(init_box_size.z) +
                        i32(cell_x.z);
                    let weighted_velocity: vec3f = vec3f(
                        decodeFixedPoint(cells[cell_index].vx),
                        decodeFixedPoint(cells[cell_index].vy),
                        decodeFixedPoint(cells[cell_index].vz)
                    ) * weight;
                    let term: mat3x3f = mat3x3f(
                        weighted_velocity * cell_dist.x,
                        weighted_velocity * cell_dist.y,
                        weighted_velocity * cell_dist.z
                    );

                    B += term;

                    particles[id.x].v += weighted_velocity;
                }
            }
        }

        particles[id.x].C = B * 4.0f;
        particles[id.x].position += particles[id.x].v * dt;
        particles[id.x].position = vec3f(
            clamp(particles[id.x].position.x, 1., real_box_size.x - 2.),
            clamp(particles[id.x].position.y, 1., real_box_size.y - 2.),
            clamp(particles[id.x].position.z, 1., real_box_size.z - 2.)
        );

        let k = 3.0;
        let wall_stiffness = 0.3;
        let x_n: vec3f = particles[id.x].position + particles[id.x].v * dt * k;
        let wall_min: vec3f = vec3f(3.);
        let wall_max: vec3f = real_box_size - 4.;
        if (x_n.x < wall_min.x) { particles[id.x].v.x += wall_stiffness * (wall_min.x - x_n.x); }
        if (x_n.x > wall_max.x) { particles[id.x].v.x += wall_stiffness * (wall_max.x - x_n.x); }
        if (x_n.y < wall_min.y) { particles[id.x].v.y += wall_stiffness * (wall_min.y - x_n.y); }
        if (x_n.y > wall_max.y) { particles[id.x].v.y += wall_stiffness * (wall_max.y - x_n.y); }
        if (x_n.z < wall_min.z) { particles[id.x].v.z += wall_stiffness * (wall_min.z - x_n.z); }
        if (x_n.z > wall_max.z) { particles[id.x].v.z += wall_stiffness * (wall_max.z - x_n.z); }
    }
}
"""

_PARTICLE = (("position", "vec3<f32>"), ("v", "vec3<f32>"), ("C", "mat3x3<f32>"))
_CELL = (("vx", "i32"), ("vy", "i32"), ("vz", "i32"), ("mass", "i32"))
_INIT_BOX = (24.0, 16.0, 20.0)  # the grid, cells x, y, z
_REAL_BOX = (21.5, 16.0, 18.25)  # the box the walls stand at now (the demo moves them in)
_G2P_DT, _G2P_FIXED = 0.20, 1e7


def _g2p_particles(rng, count, size):
    """Particles anywhere in the box the clamp allows, some close enough to a wall that
    its spring pushes back; v and C as the last step left them (g2p overwrites both)."""
    out = np.zeros(count, BufferSpec(0, _PARTICLE, "read_write").dtype)
    out["position"] = rng.uniform(1.0, np.array(_REAL_BOX) - 2.0, (count, 3))
    out["v"] = rng.normal(0, 0.5, (count, 3))
    out["C"] = rng.normal(0, 0.1, (count, 3, 3))
    return out


def _g2p_cells(rng, count, size):
    """updateGrid's result: each cell's velocity in 1e7 fixed point (mass divided out)."""
    out = np.zeros(count, BufferSpec(0, _CELL, "read").dtype)
    for name in ("vx", "vy", "vz"):
        out[name] = np.round(rng.normal(0, 0.8, count) * _G2P_FIXED).astype(np.int32)
    out["mass"] = np.round(rng.uniform(0.5, 4.0, count) * _G2P_FIXED).astype(np.int32)
    return out


def _g2p_reference(particles, cells, real_box_size, init_box_size):
    """MLS-MPM's grid to particle step (Hu et al. 2018) as its 88-line version states it:
    quadratic B-spline weights about the particle's cell, v = sum w_i v_i and the APIC
    matrix C = 4 sum w_i v_i (x_i - x_p)^T (4 = 1 / D_p for unit cells), x += v dt clamped
    to [1, box - 2], then a wall spring of 0.3 on v where x + 3 v dt leaves [3, box - 4]."""
    x = particles["position"].astype(np.float64)
    box = real_box_size["real_box_size"].astype(np.float64)
    dims = np.asarray(init_box_size, np.float64).reshape(3).astype(np.int64)
    vel = np.stack([cells[c].astype(np.float64) for c in ("vx", "vy", "vz")], 1) / _G2P_FIXED
    base = np.floor(x)
    diff = x - (base + 0.5)
    weights = [0.5 * (0.5 - diff) ** 2, 0.75 - diff**2, 0.5 * (0.5 + diff) ** 2]
    v = np.zeros_like(x)
    b = np.zeros((len(x), 3, 3))
    for gx in range(3):
        for gy in range(3):
            for gz in range(3):
                w = weights[gx][:, 0] * weights[gy][:, 1] * weights[gz][:, 2]
                cell = base + np.array([gx, gy, gz]) - 1
                dist = cell + 0.5 - x
                index = (cell[:, 0] * dims[1] * dims[2] + cell[:, 1] * dims[2] + cell[:, 2]).astype(
                    np.int64
                )
                wv = vel[index] * w[:, None]
                b += wv[:, None, :] * dist[:, :, None]  # column j of WGSL's B is wv * dist[j]
                v += wv
    out = particles.copy()
    out["C"] = 4.0 * b
    pos = np.clip(x + v * _G2P_DT, 1.0, box - 2.0)
    x_n = pos + v * _G2P_DT * 3.0
    v = (
        v
        + 0.3 * np.where(x_n < 3.0, 3.0 - x_n, 0.0)
        + 0.3 * np.where(x_n > box - 4.0, box - 4.0 - x_n, 0.0)
    )
    out["position"], out["v"] = pos, v
    return out


MPM_G2P = Wild(
    KernelSpec(
        id="wild_r32_webgpu_ocean_mls_mpm_g2p_apic",
        entry_point="g2p",
        sources={"wgsl": _MPM_G2P},
        buffers=(
            BufferSpec(
                0, _PARTICLE, "read_write", name="particles", inout=True, fill=_g2p_particles
            ),
            BufferSpec(
                1, _CELL, "read", name="cells", count=int(np.prod(_INIT_BOX)), fill=_g2p_cells
            ),
            BufferSpec.uniform(2, (("real_box_size", "vec3<f32>"),), name="real_box_size"),
            BufferSpec(
                3,
                "vec3<f32>",
                "read",
                name="init_box_size",
                count=1,
                fill=np.array([_INIT_BOX], np.float32),
            ),
        ),
        reference=_g2p_reference,
        defaults={"real_box_size": np.array(_REAL_BOX, np.float32)},
        overrides={"fixed_point_multiplier": _G2P_FIXED, "dt": _G2P_DT},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=(1000, 1, 65),
    ),
    {
        "weights[0] from the far side": (
            "wgsl",
            "weights[0] = 0.5f * (0.5f - cell_diff) * (0.5f - cell_diff);",
            "weights[0] = 0.5f * (0.5f + cell_diff) * (0.5f + cell_diff);",
        ),
        "cell distance from its corner": (
            "wgsl",
            "let cell_dist: vec3f = (cell_x + 0.5f) - particle.position;",
            "let cell_dist: vec3f = cell_x - particle.position;",
        ),
        "C without 1 / D_p": ("wgsl", "particles[id.x].C = B * 4.0f;", "particles[id.x].C = B;"),
        "y stride of the grid's y size": (
            "wgsl",
            "i32(cell_x.y) * i32(init_box_size.z) +\n",
            "i32(cell_x.y) * i32(init_box_size.y) +\n",
        ),
        "wall spring pulls outward": (
            "wgsl",
            "particles[id.x].v.x += wall_stiffness * (wall_min.x - x_n.x);",
            "particles[id.x].v.x -= wall_stiffness * (wall_min.x - x_n.x);",
        ),
    },
)

ROUND32: dict = {
    w.kernel.id: w
    for w in (BRUSH_PROJECT_VISIBLE, VELLO_PATHTAG, REND3_SKINNING, CLUSTER_BOUNDS, MPM_G2P)
}
