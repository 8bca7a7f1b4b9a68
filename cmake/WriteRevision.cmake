# Writes OUTPUT, a Python module with REVISION: the source tree's git commit,
# with "-modified-HASH" (a hash of the uncommitted diff) where the tree has
# edits, or "unknown" outside a git checkout. Run at every build (cmake -P),
# it rewrites the file only when the revision changed, so that a compiled
# kernel cached on disk under one revision is never taken for another's.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P WriteRevision.cmake
find_package(Git QUIET)
set(revision "unknown")
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE commit
    RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status EQUAL 0)
    set(revision "${commit}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" diff HEAD -- lib include python runtime tools
      WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE diff ERROR_QUIET)
    # New files git does not track yet change the compiler too.
    execute_process(COMMAND "${GIT_EXECUTABLE}" ls-files --others --exclude-standard
        -- lib include python runtime tools
      WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE untracked ERROR_QUIET)
    string(REPLACE "\n" ";" untracked "${untracked}")
    foreach(file ${untracked})
      file(SHA256 "${SOURCE_DIR}/${file}" file_hash)
      string(APPEND diff "${file} ${file_hash}\n")
    endforeach()
    if(NOT diff STREQUAL "")
      string(SHA256 diff_hash "${diff}")
      string(SUBSTRING "${diff_hash}" 0 12 diff_hash)
      set(revision "${revision}-modified-${diff_hash}")
    endif()
  endif()
endif()
set(content "\"\"\"The compiler's source revision (cmake/WriteRevision.cmake).\"\"\"\n\nREVISION = \"${revision}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
