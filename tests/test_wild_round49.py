"""Round 49: the wgpu backend's uniformity check (``forge.sources.
wgsl_barrier_in_nonuniform_flow``) with invocation builtins that come in a struct
parameter, as web-rwkv's quantisers take them (``fn quantize(in: Input)``)."""

from __future__ import annotations

from forge.sources import wgsl_barrier_in_nonuniform_flow

_STRUCT_OF_BUILTINS = """
struct Input {
    @builtin(global_invocation_id) uid: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
    @builtin(num_workgroups) b: vec3<u32>,
};
struct Place {
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) b: vec3<u32>,
};
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
var<workgroup> q: u32;
"""


def test_a_barrier_after_a_return_on_a_struct_of_builtins_is_refused_as_tint_refuses_it():
    """No GPU: each case as Chrome's Tint judged it (2026-12-06)."""
    refused = [
        # web-rwkv's quant_mat_nf4.wgsl from 44697ab on, in short
        "fn quantize(in: Input) {\n let bti = dot(in.uid, vec3<u32>(1u, 64u * in.b.x, 0u));\n"
        " if bti >= 100u { return; }\n if in.index == 0u { q = 1u; }\n workgroupBarrier();\n"
        " o[bti] = q;\n}",
        # a branch on the struct's workgroup_id: Tint judges the parameter as a whole
        "fn main(@builtin(workgroup_id) w: vec3<u32>, in: Input) {\n"
        " if in.b.x > 1u { return; }\n workgroupBarrier();\n}",
    ]
    taken = [
        "fn quantize(in: Input) {\n let bti = dot(in.uid, vec3<u32>(1u, 64u * in.b.x, 0u));\n"
        " if in.index == 0u { q = 1u; }\n workgroupBarrier();\n o[bti] = q;\n}",
        # a struct of uniform builtins only
        "fn main(p: Place) {\n if p.wid.x >= 4u { return; }\n workgroupBarrier();\n}",
    ]
    for body in refused:
        found = wgsl_barrier_in_nonuniform_flow(
            _STRUCT_OF_BUILTINS + "@compute @workgroup_size(64)\n" + body
        )
        assert found is not None and found[0] == "workgroupBarrier()", body
    for body in taken:
        source = _STRUCT_OF_BUILTINS + "@compute @workgroup_size(64)\n" + body
        assert wgsl_barrier_in_nonuniform_flow(source) is None, body
