# What `cmake --install BUILD --prefix P` puts under P (docs/install.md#what-an-install-holds):
#   bin/trident and the post-processing commands (trident-lcurve, trident-summary, ...),
#   TRIDENT_INSTALL_PYTHONDIR/trident_postprocess (the Python package the commands run),
#   share/trident/examples (the example decks and the files they read, side by side as in inputs/),
#   share/doc/trident (README.md and docs/), and the libraries for find_package(trident):
#   lib/libtrident_*.a, include/trident/NAME/*.hpp and lib/cmake/trident (trident::core, ...).
# Included from the top CMakeLists.txt after src/, whose libraries it installs.
include(CMakePackageConfigHelpers)

# lib/python3/dist-packages is Debian's folder for pure-Python modules of any python3: on the
# /usr prefix the package imports without help; elsewhere the commands find it from their
# own place, and `import trident_postprocess` needs PYTHONPATH=P/lib/python3/dist-packages.
set(TRIDENT_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
    "Folder, relative to the install prefix, of the Python package trident_postprocess")

# The commands' interpreter: TRIDENT_PYTHON, else the first Python 3 that imports h5py, numpy
# and matplotlib (CMake's Python3, then each python3 on the PATH), so that a Python without
# them that comes first on the PATH (pyenv, a venv) is not written into the commands.
set(TRIDENT_PYTHON "" CACHE FILEPATH
    "Python 3 with h5py, numpy and matplotlib for the installed post-processing commands")
if(NOT TRIDENT_PYTHON)
  find_package(Python3 QUIET COMPONENTS Interpreter)
  set(_candidates ${Python3_EXECUTABLE})
  string(REPLACE ":" ";" _path "$ENV{PATH}")
  foreach(_dir IN LISTS _path)
    if(_dir AND EXISTS "${_dir}/python3")
      list(APPEND _candidates "${_dir}/python3")
    endif()
  endforeach()
  foreach(_python IN LISTS _candidates)
    execute_process(COMMAND "${_python}" -c "import h5py, numpy, matplotlib"
                    RESULT_VARIABLE _lacks OUTPUT_QUIET ERROR_QUIET)
    if(_lacks EQUAL 0)
      set(TRIDENT_PYTHON "${_python}" CACHE FILEPATH
          "Python 3 with h5py, numpy and matplotlib for the installed post-processing commands" FORCE)
      break()
    endif()
  endforeach()
  if(NOT TRIDENT_PYTHON)
    message(STATUS "trident: no Python 3 with h5py, numpy and matplotlib found: the installed "
                   "post-processing commands run `python3` from the PATH (set TRIDENT_PYTHON to choose one)")
  endif()
endif()
if(TRIDENT_PYTHON)
  set(_shebang "${TRIDENT_PYTHON}")
else()
  set(_shebang "/usr/bin/env python3")
endif()

# --- the executable's companions: post-processing commands, package, examples, manual ---
if(IS_ABSOLUTE "${TRIDENT_INSTALL_PYTHONDIR}")
  set(_package_from_bin "${TRIDENT_INSTALL_PYTHONDIR}")
else()
  file(RELATIVE_PATH _package_from_bin "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${TRIDENT_INSTALL_PYTHONDIR}")
endif()
set(TRIDENT_POSTPROCESS_COMMANDS
    summary diffusion_panels diffusion_frames knn_map knn_matches lcurve)  # trident_postprocess/__init__.py's COMMANDS
foreach(module IN LISTS TRIDENT_POSTPROCESS_COMMANDS)
  string(REPLACE "_" "-" command "trident-${module}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/trident-postprocess-command.in
                 ${PROJECT_BINARY_DIR}/postprocess-commands/${command} @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/postprocess-commands/${command} DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/postprocess/trident_postprocess DESTINATION ${TRIDENT_INSTALL_PYTHONDIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

# The decks name their files relative to their own folder (data/...), so the two keep their places.
set(_examples ${CMAKE_INSTALL_DATADIR}/trident/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/ DESTINATION ${_examples}
        FILES_MATCHING PATTERN "*.yaml" PATTERN "data" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs/data DESTINATION ${_examples})
# README.md beside docs/, so that its links into docs/ hold.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- the libraries as a CMake package ---
# The helper targets that stand for HDF5, the FFT and Kokkos Kernels go into the export too
# (trident::hdf5, trident::fft, trident::kokkoskernels): they carry the libraries trident was
# built against, and tridentConfig.cmake finds again the packages they name by target.
get_property(TRIDENT_LIBRARY_NAMES GLOBAL PROPERTY TRIDENT_LIBRARY_NAMES)
set(_exported "")
foreach(name IN LISTS TRIDENT_LIBRARY_NAMES)
  list(APPEND _exported trident_${name})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/${name}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trident/${name}
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
foreach(helper hdf5 fft kokkoskernels)
  set_target_properties(trident_${helper} PROPERTIES EXPORT_NAME ${helper})
  list(APPEND _exported trident_${helper})
endforeach()
# version.hpp and commit.hpp, included as "trident/version.hpp" (include/ is on the path too).
install(DIRECTORY ${PROJECT_BINARY_DIR}/src/generated/trident DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(TARGETS ${_exported} EXPORT tridentTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/trident)
install(EXPORT tridentTargets NAMESPACE trident:: DESTINATION ${_cmake_dir})

# What tridentConfig.cmake needs to find the same dependencies again.
set(TRIDENT_HDF5_COMPONENTS C)
if(HDF5_HL_LIBRARIES OR HDF5_C_HL_LIBRARIES)
  list(APPEND TRIDENT_HDF5_COMPONENTS HL)
endif()
if(TRIDENT_KOKKOS_SOURCE_DIR)
  set(TRIDENT_KOKKOS_IN_TREE ON)  # Kokkos installs itself beside trident
else()
  set(TRIDENT_KOKKOS_IN_TREE OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tridentConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tridentConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tridentConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tridentConfig.cmake ${PROJECT_BINARY_DIR}/tridentConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TridentKokkosIncludes.cmake
        DESTINATION ${_cmake_dir})
