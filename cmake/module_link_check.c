/* module_link_check.c: the program that every object of one module (linked whole) is linked
 * into with only the modules before it, so that a call to a later module fails the build. */
int main(void) { return 0; }
