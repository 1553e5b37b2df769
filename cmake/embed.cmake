# Writes the file IN as a C byte array ms_status_page_html (NUL-terminated) into OUT:
# `cmake -DIN=page.html -DOUT=page.c -P embed.cmake`. C has no raw strings; bytes need no
# escaping.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n"
  "#include \"status_page.h\"\n\nconst char ms_status_page_html[] = {\n${bytes}0x00};\n")
