"""Round 75 of the wild kernels: a PyTorch extension as PyTorch's own tutorial writes
it, every tensor a ``torch::PackedTensorAccessor32`` by value.

- LLTM's forward kernel (pytorch/extension-cpp, BSD 3-clause, ``lltm_cuda_kernel.cu``;
  the "Custom C++ and CUDA Extensions" tutorial): ``lltm_cuda_forward_kernel<scalar_t>``
  takes seven accessors (the gates 3-D, the rest 2-D), indexes them as
  ``gates[n][0][c]``, bounds its columns by ``gates.size(2)``, and its ``sigmoid`` and
  ``elu`` compute in double where a literal is double (``1.0 / (1.0 + exp(-z))``). The
  whole ``.cu`` file is given as the tutorial lays it out, ``<torch/extension.h>``, the
  ``AT_DISPATCH_FLOATING_TYPES`` launcher with its 1024 threads and ``(state / 1024,
  batch)`` blocks and all: NVRTC compiles its device part. Read, not copied: the
  entry point, parameters, launch shape, idioms and numerics are theirs; the comments,
  helper names and formatting ours. The launcher's matmul (``torch::addmm``) is the
  host's: the gates are this kernel's input.

Until this round a kernel taking accessors could not be declared: NVRTC has no ATen, and
torchaudio's forced-alignment step (round 66) was rewritten with raw pointers. Now
``forge.arguments`` gives each accessor parameter the buffer of its name, packed as
ATen lays a ``GenericPackedTensorAccessor`` out (the data pointer, then its sizes and
C-order strides in the index type: ``forge.arguments.accessor_bytes``) from the buffer's
declared ``shape``, and NVRTC gets a header with the accessors, ``at::Half`` and the C10
macros (``backends/cuda/_headers.py``). NVRTC's PTX declares each 2-D accessor 24 bytes
and the 3-D one 32, as packed.

For the GPU run to confirm: the original passes on CUDA (the accessors' bytes as the
kernel reads them), and each mutant fails.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

_LLTM = r"""// kernel-forge corpus: LLTM's forward pass as PyTorch's extension tutorial writes it
// (pytorch/extension-cpp, lltm_cuda_kernel.cu), read, not copied.
#include <torch/extension.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <vector>

namespace {
template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) {
  return 1.0 / (1.0 + exp(-z));
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t elu(scalar_t z, scalar_t alpha = 1.0) {
  return fmax(0.0, z) + fmin(0.0, alpha * (exp(z) - 1.0));
}

template <typename scalar_t>
__global__ void lltm_cuda_forward_kernel(
    const torch::PackedTensorAccessor32<scalar_t,3,torch::RestrictPtrTraits> gates,
    const torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> old_cell,
    torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> new_h,
    torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> new_cell,
    torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> input_gate,
    torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> output_gate,
    torch::PackedTensorAccessor32<scalar_t,2,torch::RestrictPtrTraits> candidate_cell) {
  // the batch row
  const int n = blockIdx.y;
  // the state column
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < gates.size(2)) {
    input_gate[n][c] = sigmoid(gates[n][0][c]);
    output_gate[n][c] = sigmoid(gates[n][1][c]);
    candidate_cell[n][c] = elu(gates[n][2][c]);
    new_cell[n][c] = old_cell[n][c] + candidate_cell[n][c] * input_gate[n][c];
    new_h[n][c] = tanh(new_cell[n][c]) * output_gate[n][c];
  }
}
} // namespace

