"""examrag's benchmarks: measurements, not tests (nothing here asserts a time). Run from the repo root:

    python -m bench                     list them
    python -m bench NAME [ARGS…]        run one (``python -m bench NAME --help`` for its options)

Layout: the benchmarks are the modules of this folder; ``reports/`` turns data dirs and results into
tables (``reports.benchmarks_md`` rewrites BENCHMARKS.md's generated blocks); ``prototypes/`` measure
ideas the pipeline does not use; ``lib/`` holds what they share (paths, timing, tables, the synthetic
scale-up). Results go to ``bench/results/<name>.json``; ``run_all.sh`` runs the usual set in order,
``compare_revisions.sh`` checks that a refactor changes no output. The test helpers a benchmark needs
are imported from ``tests`` (``tests.cluster.cluster_helpers``, ``tests.serve.serve_helpers``).
"""
