"""The OracleContext contract and the generic code that drives it."""

from .contract import TIMING_SOURCES, OracleContext

__all__ = ["OracleContext", "TIMING_SOURCES"]
