# pit_add_library(<name> <sources>... [DEPENDS <targets>...] [LINK_LIBS <libs>...])
#
# A static, position-independent library of the project. It links MLIR through
# libMLIR.so (the `MLIR` target), so the same archive can go into pit-opt, the
# plugins loaded by Debian's mlir-opt, and an embedding compiler. Every library
# joins the PITTargets export set that the installed CMake package exposes.
function(pit_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  add_library(PIT::${name} ALIAS ${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  # Public headers include MLIR's, so consumers need its include directories.
  target_include_directories(${name} SYSTEM PUBLIC
    ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  set_property(GLOBAL APPEND PROPERTY PIT_LIBRARIES ${name})
  install(TARGETS ${name} EXPORT PITTargets
    ARCHIVE DESTINATION lib
    LIBRARY DESTINATION lib)
endfunction()
