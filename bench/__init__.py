"""The benchmark suite of docs/PERFORMANCE.md: ``python -m bench`` from the repository root
(this package is not installed). Each target, P1 to P8, is measured against a baseline
measured in the same process on the same GPU, and printed as one table.

Inside: ``_report`` (rows, goals, ratios, byte and flop counts, the tables: pure, and
tested in CI), ``_timing`` (CUDA and torch events, the host clock, interleaving),
``_env`` (sizes and what the sections share), ``_workload`` (inputs, views, the
schedules tried, output checks), and one module per group of targets: ``_cuda`` (P1,
P3, P4), ``_wgpu`` (P2, P6), ``_harness`` (P5, P7), ``_compile`` (P8).
"""

from ._cli import SECTIONS, main

__all__ = ["SECTIONS", "main"]
