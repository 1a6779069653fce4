"""examrag: a local, offline study assistant over a student's own exam material."""

__version__ = "0.1.0"
