"""Rigs, simulated humans and service helpers shared by the tests and the benchmarks."""
