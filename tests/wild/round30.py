"""Round 30 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL as code
generators and engines emit it, taken as they write it.

- wonnx's ``pool/aggregate.wgsl`` (ONNX MaxPool), the Tera template rendered as wonnx
  renders it for one node (N=1, C=8, 7x7, kernel 3x3, stride 2, pads 1): the
  ``structs.wgsl`` prelude (``Scalar``, ``Vec4``, ``struct Array { data: array<Scalar> }``),
  ``@workgroup_size(256, 1, 1)``, the shape baked in as literals (``{{ o_chunks[0][1] }}u``
  became ``16u``), four channels at once into a ``Vec4`` (C % 4 == 0), padding found by
  ``u32`` wrap-around (``tmp_y >= 0u`` is always true), and the lowest value as
  ``-3.40282347E+37f`` (the template says why: Chrome refused -3.40282347E+38).
- Burn's binary ``kernel_run`` (a ``div`` of lhs ``[B, M, N]`` by rhs ``[B, 1, N]``) as
  CubeCL's WGSL compiler writes it: ``buffer_N_global`` bindings, every tensor's strides
  and shapes in one ``info: array<u32>`` (``info[0]`` the rank, then per tensor its
  strides and shapes, read as ``info[(position * rank_2) + dim + 1u]``), locals
  ``l_0_N``, line size 4 (``array<vec4<f32>>``), the output's length from
  ``arrayLength``, the broadcast offset from ``index_offset_with_layout``.
- three.js's WebGPU particles example (``webgpu_compute_particles``) through TSL and
  ``WGSLNodeBuilder``: ``instancedArray`` storage wrapped in ``NodeBuffer_NStruct
  { value: array<vec3<f32>> }``, ``instanceIndex`` a private built from
  ``globalId``/``numWorkgroups``, the uniforms in ``objectStruct`` (``nodeUniformN``),
  the count baked in (``{{n}}`` here).
- Bevy's GPU frustum culling (``mesh_preprocess.wgsl``): ``MeshInput`` with a
  ``mat3x4<f32>`` affine made square by ``affine3_to_square`` (a ``transpose``), the OBB
  test of ``view_frustum_intersects_obb`` (the far plane skipped: ``i < 5``), survivors
  appended through ``atomicAdd`` on an indexed indirect-draw's ``instance_count``.
- ONNX Runtime Web's ``Tile`` (rank 3) as its ``ShaderHelper`` writes it: the uniforms
  ``output_size``, ``input_shape``, ``input_strides``, ``output_shape`` and
  ``output_strides`` as ``vec3<u32>`` (each at a 16-byte offset), ``o2i_output`` and
  ``i2o_input`` helpers, ``input_indices`` set in a loop through ``input_shape[i]``.
- CubeCL's sum reduction along one axis (Burn's ``reduce_dim`` naive kernel): one
  invocation per output, the reduced axis's stride and shape from ``info``, the
  offset of the first element from the output's index unravelled by integer division.

What they showed (lavapipe and SwiftShader, this round; not run on a GPU):

- One false alarm, fixed: a storage array wrapped in a struct of its own, as wonnx
  (``Array``, ``ArrayVector``) and three.js (``NodeBuffer_NStruct``) bind every buffer,
  was bound by its byte count where the bare ``array<vec4<f32>>`` is rounded up to
  whole vectors: over 10 floats ``arrayLength(&y.data)`` was 2, elements 8 and 9 were
  never written and the right kernel a MISMATCH on both adapters, while the same
  kernel with a bare array passed. ``forge._bindings.binding_granules`` now reads
  through a struct that wraps the array alone (tests/test_wild_round30.py).
- A gap left open: wonnx's placeholders are Tera expressions (``{{ i_lens[0] }}``,
  ``{{ o_chunks[0][0] / 4 }}``, ``{{ 2 * i_chunks[0][1] }}``) that kernel-forge's
  ``{{NAME}}`` templates do not fill: they are left in the text and the compiler's
  "expected expression, found '{'" is all one is told. The MaxPool here is the
  template rendered for one node, as wonnx hands it to wgpu, so it runs at one size.
  A source with templates is also not read for its literal ``@workgroup_size(256, 1,
  1)``: its default schedule is 64 (``KernelSpec._literal_wgsl``), so these kernels
  declare ``schedules``.
- wonnx's own templates as they stand: ``type Scalar = f32;`` is ``alias`` in WGSL
  now (naga and Tint refuse ``type``; written ``alias`` here), and ``reduce.wgsl``'s
  ``log(Scalar())`` (its -inf) is a const-expression both compilers refuse ("log must
  be called with a value > 0"): the verdict ERROR is right on both. MaxPool's lowest
  value -3.4e37 instead of -inf makes a window of NaN or -inf alone pool to -3.4e37
  (element 102 of seed 0 against ONNX's NaN): the oracle named it as wrong only on
  non-finite inputs, and the kernel declares ``nonfinite_inputs=False``.
- Every original passed on reference, wgpu and browser with the default tolerance,
  and every mutant failed on both adapters. A first Tile mutant (``indices[2] =
  rest0``) passed with max abs 0: it is equivalent (``output_strides[1]`` is a
  multiple of ``input_shape[2]`` and the modulo folds it back) and was replaced.
"""

