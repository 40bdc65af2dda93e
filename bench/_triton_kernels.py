"""Triton kernels for P11, written the way Triton's tutorials write them: one program
per row holding the whole row in registers (softmax, rmsnorm, layernorm; the tutorial's
fused softmax), a 1-D block per program for the elementwise gelu. Each loads its dtype
(fp32, fp16 or bf16: the tensors' own), computes in fp32 and stores in the output's
dtype, as the library's low-precision kernels do. Imported only when P11 runs (it needs
triton and a GPU)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _softmax(y_ptr, x_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * cols + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rmsnorm(y_ptr, x_ptr, w_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    tl.store(y_ptr + row * cols + offs, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _layernorm(y_ptr, x_ptr, w_ptr, b_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / cols
    centred = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = centred * rstd * w + b
    tl.store(y_ptr + row * cols + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _gelu(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _warps(block: int) -> int:
    # The tutorial's rule: more warps for longer rows.
    return 32 if block >= 16384 else 16 if block >= 4096 else 8 if block >= 2048 else 4


def run(op: str, x, y, weights: dict, eps: float) -> None:
    """``y = op(x)`` for a (rows, cols) torch tensor ``x`` on the GPU."""
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    if op == "softmax":
        _softmax[(rows,)](y, x, cols, BLOCK=block, num_warps=_warps(block))
    elif op == "rmsnorm":
        _rmsnorm[(rows,)](y, x, weights["w"], cols, eps, BLOCK=block, num_warps=_warps(block))
    elif op == "layernorm":
        _layernorm[(rows,)](
            y, x, weights["gamma"], weights["beta"], cols, eps, BLOCK=block, num_warps=_warps(block)
        )
    elif op == "gelu":
        n = rows * cols
        _gelu[(triton.cdiv(n, 1024),)](y, x, n, BLOCK=1024, num_warps=4)
    else:
        raise ValueError(f"no Triton {op}")
