# trident_add_test_folder(FOLDER): builds the sources TRIDENT_TEST_SOURCES_FOLDER (tests/FOLDER,
# from cmake/TridentSources.cmake) into test_FOLDER, linked to trident_FOLDER alone, and
# registers it with ctest: FOLDER.unit on one rank (suites whose name has no "Mpi") and
# FOLDER.mpi.npN for N = 1..4 (suites whose name contains "Mpi", parameterised ones included) through MPIEXEC_EXECUTABLE.
set(TRIDENT_TEST_RANKS 1 2 3 4 CACHE STRING "Rank counts the MPI tests run on")
set(TRIDENT_MPIEXEC_EXTRA_FLAGS "" CACHE STRING
    "Extra mpiexec flags for tests (e.g. --oversubscribe --allow-run-as-root)")

function(trident_add_test_folder folder)
  set(sources ${TRIDENT_TEST_SOURCES_${folder}})
  if(NOT sources)
    return()
  endif()
  trident_kokkos_sources(${sources})
  add_executable(test_${folder} ${sources})
  target_link_libraries(test_${folder} PRIVATE trident_test_main trident_${folder})
  separate_arguments(extra UNIX_COMMAND "${TRIDENT_MPIEXEC_EXTRA_FLAGS}")
  add_test(NAME ${folder}.unit
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${extra} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:test_${folder}> --gtest_filter=-*Mpi* ${MPIEXEC_POSTFLAGS}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  foreach(n ${TRIDENT_TEST_RANKS})
    add_test(NAME ${folder}.mpi.np${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${extra} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:test_${folder}> --gtest_filter=*Mpi* ${MPIEXEC_POSTFLAGS}
             WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${folder}.mpi.np${n} PROPERTIES PROCESSORS ${n})
  endforeach()
endfunction()

# Open MPI 4.1 races when two mpiexec start at the same moment in one session folder
# (/tmp/ompi.HOST.UID: "mkdir ... File exists", then orte_init fails), as ctest -j does.
# Gives every test of the calling directory a session folder of its own.
function(trident_separate_mpi_sessions)
  get_property(names DIRECTORY PROPERTY TESTS)
  foreach(name IN LISTS names)
    set(base ${PROJECT_BINARY_DIR}/mpi-sessions/${name})
    file(MAKE_DIRECTORY ${base})
    set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT "OMPI_MCA_orte_tmpdir_base=${base}")
  endforeach()
endfunction()
