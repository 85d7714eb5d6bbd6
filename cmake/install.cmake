# Install rules, the CMake package (find_package(kleene)), the pkg-config file and CPack's .deb.
# Included from the top CMakeLists.txt after the library targets; the tool installs itself in tools/.
include(CMakePackageConfigHelpers)
set(KLEENE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kleene)

# Every public include tree lands in one include/ (each holds kleene/...), as <kleene/...> expects.
foreach(dir semirings/include lib/core/include lib/backend/common/include
            lib/backend/cpu/include lib/backend/cuda/include lib/ops/include matrix_io/include
            algorithms/include algorithms/cuda/include ${PROJECT_BINARY_DIR}/generated/include)
  cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${PROJECT_SOURCE_DIR})
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(TARGETS kleene_headers kleene_core kleene_io kleene_cuda kleene_lib EXPORT kleeneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT kleeneTargets NAMESPACE kleene:: DESTINATION ${KLEENE_CMAKE_DIR})
# The bridge has its own export file: kleeneConfig.cmake loads it only where GraphBLAS is found, so
# a consumer without libgraphblas-dev still gets kleene::kleene.
if(KLEENE_HAVE_GRAPHBLAS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/graphblas/include/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS kleene_graphblas EXPORT kleeneGraphBLASTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT kleeneGraphBLASTargets NAMESPACE kleene:: DESTINATION ${KLEENE_CMAKE_DIR})
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kleeneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kleeneConfig.cmake INSTALL_DESTINATION ${KLEENE_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kleeneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kleeneConfig.cmake ${PROJECT_BINARY_DIR}/kleeneConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/kleene_find_graphblas.cmake
        DESTINATION ${KLEENE_CMAKE_DIR})

# pkg-config: the static libraries in link order, and what their objects need.
set(KLEENE_PC_LIBS "-lkleene -lkleene_io")
set(KLEENE_PC_CFLAGS "")
if(KLEENE_HAVE_CUDA)
  string(APPEND KLEENE_PC_LIBS " -lkleene_cuda -lkleene_core -L${CUDAToolkit_LIBRARY_DIR}"
                               " -lcudart -ldl")
  set(KLEENE_PC_CFLAGS " -DKLEENE_HAVE_CUDA=1 -I${CUDAToolkit_INCLUDE_DIRS}")
else()
  string(APPEND KLEENE_PC_LIBS " -lkleene_no_cuda -lkleene_core")
endif()
# The prefix is written when installing, so `cmake --install --prefix P` and CPack's staging both
# give a file that names where the package is (KLEENE_PC_PREFIX stays a placeholder until then).
set(KLEENE_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/kleene.pc.in ${PROJECT_BINARY_DIR}/kleene.pc.in @ONLY)
install(CODE "
  configure_file(\"${PROJECT_BINARY_DIR}/kleene.pc.in\" \"${PROJECT_BINARY_DIR}/pc/kleene.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/pc/kleene.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")

# ---- CPack: `cpack -G DEB` in the build folder (scripts/test-deb builds, installs and checks it) --
set(CPACK_PACKAGE_NAME kleene)
set(CPACK_PACKAGE_VENDOR kleene)
set(CPACK_PACKAGE_CONTACT "kleene developers <kleene@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "linear algebra over semirings (GraphBLAS-style) for C++20: library, headers and the kleene tool")
set(CPACK_PACKAGE_DESCRIPTION "kleene runs graph problems as sparse and dense linear algebra over \
semirings on the CPU (OpenMP) and NVIDIA GPUs (CUDA). This package holds the static libraries, the \
headers, the CMake package (find_package(kleene)), a pkg-config file and the kleene command.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# Runtime libraries of the tool (libc6, libstdc++6, libgomp1, libfmt9, libgraphblas7...) come from
# dpkg-shlibdeps; the static libraries and the CMake package need fmt's development files at link
# time. GraphBLAS's are only for kleene::graphblas, which kleeneConfig.cmake skips without them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt-dev")
if(KLEENE_HAVE_CUDA)
  # The CUDA runtime comes from NVIDIA's toolkit in /usr/local/cuda, which no Debian package owns:
  # dpkg-shlibdeps would stop there, so the Debian part of the list is written out (the CPU
  # build's shlibdeps result) and the toolkit is the installer's business.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libc6, libstdc++6, libgcc-s1, libgomp1, libfmt9")
  if(KLEENE_HAVE_GRAPHBLAS)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libgraphblas7")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ (>= 4:12), cmake (>= 3.25), pkg-config")
if(KLEENE_HAVE_GRAPHBLAS)
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", libgraphblas-dev")
endif()
include(CPack)
