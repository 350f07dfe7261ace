# trident_fix_kokkos_includes(): Debian's Trilinos build of Kokkos 3.4 lists a folder that does
# not exist (/usr/lib/include) instead of /usr/include/trilinos, and CMake refuses a target that
# names one; this keeps the folders of Kokkos::kokkos that exist and adds the one that holds
# Kokkos_Core.hpp. Called after find_package(Kokkos) by the build and by an installed
# tridentConfig.cmake, whose users meet the same target.
function(trident_fix_kokkos_includes)
  get_target_property(_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _kokkos_includes)
    return()
  endif()
  set(_kept "")
  foreach(_dir IN LISTS _kokkos_includes)
    if(EXISTS "${_dir}" OR _dir MATCHES "^\\$<")
      list(APPEND _kept "${_dir}")
    endif()
  endforeach()
  if(NOT _kept STREQUAL _kokkos_includes)
    find_path(TRIDENT_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos REQUIRED)
    list(APPEND _kept "${TRIDENT_KOKKOS_INCLUDE_DIR}")
  endif()
  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
endfunction()
