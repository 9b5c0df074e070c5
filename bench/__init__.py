"""Hand-run benchmarks for claw (not part of the test suite); see bench/README.md."""
