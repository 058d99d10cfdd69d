# `cmake --install BUILD --prefix PREFIX`: the programs in bin/, what they read at run time in
# share/galapagos/ (found relative to bin/, so the prefix can be moved whole), the kernel ABI
# header in include/galapagos/, and a package configuration in lib/cmake/galapagos/ so another
# CMake project can `find_package(galapagos)` and build kernels against galapagos::kernel_abi.
include(CMakePackageConfigHelpers)

# The C entry point every candidate and baseline exports (kernels/include/glp_kernel.h).
add_library(galapagos_kernel_abi INTERFACE)
add_library(galapagos::kernel_abi ALIAS galapagos_kernel_abi)
set_target_properties(galapagos_kernel_abi PROPERTIES EXPORT_NAME kernel_abi)
target_include_directories(galapagos_kernel_abi INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/kernels/include>
                                                          $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/galapagos>)

install(TARGETS galapagos galapagos-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS galapagos_kernel_abi EXPORT galapagos_targets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/galapagos)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/configs DESTINATION ${GALAPAGOS_INSTALL_DATADIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/slurm/ DESTINATION ${GALAPAGOS_INSTALL_DATADIR}/slurm USE_SOURCE_PERMISSIONS)
# The Python package's sources (report, loader, compare), which `galapagos report` and `compare`
# put on PYTHONPATH when their interpreter has no galapagos installed, and which a user may
# `pip install` (docs/install.md); the tools a user of results runs (summaries, exports to other
# tuners), not the developer's scripts (build, tests, dependencies).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION ${GALAPAGOS_INSTALL_DATADIR}/python PATTERN __pycache__ EXCLUDE
        PATTERN build EXCLUDE PATTERN *.egg-info EXCLUDE)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/summarize_results.py ${PROJECT_SOURCE_DIR}/tools/export_tuner_formats.py
        DESTINATION ${GALAPAGOS_INSTALL_DATADIR}/tools)

# Bash completion of the subcommands and their options, where bash-completion looks for it.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/bash-completion/galapagos DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

set(GALAPAGOS_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/galapagos")
install(EXPORT galapagos_targets NAMESPACE galapagos:: FILE galapagos-targets.cmake DESTINATION ${GALAPAGOS_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/galapagos-config.cmake.in
                              ${CMAKE_BINARY_DIR}/generated/galapagos-config.cmake INSTALL_DESTINATION ${GALAPAGOS_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_BINDIR GALAPAGOS_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/galapagos-config-version.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/galapagos-config.cmake ${CMAKE_BINARY_DIR}/generated/galapagos-config-version.cmake
        DESTINATION ${GALAPAGOS_INSTALL_CMAKEDIR})