# ruff: noqa: E501  (the WGSL keeps its generators' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- wonnx: ONNX MaxPool, pool/aggregate.wgsl rendered for one node ---------------------------
# N=1, C=8, H=W=7, kernel_shape 3x3, strides 2, pads 1, dilations 1: output 1x8x4x4. The
# prelude is structs.wgsl rendered for f32 (``type`` there is WGSL's ``alias`` now).

_WONNX_MAXPOOL = """
alias Scalar = f32;
alias Vec3 = vec3<f32>;
alias Vec4 = vec4<f32>;

struct Array {
	data: array<Scalar>
};

struct ArrayVector {
	data: array<Vec4>
};

	alias Mat3x3 = mat3x3<f32>;
	alias Mat4x4 = mat4x4<f32>;
	alias Mat4x3 = mat4x3<f32>;

	struct ArrayMatrix {
		data: array<Mat4x4>
	};

	struct ArrayMatrix3 {
		data: array<Mat3x3>
	};

@group(0) @binding(0)
var<storage, read> input_0: Array;

@group(0) @binding(1)
var<storage, read_write> output_0: Array;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
	let gidx = global_id.x;

	if (gidx < 32u) {
		let batch = gidx / 32u;
		var rest = gidx % 32u;

		let m = rest / 16u;
		rest = rest % 16u;

		let y = rest / 4u;
		let x = rest % 4u;

		var result = Vec4(
			f32(-3.40282347E+37f),
			f32(-3.40282347E+37f),
			f32(-3.40282347E+37f),
			f32(-3.40282347E+37f)
		);
		var value = result;

		let base_index = batch * 392u + m * 196u ;
		var tmp_y = 0u;
		var tmp_x = 0u;
		var tmp_index = 0u;
		var counter = Scalar();

		for(var i: u32 = 0u; i < 3u; i = i + 1u) {
			tmp_y = y * 2u + i * 1u - 1u;

			if ((tmp_y < 7u) && (tmp_y >= 0u)) {
				for(var j: u32 = 0u; j < 3u; j = j + 1u) {
					tmp_x = x * 2u + j * 1u - 1u;
						if ((tmp_x < 7u) && (tmp_x >= 0u)) {

							tmp_index  = base_index + tmp_y * 7u + tmp_x;
							value = Vec4(
								input_0.data[tmp_index],
								input_0.data[tmp_index + 49u],
								input_0.data[tmp_index + 98u],
								input_0.data[tmp_index + 147u],
							);result = max(result, value);}
				}
			}
		}

		let base_index_2 = batch * 128u + m * 64u + y * 4u + x;

		for(var index_vec: u32 = 0u; index_vec < 4u; index_vec = index_vec + 1u) {
			let index = base_index_2 + index_vec * 16u;
			output_0.data[index] = result[index_vec];
		}
	} else {
	if ((gidx >= 4u * 32u) && ( gidx < 128u)) {
		let batch = gidx / 128u;
		var rest = gidx % 128u;

		let m = rest / 16u;
		rest = rest % 16u;

		let y = rest / 4u;
		let x = rest % 4u;


		var result = f32(f32(-3.40282347E+37f));

		var value = result;

		let base_index = batch * 392u + m * 49u;
		var tmp_y = 0u;
		var tmp_x = 0u;
		var tmp_index = 0u;
		var counter = Scalar();

		for(var i: u32 = 0u; i < 3u; i = i + 1u) {
			tmp_y = y * 2u + i * 1u - 1u;

			if ((tmp_y < 7u) && (tmp_y >= 0u)) {
				for(var j: u32 = 0u; j < 3u; j = j + 1u) {
					tmp_x = x * 2u + j * 1u - 1u;
						if ((tmp_x < 7u) && (tmp_x >= 0u)) {
							tmp_index  = base_index + tmp_y * 7u + tmp_x;

							value = input_0.data[tmp_index];result = max(result, value);}
				}
			}
		}

		output_0.data[gidx] = result;
	}

	}

}
"""


def _maxpool_reference(input_0):
    x = input_0.astype(np.float64).reshape(1, 8, 7, 7)
    padded = np.full((1, 8, 9, 9), -np.inf)
    padded[:, :, 1:8, 1:8] = x
    out = np.full((1, 8, 4, 4), -np.inf)
    for i in range(3):
        for j in range(3):
            out = np.maximum(out, padded[:, :, i : i + 7 : 2, j : j + 7 : 2])
    return out.reshape(-1).astype(np.float32)


