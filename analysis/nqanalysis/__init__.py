"""nqanalysis: inspect, verify, plot and export nqueens HDF5 result files
(schema: the project's docs/file-format.md)."""

__version__ = "0.1.0"
