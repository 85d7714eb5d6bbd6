# The instance registry: the one list of the semirings, value types and index types kleene
# compiles ahead of time, and the instance sets KLEENE_INSTANCES picks from it (docs/architecture.md,
# "Instances"). kleene_generate_instances() writes, from it, into ${PROJECT_BINARY_DIR}/generated:
#   include/kleene/instance_lists.hpp  X-macro lists of this build's instances and of the names
#       (the CLI's and Python's name table, the extern declarations, the missing-instance errors);
#   src/cuda/{sparse,dense_gemm}_<types>.cu  the explicit instances of lib/backend/cuda.
# Adding a semiring: its alias template in semirings/include/kleene/semiring.hpp, its name below,
# and the sets that should hold it.
# Code built outside CMake (lab/, scripts/same-device-code) writes the header alone with
#   cmake -DKLEENE_INSTANCES=builtin -DKLEENE_GENERATED_DIR=DIR -P cmake/instances.cmake
# and compiles with -I DIR/include.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)
  if(NOT KLEENE_INSTANCES)
    set(KLEENE_INSTANCES builtin)
  endif()
else()
  set(KLEENE_INSTANCES builtin CACHE STRING
      "Instances compiled ahead of time: minimal (what the algorithms, the CLI's defaults and \
the tests need), builtin (every named semiring over every numeric type) or all (the registry)")
  set_property(CACHE KLEENE_INSTANCES PROPERTY STRINGS minimal builtin all)
endif()
if(NOT KLEENE_INSTANCES MATCHES "^(minimal|builtin|all)$")
  message(FATAL_ERROR "KLEENE_INSTANCES=${KLEENE_INSTANCES}: use minimal, builtin or all")
endif()

# Semirings: the alias templates of semiring.hpp; the name is add_multiply (Python's "add.multiply").
set(KLEENE_SEMIRINGS plus_times min_plus max_plus max_min min_max lor_land any_pair plus_pair
                     min_first min_second plus_min max_times)
# Value types: name=C++ type (the name is the CLI's --type), and the NumPy dtype of each name.
set(KLEENE_VALUE_TYPES fp32=float fp64=double int32=std::int32_t int64=std::int64_t bool=bool)
set(KLEENE_NUMPY_NAMES fp32=float32 fp64=float64 int32=int32 int64=int64 bool=bool)
set(KLEENE_INDEX_TYPES int32=std::int32_t int64=std::int64_t)

# The sets, one list a family, each entry "semirings:types" (comma-separated; * is every semiring):
#   host    what the CLI (tools/semiring_dispatch.hpp) and the Python module (python/src/products.hpp)
#           dispatch to by name; their kernels are the header templates, compiled in those programs
#   sparse  lib/backend/cuda's sparse products (spmv, spmspv, spmm, spgemm, spgemm_dense,
#           masked_dot), both index types
#   gemm    lib/backend/cuda's dense GEMM (over bool and uint8, lor_land and any_pair are always
#           built: lib/backend/cuda/src/bit_matrix.cu)
#   ops     lib/backend/cuda's operations (ewise, apply, select, reduce, ...): value types only
# builtin is the default; all is the registry's whole product. In a smaller build (minimal) a pair
# of builtin that is left out still links: it throws kleene::missing_instance, which names the pair
# and KLEENE_INSTANCES (kleene/error.hpp). A pair outside builtin is declared as any user semiring
# is: nvcc code that includes the kernel templates (sparse.cuh, dense_gemm.cuh) compiles it.
set(num fp32,fp64,int32,int64)
set(KLEENE_SET_all_host "*:${num}" "lor_land,any_pair:bool")
set(KLEENE_SET_all_sparse "*:${num}" "lor_land,any_pair:bool")
set(KLEENE_SET_all_gemm "*:${num}")
set(KLEENE_SET_all_ops ${num})

