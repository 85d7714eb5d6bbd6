# kleene_find_graphblas(): provides the imported target GRAPHBLAS::GRAPHBLAS when
# SuiteSparse:GraphBLAS is found, and nothing otherwise (the caller decides whether that is an error).
# Used by the build and, installed beside kleeneConfig.cmake, by find_package(kleene): Debian 12's
# FindGraphBLAS.cmake lives in a folder CMake does not search (.../cmake/SuiteSparse) and defines
# variables only, while SuiteSparse 9 installs a GraphBLASConfig.cmake with SuiteSparse::GraphBLAS.
function(kleene_find_graphblas)
  if(TARGET GRAPHBLAS::GRAPHBLAS)
    return()
  endif()
  find_package(GraphBLAS CONFIG QUIET)
  if(TARGET SuiteSparse::GraphBLAS)
    add_library(GRAPHBLAS::GRAPHBLAS INTERFACE IMPORTED)
    target_link_libraries(GRAPHBLAS::GRAPHBLAS INTERFACE SuiteSparse::GraphBLAS)
    return()
  endif()
  find_path(GraphBLAS_INCLUDE_DIR GraphBLAS.h PATH_SUFFIXES suitesparse
            DOC "folder of SuiteSparse:GraphBLAS's GraphBLAS.h")
  find_library(GraphBLAS_LIBRARY NAMES graphblas DOC "SuiteSparse:GraphBLAS's library")
  if(GraphBLAS_INCLUDE_DIR AND GraphBLAS_LIBRARY)
    add_library(GRAPHBLAS::GRAPHBLAS UNKNOWN IMPORTED)
    set_target_properties(GRAPHBLAS::GRAPHBLAS PROPERTIES
      IMPORTED_LOCATION "${GraphBLAS_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${GraphBLAS_INCLUDE_DIR}")
  endif()
endfunction()
