"""Benchmarks of dppca: ``python -m benchmarks --list`` lists the suites, ``python -m benchmarks
SUITE [args]`` runs one and writes its table, with where it came from, to ``results/``."""
