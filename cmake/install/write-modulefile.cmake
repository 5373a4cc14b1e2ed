# Install-time half of cmake/Install.cmake (runs inside cmake_install.cmake): writes the
# modulefile template NQ_MODULEFILE_TEMPLATE to PREFIX/NQ_MODULEFILE with the prefix filled in.
get_filename_component(NQUEENS_PREFIX "${CMAKE_INSTALL_PREFIX}" ABSOLUTE)
set(_dest "$ENV{DESTDIR}${NQUEENS_PREFIX}/${NQ_MODULEFILE}")
message(STATUS "Installing: ${_dest}")
configure_file("${NQ_MODULEFILE_TEMPLATE}" "${_dest}" @ONLY)
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${_dest}")
