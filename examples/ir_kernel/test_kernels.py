"""The IR kernel judged on every backend by the ``forge_oracle`` fixture (the pytest
plugin is active once kernel-forge is installed): run ``pytest examples/ir_kernel``."""

from kernels import SCALED_SILU


def test_scaled_silu_matches_numpy(forge_oracle):
    evaluation = forge_oracle(SCALED_SILU, size=4099)
    assert evaluation.max_ulp <= 48
