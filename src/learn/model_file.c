/* model_file.c: the container of model files (magic, version, JSON header, float32
 * arrays), shared by the PPO policy files and the DQN files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/learn.h"
#include "model_file.h"

static const char MAGIC[8] = {'M', 'S', 'R', 'L', 'M', 'O', 'D', 'L'};

static bool put_u32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24};
    return fwrite(b, 1, 4, f) == 4;
}

static uint32_t get_u32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int modelfile_write(const char *path, json_t *header, const float *const *arrays,
                    const size_t *counts, int n, ms_error *err)
{
    char *text = header ? json_dumps(header, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    if (!text)
        return ms_error_set(err, MS_ENOMEM, "%s: cannot build the model header", path);
    ms_output o;
    if (ms_output_open(&o, path, err)) {
        free(text);
        return err ? err->code : MS_EIO;
    }
    size_t len = strlen(text);
    bool ok = fwrite(MAGIC, 1, 8, o.f) == 8 && put_u32(o.f, MS_MODEL_VERSION) &&
              put_u32(o.f, (uint32_t)len) && fwrite(text, 1, len, o.f) == len;
    for (int i = 0; ok && i < n; i++)
        ok = fwrite(arrays[i], sizeof(float), counts[i], o.f) == counts[i];
    free(text);
    if (!ok) {
        ms_output_abort(&o);
        return ms_error_set(err, MS_EIO, "%s: write failed", path);
    }
    return ms_output_commit(&o, err);
}

static int check_arrays(const char *path, const char *body, size_t body_len, float *const *arrays,
                        const size_t *counts, int n, ms_error *err)
{
    size_t need = 0;
    for (int i = 0; i < n; i++)
        need += counts[i] * sizeof(float);
    if (body_len != need)
        return ms_error_set(err, MS_EINVAL,
                            "%s: %zu bytes of parameters, the header's "
                            "architecture needs %zu",
                            path, body_len, need);
    for (int i = 0; i < n; i++) {
        memcpy(arrays[i], body, counts[i] * sizeof(float));
        body += counts[i] * sizeof(float);
    }
    size_t k = 0; /* position over all arrays, as stored */
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < counts[i]; j++, k++)
            if (!isfinite(arrays[i][j]))
                return ms_error_set(err, MS_EINVAL, "%s: stored value %zu is not finite", path, k);
    return MS_OK;
}

int modelfile_load(const char *path, modelfile_parse_fn parse, void *ctx, ms_error *err)
{
    char *buf;
    size_t len;
    if (ms_read_binary_file(path, &buf, &len, err))
        return err ? err->code : MS_EIO;
    int rc = modelfile_parse(buf, len, path, parse, ctx, err);
    free(buf);
    return rc;
}

int modelfile_parse(const char *buf, size_t len, const char *path, modelfile_parse_fn parse,
                    void *ctx, ms_error *err)
{
    const unsigned char *b = (const unsigned char *)buf;
    int rc = MS_EINVAL;
    uint32_t version = len >= 16 ? get_u32(b + 8) : 0, hlen = len >= 16 ? get_u32(b + 12) : 0;
    json_error_t je;
    json_t *h = NULL;
    if (len < 16 || memcmp(buf, MAGIC, 8))
        ms_error_set(err, rc, "%s: not a migsched model file (bad magic)", path);
    else if (version != MS_MODEL_VERSION)
        ms_error_set(err, rc, "%s: model version %u, this build reads %d", path, version,
                     MS_MODEL_VERSION);
    else if (hlen > len - 16)
        ms_error_set(err, rc, "%s: header length %u past the end of the file", path, hlen);
    else if (!(h = json_loadb(buf + 16, hlen, 0, &je)))
        ms_error_set(err, rc, "%s: header: %s", path, je.text);
    else {
        float *arrays[3];
        size_t counts[3];
        int n = 0;
        rc = parse(path, h, len - 16 - hlen, ctx, arrays, counts, &n, err);
        if (!rc)
            rc = check_arrays(path, buf + 16 + hlen, len - 16 - hlen, arrays, counts, n, err);
    }
    json_decref(h);
    return rc;
}
