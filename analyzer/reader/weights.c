#include "weights.h"

#include "regular.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t be64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* An index file's stream class and instance (from its first entry: LTTng
 * index 1.1, entries of at least 64 bytes); -1 when it has none. */
static int index_ids(const char *path, uint64_t *cls, uint64_t *inst)
{
    unsigned char b[16 + 64];
    FILE *f = fja_regular_open(path, NULL, 0);
    size_t got = f ? fread(b, 1, sizeof b, f) : 0;
    if (f) fclose(f);
    if (got < sizeof b || be64(b) >> 32 != 0xC1F1DCC1u) return -1;
    uint32_t entry = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
    if (entry < 64) return -1;
    *cls = be64(b + 16 + 48);
    *inst = be64(b + 16 + 56);
    return 0;
}

typedef struct {
    uint64_t cls, inst, bytes;
} stream_file;

/* The stream files of dir its index names: their class, instance and
 * bytes; *n of them (NULL: none known). */
static stream_file *dir_streams(const char *dir, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index", dir);
    DIR *d = opendir(path);
    stream_file *files = NULL;
    size_t cap = 0;
    const struct dirent *e;
    *n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        stream_file f;
        struct stat st;
        if (len < 5 || strcmp(e->d_name + len - 4, ".idx") != 0) continue;
        snprintf(path, sizeof path, "%s/index/%s", dir, e->d_name);
        if (index_ids(path, &f.cls, &f.inst)) continue;
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)(len - 4), e->d_name);
        if (stat(path, &st)) continue;
        f.bytes = (uint64_t)st.st_size;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            stream_file *a = realloc(files, cap * sizeof *a);
            if (!a) break; /* what is known so far */
            files = a;
        }
        files[(*n)++] = f;
    }
    if (d) closedir(d);
    return files;
}

/* The weights of the ports of folder src. */
static void dir_weights(char *const *dirs, size_t src, char *const *name, const size_t *source,
                        uint32_t n, uint64_t *weight)
{
    size_t nfiles;
    stream_file *files = dir_streams(dirs[src], &nfiles);
    for (uint32_t k = 0; k < n; k++) {
        unsigned long long cls, inst;
        const char *ids = strchr(name[k], '|');
        if (source[k] != src || !ids || sscanf(ids, "| %llu | %llu", &cls, &inst) != 2) continue;
        for (size_t i = 0; i < nfiles; i++)
            if (files[i].cls == cls && files[i].inst == inst) weight[k] = files[i].bytes;
    }
    free(files);
}

void stream_weights(char *const *dirs, char *const *name, const size_t *source, uint32_t n,
                    uint64_t *weight)
{
    for (uint32_t k = 0; k < n; k++)
        weight[k] = 0;
    for (uint32_t k = 0; k < n; k++)
        if (k == 0 || source[k] != source[k - 1])
            dir_weights(dirs, source[k], name, source, n, weight);
}
