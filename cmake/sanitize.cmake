# The sanitized build (HETBENCH_SANITIZE) and the fuzz build (HETBENCH_FUZZ), documented
# in docs/fuzzing.md. Every layer links hetbench_config, so its interface carries the flags.
if(HETBENCH_FUZZ)
  set(HETBENCH_SANITIZE ON)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "HETBENCH_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-14 "
                        "-DCMAKE_C_COMPILER=clang-14")
  endif()
endif()
if(HETBENCH_SANITIZE AND HETBENCH_CUDA)
  # nvcc's host objects and the static cudart are not instrumented, and ASan's shadow
  # memory collides with the CUDA driver's mappings without protect_shadow_gap=0: the GPU
  # side is checked by compute-sanitizer instead (scripts/gpu-check --sanitize).
  message(STATUS "hetbench: the sanitized build leaves the CUDA backend out")
  set(HETBENCH_CUDA OFF)
endif()

function(hetbench_sanitize target)
  if(NOT HETBENCH_SANITIZE)
    return()
  endif()
  # Every UB report aborts, so that a test or a fuzz run fails on it rather than printing
  # a line that nobody reads.
  set(flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  if(HETBENCH_FUZZ)
    # Coverage for libFuzzer in every layer; libFuzzer itself links only into fuzz/.
    list(APPEND flags -fsanitize=fuzzer-no-link)
  endif()
  target_compile_options(${target} INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${flags}>)
  target_link_options(${target} INTERFACE -fsanitize=address,undefined)
endfunction()

# The leak suppressions of tests/sanitizers/lsan.supp, compiled into `target`.
function(hetbench_sanitizer_defaults target)
  if(NOT HETBENCH_SANITIZE)
    return()
  endif()
  set(supp ${CMAKE_SOURCE_DIR}/tests/sanitizers/lsan.supp)
  file(READ ${supp} HETBENCH_LSAN_SUPP)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${supp})
  configure_file(${CMAKE_SOURCE_DIR}/cmake/sanitizer_defaults.cpp.in ${CMAKE_BINARY_DIR}/generated/sanitizer_defaults.cpp
                 @ONLY)
  target_sources(${target} PRIVATE ${CMAKE_BINARY_DIR}/generated/sanitizer_defaults.cpp)
endfunction()
