/* shared_lib_unit.c: libmigsched.so's own translation unit, which CMake requires of a
 * library; everything in the library comes from the modules' archives. */
typedef int ms_shared_lib_unit;
