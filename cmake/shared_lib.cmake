# libmigsched.so.0 for programs in other languages (the Python package in python/): every
# module linked whole, exporting only ms_* and msc_* (cmake/libmigsched.map), with the flat
# API's declarations compiled in (msc_cdef: the text of include/migsched/capi*.h).
file(GLOB CAPI_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/migsched/capi*.h)
list(SORT CAPI_HEADERS)
list(JOIN CAPI_HEADERS "|" capi_header_list)
set(CAPI_CDEF_C ${CMAKE_BINARY_DIR}/capi_cdef.c)
add_custom_command(OUTPUT ${CAPI_CDEF_C}
  COMMAND ${CMAKE_COMMAND} "-DIN=${capi_header_list}" -DOUT=${CAPI_CDEF_C}
          -DNAME=msc_cdef_text -DHEADER=capi_internal.h -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
  DEPENDS ${CAPI_HEADERS} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
  VERBATIM)  # the list's "|" reaches cmake, not the shell as a pipe
target_sources(ms_capi PRIVATE ${CAPI_CDEF_C})
target_compile_definitions(ms_capi PRIVATE MIGSCHED_VERSION="${PROJECT_VERSION}")

list(TRANSFORM MIGSCHED_MODULES PREPEND ms_ OUTPUT_VARIABLE module_archives)
# CMake wants a source of the library's own; the modules are its code.
add_library(migsched_shared SHARED ${CMAKE_SOURCE_DIR}/cmake/shared_lib_unit.c)
target_link_libraries(migsched_shared PRIVATE -Wl,--whole-archive ${module_archives}
                      -Wl,--no-whole-archive ms_build_flags)
target_link_options(migsched_shared PRIVATE -Wl,--no-undefined -Wl,-Bsymbolic-functions
                    -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/libmigsched.map)
set_target_properties(migsched_shared PROPERTIES OUTPUT_NAME migsched
  VERSION ${PROJECT_VERSION} SOVERSION 0 LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/libmigsched.map)
install(TARGETS migsched_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# What a program linking the library sees: its headers and what they include (jansson.h).
add_library(migsched_shared_api INTERFACE)
target_link_libraries(migsched_shared_api INTERFACE migsched_shared PkgConfig::JANSSON
                      Threads::Threads m)
target_include_directories(migsched_shared_api INTERFACE ${CMAKE_SOURCE_DIR}/include)