WONNX_MAXPOOL = Wild(
    KernelSpec(
        id="wild_r30_wonnx_maxpool_aggregate_vec4_channels_rendered",
        entry_point="main",
        sources={"wgsl": _WONNX_MAXPOOL},
        buffers=(
            BufferSpec(0, "f32", "read", name="input_0", count=8 * 7 * 7),
            BufferSpec(1, "f32", "read_write", name="output_0", count=8 * 4 * 4),
        ),
        reference=_maxpool_reference,
        grid=lambda s, n: (1, 1, 1),
        schedules=(Schedule(256),),
        # wonnx's lowest value is -3.4e37, not -inf: a window of -inf or NaN alone pools
        # to -3.4e37 (measured: element 102 of seed 0, -3.4e37 where ONNX says NaN)
        nonfinite_inputs=False,
        test_sizes=(128,),
    ),
    {
        # i_chunks[0][2] (a row) where the template says i_chunks[0][1] (a channel)
        "next channel a row away": (
            "wgsl",
            "input_0.data[tmp_index + 49u],",
            "input_0.data[tmp_index + 7u],",
        ),
        "pad not subtracted": (
            "wgsl",
            "tmp_y = y * 2u + i * 1u - 1u;",
            "tmp_y = y * 2u + i * 1u - 0u;",
        ),
        # {{ original_width }} where the template says {{ width }}
        "output row of the input's width": (
            "wgsl",
            "m * 64u + y * 4u + x;",
            "m * 64u + y * 7u + x;",
        ),
    },
)

# -- Burn / CubeCL: binary div with a broadcast rhs, info array, line size 4 --------------------
# lhs [B, M, N] / rhs [B, 1, N]: lhs and the output share their layout, so only the rhs
# offset is computed (to_contiguous_rhs); info = rank, then per tensor (lhs, rhs, out) its
# strides and its shape.

_CUBECL_DIV = """
@group(0)
@binding(0)
var<storage, read_write> buffer_0_global: array<vec4<f32>>;

@group(0)
@binding(1)
var<storage, read_write> buffer_1_global: array<vec4<f32>>;

@group(0)
@binding(2)
var<storage, read_write> buffer_2_global: array<vec4<f32>>;

@group(0)
@binding(3)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 256u;
const WORKGROUP_SIZE_Y = 1u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(256, 1, 1)
fn kernel_run(
    @builtin(local_invocation_index) local_idx: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = (workgroup_id.z * num_workgroups.x * num_workgroups.y) + (workgroup_id.y * num_workgroups.x) + workgroup_id.x;
    let absolute_pos = id * WORKGROUP_SIZE_X + local_idx;
    let rank: u32 = info[0];
    let rank_2: u32 = rank * 2u;
    var l_0_0: u32;
    var l_0_1: bool;
    var l_0_2: u32;
    var l_0_3: u32;
    var l_0_4: u32;
    var l_0_5: vec4<f32>;
    var l_0_6: vec4<f32>;
    l_0_0 = arrayLength(&buffer_2_global);
    l_0_1 = absolute_pos >= l_0_0;
    if l_0_1 {
        return;
    }
    l_0_2 = absolute_pos * 4u;
    l_0_3 = 0u;
    for (var l_1_0: u32 = 0u; l_1_0 < rank; l_1_0++) {
        let l_1_1 = info[(2u * rank_2) + l_1_0 + 1u];
        let l_1_2 = l_0_2 / l_1_1;
        let l_1_3 = info[(1u * rank_2) + rank + l_1_0 + 1u];
        let l_1_4 = l_1_2 % l_1_3;
        let l_1_5 = info[(1u * rank_2) + l_1_0 + 1u];
        l_0_3 = l_0_3 + l_1_4 * l_1_5;
    }
    l_0_4 = l_0_3 / 4u;
    l_0_5 = buffer_0_global[absolute_pos];
    l_0_6 = buffer_1_global[l_0_4];
    buffer_2_global[absolute_pos] = l_0_5 / l_0_6;
}
"""


def _cubecl_info(rng, count, size):
    b, m, n = size.B, size.M, size.N
    lhs = ((m * n, n, 1), (b, m, n))
    rhs = ((n, n, 1), (b, 1, n))
    out = ((m * n, n, 1), (b, m, n))
    return np.array((3, *lhs[0], *lhs[1], *rhs[0], *rhs[1], *out[0], *out[1]), dtype=np.uint32)


def _cubecl_div_reference(buffer_0_global, buffer_1_global):
    return (buffer_0_global / buffer_1_global).astype(np.float32)


