# kiln_add_library(name SOURCES... [DEPENDS tgt...] [LINK_LIBS lib...])
# Every Kiln library is a static archive of Kiln code that links the shared
# libMLIR.so / libLLVM.so (one linking model for all targets).
function(kiln_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()
