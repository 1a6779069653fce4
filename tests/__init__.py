"""The test suite. A package so bench/ can import the helpers it shares with it (``tests.cluster.cluster_helpers``,
``tests.serve.serve_helpers``) by name; the test folders themselves are not packages, so pytest imports their
modules and helpers by file name, as before."""