set(KLEENE_SET_builtin_host ${KLEENE_SET_all_host})
set(KLEENE_SET_builtin_sparse
    "plus_times,min_plus,max_plus,plus_pair,any_pair,min_first,min_second:${num}"
    "lor_land,any_pair:bool")
set(KLEENE_SET_builtin_gemm ${KLEENE_SET_all_gemm})
set(KLEENE_SET_builtin_ops ${num})

# minimal: the CLI's and Python's default (plus_times) and the shortest paths (min_plus) over every
# type, which are also all that the algorithms' GPU paths take from lib/backend/cuda's semiring
# kernels: min_plus (APSP, paths: dense GEMM, SpMM) and plus_times (PageRank: SpMV); BFS, components
# and triangles run kernels of their own (algorithms/cuda). Found with `nm -C --undefined-only` on a
# builtin build's objects outside tests/. The test suites run every semiring through the header
# templates; the GPU suites skip in a minimal build.
set(KLEENE_SET_minimal_host "plus_times,min_plus:${num}" "lor_land:bool")
set(KLEENE_SET_minimal_sparse "plus_times,min_plus:${num}")
set(KLEENE_SET_minimal_gemm "plus_times,min_plus:${num}")
set(KLEENE_SET_minimal_ops ${num})
unset(num)

# "semirings:types" entries -> a list of semiring/type pairs.
function(kleene_instance_pairs out)
  set(pairs)
  foreach(entry ${ARGN})
    string(REPLACE ":" ";" parts "${entry}")
    list(GET parts 0 semirings)
    list(GET parts 1 types)
    if(semirings STREQUAL "*")
      set(semirings ${KLEENE_SEMIRINGS})
    else()
      string(REPLACE "," ";" semirings "${semirings}")
    endif()
    string(REPLACE "," ";" types "${types}")
    foreach(s ${semirings})
      if(NOT s IN_LIST KLEENE_SEMIRINGS)
        message(FATAL_ERROR "cmake/instances.cmake: ${s} is not in KLEENE_SEMIRINGS")
      endif()
      foreach(t ${types})
        list(APPEND pairs ${s}/${t})
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES pairs)
  set(${out} ${pairs} PARENT_SCOPE)
endfunction()

# The C++ type of a registry name (fp32 -> float) from a list of name=type.
function(kleene_registry_type out name)
  foreach(entry ${ARGN})
    string(REPLACE "=" ";" kv "${entry}")
    list(GET kv 0 k)
    if(k STREQUAL name)
      list(GET kv 1 v)
      set(${out} ${v} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "cmake/instances.cmake: no type ${name}")
endfunction()

# Writes `content` to `path` only when it changed (what includes it is not rebuilt otherwise).
function(kleene_write_if_changed path content)
  file(WRITE ${path}.tmp "${content}")
  configure_file(${path}.tmp ${path} COPYONLY)
  file(REMOVE ${path}.tmp)
endfunction()

# One X-macro: #define NAME(X) X(...) X(...), one entry a line.
function(kleene_xmacro out name)
  set(text "#define ${name}(X)")
  foreach(entry ${ARGN})
    string(APPEND text " \\\n    X(${entry})")
  endforeach()
  set(${out} "${text}\n" PARENT_SCOPE)
endfunction()

