/* model_text.c: a GPU model's sizes and profile names as text, for the messages that
 * refuse a size or a profile by listing the ones the model has. */
#include <stdio.h>

#include "migsched/gpu.h"

/* Appends ", " and word to buf (len bytes, NUL-terminated), or word alone at the start. */
static void append(char *buf, size_t len, const char *word)
{
    size_t n = 0;
    while (n < len && buf[n])
        n++;
    if (n < len)
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "", word);
}

void ms_gpu_sizes_text(const ms_gpu_model *m, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    for (int i = 0; i < m->nsizes; i++) {
        char size[16];
        snprintf(size, sizeof size, "%d", m->sizes[i]);
        append(buf, len, size);
    }
}

void ms_gpu_profiles_text(const ms_gpu_model *m, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    for (int i = 0; i < m->nprofiles; i++)
        append(buf, len, m->profiles[i].name);
}
