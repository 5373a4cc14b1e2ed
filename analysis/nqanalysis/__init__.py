"""nqanalysis: inspect, verify, plot and export nqueens HDF5 result files (docs/contract.md)."""

__version__ = "0.1.0"
