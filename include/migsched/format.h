/* format.h: writing values as text: numbers of any size, CSV fields. */
#ifndef MIGSCHED_FORMAT_H
#define MIGSCHED_FORMAT_H

#include <stdio.h>

/* x as "%.*f" prints it with `decimals` digits after the point while |x| < 1e12, and in
 * "%.6g" form beyond (and for inf/nan): a ratio over a tiny denominator would otherwise
 * print all of its up to 309 digits. The text lives until the end of the full expression:
 * printf("%8s", ms_fixed(rho, 3).s). */
typedef struct ms_num_text {
    char s[48];
} ms_num_text;
ms_num_text ms_fixed(double x, int decimals);

/* Writes s as one double-quoted CSV field, doubling the quotes inside (RFC 4180). */
void ms_csv_write_quoted(FILE *f, const char *s);

#endif
