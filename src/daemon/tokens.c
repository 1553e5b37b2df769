/* tokens.c: migschedd's token file: reading it, and finding a bearer token's user. */
#include "tokens.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"

struct entry {
    md_user user;
    int line;
    size_t len;
    char *token;
};

struct md_tokens {
    int n, cap;
    struct entry *e;
};

void md_tokens_free(md_tokens *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++) {
        /* A token is a secret: it does not linger in freed memory. */
        memset(t->e[i].token, 0, t->e[i].len);
        free(t->e[i].token);
    }
    free(t->e);
    free(t);
}

int md_tokens_count(const md_tokens *t) { return t->n; }

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* The next blank-separated field of *p (advanced past it); its length in *len, 0 at the
 * end of the line. */
static const char *field(const char **p, size_t *len)
{
    const char *s = *p;
    while (blank(*s))
        s++;
    const char *f = s;
    while (*s && !blank(*s))
        s++;
    *len = (size_t)(s - f);
    *p = s;
    return f;
}

/* One `USER TOKEN` line (NUL-terminated, without its newline) added to t. */
static int add_line(md_tokens *t, const char *path, int line, const char *text, ms_error *err)
{
    size_t ulen, tlen, rest;
    const char *user = field(&text, &ulen);
    const char *tok = field(&text, &tlen);
    field(&text, &rest);
    if (!tlen || rest)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%d: expected USER TOKEN (a local user's name, "
                            "then the token)",
                            path, line);
    if (tlen < MD_TOKEN_MIN || tlen > MD_TOKEN_MAX)
        return ms_error_set(err, MS_EINVAL, "%s:%d: a token of %zu bytes: expected %d to %d", path,
                            line, tlen, MD_TOKEN_MIN, MD_TOKEN_MAX);
    for (size_t i = 0; i < tlen; i++)
        if (tok[i] < 0x21 || tok[i] > 0x7e)
            return ms_error_set(err, MS_EINVAL,
                                "%s:%d: the token holds a byte that is not "
                                "printable ASCII",
                                path, line);
    for (int i = 0; i < t->n; i++)
        if (t->e[i].len == tlen && !memcmp(t->e[i].token, tok, tlen))
            return ms_error_set(err, MS_EINVAL,
                                "%s:%d: the token of line %d listed again "
                                "(each token names one user)",
                                path, line, t->e[i].line);
    char name[MD_USER_NAME_MAX];
    if (ulen >= sizeof name)
        return ms_error_set(err, MS_EINVAL, "%s:%d: a user name of %zu bytes (at most %d)", path,
                            line, ulen, MD_USER_NAME_MAX - 1);
    memcpy(name, user, ulen);
    name[ulen] = '\0';
    struct entry e = {.line = line, .len = tlen};
    int rc = md_user_by_name(name, &e.user, err);
    if (rc) {
        ms_error_prefix(err, "%s:%d", path, line);
        return rc;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        struct entry *grown = realloc(t->e, (size_t)cap * sizeof *grown);
        if (!grown)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        t->e = grown;
        t->cap = cap;
    }
    if (!(e.token = malloc(tlen)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    memcpy(e.token, tok, tlen);
    t->e[t->n++] = e;
    return MS_OK;
}

int md_tokens_read(const char *path, md_tokens **out, ms_error *err)
{
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    md_tokens *t = calloc(1, sizeof *t);
    if (!t) {
        free(text);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    char *p = text;
    for (int line = 1; *p && !rc; line++) {
        char *end = p + strcspn(p, "\n");
        bool last = !*end;
        *end = '\0';
        if (end > p && end[-1] == '\r')
            end[-1] = '\0';
        const char *s = p;
        while (blank(*s))
            s++;
        if (*s && *s != '#')
            rc = add_line(t, path, line, s, err);
        p = last ? end : end + 1;
    }
    if (!rc && !t->n)
        rc = ms_error_set(err, MS_EINVAL, "%s: no token in it (expected USER TOKEN lines)", path);
    memset(text, 0, len);
    free(text);
    if (rc) {
        md_tokens_free(t);
        return rc;
    }
    *out = t;
    return MS_OK;
}

/* 1 when the first len bytes of a and b are equal, else 0, without a branch on the bytes. */
static uint32_t same(const char *a, const char *b, size_t len)
{
    unsigned char d = 0;
    for (size_t i = 0; i < len; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return (((uint32_t)d - 1) >> 8) & 1;
}

bool md_tokens_match(const md_tokens *t, const char *guess, size_t len, md_user *who)
{
    /* Every token is compared in full, whatever matched before; a guess of another length
     * is compared with the token itself so that the work is the same. */
    uint32_t found = 0, at = 0;
    for (int i = 0; i < t->n; i++) {
        const struct entry *e = &t->e[i];
        uint32_t eq = same(len == e->len ? guess : e->token, e->token, e->len) &
                      (uint32_t)(len == e->len);
        uint32_t mask = 0u - eq;
        at = (at & ~mask) | ((uint32_t)i & mask);
        found |= eq;
    }
    if (found)
        *who = t->e[at].user;
    return found;
}
