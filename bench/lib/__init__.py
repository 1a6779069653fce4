"""What the benchmarks share: paths and machine facts (common), the synthetic scale-up (synth), the cold-ask probe run in a fresh process (cold_probe)."""
