# Finds Debian's Kokkos and Kokkos Kernels, which Debian ships inside Trilinos
# (libtrilinos-kokkos-dev, libtrilinos-kokkos-kernels-dev). Their own CMake package points at a
# non-existent /usr/lib/include, so this module locates headers and libraries directly.
#
# Provides:
#   TrilinosKokkos_FOUND, TrilinosKokkos_INCLUDE_DIR, TrilinosKokkos_LIBRARIES (core + containers),
#   TrilinosKokkos_KERNELS_LIBRARY
#   imported targets galapagos::kokkos and galapagos::kokkoskernels
include(FindPackageHandleStandardArgs)

find_path(TrilinosKokkos_INCLUDE_DIR Kokkos_Core.hpp
  HINTS ${TrilinosKokkos_ROOT}/include ENV TrilinosKokkos_ROOT
  PATH_SUFFIXES trilinos include/trilinos)
find_library(TrilinosKokkos_CORE_LIBRARY NAMES trilinos_kokkoscore kokkoscore
  HINTS ${TrilinosKokkos_ROOT}/lib ENV TrilinosKokkos_ROOT PATH_SUFFIXES x86_64-linux-gnu)
find_library(TrilinosKokkos_CONTAINERS_LIBRARY NAMES trilinos_kokkoscontainers kokkoscontainers
  HINTS ${TrilinosKokkos_ROOT}/lib ENV TrilinosKokkos_ROOT PATH_SUFFIXES x86_64-linux-gnu)
find_library(TrilinosKokkos_KERNELS_LIBRARY NAMES trilinos_kokkoskernels kokkoskernels
  HINTS ${TrilinosKokkos_ROOT}/lib ENV TrilinosKokkos_ROOT PATH_SUFFIXES x86_64-linux-gnu)

find_package_handle_standard_args(TrilinosKokkos
  REQUIRED_VARS TrilinosKokkos_INCLUDE_DIR TrilinosKokkos_CORE_LIBRARY
                TrilinosKokkos_CONTAINERS_LIBRARY TrilinosKokkos_KERNELS_LIBRARY)

if(TrilinosKokkos_FOUND)
  set(TrilinosKokkos_LIBRARIES ${TrilinosKokkos_CORE_LIBRARY} ${TrilinosKokkos_CONTAINERS_LIBRARY})
  if(NOT TARGET galapagos::kokkos)
    add_library(galapagos::kokkos INTERFACE IMPORTED)
    set_target_properties(galapagos::kokkos PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TrilinosKokkos_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${TrilinosKokkos_LIBRARIES};dl")
    add_library(galapagos::kokkoskernels INTERFACE IMPORTED)
    set_target_properties(galapagos::kokkoskernels PROPERTIES
      INTERFACE_LINK_LIBRARIES "${TrilinosKokkos_KERNELS_LIBRARY};galapagos::kokkos")
  endif()
endif()
mark_as_advanced(TrilinosKokkos_INCLUDE_DIR TrilinosKokkos_CORE_LIBRARY
                 TrilinosKokkos_CONTAINERS_LIBRARY TrilinosKokkos_KERNELS_LIBRARY)
