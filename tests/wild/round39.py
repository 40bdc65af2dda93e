"""Round 39 of kernels from the wild, merged into ``tests.wild.CORPUS``: WGSL compute
as public WebGPU projects write it, taken as written.

- GPUPrefixSums' chained scan with decoupled lookback and decoupled fallback
  (b0nes164/GPUPrefixSums at 98d93a4e, MIT,
  ``GPUPrefixSumsWebGPUapis/SharedShaders/csdldf.wgsl``): an inclusive scan of u32
  words read as ``vec4<u32>``, the partition taken from an ``atomicAdd`` bump, the
  lookback spinning on ``atomicLoad`` of flag-packed payloads (``red << 2 | flag``)
  and falling back to reducing a predecessor itself with ``atomicMax``, the lock read
  through ``workgroupUniformLoad``, the subgroup-size-agnostic spine scan built on
  ``subgroupInclusiveAdd``, ``subgroupShuffle`` and ``subgroupBroadcast``.
- Its reduce-then-scan (``rts.wgsl``, same commit): ``reduce``, ``spine_scan`` and
  ``downsweep`` entry points of one module run as a sequence over the six buffers
  main.rs binds to every pass.
- arrow-gpu's Arrow kernels on packed words (psvri/arrow-gpu at 463956cd, MIT or
  Apache-2.0): the cast of f32 to u8 that ORs four bytes into each word of a buffer its
  host creates (zeroed: ``initial=0`` here), the u8 shift left through ``unpack4xU8``
  and ``pack4xU8`` by a u32 amount a byte (WGSL takes it modulo 32), and the take on a
  bitmap, 32 gathered bits a word.

What they showed (lavapipe and SwiftShader; not run on a GPU; pinned in
tests/test_wild_round39.py):

- A shader as written that could not run, fixed: the project's WGSL is written for
  wgpu 23 in Rust, whose naga took subgroup built-ins under the device feature alone,
  so neither module says ``enable subgroups;``. lavapipe ran both; the browser's verdict
  was ERROR (Tint: "cannot call built-in function 'subgroupInclusiveAdd' without
  extension 'subgroups'"), and the kernels declared no need of subgroups. A module
  that uses subgroups now needs the feature, and the browser backend enables the
  extension where the source leaves it out.
- An input-drawing gap, worked around in the specs: the oracle's u32 draws stay below
  2**30, so a word of packed bytes never has a top byte of 64 or more and a bitmap's
  high bits are mostly 0; arrow-gpu's inputs draw whole words (``_words``). A first
  shift mutant (bytes unpacked as signed) was equivalent for a left shift: replaced.
- Two gaps left open, strict xfails: arrow-gpu's cast declared without ``initial=0``
  fails, rightly, but the report says "never written (still poisoned)" with no hint of
  the declaration; and the bitmap take with its tail bound dropped passes on both
  adapters, since a read past the end of ``indexes`` gets the oracle's input poison,
  which as an index reads past the bitmap, where robust access gives 0.
- Every original passed on reference, wgpu and the browser, and every mutant failed on
  both adapters.
"""

# ruff: noqa: E501, W291, W293  (the WGSL keeps its authors' long lines and trailing spaces)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. GPUPrefixSums: chained scan with decoupled lookback and decoupled fallback ------------
# b0nes164/GPUPrefixSums at 98d93a4e (MIT), GPUPrefixSumsWebGPUapis/SharedShaders/csdldf.wgsl
# as written. WGPU/src/main.rs binds one layout of six buffers for every shader (info,
# scan_in, scan_out, scan_bump, reduction, misc), zeroes scan_bump and reduction
# (init.wgsl), and dispatches ceil(size / 4096) workgroups; the size is a multiple of 4.

