# NCCL for device-to-device halos and all-reduces (src/transport/device_comm). Only with a CUDA
# Kokkos. TRIDENT_ENABLE_NCCL: AUTO (use it when found), ON (fail without it), OFF.
# Looked for in NCCL_ROOT, the CUDA toolkit, the default paths and the `nvidia-nccl` Python
# wheel (pip install nvidia-nccl-cu12), in that order.
set(TRIDENT_ENABLE_NCCL AUTO CACHE STRING "Device data between ranks through NCCL: AUTO, ON or OFF")
set_property(CACHE TRIDENT_ENABLE_NCCL PROPERTY STRINGS AUTO ON OFF)
set(TRIDENT_HAVE_NCCL OFF)

if(TRIDENT_KOKKOS_CUDA AND NOT TRIDENT_ENABLE_NCCL STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  set(_nccl_hints $ENV{NCCL_ROOT} ${NCCL_ROOT})
  if(CUDAToolkit_FOUND)
    list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
  endif()
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
                    OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_nccl_wheel)
      list(APPEND _nccl_hints ${_nccl_wheel})
    endif()
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    add_library(trident::nccl INTERFACE IMPORTED)
    target_include_directories(trident::nccl INTERFACE ${NCCL_INCLUDE_DIR})
    target_link_libraries(trident::nccl INTERFACE ${NCCL_LIBRARY})
    set(TRIDENT_HAVE_NCCL ON)
    message(STATUS "trident: NCCL for device data between ranks: ${NCCL_LIBRARY}")
  elseif(TRIDENT_ENABLE_NCCL STREQUAL "ON")
    message(FATAL_ERROR "TRIDENT_ENABLE_NCCL=ON but nccl.h and libnccl were not found "
                        "(set NCCL_ROOT, or pip install nvidia-nccl-cu12)")
  else()
    message(STATUS "trident: NCCL not found; device data between ranks goes through MPI")
  endif()
elseif(TRIDENT_ENABLE_NCCL STREQUAL "ON")
  message(FATAL_ERROR "TRIDENT_ENABLE_NCCL=ON needs a Kokkos with CUDA")
endif()