# Generates the lists and instance files of KLEENE_INSTANCES; sets KLEENE_CUDA_INSTANCE_SOURCES.
function(kleene_generate_instances)
  set(set ${KLEENE_INSTANCES})
  set(gen ${KLEENE_GENERATED_DIR})
  if(NOT gen)
    set(gen ${PROJECT_BINARY_DIR}/generated)
  endif()
  set(text "#pragma once\n// Generated by cmake/instances.cmake from the instance registry \
(KLEENE_INSTANCES=${set}):\n// edit the registry, not this file (docs/architecture.md, \
\"Instances\").\n\n/// The instance set this kleene was built with.\n\
#define KLEENE_INSTANCE_SET \"${set}\"\n\n")

  # The names: X(semiring template, "name", "add", "multiply") and X(C++ type, "name", "numpy").
  set(entries)
  foreach(s ${KLEENE_SEMIRINGS})
    string(REGEX MATCH "^([a-z]+)_(.+)$" unused ${s})
    list(APPEND entries "${s}, \"${s}\", \"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\"")
  endforeach()
  kleene_xmacro(m KLEENE_REGISTRY_SEMIRINGS ${entries})
  string(APPEND text "/// Every semiring kleene names: X(alias template, name, add, multiply).\n${m}\n")
  set(entries)
  foreach(t ${KLEENE_VALUE_TYPES})
    string(REGEX REPLACE "=.*" "" t ${t})
    kleene_registry_type(cxx ${t} ${KLEENE_VALUE_TYPES})
    kleene_registry_type(np ${t} ${KLEENE_NUMPY_NAMES})
    list(APPEND entries "${cxx}, \"${t}\", \"${np}\"")
  endforeach()
  kleene_xmacro(m KLEENE_REGISTRY_TYPES ${entries})
  string(APPEND text "/// The value types the CLI and Python name: X(type, name, NumPy name).\n${m}\n")

  # Per family: this build's pairs, and builtin's pairs it leaves out.
  set(host_doc "What the CLI and the Python module dispatch to by name")
  set(host_args "semiring template, T, \"semiring\", \"type\"")
  set(sparse_doc "lib/backend/cuda's sparse products")
  set(sparse_args "semiring template, T, Index, \"semiring\", \"type\", \"index type\"")
  set(gemm_doc "lib/backend/cuda's dense GEMM")
  set(gemm_args ${host_args})
  foreach(family host sparse gemm)
    kleene_instance_pairs(built ${KLEENE_SET_${set}_${family}})
    kleene_instance_pairs(missing ${KLEENE_SET_builtin_${family}})
    list(REMOVE_ITEM missing ${built})
    string(TOUPPER ${family} FAMILY)
    foreach(kind built missing)
      set(entries)
      foreach(pair ${${kind}})
        string(REPLACE "/" ";" st "${pair}")
        list(GET st 0 s)
        list(GET st 1 t)
        kleene_registry_type(cxx ${t} ${KLEENE_VALUE_TYPES})
        set(wanted "")  # a left-out pair: the set that has it
        if(kind STREQUAL "missing")
          set(wanted ", \"builtin\"")
        endif()
        if(family STREQUAL "sparse")  # the sparse products come in both index types
          foreach(index ${KLEENE_INDEX_TYPES})
            string(REPLACE "=" ";" kv "${index}")
            list(GET kv 0 iname)
            list(GET kv 1 icxx)
            list(APPEND entries "${s}, ${cxx}, ${icxx}, \"${s}\", \"${t}\", \"${iname}\"${wanted}")
          endforeach()
        else()
          list(APPEND entries "${s}, ${cxx}, \"${s}\", \"${t}\"${wanted}")
        endif()
        if(kind STREQUAL "built")
          list(APPEND ${family}_types_${t} ${s})
          list(APPEND ${family}_types ${t})
        endif()
      endforeach()
      if(kind STREQUAL "built")
        kleene_xmacro(m KLEENE_${FAMILY}_INSTANCES ${entries})
        string(APPEND text "/// ${${family}_doc}: X(${${family}_args}).\n${m}")
      else()
        kleene_xmacro(m KLEENE_${FAMILY}_MISSING ${entries})
        string(APPEND text "/// builtin's pairs left out (they throw missing_instance): X(${${family}_args}, \
\"set\").\n${m}")
      endif()
    endforeach()
    string(APPEND text "\n")
    if(${family}_types)
      list(REMOVE_DUPLICATES ${family}_types)
    endif()
  endforeach()
  set(entries)
  foreach(t ${KLEENE_SET_${set}_ops})
    string(REPLACE "," ";" ts "${t}")
    foreach(one ${ts})
      kleene_registry_type(cxx ${one} ${KLEENE_VALUE_TYPES})
      list(APPEND entries ${cxx})
    endforeach()
  endforeach()
  kleene_xmacro(m KLEENE_OPS_TYPES ${entries})
  string(APPEND text "/// The value types of lib/backend/cuda's operations: X(type).\n${m}")
  kleene_write_if_changed(${gen}/include/kleene/instance_lists.hpp "${text}")

  # lib/backend/cuda's explicit instances: the pairs of consecutive value types share a file up to
  # `most` instances, so that files build in parallel (builtin: one a type) while a small set does
  # not pay nvcc's fixed cost again and again (a sparse file takes about 17 CPU-s before its first
  # instance, then about 0.8 s an instance; dense GEMM about 5 s, then 2.5 s an instance; docs/lab/
  # ci-build-time.md). The extern declarations in the .cuh headers keep other nvcc code from
  # compiling them again.
  set(sources)
  foreach(family sparse gemm)
    if(family STREQUAL "sparse")
      set(header sparse.cuh)
      set(file sparse)
      set(most 16)
    else()
      set(header dense_gemm.cuh)
      set(file dense_gemm)
      set(most 12)
    endif()
    string(TOUPPER ${family} FAMILY)
    set(chunks)  # each chunk: the types it holds, joined by _
    set(chunk "")
    set(count 0)
    foreach(t ${${family}_types})
      list(LENGTH ${family}_types_${t} n)
      if(family STREQUAL "sparse")
        list(LENGTH KLEENE_INDEX_TYPES i)
        math(EXPR n "${n} * ${i}")
      endif()
      math(EXPR sum "${count} + ${n}")
      if(chunk AND sum GREATER most)
        list(APPEND chunks ${chunk})
        set(chunk "")
        set(sum ${n})
      endif()
      if(chunk)
        string(APPEND chunk "_${t}")
      else()
        set(chunk ${t})
      endif()
      set(count ${sum})
    endforeach()
    if(chunk)
      list(APPEND chunks ${chunk})
    endif()
    foreach(chunk ${chunks})
      string(REPLACE "_" ", " over "${chunk}")
      set(body "// Generated by cmake/instances.cmake (KLEENE_INSTANCES=${set}):\n\
// lib/backend/cuda's ${file} instances over ${over}.\n\n#include <kleene/cuda/${header}>\n\n\
namespace kleene::cuda {\n")
      string(REPLACE "_" ";" types "${chunk}")
      foreach(t ${types})
        kleene_registry_type(cxx ${t} ${KLEENE_VALUE_TYPES})
        foreach(s ${${family}_types_${t}})
          if(family STREQUAL "sparse")
            foreach(index ${KLEENE_INDEX_TYPES})
              string(REPLACE "=" ";" kv "${index}")
              list(GET kv 1 icxx)
              string(APPEND body "KLEENE_SPARSE_INSTANTIATE(${s}, ${cxx}, ${icxx})\n")
            endforeach()
          else()
            string(APPEND body "KLEENE_GEMM_INSTANTIATE(${s}, ${cxx})\n")
          endif()
        endforeach()
      endforeach()
      string(APPEND body "}  // namespace kleene::cuda\n")
      kleene_write_if_changed(${gen}/src/cuda/${file}_${chunk}.cu "${body}")
      list(APPEND sources ${gen}/src/cuda/${file}_${chunk}.cu)
    endforeach()
  endforeach()
  # Files of another set, left from an earlier configuration, are not built.
  file(GLOB stale ${gen}/src/cuda/*.cu)
  if(sources)
    list(REMOVE_ITEM stale ${sources})
  endif()
  if(stale)
    file(REMOVE ${stale})
  endif()
  set(KLEENE_CUDA_INSTANCE_SOURCES ${sources} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT KLEENE_GENERATED_DIR)
    message(FATAL_ERROR "cmake -DKLEENE_GENERATED_DIR=DIR -P cmake/instances.cmake")
  endif()
  kleene_generate_instances()
endif()
