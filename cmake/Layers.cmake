# One include root per layer, so the build enforces the layering (docs/design.md).
#
# nq_layer(TARGET LAYER), called in src/LAYER/CMakeLists.txt, gives TARGET the include root
# build/include/LAYER, which holds one entry: LAYER -> src/LAYER. Sources keep writing `#include "core/board.h"`, but a target sees only the
# roots of itself and of the layers it links, so `#include "store/h5.h"` in a core file does not
# compile. nq_layer_check(LAYER) compiles every header of LAYER on its own against the target's
# roots and dependencies (each header is self-contained and includes nothing from a layer above it).
set(NQ_LAYER_ROOT "${CMAKE_BINARY_DIR}/include")

function(nq_layer target layer)
  set(root "${NQ_LAYER_ROOT}/${layer}")
  file(MAKE_DIRECTORY "${root}")
  # Made anew at every configure, so a build tree never keeps a link into another source tree.
  file(REMOVE "${root}/${layer}")
  file(CREATE_LINK "${CMAKE_CURRENT_SOURCE_DIR}" "${root}/${layer}" SYMBOLIC)
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${root}>")
  set_property(GLOBAL APPEND PROPERTY NQ_LAYERS ${layer})
  set_property(GLOBAL PROPERTY NQ_LAYER_TARGET_${layer} ${target})
  set_property(GLOBAL PROPERTY NQ_LAYER_DIR_${layer} "${CMAKE_CURRENT_SOURCE_DIR}")
endfunction()

# An object library that compiles each header of LAYER in a translation unit of its own, with
# the include roots and dependencies of LAYER's target only. Part of the default build: a header that reaches up a
# layer fails the build, not a review.
function(nq_layer_check layer)
  get_property(target GLOBAL PROPERTY NQ_LAYER_TARGET_${layer})
  get_property(source_dir GLOBAL PROPERTY NQ_LAYER_DIR_${layer})
  file(GLOB headers RELATIVE "${source_dir}" CONFIGURE_DEPENDS "${source_dir}/*.h")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/layer_check")
  set(sources "")
  foreach(h IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${h}" id)
    set(src "${dir}/${id}.cpp")
    set(text "#include \"${layer}/${h}\"  // compiled alone: self-contained, no layer above\n")
    if(EXISTS "${src}")
      file(READ "${src}" old)
    else()
      set(old "")
    endif()
    if(NOT old STREQUAL text)
      file(WRITE "${src}" "${text}")
    endif()
    list(APPEND sources "${src}")
  endforeach()
  add_library(nq_layer_check_${layer} OBJECT ${sources})
  # The target's own dependencies, private ones included (store's internal headers use HDF5),
  # and nothing else: the roots of the layers above are not among them.
  target_link_libraries(nq_layer_check_${layer} PRIVATE ${target}
    "$<TARGET_PROPERTY:${target},LINK_LIBRARIES>")
endfunction()