_CSDLDF = """
//****************************************************************************
// GPUPrefixSums
// Chained Scan with Decoupled Lookback Decoupled Fallback: 
// CSDL but with an additional fallback routine, allowing the scan to work
// on hardware without forward thread progress guarantees
//
// SPDX-License-Identifier: MIT
// Copyright Thomas Smith 10/23/2024
// https://github.com/b0nes164/GPUPrefixSums
//
//****************************************************************************

struct InfoStruct
{
    size: u32,
    vec_size: u32,
    thread_blocks: u32,
};

@group(0) @binding(0)
var<uniform> info : InfoStruct; 

@group(0) @binding(1)
var<storage, read_write> scan_in: array<vec4<u32>>;

@group(0) @binding(2)
var<storage, read_write> scan_out: array<vec4<u32>>;

@group(0) @binding(3)
var<storage, read_write> scan_bump: atomic<u32>;

@group(0) @binding(4)
var<storage, read_write> reduction: array<atomic<u32>>;

@group(0) @binding(5)
var<storage, read_write> misc: array<u32>;

const BLOCK_DIM = 256u;
const MIN_SUBGROUP_SIZE = 4u;
const MAX_REDUCE_SIZE = BLOCK_DIM / MIN_SUBGROUP_SIZE;

const VEC4_SPT = 4u;
const VEC_PART_SIZE = BLOCK_DIM * VEC4_SPT;

const FLAG_NOT_READY = 0u;
const FLAG_REDUCTION = 1u;
const FLAG_INCLUSIVE = 2u;
const FLAG_MASK = 3u;

const MAX_SPIN_COUNT = 4u;
const LOCKED = 1u;
const UNLOCKED = 0u;

var<workgroup> wg_lock: u32;
var<workgroup> wg_broadcast: u32;
var<workgroup> wg_reduce: array<u32, MAX_REDUCE_SIZE>;
var<workgroup> wg_fallback: array<u32, MAX_REDUCE_SIZE>;

@compute @workgroup_size(BLOCK_DIM, 1, 1)
fn main(
    @builtin(local_invocation_id) threadid: vec3<u32>,
    @builtin(subgroup_invocation_id) laneid: u32,
    @builtin(subgroup_size) lane_count: u32) {
    
    let sid = threadid.x / lane_count;  //Caution 1D workgoup ONLY! Ok, but technically not in HLSL spec
    
    //acquire partition index, set the lock
    if(threadid.x == 0u){
        wg_broadcast = atomicAdd(&scan_bump, 1u);
        wg_lock = LOCKED;
    }
    let part_id = workgroupUniformLoad(&wg_broadcast);

    var t_scan = array<vec4<u32>, VEC4_SPT>();
    {
        let s_offset = laneid + sid * lane_count * VEC4_SPT;
        let dev_offset =  part_id * VEC_PART_SIZE;
        var i = s_offset + dev_offset;

        if(part_id < info.thread_blocks- 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                t_scan[k] = scan_in[i];
                t_scan[k].y += t_scan[k].x;
                t_scan[k].z += t_scan[k].y;
                t_scan[k].w += t_scan[k].z;
                i += lane_count;
            }
        }

        if(part_id == info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                if(i < info.vec_size){
                    t_scan[k] = scan_in[i];
                    t_scan[k].y += t_scan[k].x;
                    t_scan[k].z += t_scan[k].y;
                    t_scan[k].w += t_scan[k].z;
                }
                i += lane_count;
            }
        }

        var prev = 0u;
        let lane_mask = lane_count - 1u;
        let circular_shift = (laneid + lane_mask) & lane_mask;
        for(var k = 0u; k < VEC4_SPT; k += 1u){
            let t = subgroupShuffle(subgroupInclusiveAdd(t_scan[k].w), circular_shift);
            t_scan[k] += select(0u, t, laneid != 0u) + prev;
            prev += subgroupBroadcast(t, 0u);
        }

        if(laneid == 0u){
            wg_reduce[sid] = prev;
        }
    }
    workgroupBarrier();

    //Non-divergent subgroup agnostic inclusive scan across subgroup reductions
    let lane_log = u32(countTrailingZeros(lane_count));
    let spine_size = BLOCK_DIM >> lane_log;
    let aligned_size = 1u << ((u32(countTrailingZeros(spine_size)) + lane_log - 1u) / lane_log * lane_log);
    {   
        var offset0 = 0u;
        var offset1 = 0u;
        for(var j = lane_count; j <= aligned_size; j <<= lane_log){
            let i0 = ((threadid.x + offset0) << offset1) - offset0;
            let pred0 = i0 < spine_size;
            let t0 = subgroupInclusiveAdd(select(0u, wg_reduce[i0], pred0));
            if(pred0){
                wg_reduce[i0] = t0;
            }
            workgroupBarrier();

            if(j != lane_count){
                let rshift = j >> lane_log;
                let i1 = threadid.x + rshift;
                if ((i1 & (j - 1u)) >= rshift){
                    let pred1 = i1 < spine_size;
                    let t1 = select(0u, wg_reduce[((i1 >> offset1) << offset1) - 1u], pred1);
                    if(pred1 && ((i1 + 1u) & (rshift - 1u)) != 0u){
                        wg_reduce[i1] += t1;
                    }
                }
            } else {
                offset0 += 1u;
            }
            offset1 += lane_log;
        }
    }   
    workgroupBarrier();

    //Device broadcast
    if(threadid.x == 0u){
        atomicStore(&reduction[part_id], (wg_reduce[spine_size - 1u] << 2u) |
            select(FLAG_INCLUSIVE, FLAG_REDUCTION, part_id != 0u));
    }

    //Lookback, single thread
    if(part_id != 0u){
        var prev_red = 0u;
        var lookback_id = part_id - 1u;

        var lock = workgroupUniformLoad(&wg_lock);
        while(lock == LOCKED){
            if(threadid.x == 0u){
                var spin_count = 0u;
                for(; spin_count < MAX_SPIN_COUNT; ){
                    let flag_payload = atomicLoad(&reduction[lookback_id]);
                    if((flag_payload & FLAG_MASK) > FLAG_NOT_READY){
                        prev_red += flag_payload >> 2u;
                        spin_count = 0u;
                        if((flag_payload & FLAG_MASK) == FLAG_INCLUSIVE){
                            atomicStore(&reduction[part_id],
                                ((prev_red + wg_reduce[spine_size - 1u]) << 2u) | FLAG_INCLUSIVE);
                            wg_broadcast = prev_red;
                            wg_lock = UNLOCKED;
                            break;
                        } else {
                            lookback_id -= 1u;
                        }
                    } else {
                        spin_count += 1u;
                    }
                }

                //If we did not complete the lookback within the alotted spins,
                //broadcast the lookback id in shared memory to prepare for the fallback
                if(spin_count == MAX_SPIN_COUNT){
                    wg_broadcast = lookback_id;
                }
            }

            //Fallback if still locked
            lock = workgroupUniformLoad(&wg_lock);
            if(lock == LOCKED){
                let fallback_id = wg_broadcast;
                {
                    let s_offset = laneid + sid * lane_count * VEC4_SPT;
                    let dev_offset =  fallback_id * VEC_PART_SIZE;
                    var i = s_offset + dev_offset;
                    var t_red = 0u;

                    for(var k = 0u; k < VEC4_SPT; k += 1u){
                        let t = scan_in[i];
                        t_red += dot(t, vec4<u32>(1u, 1u, 1u, 1u));
                        i += lane_count;
                    }

                    let s_red = subgroupAdd(t_red);
                    if(laneid == 0u){
                        wg_fallback[sid] = s_red;
                    }
                }
                workgroupBarrier();

                //Non-divergent subgroup agnostic reduction across subgroup reductions
                {
                    var offset = 0u;
                    for(var j = lane_count; j <= aligned_size; j <<= lane_log){
                        let i = ((threadid.x + 1u) << offset) - 1u;
                        let pred0 = i < spine_size;
                        let t = subgroupAdd(select(0u, wg_fallback[i], pred0));
                        if(pred0){
                            wg_fallback[i] = t;
                        }
                        workgroupBarrier();
                        offset += lane_log;
                    }
                }

                if(threadid.x == 0u){
                    //Max will store when no insertion has been made, but will not overwrite a tile
                    //which has already inserted, or been updated to FLAG_INCLUSIVE
                    let f_red = wg_fallback[spine_size - 1u];
                    let f_payload = atomicMax(&reduction[fallback_id],
                        (f_red << 2u) | select(FLAG_INCLUSIVE, FLAG_REDUCTION, fallback_id != 0u));
                    if(f_payload == 0u){
                        prev_red += f_red;
                    } else {
                        prev_red += f_payload >> 2u;
                    }

                    if(fallback_id == 0u || (f_payload & FLAG_MASK) == FLAG_INCLUSIVE){
                        atomicStore(&reduction[part_id],
                            ((prev_red + wg_reduce[spine_size - 1u]) << 2u) | FLAG_INCLUSIVE);
                        wg_broadcast = prev_red;
                        wg_lock = UNLOCKED;
                    } else {
                        lookback_id -= 1u;
                    }
                }
                lock = workgroupUniformLoad(&wg_lock);
            }   
        }
    }

    {
        let prev = wg_broadcast + select(0u, wg_reduce[sid - 1u], sid != 0u); //wg_broadcast is 0 for part_id 0
        let s_offset = laneid + sid * lane_count * VEC4_SPT;
        let dev_offset =  part_id * VEC_PART_SIZE;
        var i = s_offset + dev_offset;

        if(part_id < info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                scan_out[i] = t_scan[k] + prev;
                i += lane_count;
            }
        }

        if(part_id == info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                if(i < info.vec_size){
                    scan_out[i] = t_scan[k] + prev;
                }
                i += lane_count;
            }
        }
    }
}
"""

