"""Reports: tables from data dirs and results files; benchmarks_md rewrites the generated blocks of BENCHMARKS.md."""
