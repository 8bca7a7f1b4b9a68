# `cmake --install` lays out a package that another MLIR compiler consumes with
# find_package(PIT CONFIG): headers, generated .inc files, the static
# libraries, pit-opt, the plugins, and PITConfig.cmake with the PIT:: targets.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/PIT include/PIT-c include/PIT-runtime
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/PIT
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h")

install(EXPORT PITTargets
  NAMESPACE PIT::
  DESTINATION lib/cmake/pit)

configure_package_config_file(cmake/PITConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/pit/PITConfig.cmake
  INSTALL_DESTINATION lib/cmake/pit)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/pit/PITConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/pit/PITConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/pit/PITConfigVersion.cmake
  DESTINATION lib/cmake/pit)
