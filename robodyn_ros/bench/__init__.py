"""Benchmarks: the dynamics' timings, startup and heap (``robodyn bench``), the loop across
processes (``robodyn bench --loop``) and the synthetic bags the validation benchmark reads.
Results are reported in docs/benchmarks.md, each with the command that reproduces it."""
