"""nqanalysis: inspect, verify, plot and export nqueens HDF5 result files
(schema: the "Result file (HDF5)" section of the project's README.md)."""

__version__ = "0.1.0"
