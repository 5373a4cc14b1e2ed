# `cmake --install BUILD --prefix P`: what an HPC site installs and loads (docs/install.md).
#   P/bin/nqueens                          the program
#   P/bin/nqanalyze                        the analysis launcher (analysis/nqanalyze)
#   P/lib/nqueens/python/nqanalysis        the analysis package, with a copy of known-counts.tsv
#   P/share/nqueens/jobs/*.toml            the job examples
#   P/share/nqueens/slurm/                 submit, the sbatch scripts and their README
#   P/share/modulefiles/nqueens/VERSION    a Tcl modulefile (Environment Modules and Lmod)
# The layout is fixed: nqanalyze finds the package at ../lib/nqueens/python, and slurm/submit
# finds the binary at ../../../bin/nqueens. tests/install installs into a temporary prefix and
# runs a job through the modulefile.
set(NQ_PYTHON_DIR lib/nqueens/python)
set(NQ_SHARE_DIR share/nqueens)

# The installed binary keeps the run paths of the libraries it was linked against outside the
# build tree (a site's MPI and HDF5 modules), so it runs without their LD_LIBRARY_PATH.
set_target_properties(nqueens PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS nqueens RUNTIME DESTINATION bin)
install(PROGRAMS analysis/nqanalyze DESTINATION bin)
install(DIRECTORY analysis/nqanalysis DESTINATION ${NQ_PYTHON_DIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# The package's known-counts.tsv is a symlink into data/ in the source tree: install the file.
install(FILES data/known-counts.tsv DESTINATION ${NQ_PYTHON_DIR}/nqanalysis)
install(DIRECTORY jobs/ DESTINATION ${NQ_SHARE_DIR}/jobs FILES_MATCHING PATTERN "*.toml")
install(PROGRAMS slurm/submit slurm/nqueens.sbatch slurm/sweep.sbatch slurm/shard.sbatch
  slurm/merge.sbatch DESTINATION ${NQ_SHARE_DIR}/slurm)
install(FILES slurm/README.md DESTINATION ${NQ_SHARE_DIR}/slurm)

# The modulefile names the prefix, which is known only at install time (--prefix): written then.
install(CODE "set(NQ_MODULEFILE_TEMPLATE \"${CMAKE_CURRENT_LIST_DIR}/install/modulefile.tcl.in\")
set(NQ_MODULEFILE \"share/modulefiles/nqueens/${PROJECT_VERSION}\")
set(NQUEENS_VERSION \"${PROJECT_VERSION}\")")
install(SCRIPT cmake/install/write-modulefile.cmake)
