/* csv_quote.c: one CSV field, quoted as RFC 4180 says. */
#include "migsched/format.h"

void ms_csv_write_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