CUBECL_DIV = Wild(
    KernelSpec(
        id="wild_r30_cubecl_burn_div_broadcast_info_line4",
        entry_point="kernel_run",
        sources={"wgsl": _CUBECL_DIV},
        dims=("B", "M", "N"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="buffer_0_global", count="B*M*N", shape=("B", "M", "N")
            ),
            BufferSpec(1, "f32", "read", name="buffer_1_global", count="B*N", shape=("B", 1, "N")),
            BufferSpec(
                2, "f32", "read_write", name="buffer_2_global", count="B*M*N", shape=("B", "M", "N")
            ),
            BufferSpec(3, "u32", "read", name="info", count=19, fill=_cubecl_info),
        ),
        reference=_cubecl_div_reference,
        grid=lambda s, size: (ceil_div(size.B * size.M * size.N // 4, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("B=2,M=3,N=8", "B=1,M=1,N=4", "B=3,M=90,N=8"),
    ),
    {
        # the lhs's shape (position 0) where the rhs's is meant: no broadcast modulo
        "rhs shape read at the lhs's info offset": (
            "wgsl",
            "info[(1u * rank_2) + rank + l_1_0 + 1u]",
            "info[(0u * rank_2) + rank + l_1_0 + 1u]",
        ),
        "offset not divided by the line size": ("wgsl", "l_0_4 = l_0_3 / 4u;", "l_0_4 = l_0_3;"),
        "output stride read at the rhs's info offset": (
            "wgsl",
            "info[(2u * rank_2) + l_1_0 + 1u]",
            "info[(1u * rank_2) + l_1_0 + 1u]",
        ),
    },
)

# -- three.js TSL: webgpu_compute_particles' update, as WGSLNodeBuilder emits it ---------------

_TSL_PARTICLES = """
// directives

// system
var<private> instanceIndex : u32;

// locals

// structs
struct NodeBuffer_554Struct {
	value : array< vec3<f32> >
};
@binding( 0 ) @group( 0 )
var<storage, read_write> NodeBuffer_554 : NodeBuffer_554Struct;

struct NodeBuffer_555Struct {
	value : array< vec3<f32> >
};
@binding( 1 ) @group( 0 )
var<storage, read_write> NodeBuffer_555 : NodeBuffer_555Struct;

// uniforms
struct objectStruct {
	nodeUniform0 : f32,
	nodeUniform1 : f32,
	nodeUniform2 : f32
};
@binding( 2 ) @group( 0 )
var<uniform> object : objectStruct;

// codes


@compute @workgroup_size( 64, 1, 1 )
fn main( @builtin( global_invocation_id ) globalId : vec3<u32>,
	@builtin( workgroup_id ) workgroupId : vec3<u32>,
	@builtin( local_invocation_id ) localId : vec3<u32>,
	@builtin( num_workgroups ) numWorkgroups : vec3<u32> ) {

	// system
	instanceIndex = globalId.x + globalId.y * numWorkgroups.x * u32( 64 ) + globalId.z * numWorkgroups.x * numWorkgroups.y * u32( 64 );

	// vars


	// flow
	// code

	if ( instanceIndex >= {{n}}u ) { return; }

	NodeBuffer_555.value[ instanceIndex ] = ( NodeBuffer_555.value[ instanceIndex ] + vec3<f32>( 0.0, object.nodeUniform0, 0.0 ) );
	NodeBuffer_554.value[ instanceIndex ] = ( NodeBuffer_554.value[ instanceIndex ] + NodeBuffer_555.value[ instanceIndex ] );
	NodeBuffer_555.value[ instanceIndex ] = ( NodeBuffer_555.value[ instanceIndex ] * vec3<f32>( object.nodeUniform1 ) );

	if ( ( NodeBuffer_554.value[ instanceIndex ].y < 0.0 ) ) {

		NodeBuffer_554.value[ instanceIndex ].y = 0.0;
		NodeBuffer_555.value[ instanceIndex ].y = ( - NodeBuffer_555.value[ instanceIndex ].y * object.nodeUniform2 );
		NodeBuffer_555.value[ instanceIndex ].x = ( NodeBuffer_555.value[ instanceIndex ].x * 0.9 );
		NodeBuffer_555.value[ instanceIndex ].z = ( NodeBuffer_555.value[ instanceIndex ].z * 0.9 );

	}

}
"""


def _tsl_particles_reference(NodeBuffer_554, NodeBuffer_555, object):
    # the node graph's operations, each in f32 as the shader computes them
    f = np.float32
    p = NodeBuffer_554.reshape(-1, 3).astype(f).copy()
    v = NodeBuffer_555.reshape(-1, 3).astype(f).copy()
    v[:, 1] = v[:, 1] + f(object["nodeUniform0"])
    p = p + v
    v = v * f(object["nodeUniform1"])
    floor = p[:, 1] < 0
    p[floor, 1] = 0
    v[floor, 1] = -v[floor, 1] * f(object["nodeUniform2"])
    v[floor, 0] = v[floor, 0] * f(0.9)
    v[floor, 2] = v[floor, 2] * f(0.9)
    NodeBuffer_554[:] = p.reshape(NodeBuffer_554.shape)
    NodeBuffer_555[:] = v.reshape(NodeBuffer_555.shape)


TSL_PARTICLES = Wild(
    KernelSpec(
        id="wild_r30_threejs_tsl_compute_particles_nodebuffer_struct",
        entry_point="main",
        sources={"wgsl": _TSL_PARTICLES},
        buffers=(
            BufferSpec(
                0, "vec3<f32>", "read_write", name="NodeBuffer_554", inout=True, fill=(-1.0, 1.0)
            ),
            BufferSpec(
                1, "vec3<f32>", "read_write", name="NodeBuffer_555", inout=True, fill=(-0.05, 0.05)
            ),
            BufferSpec.uniform(
                2,
                (("nodeUniform0", "f32"), ("nodeUniform1", "f32"), ("nodeUniform2", "f32")),
                name="object",
            ),
        ),
        reference=_tsl_particles_reference,
        # the example's gravity, friction and bounce
        defaults={"nodeUniform0": -0.00098, "nodeUniform1": 0.99, "nodeUniform2": 0.8},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=(1000, 1, 65),
    ),
    {
        "bounce keeps the falling velocity": (
            "wgsl",
            "( - NodeBuffer_555.value[ instanceIndex ].y * object.nodeUniform2 )",
            "( NodeBuffer_555.value[ instanceIndex ].y * object.nodeUniform2 )",
        ),
        "gravity along x": (
            "wgsl",
            "vec3<f32>( 0.0, object.nodeUniform0, 0.0 )",
            "vec3<f32>( object.nodeUniform0, 0.0, 0.0 )",
        ),
        "friction before the position update": (
            "wgsl",
            "\tNodeBuffer_554.value[ instanceIndex ] = ( NodeBuffer_554.value[ instanceIndex ] + NodeBuffer_555.value[ instanceIndex ] );\n"
            "\tNodeBuffer_555.value[ instanceIndex ] = ( NodeBuffer_555.value[ instanceIndex ] * vec3<f32>( object.nodeUniform1 ) );",
            "\tNodeBuffer_555.value[ instanceIndex ] = ( NodeBuffer_555.value[ instanceIndex ] * vec3<f32>( object.nodeUniform1 ) );\n"
            "\tNodeBuffer_554.value[ instanceIndex ] = ( NodeBuffer_554.value[ instanceIndex ] + NodeBuffer_555.value[ instanceIndex ] );",
        ),
    },
)

# -- Bevy: GPU frustum culling in mesh_preprocess.wgsl, OBB against five planes ---------------

_BEVY_CULL = """
// bevy_render::maths
fn affine3_to_square(affine: mat3x4<f32>) -> mat4x4<f32> {
    return transpose(mat4x4<f32>(
        affine[0],
        affine[1],
        affine[2],
        vec4<f32>(0.0, 0.0, 0.0, 1.0),
    ));
}

fn sphere_intersects_plane_half_space(
    plane: vec4<f32>,
    sphere_center: vec4<f32>,
    sphere_radius: f32
) -> bool {
    return dot(plane, sphere_center) + sphere_radius > 0.0;
}

struct MeshInput {
    // Affine 4x3 matrix transposed to 3x4.
    world_from_local: mat3x4<f32>,
    lightmap_uv_rect: vec2<u32>,
    flags: u32,
    previous_input_index: u32,
}

struct MeshCullingData {
    aabb_center: vec4<f32>,
    aabb_half_extents: vec4<f32>,
}

struct View {
    frustum: array<vec4<f32>, 6>,
}

const MESH_FLAGS_NO_FRUSTUM_CULLING_BIT: u32 = 1u;

@group(0) @binding(0) var<storage> current_input: array<MeshInput>;
@group(0) @binding(1) var<storage> mesh_culling_data: array<MeshCullingData>;
@group(0) @binding(2) var<uniform> view: View;
@group(0) @binding(3) var<storage, read_write> indirect_parameters: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;

// Returns true if the view frustum intersects an oriented bounding box (OBB).
//
// `aabb_center.w` should be 1.0.
fn view_frustum_intersects_obb(
    world_from_local: mat4x4<f32>,
    aabb_center: vec4<f32>,
    aabb_half_extents: vec3<f32>,
) -> bool {

    for (var i = 0; i < 5; i += 1) {
        // Calculate relative radius of the sphere associated with this plane.
        let plane_normal = view.frustum[i];
        let relative_radius = dot(
            abs(
                vec3(
                    dot(plane_normal.xyz, world_from_local[0].xyz),
                    dot(plane_normal.xyz, world_from_local[1].xyz),
                    dot(plane_normal.xyz, world_from_local[2].xyz),
                )
            ),
            aabb_half_extents
        );

        // Check the frustum plane.
        if (!sphere_intersects_plane_half_space(
                plane_normal, aabb_center, relative_radius)) {
            return false;
        }
    }

    return true;
}

@compute
@workgroup_size(64)
fn main(@builtin(global_invocation_id) global_invocation_id: vec3<u32>) {
    let instance_index = global_invocation_id.x;
    if (instance_index >= arrayLength(&current_input)) {
        return;
    }

    let input_index = instance_index;
    let world_from_local_affine_transpose = current_input[input_index].world_from_local;
    let world_from_local = affine3_to_square(world_from_local_affine_transpose);

    // Cull if necessary.
    if ((current_input[input_index].flags & MESH_FLAGS_NO_FRUSTUM_CULLING_BIT) == 0u) {
        let aabb_center = mesh_culling_data[input_index].aabb_center.xyz;
        let aabb_half_extents = mesh_culling_data[input_index].aabb_half_extents.xyz;

        // Do an OBB-based frustum cull.
        let model_center = world_from_local * vec4(aabb_center, 1.0);
        if (!view_frustum_intersects_obb(world_from_local, model_center, aabb_half_extents)) {
            return;
        }
    }

    // Write the indirect draw's instance and the instance itself.
    let batch_output_index = atomicAdd(&indirect_parameters[1], 1u);
    output[batch_output_index] = input_index;
}
"""

_MESH_INPUT = (
    ("world_from_local", "mat3x4<f32>"),
    ("lightmap_uv_rect", "vec2<u32>"),
    ("flags", "u32"),
    ("previous_input_index", "u32"),
)
_CULLING_DATA = (("aabb_center", "vec4<f32>"), ("aabb_half_extents", "vec4<f32>"))


def _bevy_frustum():
    """Inward (n, d), n . p + d > 0 inside: four tilted sides around the z axis, a
    near plane at z = 1 and a far one at z = 12 (Bevy's frustum[5], never tested)."""
    s = 1 / np.sqrt(1.25)
    sides = [(s, 0, 0.5 * s, 0), (-s, 0, 0.5 * s, 0), (0, s, 0.5 * s, 0), (0, -s, 0.5 * s, 0)]
    return np.array([*sides, (0, 0, 1, -1), (0, 0, -1, 12)], np.float32)


def _mesh_inputs(rng, count, size):
    layout = {
        "names": [n for n, _ in _MESH_INPUT],
        "formats": [(("<f4", (4,)), (3,)), ("<u4", (2,)), "<u4", "<u4"],
        "offsets": [0, 48, 56, 60],
        "itemsize": 64,
    }
    out = np.zeros(count, np.dtype(layout))  # mat3x4: three vec4 columns
    for k in range(count):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = rng.uniform(0, 2 * np.pi)
        c, s = np.cos(angle), np.sin(angle)
        x, y, z = axis
        rot = np.array(
            [
                [c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
                [y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s],
                [z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)],
            ]
        ) * rng.uniform(0.5, 2.0)
        translation = rng.uniform((-14, -14, -6), (14, 14, 20))
        out["world_from_local"][k] = np.hstack([rot, translation[:, None]])
    out["flags"] = (rng.random(count) < 0.1).astype(np.uint32)  # some never culled
    out["previous_input_index"] = np.arange(count, dtype=np.uint32)
    return out


def _culling_data(rng, count, size):
    out = np.zeros(
        count, [("aabb_center", np.float32, (4,)), ("aabb_half_extents", np.float32, (4,))]
    )
    out["aabb_center"][:, :3] = rng.uniform(-1, 1, (count, 3))
    out["aabb_half_extents"][:, :3] = rng.uniform(0.1, 2.0, (count, 3))
    return out


def _bevy_cull_reference(current_input, mesh_culling_data, view):
    planes = view["frustum"].astype(np.float64)[:5]
    affine = current_input["world_from_local"].astype(np.float64)  # rows of the 3x4
    center = mesh_culling_data["aabb_center"].astype(np.float64)[:, :3]
    half = mesh_culling_data["aabb_half_extents"].astype(np.float64)[:, :3]
    model_center = np.einsum("kij,kj->ki", affine[:, :, :3], center) + affine[:, :, 3]
    # relative radius: |n . column_j of the linear part| . half extents
    radius = np.einsum(
        "kpj,kj->kp", np.abs(np.einsum("pi,kij->kpj", planes[:, :3], affine[:, :, :3])), half
    )
    distance = model_center @ planes[:, :3].T + planes[:, 3]
    keep = np.all(distance + radius > 0, axis=1) | (current_input["flags"] & 1 == 1)
    output = np.full(len(current_input), 0xFFFFFFFF, np.uint32)
    output[: keep.sum()] = np.flatnonzero(keep)
    indirect = np.array([0, keep.sum(), 0, 0, 0], np.uint32)
    return indirect, output


BEVY_CULL = Wild(
    KernelSpec(
        id="wild_r30_bevy_mesh_preprocess_obb_frustum_cull",
        entry_point="main",
        sources={"wgsl": _BEVY_CULL},
        buffers=(
            BufferSpec(0, _MESH_INPUT, "read", name="current_input", fill=_mesh_inputs),
            BufferSpec(1, _CULLING_DATA, "read", name="mesh_culling_data", fill=_culling_data),
            BufferSpec.uniform(2, (("frustum", "array<vec4<f32>, 6>"),), name="view"),
            BufferSpec(3, "u32", "read_write", name="indirect_parameters", count=5, initial=0),
            BufferSpec(4, "u32", "read_write", name="output", initial=0xFFFFFFFF, unordered=True),
        ),
        reference=_bevy_cull_reference,
        defaults={"frustum": _bevy_frustum()},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
        test_sizes=(600, 1, 65),
    ),
    {
        "sphere centre as a direction": (
            "wgsl",
            "world_from_local * vec4(aabb_center, 1.0)",
            "world_from_local * vec4(aabb_center, 0.0)",
        ),
        "relative radius without abs": (
            "wgsl",
            "            abs(\n                vec3(",
            "            (\n                vec3(",
        ),
        "one side plane never tested": ("wgsl", "i < 5; i += 1", "i < 4; i += 1"),
    },
)

# -- ONNX Runtime Web: Tile, rank 3, shapes and strides as vec3<u32> uniforms ----------------------

_ORT_TILE = """
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
struct Uniforms { output_size:u32, input_shape:vec3<u32>, input_strides:vec3<u32>, output_shape:vec3<u32>, output_strides:vec3<u32> };
@group(0) @binding(2) var<uniform> uniforms: Uniforms;

  alias input_indices_t = vec3<u32>;
  alias output_indices_t = vec3<u32>;

  fn o2i_output(offset: u32) -> output_indices_t {
    var indices: output_indices_t;
    var current = offset;

    let dim0 = current / uniforms.output_strides[0];
    let rest0 = current % uniforms.output_strides[0];
    indices[0] = dim0;
    current = rest0;

    let dim1 = current / uniforms.output_strides[1];
    let rest1 = current % uniforms.output_strides[1];
    indices[1] = dim1;
    current = rest1;

    indices[2] = current;
    return indices;
  }

  fn i2o_input(indices: input_indices_t) -> u32 {
    return uniforms.input_strides[2] * (indices[2])+uniforms.input_strides[1] * (indices[1])+uniforms.input_strides[0] * (indices[0]);
  }

  fn get_input_by_indices(indices: input_indices_t) -> f32 {
    return input[i2o_input(indices)];
  }

  @compute @workgroup_size(64, 1, 1)
  fn main(@builtin(global_invocation_id) global_id : vec3<u32>,
        @builtin(workgroup_id) workgroup_id : vec3<u32>,
        @builtin(local_invocation_index) local_idx : u32,
        @builtin(local_invocation_id) local_id : vec3<u32>,
        @builtin(num_workgroups) num_workgroups : vec3<u32>) {
    let global_idx = global_id.x;
    if (global_idx >= uniforms.output_size) { return; }

      let output_indices = o2i_output(global_idx);
      var input_indices: input_indices_t;
      for (var i = 0; i < 3; i++) {
        let input_dim_i = uniforms.input_shape[i];
        let input_dim_value = output_indices[i]  % input_dim_i;

        input_indices[i] = input_dim_value;
      }
      output[global_idx] = get_input_by_indices(input_indices);
  }
"""

_TILE_REPEATS = (2, 3, 1)


def _ort_tile_params(size):
    shape = (size.A, size.B, size.C)
    out = tuple(d * r for d, r in zip(shape, _TILE_REPEATS))
    return {
        "output_size": int(np.prod(out)),
        "input_shape": shape,
        "input_strides": (size.B * size.C, size.C, 1),
        "output_shape": out,
        "output_strides": (out[1] * out[2], out[2], 1),
    }


ORT_TILE = Wild(
    KernelSpec(
        id="wild_r30_ort_web_tile_rank3_vec3_uniform_shapes",
        entry_point="main",
        sources={"wgsl": _ORT_TILE},
        dims=("A", "B", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="A*B*C", shape=("A", "B", "C")),
            BufferSpec(1, "f32", "read_write", name="output", count="6*A*B*C"),
            BufferSpec.uniform(
                2,
                (
                    ("output_size", "u32"),
                    ("input_shape", "vec3<u32>"),
                    ("input_strides", "vec3<u32>"),
                    ("output_shape", "vec3<u32>"),
                    ("output_strides", "vec3<u32>"),
                ),
                name="uniforms",
            ),
        ),
        reference=lambda input: np.tile(input, _TILE_REPEATS).reshape(-1),
        params=_ort_tile_params,
        grid=lambda s, size: (ceil_div(6 * size.A * size.B * size.C, 64), 1, 1),
        schedules=(Schedule(64),),
        test_sizes=("A=3,B=5,C=7", "A=1,B=1,C=1", "A=4,B=3,C=9"),
    ),
    {
        "tiled index without the modulo": (
            "wgsl",
            "output_indices[i]  % input_dim_i",
            "output_indices[i]",
        ),
        "stride of the last dimension for the middle one": (
            "wgsl",
            "uniforms.input_strides[1] * (indices[1])",
            "uniforms.input_strides[2] * (indices[1])",
        ),
        # (indices[2] = rest0 was tried first: equivalent, output_strides[1] is a
        # multiple of input_shape[2] and the modulo folds it back)
        "first stride of the output's": (
            "wgsl",
            "+uniforms.input_strides[0] * (indices[0])",
            "+uniforms.output_strides[0] * (indices[0])",
        ),
    },
)

