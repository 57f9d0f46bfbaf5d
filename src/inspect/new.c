/* new.c — `harness new NAME`: the problem's starter with the stage header to fill in, written as the
 * next-numbered NN_NAME.cu of a stage folder, never over an existing file. */
#include "inspect.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

int in_new_stage(const char *dir, const char *name, const pb_problem *p, char *path, size_t len,
                 char *err, size_t errlen)
{
    size_t n = strlen(name);
    bool ok = n > 0 && n <= 48 && !isdigit((unsigned char)name[0]);
    for (size_t i = 0; ok && i < n; i++) ok = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ok) {
        snprintf(err, errlen, "'%s': a stage name is 1-48 letters, digits and '_', not starting with a "
                              "digit (the number is added)", name);
        return HX_USAGE;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open the folder %s: %s", dir, strerror(errno));
        return HX_BAD_FILE;
    }
    int last = 0;
    char clash[512] = "", full[512] = ""; /* full: a stage whose number leaves no next one */
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        size_t digits = strspn(e->d_name, "0123456789");
        if (l < 4 || strcmp(e->d_name + l - 3, ".cu") != 0 || !digits || e->d_name[digits] != '_') continue;
        errno = 0;
        long long num = strtoll(e->d_name, NULL, 10); /* digits only: never negative */
        if (errno == ERANGE || num >= INT_MAX) { /* next = last + 1 must stay an int */
            if (!full[0]) snprintf(full, sizeof(full), "%s", e->d_name);
        } else if (num > last) {
            last = (int)num;
        }
        /* the same name under another number would be a second copy of that stage */
        if (l - digits - 1 - 3 == n && strncmp(e->d_name + digits + 1, name, n) == 0)
            snprintf(clash, sizeof(clash), "%s", e->d_name);
    }
    closedir(d);
    if (clash[0]) {
        snprintf(err, errlen, "%s/%s already holds a stage named '%s': nothing written", dir, clash, name);
        return HX_USAGE;
    }
    if (full[0]) { /* refused, not skipped: a smaller number would sort before that stage */
        snprintf(err, errlen, "%s/%s: its number leaves no next one (stages are numbered up to %d): "
                              "nothing written; renumber it or give --dir", dir, full, INT_MAX);
        return HX_USAGE;
    }
    int next = last + 1;
    snprintf(path, len, "%s/%02d_%s.cu", dir, next, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, errlen, errno == EEXIST ? "%s already exists: nothing written" : "cannot create %s: %s",
                 path, strerror(errno));
        return errno == EEXIST ? HX_USAGE : HX_BAD_FILE;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return HX_BAD_FILE;
    }
    char changed[64];
    if (last) snprintf(changed, sizeof(changed), "%02d", last);
    else snprintf(changed, sizeof(changed), "the starter");
    /* the header shape of solutions/STAGE_HEADER.md, to be filled in */
    int w = fprintf(f,
                    "// %02d_%s — TODO: the technique, in one line\n"
                    "//\n"
                    "// Changed from %s: TODO: what changed, and why it should be faster\n"
                    "// Prediction (before measuring): TODO: a number, and why\n"
                    "// Measured (H200, harness): pending\n"
                    "// Tiles: TODO: the compile-time parameters\n"
                    "// Targets: sm_75 sm_80 sm_90a sm_100a\n"
                    "// Judge GPUs: T4 A100 H100 H200 B200\n"
                    "%s",
                    next, name, changed, p->starter);
    if (fclose(f) != 0 || w < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(path);
        return HX_BAD_FILE;
    }
    return HX_SUCCESS;
}

/* The result: the path on stdout, or the failure's line on stderr; with --json one object on
 * stdout either way. Returns code. */
static int in_new_done(bool json, int code, const char *path, const char *problem, const char *err)
{
    if (code != HX_SUCCESS) fprintf(stderr, "harness new: %s\n", err);
    else if (!json) printf("%s\n", path);
    if (!json) return code;
    fputs("{\"path\":", stdout);
    if (code == HX_SUCCESS) rp_json_string(stdout, path);
    else fputs("null", stdout);
    fputs(",\"problem\":", stdout);
    if (problem) rp_json_string(stdout, problem);
    else fputs("null", stdout);
    fprintf(stdout, ",\"exit_code\":%d,\"error\":", code);
    if (code == HX_SUCCESS) fputs("null", stdout);
    else rp_json_string(stdout, err);
    fputs("}\n", stdout);
    return code;
}

int in_new_main(int argc, char **argv)
{
    static const struct option longs[] = {{"problem", required_argument, 0, 'p'},
                                          {"dir", required_argument, 0, 'd'},
                                          {"json", no_argument, 0, 'j'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    const char *problem = "gemm_fp16", *dir = NULL;
    bool json = false;
    char err[PATH_MAX + 256] = "";
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p': problem = optarg; break;
        case 'd': dir = optarg; break;
        case 'j': json = true; break;
        case 'h':
            printf("usage: harness new NAME [--problem P] [--dir DIR] [--json]\n"
                   "Writes the problem's starter, with the stage header to fill in, as the next-numbered\n"
                   "NN_NAME.cu in DIR (default solutions/, or solutions/P/ for problems other than\n"
                   "gemm_fp16), refuses to overwrite, and prints the path (--json: as one object, with\n"
                   "exit_code and error, on every exit).\n");
            return HX_SUCCESS;
        default: /* the first bad option, reported once --json is known: every exit one object */
            if (!err[0])
                snprintf(err, sizeof(err), "%s: unknown option or missing argument (harness new --help)",
                         argv[optind - 1]);
        }
    }
    if (err[0]) return in_new_done(json, HX_USAGE, NULL, NULL, err);
    if (optind != argc - 1) {
        snprintf(err, sizeof(err), "%s (usage: harness new NAME [--problem P] [--dir DIR] [--json])",
                 optind >= argc ? "no stage name given" : "one stage name at a time");
        return in_new_done(json, HX_USAGE, NULL, NULL, err);
    }
    const pb_problem *p = pb_find(problem);
    if (!p) {
        snprintf(err, sizeof(err), "unknown problem '%s'", problem);
        return in_new_done(json, HX_USAGE, NULL, NULL, err);
    }
    char dflt[PATH_MAX];
    if (!dir) {
        pb_stage_dir(p, dflt, sizeof(dflt));
        dir = dflt;
    }
    char path[PATH_MAX + 64];
    int code = in_new_stage(dir, argv[optind], p, path, sizeof(path), err, sizeof(err));
    return in_new_done(json, code, path, p->name, err);
}
