# The library for other programs (Debian's libmigsched-dev): one static archive,
# libmigsched.a, of every module's objects and the daemon client's, the public headers
# (include/migsched) and migsched.pc, which names what the archive links.
set(MIGSCHED_ARCHIVE ${CMAKE_BINARY_DIR}/libmigsched.a)
set(mri "CREATE ${MIGSCHED_ARCHIVE}\n")
foreach(m ${MIGSCHED_MODULES})
  string(APPEND mri "ADDLIB $<TARGET_FILE:ms_${m}>\n")
endforeach()
string(APPEND mri "ADDMOD $<JOIN:$<TARGET_OBJECTS:migsched_client>,\nADDMOD >\nSAVE\nEND\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/libmigsched.mri CONTENT "${mri}")
set(module_files)
foreach(m ${MIGSCHED_MODULES})
  list(APPEND module_files $<TARGET_FILE:ms_${m}>)
endforeach()
add_custom_command(OUTPUT ${MIGSCHED_ARCHIVE}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${MIGSCHED_ARCHIVE}
  COMMAND ${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/libmigsched.mri
  DEPENDS ${module_files} $<TARGET_OBJECTS:migsched_client> ${CMAKE_BINARY_DIR}/libmigsched.mri
  COMMENT "Combining the modules into libmigsched.a" VERBATIM)
add_custom_target(migsched_archive ALL DEPENDS ${MIGSCHED_ARCHIVE})
add_dependencies(migsched_archive migsched_client ${module_below})

configure_file(${CMAKE_SOURCE_DIR}/dist/migsched.pc.in ${CMAKE_BINARY_DIR}/migsched.pc @ONLY)
install(FILES ${MIGSCHED_ARCHIVE} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_BINARY_DIR}/migsched.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/migsched DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
