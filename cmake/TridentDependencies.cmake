# Finds (never vendors) trident's dependencies and exposes them as targets:
#   Kokkos::kokkos, trident::kokkoskernels, MPI::MPI_CXX, trident::hdf5, trident::fft, yaml-cpp.

# --- Kokkos: in-tree from a source folder the user names, or an installed package ---
if(TRIDENT_KOKKOS_SOURCE_DIR)
  if(NOT EXISTS "${TRIDENT_KOKKOS_SOURCE_DIR}/CMakeLists.txt")
    message(FATAL_ERROR "TRIDENT_KOKKOS_SOURCE_DIR=${TRIDENT_KOKKOS_SOURCE_DIR} holds no Kokkos source tree")
  endif()
  add_subdirectory(${TRIDENT_KOKKOS_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/kokkos)
  # An installed Kokkos publishes the language it compiles as (Kokkos_COMPILE_LANGUAGE, from
  # KokkosConfig.cmake); an in-tree one keeps it in its own directory scope. Kokkos Kernels
  # marks its sources with that variable, so without it an in-tree Kokkos Kernels compiles
  # its CUDA code as plain C++ ("the compiler is not defining the __CUDACC__ macro").
  if(Kokkos_ENABLE_CUDA AND Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE)
    set(Kokkos_COMPILE_LANGUAGE CUDA)
  endif()
  # Kokkos keeps its version in its own directory scope: read it from its sources.
  file(STRINGS "${TRIDENT_KOKKOS_SOURCE_DIR}/CMakeLists.txt" _kokkos_version_lines
       REGEX "set\\(Kokkos_VERSION_(MAJOR|MINOR|PATCH) [0-9]+\\)")
  string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3"
         TRIDENT_KOKKOS_VERSION "${_kokkos_version_lines}")
else()
  find_package(Kokkos REQUIRED)
  set(TRIDENT_KOKKOS_VERSION ${Kokkos_VERSION})
  include(TridentKokkosIncludes)
  trident_fix_kokkos_includes()  # Debian's Kokkos 3.4 names a folder that does not exist
endif()
if(TRIDENT_KOKKOS_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "trident needs Kokkos 3.4 or newer; found ${TRIDENT_KOKKOS_VERSION}")
endif()

# Kokkos with CUDA compiled "as a CMake language": our Kokkos sources must be compiled as CUDA.
set(TRIDENT_KOKKOS_CUDA OFF)
if("CUDA" IN_LIST Kokkos_DEVICES OR Kokkos_ENABLE_CUDA)
  set(TRIDENT_KOKKOS_CUDA ON)
endif()
if(TRIDENT_KOKKOS_CUDA AND (Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA" OR Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE))
  enable_language(CUDA)
  set(TRIDENT_COMPILE_AS_CUDA ON)
else()
  set(TRIDENT_COMPILE_AS_CUDA OFF)
endif()

# --- Kokkos Kernels: Debian's Trilinos build names its target trilinos_kokkoskernels ---
if(TRIDENT_KOKKOSKERNELS_SOURCE_DIR)
  set(KokkosKernels_VERSION "in-tree")
  add_subdirectory(${TRIDENT_KOKKOSKERNELS_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/kokkos-kernels)
else()
  # Look beside Kokkos first: a CUDA Kokkos must not pick up a system (host-only) Kokkos Kernels.
  find_package(KokkosKernels REQUIRED HINTS ${Kokkos_ROOT} $ENV{Kokkos_ROOT} ${Kokkos_DIR}/../../..)
endif()
add_library(trident_kokkoskernels INTERFACE)
if(TARGET Kokkos::kokkoskernels)
  target_link_libraries(trident_kokkoskernels INTERFACE Kokkos::kokkoskernels)
elseif(TARGET kokkoskernels)
  target_link_libraries(trident_kokkoskernels INTERFACE kokkoskernels)
elseif(TARGET trilinos_kokkoskernels)
  target_link_libraries(trident_kokkoskernels INTERFACE trilinos_kokkoskernels)
else()
  message(FATAL_ERROR "Kokkos Kernels was found but defines no known target "
                      "(Kokkos::kokkoskernels, kokkoskernels or trilinos_kokkoskernels)")
endif()
add_library(trident::kokkoskernels ALIAS trident_kokkoskernels)

# --- MPI (always on) ---
find_package(MPI REQUIRED COMPONENTS CXX)

# --- HDF5: the C library (parallel when the install is) and its high-level library, whose
# dimension scales (H5DS) give the outputs the named dimensions netCDF and xarray read ---
if(NOT DEFINED HDF5_PREFER_PARALLEL)
  set(HDF5_PREFER_PARALLEL ON)
endif()
find_package(HDF5 REQUIRED COMPONENTS C HL)
if(NOT HDF5_HL_LIBRARIES AND NOT HDF5_C_HL_LIBRARIES)
  message(FATAL_ERROR "trident needs HDF5's high-level library (libhdf5_hl, for dimension scales): "
                      "install libhdf5-openmpi-dev or libhdf5-dev (Debian, Ubuntu) or hdf5+hl (Spack)")
endif()
add_library(trident_hdf5 INTERFACE)
target_include_directories(trident_hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(trident_hdf5 INTERFACE ${HDF5_C_HL_LIBRARIES} ${HDF5_HL_LIBRARIES} ${HDF5_C_LIBRARIES}
                                             ${HDF5_LIBRARIES})
target_compile_definitions(trident_hdf5 INTERFACE ${HDF5_DEFINITIONS} ${HDF5_C_DEFINITIONS})
add_library(trident::hdf5 ALIAS trident_hdf5)
message(STATUS "HDF5 ${HDF5_VERSION}, parallel: ${HDF5_IS_PARALLEL}")

# --- FFT for the jagged start field: cuFFT with a CUDA Kokkos, FFTW (float64) otherwise ---
add_library(trident_fft INTERFACE)
if(TRIDENT_KOKKOS_CUDA)
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(trident_fft INTERFACE CUDA::cufft)
  message(STATUS "FFT: cuFFT ${CUDAToolkit_VERSION}")
else()
  find_path(TRIDENT_FFTW_INCLUDE_DIR fftw3.h)
  find_library(TRIDENT_FFTW_LIBRARY fftw3)
  if(NOT TRIDENT_FFTW_INCLUDE_DIR OR NOT TRIDENT_FFTW_LIBRARY)
    message(FATAL_ERROR "trident needs FFTW 3 (float64, libfftw3) for the jagged start field on host backends: "
                        "install libfftw3-dev (Debian, Ubuntu) or fftw (Spack), or set CMAKE_PREFIX_PATH")
  endif()
  target_include_directories(trident_fft INTERFACE ${TRIDENT_FFTW_INCLUDE_DIR})
  target_link_libraries(trident_fft INTERFACE ${TRIDENT_FFTW_LIBRARY})
  message(STATUS "FFT: FFTW ${TRIDENT_FFTW_LIBRARY}")
endif()
add_library(trident::fft ALIAS trident_fft)

# --- yaml-cpp (0.6 to 0.8; 0.8 exports yaml-cpp::yaml-cpp, older ones yaml-cpp) ---
find_package(yaml-cpp REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(TRIDENT_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(TRIDENT_YAML_TARGET yaml-cpp)
endif()

# Marks sources that include Kokkos so that they compile as CUDA when Kokkos needs it.
function(trident_kokkos_sources)
  if(TRIDENT_COMPILE_AS_CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()
