# Run at build time (cmake -P) by the trident_commit target: writes OUT (a header that
# defines TRIDENT_COMMIT) with `git describe --always --dirty --tags` of SOURCE_DIR, or
# "unknown" outside a git checkout, and rewrites it only when the text changes, so that a
# build after a new commit says the new commit and an unchanged tree rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DOUT=... -P TridentCommit.cmake
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --tags
                  OUTPUT_VARIABLE described RESULT_VARIABLE failed ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT failed AND described)
    set(commit "${described}")
  endif()
endif()
set(text "#pragma once\n// Generated at build time by cmake/TridentCommit.cmake.\n#define TRIDENT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