# -- Burn / CubeCL: reduce_dim_naive (mean along one axis), info strides and shapes -------------
# input [B, R, C] reduced along dim 1 (a scalar in CubeCL's scalars_u32 buffer) into
# [B, 1, C]; info = rank, input strides, input shape, output strides, output shape.

_CUBECL_MEAN = """
@group(0)
@binding(0)
var<storage, read_write> buffer_0_global: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> buffer_1_global: array<f32>;

@group(0)
@binding(2)
var<storage, read_write> scalars_u32: array<u32>;

@group(0)
@binding(3)
var<storage, read_write> info: array<u32>;

const WORKGROUP_SIZE_X = 32u;
const WORKGROUP_SIZE_Y = 1u;
const WORKGROUP_SIZE_Z = 1u;

@compute
@workgroup_size(32, 1, 1)
fn reduce_dim_naive_kernel(
    @builtin(local_invocation_index) local_idx: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
) {
    let id = (workgroup_id.z * num_workgroups.x * num_workgroups.y) + (workgroup_id.y * num_workgroups.x) + workgroup_id.x;
    let absolute_pos = id * WORKGROUP_SIZE_X + local_idx;
    let rank: u32 = info[0];
    let rank_2: u32 = rank * 2u;
    var l_0_0: u32;
    var l_0_1: bool;
    var l_0_2: u32;
    var l_0_3: f32;
    var l_0_4: u32;
    var l_0_5: u32;
    var l_0_6: f32;
    l_0_0 = arrayLength(&buffer_1_global);
    l_0_1 = absolute_pos >= l_0_0;
    if l_0_1 {
        return;
    }
    l_0_2 = 0u;
    for (var l_1_0: u32 = 0u; l_1_0 < rank; l_1_0++) {
        let l_1_1 = info[(1u * rank_2) + l_1_0 + 1u];
        var l_1_2 = absolute_pos / l_1_1;
        let l_1_3 = info[(1u * rank_2) + rank + l_1_0 + 1u];
        l_1_2 = l_1_2 % l_1_3;
        let l_1_4 = info[(0u * rank_2) + l_1_0 + 1u];
        l_0_2 = l_0_2 + l_1_2 * l_1_4;
    }
    l_0_3 = 0.0;
    l_0_4 = scalars_u32[0];
    l_0_5 = info[(0u * rank_2) + rank + l_0_4 + 1u];
    for (var l_2_0: u32 = 0u; l_2_0 < l_0_5; l_2_0++) {
        let l_2_1 = info[(0u * rank_2) + l_0_4 + 1u];
        let l_2_2 = l_2_0 * l_2_1 + l_0_2;
        let l_2_3 = buffer_0_global[l_2_2];
        l_0_3 = l_0_3 + l_2_3;
    }
    l_0_6 = f32(l_0_5);
    buffer_1_global[absolute_pos] = l_0_3 / l_0_6;
}
"""


