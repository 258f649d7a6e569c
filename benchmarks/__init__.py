"""pujax benchmarks: one script per method (``python -m benchmarks.<name>``), results in ``benchmarks/results/``."""