std::vector<torch::Tensor> lltm_cuda_forward(
    torch::Tensor input,
    torch::Tensor weights,
    torch::Tensor bias,
    torch::Tensor old_h,
    torch::Tensor old_cell) {
  auto X = torch::cat({old_h, input}, /*dim=*/1);
  auto gate_weights = torch::addmm(bias, X, weights.transpose(0, 1));

  const auto batch_size = old_cell.size(0);
  const auto state_size = old_cell.size(1);

  auto gates = gate_weights.reshape({batch_size, 3, state_size});
  auto new_h = torch::zeros_like(old_cell);
  auto new_cell = torch::zeros_like(old_cell);
  auto input_gate = torch::zeros_like(old_cell);
  auto output_gate = torch::zeros_like(old_cell);
  auto candidate_cell = torch::zeros_like(old_cell);

  const int threads = 1024;
  const dim3 blocks((state_size + threads - 1) / threads, batch_size);

  AT_DISPATCH_FLOATING_TYPES(gates.type(), "lltm_forward_cuda", ([&] {
    lltm_cuda_forward_kernel<scalar_t><<<blocks, threads>>>(
        gates.packed_accessor32<scalar_t,3,torch::RestrictPtrTraits>(),
        old_cell.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>(),
        new_h.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>(),
        new_cell.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>(),
        input_gate.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>(),
        output_gate.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>(),
        candidate_cell.packed_accessor32<scalar_t,2,torch::RestrictPtrTraits>());
  }));

  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gates};
}
"""


def _lltm_forward(gates, old_cell, new_h, new_cell, input_gate, output_gate, candidate_cell):
    """The kernel's pointwise step in float64, each output rounded to float32 where the
    kernel stores it (later steps read the stored values)."""
    g = gates.astype(np.float64)
    f32 = np.float32
    input_gate[:] = (1.0 / (1.0 + np.exp(-g[:, 0]))).astype(f32)
    output_gate[:] = (1.0 / (1.0 + np.exp(-g[:, 1]))).astype(f32)
    z = g[:, 2]
    candidate_cell[:] = (np.maximum(0.0, z) + np.minimum(0.0, np.exp(z) - 1.0)).astype(f32)
    cell = old_cell.astype(np.float64) + candidate_cell.astype(np.float64) * input_gate
    new_cell[:] = cell.astype(f32)
    new_h[:] = (np.tanh(new_cell.astype(np.float64)) * output_gate).astype(f32)


_OUTPUTS = ("new_h", "new_cell", "input_gate", "output_gate", "candidate_cell")

LLTM_FORWARD = Wild(
    KernelSpec(
        id="wild_r75_pytorch_extension_lltm_forward_accessors",
        entry_point="lltm_cuda_forward_kernel<float>",
        sources={"cuda": _LLTM},
        dims=("B", "S"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="gates", count="B*3*S", shape=("B", 3, "S"), fill=(-4.0, 4.0)
            ),
            BufferSpec(1, "f32", "read", name="old_cell", count="B*S", shape=("B", "S")),
            *(
                BufferSpec(2 + i, "f32", "read_write", name=name, count="B*S", shape=("B", "S"))
                for i, name in enumerate(_OUTPUTS)
            ),
        ),
        reference=_lltm_forward,
        grid=lambda sch, size: (ceil_div(int(size.S), 1024), int(size.B), 1),
        schedules=(Schedule(1024),),
        # two blocks of columns, the second partial; a batch of one
        test_sizes=("4x1500", "1x300"),
    ),
    {
        "the candidate read from the output gate's row": (
            "cuda",
            "candidate_cell[n][c] = elu(gates[n][2][c]);",
            "candidate_cell[n][c] = elu(gates[n][1][c]);",
        ),
        "columns bounded by the gates' second size": (
            "cuda",
            "if (c < gates.size(2)) {",
            "if (c < gates.size(1)) {",
        ),
        "ELU's negative branch without its minus one": (
            "cuda",
            "fmin(0.0, alpha * (exp(z) - 1.0))",
            "fmin(0.0, alpha * exp(z))",
        ),
        "the cell's update read from the new cell": (
            "cuda",
            "new_cell[n][c] = old_cell[n][c] + candidate_cell[n][c] * input_gate[n][c];",
            "new_cell[n][c] = new_cell[n][c] + candidate_cell[n][c] * input_gate[n][c];",
        ),
    },
)


ROUND75 = {w.kernel.id: w for w in (LLTM_FORWARD,)}