def _cubecl_mean_info(rng, count, size):
    b, r, c = size.B, size.R, size.C
    return np.array((3, r * c, c, 1, b, r, c, c, c, 1, b, 1, c), dtype=np.uint32)


CUBECL_MEAN = Wild(
    KernelSpec(
        id="wild_r30_cubecl_burn_reduce_dim_naive_mean_info",
        entry_point="reduce_dim_naive_kernel",
        sources={"wgsl": _CUBECL_MEAN},
        dims=("B", "R", "C"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="buffer_0_global", count="B*R*C", shape=("B", "R", "C")
            ),
            BufferSpec(
                1, "f32", "read_write", name="buffer_1_global", count="B*C", shape=("B", 1, "C")
            ),
            BufferSpec(
                2, "u32", "read", name="scalars_u32", count=1, fill=np.array([1], np.uint32)
            ),
            BufferSpec(3, "u32", "read", name="info", count=13, fill=_cubecl_mean_info),
        ),
        reference=lambda buffer_0_global: (
            buffer_0_global.astype(np.float64).mean(axis=1, keepdims=True).astype(np.float32)
        ),
        grid=lambda s, size: (ceil_div(size.B * size.C, 32), 1, 1),
        schedules=(Schedule(32),),
        test_sizes=("B=3,R=7,C=11", "B=1,R=1,C=1", "B=2,R=40,C=17"),
    ),
    {
        # the broadcast index of the reduced (size 1) output axis left unreduced
        "output index unravelled without the modulo": ("wgsl", "l_1_2 = l_1_2 % l_1_3;", ""),
        "reduced axis's stride read from its shape slot": (
            "wgsl",
            "let l_2_1 = info[(0u * rank_2) + l_0_4 + 1u];",
            "let l_2_1 = info[(0u * rank_2) + rank + l_0_4 + 1u];",
        ),
        "last output unwritten": (
            "wgsl",
            "l_0_1 = absolute_pos >= l_0_0;",
            "l_0_1 = absolute_pos + 1u >= l_0_0;",
        ),
    },
)

ROUND30: dict = {
    w.kernel.id: w
    for w in (WONNX_MAXPOOL, CUBECL_DIV, TSL_PARTICLES, BEVY_CULL, ORT_TILE, CUBECL_MEAN)
}