_PART = 4096  # VEC_PART_SIZE vec4s: BLOCK_DIM * VEC4_SPT * 4 words
_FLAG_INCLUSIVE = 2


def _scan_words(rng, count, size):
    """Words whose total fits the 30 bits a lookback payload keeps (``red << 2``)."""
    return rng.integers(0, 2**30 // max(int(size), 1), (count, 4), dtype=np.uint32)


def _info(n: int) -> dict:
    return {"size": n, "vec_size": ceil_div(n, 4), "thread_blocks": ceil_div(n, _PART)}


def _csdldf_reference(info, scan_in, scan_out, scan_bump, reduction, misc):
    """An inclusive scan of the words; each partition's lookback slot left holding its
    inclusive prefix, flagged inclusive, and the bump counting the partitions."""
    words = scan_in.astype(np.uint64).reshape(-1)
    total = np.cumsum(words) % 2**32
    scan_out[...] = total.astype(np.uint32).reshape(scan_out.shape)
    blocks = int(info["thread_blocks"])
    ends = np.minimum(np.arange(1, blocks + 1) * _PART, len(words)) - 1
    reduction[:blocks] = ((total[ends] << 2) | _FLAG_INCLUSIVE) % 2**32
    scan_bump[...] = blocks


_GPS_INFO = (("size", "u32"), ("vec_size", "u32"), ("thread_blocks", "u32"))


def _gps_buffers(fill=_scan_words):
    return (
        BufferSpec.uniform(0, _GPS_INFO, name="info"),
        BufferSpec(1, "vec4<u32>", "read", name="scan_in", count=lambda n: int(n) // 4, fill=fill),
        BufferSpec(2, "vec4<u32>", "read_write", name="scan_out", count=lambda n: int(n) // 4),
        BufferSpec(3, "u32", "read_write", name="scan_bump", count=1, initial=0),
        BufferSpec(
            4,
            "u32",
            "read_write",
            name="reduction",
            count=lambda n: ceil_div(int(n), _PART) * 4,
            initial=0,
        ),
        BufferSpec(5, "u32", "read_write", name="misc", count=4, scratch=True),
    )


CSDLDF = Wild(
    KernelSpec(
        id="wild_r39_gpuprefixsums_csdldf_lookback_fallback",
        entry_point="main",
        sources={"wgsl": _CSDLDF},
        buffers=_gps_buffers(),
        reference=_csdldf_reference,
        params=_info,
        grid=lambda s, n: (ceil_div(int(n), _PART), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(4096 * 2 + 4 * 37, 4, 4096),
    ),
    {
        "lookback payload unshifted": (
            "wgsl",
            "prev_red += flag_payload >> 2u;",
            "prev_red += flag_payload;",
        ),
        "a vec4's last carry dropped": ("wgsl", "t_scan[k].w += t_scan[k].z;", ""),
        "the subgroup's own total as its offset": (
            "wgsl",
            "let prev = wg_broadcast + select(0u, wg_reduce[sid - 1u], sid != 0u);",
            "let prev = wg_broadcast + select(0u, wg_reduce[sid], sid != 0u);",
        ),
        "the spine scan's last level skipped": (
            "wgsl",
            "for(var j = lane_count; j <= aligned_size; j <<= lane_log){",
            "for(var j = lane_count; j < aligned_size; j <<= lane_log){",
        ),
    },
)


# -- 2. GPUPrefixSums: reduce then scan, three entry points run as a sequence -----------------
# The same project and commit, SharedShaders/rts.wgsl as written: main.rs runs
# ``reduce`` on ceil(size / 4096) workgroups, ``spine_scan`` on one, ``downsweep`` on
# ceil(size / 4096), with the binding layout above (scan_bump a plain u32 here, unused).

_RTS = """
//****************************************************************************
// GPUPrefixSums
// Reduce then Scan: 
// aka a "Tree Scan" or "Two Level Scan" Reduces values to intermediates,
// which are scanned over then passed into a final downsweep pass.
//
// SPDX-License-Identifier: MIT
// Copyright Thomas Smith 10/23/2024
// https://github.com/b0nes164/GPUPrefixSums
//
//****************************************************************************

struct InfoStruct
{
    size: u32,
    vec_size: u32,
    thread_blocks: u32,
};

@group(0) @binding(0)
var<uniform> info : InfoStruct; 

@group(0) @binding(1)
var<storage, read_write> scan_in: array<vec4<u32>>;

@group(0) @binding(2)
var<storage, read_write> scan_out: array<vec4<u32>>;

@group(0) @binding(3)
var<storage, read_write> scan_bump: u32;

@group(0) @binding(4)
var<storage, read_write> reduction: array<u32>;

@group(0) @binding(5)
var<storage, read_write> misc: array<u32>;

const BLOCK_DIM = 256u;
const MIN_SUBGROUP_SIZE = 4u;
const MAX_REDUCE_SIZE = BLOCK_DIM / MIN_SUBGROUP_SIZE;

const VEC4_SPT = 4u;
const VEC_PART_SIZE = BLOCK_DIM * VEC4_SPT;

const SPINE_SPT = 16u;
const SPINE_PART_SIZE = BLOCK_DIM * SPINE_SPT;

var<workgroup> wg_reduce: array<u32, MAX_REDUCE_SIZE>;

@compute @workgroup_size(BLOCK_DIM, 1, 1)
fn reduce(
    @builtin(local_invocation_id) threadid: vec3<u32>,
    @builtin(subgroup_invocation_id) laneid: u32,
    @builtin(subgroup_size) lane_count: u32,
    @builtin(workgroup_id) wgid: vec3<u32>) {
    
    let sid = threadid.x / lane_count;  //Caution 1D workgoup ONLY! Ok, but technically not in HLSL spec
    let s_offset = laneid + sid * lane_count * VEC4_SPT;
    let dev_offset = wgid.x * VEC_PART_SIZE;
    var i: u32 = s_offset + dev_offset;

    var s_red = 0u;
    if(wgid.x < info.thread_blocks - 1u){
        for(var k = 0u; k < VEC4_SPT; k += 1u){
            let t = scan_in[i];
            s_red += dot(t, vec4(1u, 1u, 1u, 1u));
            i += lane_count;
        }
    }

    if(wgid.x == info.thread_blocks - 1u){
        for(var k = 0u; k < VEC4_SPT; k += 1u){
            let t = select(vec4<u32>(0u, 0u, 0u, 0u), scan_in[i], i < info.vec_size);
            s_red += dot(t, vec4(1u, 1u, 1u, 1u));
            i += lane_count;
        }
    }

    s_red = subgroupAdd(s_red);
    if(laneid == 0u){
        wg_reduce[sid] = s_red;
    }
    workgroupBarrier();

    //Non-divergent subgroup agnostic reduction across subgroup reductions
    let lane_log = u32(countTrailingZeros(lane_count));
    let spine_size = BLOCK_DIM >> lane_log;
    let aligned_size = 1u << ((u32(countTrailingZeros(spine_size)) + lane_log - 1u) / lane_log * lane_log);
    var offset = 0u;
    for(var j = lane_count; j <= aligned_size; j <<= lane_log){
        let i = ((threadid.x + 1u) << offset) - 1u;
        let pred0 = i < spine_size;
        let t = subgroupAdd(select(0u, wg_reduce[i], pred0));
        if(pred0){
            wg_reduce[i] = t;
        }
        workgroupBarrier();
        offset += lane_log;
    }

    if(threadid.x == 0u){
        reduction[wgid.x] = wg_reduce[spine_size - 1u];
    }
}

//Spine unvectorized
@compute @workgroup_size(BLOCK_DIM, 1, 1)
fn spine_scan(
    @builtin(local_invocation_id) threadid: vec3<u32>,
    @builtin(subgroup_invocation_id) laneid: u32,
    @builtin(subgroup_size) lane_count: u32) {
    
    let sid = threadid.x / lane_count;  //Caution 1D workgoup ONLY! Ok, but technically not in HLSL spec
    let lane_log = u32(countTrailingZeros(lane_count));
    let s_offset = laneid + sid * lane_count * SPINE_SPT;
    let local_spine_size = BLOCK_DIM >> lane_log;
    let local_aligned_size = 1u << ((u32(countTrailingZeros(local_spine_size)) + lane_log - 1u) / lane_log * lane_log);
    let aligned_size = (info.thread_blocks + SPINE_PART_SIZE - 1u) / SPINE_PART_SIZE * SPINE_PART_SIZE;
    var t_scan = array<u32, SPINE_SPT>();
    
    var prev_red = 0u;
    for(var dev_offset = 0u; dev_offset < aligned_size; dev_offset += SPINE_PART_SIZE){
        {
            var i = s_offset + dev_offset;
            for(var k = 0u; k < SPINE_SPT; k += 1u){
                if(i < info.thread_blocks){
                    t_scan[k] = reduction[i];
                }
                i += lane_count;
            }
        }

        var prev = 0u;
        for(var k = 0u; k < SPINE_SPT; k += 1u){
            t_scan[k] = subgroupInclusiveAdd(t_scan[k]) + prev;
            prev = subgroupShuffle(t_scan[k], lane_count - 1);
        }

        if(laneid == lane_count - 1u){
            wg_reduce[sid] = prev;
        }
        workgroupBarrier();

        //Non-divergent subgroup agnostic inclusive scan across subgroup reductions
        {   
            var offset0 = 0u;
            var offset1 = 0u;
            for(var j = lane_count; j <= local_aligned_size; j <<= lane_log){
                let i0 = ((threadid.x + offset0) << offset1) - select(0u, 1u, j != lane_count);
                let pred0 = i0 < local_spine_size;
                let t0 = subgroupInclusiveAdd(select(0u, wg_reduce[i0], pred0));
                if(pred0){
                    wg_reduce[i0] = t0;
                }
                workgroupBarrier();

                if(j != lane_count){
                    let rshift = j >> lane_log;
                    let i1 = threadid.x + rshift;
                    if ((i1 & (j - 1u)) >= rshift){
                        let pred1 = i1 < local_spine_size;
                        let t1 = select(0u, wg_reduce[((i1 >> offset1) << offset1) - 1u], pred1);
                        if(pred1 && ((i1 + 1u) & (rshift - 1u)) != 0u){
                            wg_reduce[i1] += t1;
                        }
                    }
                } else {
                    offset0 += 1u;
                }
                offset1 += lane_log;
            }
        }   
        workgroupBarrier();

        {
            let prev = select(0u, wg_reduce[sid - 1u], sid != 0u) + prev_red;
            var i: u32 = s_offset + dev_offset;
            for(var k = 0u; k < SPINE_SPT; k += 1u){
                if(i < info.thread_blocks){
                    reduction[i] = t_scan[k] + prev;
                }
                i += lane_count;
            }
        }

        prev_red += subgroupBroadcast(wg_reduce[local_spine_size - 1u], 0u);
        workgroupBarrier();
    }
}    

@compute @workgroup_size(BLOCK_DIM, 1, 1)
fn downsweep(
    @builtin(local_invocation_id) threadid: vec3<u32>,
    @builtin(subgroup_invocation_id) laneid: u32,
    @builtin(subgroup_size) lane_count: u32,
    @builtin(workgroup_id) wgid: vec3<u32>) {
    
    let sid = threadid.x / lane_count;  //Caution 1D workgoup ONLY! Ok, but technically not in HLSL spec
    var t_scan = array<vec4<u32>, VEC4_SPT>();

    {
        let s_offset = laneid + sid * lane_count * VEC4_SPT;
        let dev_offset = wgid.x * VEC_PART_SIZE;
        var i: u32 = s_offset + dev_offset;

        if(wgid.x < info.thread_blocks- 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                t_scan[k] = scan_in[i];
                t_scan[k].y += t_scan[k].x;
                t_scan[k].z += t_scan[k].y;
                t_scan[k].w += t_scan[k].z;
                i += lane_count;
            }
        }

        if(wgid.x == info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                if(i < info.vec_size){
                    t_scan[k] = scan_in[i];
                    t_scan[k].y += t_scan[k].x;
                    t_scan[k].z += t_scan[k].y;
                    t_scan[k].w += t_scan[k].z;
                }
                i += lane_count;
            }
        }

        var prev = 0u;
        let lane_mask = lane_count - 1u;
        let circular_shift = (laneid + lane_mask) & lane_mask;
        for(var k = 0u; k < VEC4_SPT; k += 1u){
            let t = subgroupShuffle(subgroupInclusiveAdd(t_scan[k].w), circular_shift);
            t_scan[k] += select(0u, t, laneid != 0u) + prev;
            prev += subgroupBroadcast(t, 0u);
        }

        if(laneid == 0u){
            wg_reduce[sid] = prev;
        }
    }
    workgroupBarrier();

    //Non-divergent subgroup agnostic inclusive scan across subgroup reductions
    {   
        var offset0 = 0u;
        var offset1 = 0u;
        let lane_log = u32(countTrailingZeros(lane_count));
        let spine_size = BLOCK_DIM >> lane_log;
        let aligned_size = 1u << ((u32(countTrailingZeros(spine_size)) + lane_log - 1u) / lane_log * lane_log);
        for(var j = lane_count; j <= aligned_size; j <<= lane_log){
            let i0 = ((threadid.x + offset0) << offset1) - offset0;
            let pred0 = i0 < spine_size;
            let t0 = subgroupInclusiveAdd(select(0u, wg_reduce[i0], pred0));
            if(pred0){
                wg_reduce[i0] = t0;
            }
            workgroupBarrier();

            if(j != lane_count){
                let rshift = j >> lane_log;
                let i1 = threadid.x + rshift;
                if ((i1 & (j - 1u)) >= rshift){
                    let pred1 = i1 < spine_size;
                    let t1 = select(0u, wg_reduce[((i1 >> offset1) << offset1) - 1u], pred1);
                    if(pred1 && ((i1 + 1u) & (rshift - 1u)) != 0u){
                        wg_reduce[i1] += t1;
                    }
                }
            } else {
                offset0 += 1u;
            }
            offset1 += lane_log;
        }
    }   
    workgroupBarrier();
    
    {
        let prev = select(0u, reduction[wgid.x - 1u], wgid.x != 0u) + select(0u, wg_reduce[sid - 1u], sid != 0u);
        let s_offset = laneid + sid * lane_count * VEC4_SPT;
        let dev_offset =  wgid.x * VEC_PART_SIZE;
        var i = s_offset + dev_offset;

        if(wgid.x < info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                scan_out[i] = t_scan[k] + prev;
                i += lane_count;
            }
        }

        if(wgid.x == info.thread_blocks - 1u){
            for(var k = 0u; k < VEC4_SPT; k += 1u){
                if(i < info.vec_size){
                    scan_out[i] = t_scan[k] + prev;
                }
                i += lane_count;
            }
        }
    }
}
"""


def _rts_reference(info, scan_in, scan_out, scan_bump, reduction, misc):
    """An inclusive scan of the words (mod 2**32); the spine left holding each
    partition's inclusive total."""
    words = scan_in.astype(np.uint64).reshape(-1)
    total = np.cumsum(words) % 2**32
    scan_out[...] = total.astype(np.uint32).reshape(scan_out.shape)
    blocks = int(info["thread_blocks"])
    ends = np.minimum(np.arange(1, blocks + 1) * _PART, len(words)) - 1
    reduction[:blocks] = total[ends]


_PARTITIONS = lambda s, n: (ceil_div(int(n), _PART), 1, 1)  # noqa: E731

RTS = Wild(
    KernelSpec(
        id="wild_r39_gpuprefixsums_reduce_then_scan_three_passes",
        entry_point="reduce",
        sources={"wgsl": _RTS},
        buffers=_gps_buffers(fill=None),
        reference=_rts_reference,
        params=_info,
        launches=(
            Dispatch("reduce", grid=_PARTITIONS),
            Dispatch("spine_scan", grid=(1, 1, 1)),
            Dispatch("downsweep", grid=_PARTITIONS),
        ),
        schedules=(Schedule(256),),
        # ten partitions: a spine longer than one subgroup (lavapipe's 8 lanes)
        # 33 partitions and more: the spine's carry between its 16 steps shows only past
        # one subgroup's worth of reductions, 32 on NVIDIA (its mutant passed there at 10
        # partitions, H100, 2026-12-06), 4 to 8 on lavapipe
        test_sizes=(4096 * 9 + 4 * 101, 4, 4096 * 2, 4096 * 40 + 4 * 37),
    ),
    {
        "inclusive spine read as exclusive": (
            "wgsl",
            "let prev = select(0u, reduction[wgid.x - 1u], wgid.x != 0u)",
            "let prev = select(0u, reduction[wgid.x], wgid.x != 0u)",
        ),
        "the spine's carry from lane 0": (
            "wgsl",
            "prev = subgroupShuffle(t_scan[k], lane_count - 1);",
            "prev = subgroupShuffle(t_scan[k], 0u);",
        ),
        "the tail read one vector past the end": (
            "wgsl",
            "scan_in[i], i < info.vec_size);",
            "scan_in[i], i <= info.vec_size);",
        ),
        "downsweep drops a vec4's middle carry": (
            "wgsl",
            "t_scan[k].z += t_scan[k].y;",
            "",
        ),
    },
)

# -- 3. arrow-gpu: Arrow arrays of bytes and bits packed into u32 words --------------------------
# psvri/arrow-gpu at 463956cd (MIT or Apache-2.0), as written:
# crates/cast/compute_shaders/f32/cast_u8.wgsl, crates/logical/compute_shaders/u8/shift.wgsl
# and crates/routines/compute_shaders/bool/take.wgsl. A u8 array is its bytes in u32
# words, a boolean array its bits (LSB first); the Rust host (f32_cast.rs, lib.rs,
# bool.rs) creates each output buffer new (WebGPU zeroes it) and dispatches
# ceil(words / 256) workgroups of 256.


def _words(rng, count, size):
    """Whole words, every bit as likely set: a u8 array's bytes, a bitmap's bits (the
    oracle's u32 draws stay below 2**30, so a top byte would be under 64)."""
    return rng.integers(0, 2**32, count, dtype=np.uint32)


_CAST_U8 = """
@group(0)
@binding(0)
var<storage, read> original_values: array<f32>;

@group(0)
@binding(1)
var<storage, read_write> new_values: array<u32>;

@compute
@workgroup_size(256)
fn cast_u8(@builtin(global_invocation_id) global_id: vec3<u32>) {
    if global_id.x < arrayLength(&new_values) {
        let index = 4u * global_id.x;
        let left_byte = u32(original_values[index]) % 256u;
        let mid_left_byte = u32(original_values[index + 1u]) % 256u;
        let mid_right_byte = u32(original_values[index + 2u]) % 256u;
        let right_byte = u32(original_values[index + 3u]) % 256u;
        new_values[global_id.x] = new_values[global_id.x] | left_byte;
        new_values[global_id.x] = new_values[global_id.x] | (mid_left_byte << 8u);
        new_values[global_id.x] = new_values[global_id.x] | (mid_right_byte << 16u);
        new_values[global_id.x] = new_values[global_id.x] | (right_byte << 24u);
    }
}
"""


def _cast_u8_reference(original_values, new_values):
    """Each float to u32 then its low byte, four to a word, first in the low byte."""
    data = original_values.astype(np.uint32) % 256
    new_values[...] = data.astype(np.uint8).view(np.uint32)


CAST_U8 = Wild(
    KernelSpec(
        id="wild_r39_arrow_gpu_cast_f32_to_packed_u8",
        entry_point="cast_u8",
        sources={"wgsl": _CAST_U8},
        buffers=(
            BufferSpec(0, "f32", "read", name="original_values", count=lambda n: 4 * int(n)),
            # ORed into: a buffer WebGPU made, zeroed
            BufferSpec(1, "u32", "read_write", name="new_values", initial=0),
        ),
        reference=_cast_u8_reference,
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1001, 1, 256),
    ),
    {
        "the bytes in big-endian order": (
            "wgsl",
            "new_values[global_id.x] | left_byte;",
            "new_values[global_id.x] | (left_byte << 24u);",
        ),
        "a byte shifted by a nibble": (
            "wgsl",
            "new_values[global_id.x] | (mid_right_byte << 16u);",
            "new_values[global_id.x] | (mid_right_byte << 12u);",
        ),
        "modulo 255": (
            "wgsl",
            "u32(original_values[index + 1u]) % 256u;",
            "u32(original_values[index + 1u]) % 255u;",
        ),
    },
)

_SHIFT_U8 = """
@group(0)
@binding(0)
var<storage, read> left_values: array<u32>;

@group(0)
@binding(1)
var<storage, read> right_values: array<u32>;

@group(0)
@binding(2)
var<storage, read_write> new_values: array<u32>;

@compute
@workgroup_size(256)
fn bitwise_shl(@builtin(global_invocation_id) global_id: vec3<u32>) {
    if global_id.x < arrayLength(&new_values) {
        let lhs = unpack4xU8(left_values[global_id.x]);
        let index_pos = (global_id.x * 4u);
        let rhs = vec4(
            right_values[index_pos], 
            right_values[index_pos + 1], 
            right_values[index_pos + 2], 
            right_values[index_pos + 3]
        );

        new_values[global_id.x] = pack4xU8(lhs << rhs);
    }
}

@compute
@workgroup_size(256)
fn bitwise_shr(@builtin(global_invocation_id) global_id: vec3<u32>) {
    if global_id.x < arrayLength(&new_values) {
        let lhs = unpack4xU8(left_values[global_id.x]);
        let index_pos = (global_id.x * 4u);
        let rhs = vec4(
            right_values[index_pos], 
            right_values[index_pos + 1], 
            right_values[index_pos + 2], 
            right_values[index_pos + 3]
        );

        new_values[global_id.x] = pack4xU8(lhs >> rhs);
    }
}
"""


def _shl_u8_reference(left_values, right_values, new_values):
    """Each byte shifted left by its own u32 amount (WGSL takes it modulo 32), cut to
    its low byte by ``pack4xU8``."""
    lhs = left_values.view(np.uint8).astype(np.uint64)
    rhs = right_values.astype(np.uint64) % 32
    new_values[...] = ((lhs << rhs) & 0xFF).astype(np.uint8).view(np.uint32)


SHL_U8 = Wild(
    KernelSpec(
        id="wild_r39_arrow_gpu_u8_shift_left_unpack4xu8",
        entry_point="bitwise_shl",
        sources={"wgsl": _SHIFT_U8},
        buffers=(
            BufferSpec(0, "u32", "read", name="left_values", fill=_words),
            BufferSpec(1, "u32", "read", name="right_values", count=lambda n: 4 * int(n)),
            BufferSpec(2, "u32", "read_write", name="new_values"),
        ),
        reference=_shl_u8_reference,
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(1001, 1, 256),
    ),
    {
        "shifts the other way": (
            "wgsl",
            "new_values[global_id.x] = pack4xU8(lhs << rhs);",
            "new_values[global_id.x] = pack4xU8(lhs >> rhs);",
        ),
        "one amount for the word": (
            "wgsl",
            "right_values[index_pos + 3]\n        );\n\n        new_values[global_id.x] = pack4xU8(lhs << rhs);",
            "right_values[index_pos + 3]\n        );\n\n        new_values[global_id.x] = pack4xU8(lhs << vec4(rhs.x));",
        ),
        "packed saturating": (
            "wgsl",
            "new_values[global_id.x] = pack4xU8(lhs << rhs);",
            "new_values[global_id.x] = pack4xU8Clamp(lhs << rhs);",
        ),
    },
)

_TAKE_BOOL = """
@group(0)
@binding(0)
var<storage, read> left_values: array<u32>;

@group(0)
@binding(1)
var<storage, read> indexes: array<u32>;

@group(0)
@binding(2)
var<storage, read_write> new_values: array<u32>;

@compute
@workgroup_size(256)
fn take(@builtin(global_invocation_id) global_id: vec3<u32>) {
    if global_id.x < arrayLength(&new_values) {
        let start_index = global_id.x * 32u;
        var result = 0u;
        for (var i = 0u; (i < 32u) && ((start_index + i) < arrayLength(&indexes)); i++) {
            let index = indexes[start_index + i];
            let base_src_index = index / 32u;
            let src_index = index % 32u;
            var value = left_values[base_src_index] & (1u << src_index);
            if src_index > i {
                value = value >> (src_index - i);
            } else {
                value = value << (i - src_index);
            }
            result = result | value;
        }
        new_values[global_id.x] = result;
    }
}
"""


def _take_bool_reference(left_values, indexes, new_values):
    """Arrow's take on a bitmap: bit i of the result is bit ``indexes[i]`` of the
    source, 32 to a word, the last word's spare bits 0."""
    bits = np.unpackbits(left_values.view(np.uint8), bitorder="little").astype(bool)
    taken = np.zeros(len(new_values) * 32, bool)
    taken[: len(indexes)] = bits[indexes]
    new_values[...] = np.packbits(taken, bitorder="little").view(np.uint32)


def _bit_indexes(rng, count, size):
    """Indexes into the source's bits (32 a word): any order, repeats allowed."""
    return rng.integers(0, 32 * _take_words(size), count, dtype=np.uint32)


def _take_words(size) -> int:
    return ceil_div(int(size), 32) + 3


TAKE_BOOL = Wild(
    KernelSpec(
        id="wild_r39_arrow_gpu_take_bitmap",
        entry_point="take",
        sources={"wgsl": _TAKE_BOOL},
        buffers=(
            BufferSpec(0, "u32", "read", name="left_values", count=_take_words, fill=_words),
            BufferSpec(1, "u32", "read", name="indexes", fill=_bit_indexes),
            BufferSpec(
                2, "u32", "read_write", name="new_values", count=lambda n: ceil_div(int(n), 32)
            ),
        ),
        reference=_take_bool_reference,
        grid=lambda s, n: (ceil_div(ceil_div(int(n), 32), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 64),
    ),
    {
        "shifts the bit the wrong way": (
            "wgsl",
            "if src_index > i {",
            "if src_index < i {",
        ),
        "the word from the bit's index": (
            "wgsl",
            "let base_src_index = index / 32u;",
            "let base_src_index = index % 32u;",
        ),
        "31 bits a word": (
            "wgsl",
            "let start_index = global_id.x * 32u;",
            "let start_index = global_id.x * 31u;",
        ),
    },
)


ROUND39: dict = {w.kernel.id: w for w in (CSDLDF, RTS, CAST_U8, SHL_U8, TAKE_BOOL)}
