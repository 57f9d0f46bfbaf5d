/* loader.c — nvcc → cached .so. The cache key is an XXH3 hash of the source, every file the build
 * read (nvcc's dependency list, kept beside the object and re-hashed on lookup), the flags, the
 * architecture and nvcc's identity (its version.json, path, size and mtime), so a cached run
 * never starts nvcc and any change to one of them rebuilds. nvcc only ever sees the cache's own
 * names (cache.h): it hands names to a shell. */
#include "loader.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include "xxhash.h"

#include "loader_int.h"

#define LD_OBJECT_MARK "NAME-KEY.so" /* in the command until the object's key is known */

/* Bump when the compile recipe below changes: old objects then no longer match. */
#define LD_RECIPE "nvcc -O3 -shared -fPIC --cudart shared -lineinfo -lcuda(stub, as-needed) v3"

void ld_arch_for(int major, int minor, char *out, size_t len)
{
    /* 9.0 gets the arch-specific target so wgmma/setmaxnreg stages build */
    snprintf(out, len, "sm_%d%d%s", major, minor, major == 9 && minor == 0 ? "a" : "");
}

bool ld_arch_valid(const char *s)
{
    if (strncmp(s, "sm_", 3) != 0) return false;
    const char *p = s + 3;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        p++;
        digits++;
    }
    if (digits < 2 || digits > 3) return false;
    if (*p == 'a' || *p == 'f') p++;
    return *p == '\0';
}

void ld_gencode(const char *arch, char *out, size_t len)
{
    snprintf(out, len, "-gencode=arch=compute_%s,code=%s", arch + 3, arch);
}

void ld_gencode_ptx(const char *arch, char *out, size_t len)
{
    snprintf(out, len, "-gencode=arch=compute_%s,code=compute_%s", arch + 3, arch + 3);
}

char *ld_read_text(const char *path, size_t *len) { return ch_read_file(path, len); }

static int ld_mkdirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* nvcc's identity without running it: the toolkit's version.json and the binary's stat. */
static void ld_hash_nvcc(XXH3_state_t *st, const char *nvcc, const char *root)
{
    char real[PATH_MAX];
    if (!realpath(nvcc, real)) snprintf(real, sizeof(real), "%s", nvcc);
    XXH3_64bits_update(st, real, strlen(real) + 1);
    XXH3_64bits_update(st, root, strlen(root) + 1);
    struct stat sb;
    if (stat(real, &sb) == 0) {
        long long v[2] = {(long long)sb.st_size, (long long)sb.st_mtime};
        XXH3_64bits_update(st, v, sizeof(v));
    }
    char vj[PATH_MAX + 32];
    snprintf(vj, sizeof(vj), "%s/version.json", root);
    size_t n;
    char *text = root[0] ? ld_read_text(vj, &n) : NULL;
    if (text) {
        XXH3_64bits_update(st, text, n);
        free(text);
    }
}

/* A file's identity without reading it: its real path, size and modification time. */
static void ld_hash_stat(XXH3_state_t *st, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) return;
    XXH3_64bits_update(st, real, strlen(real) + 1);
    struct stat sb;
    if (stat(real, &sb) == 0) {
        long long v[2] = {(long long)sb.st_size, (long long)sb.st_mtime};
        XXH3_64bits_update(st, v, sizeof(v));
    }
}

/* What decides nvcc's build outside the file and --nvcc-flags: the variables nvcc and the host
 * compiler read options and include paths from, and the host compilers PATH finds first. */
static void ld_hash_env(XXH3_state_t *st)
{
    static const char *const vars[] = {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN",
                                        "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PATH",
                                        "CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        XXH3_64bits_update(st, vars[i], strlen(vars[i]) + 1);
        XXH3_64bits_update(st, v ? v : "\1unset", strlen(v ? v : "\1unset") + 1);
    }
    const char *path = getenv("PATH");
    static const char *const cc[] = {"gcc", "g++"};
    for (size_t i = 0; path && i < 2; i++)
        for (const char *d = path; *d;) {
            size_t n = strcspn(d, ":");
            char cand[PATH_MAX];
            if (n && n < sizeof(cand) - 8) {
                snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, d, cc[i]);
                if (access(cand, X_OK) == 0) {
                    ld_hash_stat(st, cand);
                    break;
                }
            }
            d += n + (d[n] == ':');
        }
}

/* Header names an #include could come to mean instead of the file it read last time: a new
 * "cuda_fp16.h" beside the solution shadows the toolkit's, and the dependency list names only
 * what was found. So the key holds the header-like names (not contents: those are in the list)
 * under the solution's folder and each -I folder, two levels deep, sorted. */
#define LD_NAMES_MAX 4096
#define LD_VISIT_MAX 20000
typedef struct {
    char **names;
    size_t n, visited;
} ld_names;

static bool ld_header_like(const char *name)
{
    static const char *const ext[] = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inc", ".inl", ".ipp", ".tcc"};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (strcmp(dot, ext[i]) == 0) return true;
    return false;
}

static void ld_walk(ld_names *w, const char *dir, const char *rel, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && w->visited < LD_VISIT_MAX && w->n < LD_NAMES_MAX) {
        w->visited++;
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char full[PATH_MAX], sub[PATH_MAX];
        if (snprintf(full, sizeof(full), "%s/%s", dir, e->d_name) >= (int)sizeof(full) ||
            snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >= (int)sizeof(sub))
            continue;
        struct stat sb;
        if (stat(full, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode) && depth < 2) {
            ld_walk(w, full, sub, depth + 1);
        } else if (ld_header_like(e->d_name)) {
            char *copy = strdup(sub);
            if (copy) w->names[w->n++] = copy;
        }
    }
    closedir(d);
}

static int ld_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ld_hash_folder(XXH3_state_t *st, const char *dir)
{
    ld_names w = {calloc(LD_NAMES_MAX, sizeof(char *)), 0, 0};
    if (!w.names) return;
    ld_walk(&w, dir, "", 0);
    qsort(w.names, w.n, sizeof(char *), ld_cmp_names);
    XXH3_64bits_update(st, dir, strlen(dir) + 1);
    for (size_t i = 0; i < w.n; i++) {
        XXH3_64bits_update(st, w.names[i], strlen(w.names[i]) + 1);
        free(w.names[i]);
    }
    free(w.names);
}

static void ld_hash_header_names(XXH3_state_t *st, const char *src_path, const char *extra)
{
    char real[PATH_MAX];
    if (realpath(src_path, real)) {
        char *slash = strrchr(real, '/');
        if (slash) *slash = '\0';
        ld_hash_folder(st, real[0] ? real : "/");
    }
    /* -I DIR, -IDIR, --include-path DIR, --include-path=DIR, -isystem DIR in --nvcc-flags */
    char *copy = strdup(extra);
    if (!copy) return;
    bool next_is_dir = false;
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        const char *dir = NULL;
        if (next_is_dir) dir = t;
        next_is_dir = false;
        if (!dir && (strcmp(t, "-I") == 0 || strcmp(t, "--include-path") == 0 || strcmp(t, "-isystem") == 0))
            next_is_dir = true;
        else if (!dir && strncmp(t, "--include-path=", 15) == 0)
            dir = t + 15;
        else if (!dir && strncmp(t, "-I", 2) == 0)
            dir = t + 2;
        if (dir && dir[0] && realpath(dir, real)) ld_hash_folder(st, real);
    }
    free(copy);
}

bool ld_prepare(const ld_options *o, const char *src_path, const char *tag, ld_prep *p,
                ld_status *status, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    *status = LD_IO_ERROR;
    if (!ld_find_nvcc(p->nvcc, sizeof(p->nvcc))) {
        const char *env = getenv("NVCC");
        if (env && *env)
            snprintf(err, errlen, "NVCC=%s is not an executable file", env);
        else
            snprintf(err, errlen,
                     "nvcc not found (looked at PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
        *status = LD_NO_NVCC;
        return false;
    }
    size_t src_len;
    char *src = ld_read_text(src_path, &src_len);
    if (!src) {
        snprintf(err, errlen, "cannot read %s: %s", src_path, strerror(errno));
        return false;
    }
    if (ld_mkdirs(o->cache_dir) != 0 || !realpath(o->cache_dir, p->cache_dir)) {
        snprintf(err, errlen, "cannot create cache directory %s: %s", o->cache_dir, strerror(errno));
        free(src);
        return false;
    }
    /* every name in the cache goes to nvcc, which passes names to its tools through a shell */
    if (!ch_path_safe(p->cache_dir) || strlen(p->cache_dir) > PATH_MAX - 128) {
        snprintf(err, errlen, "the cache directory %s holds a character nvcc's shell would "
                 "expand (\" ` $ \\ , or a line break) or is too long: set HARNESS_CACHE to "
                 "another directory", p->cache_dir);
        free(src);
        return false;
    }
    if (!ch_stage(p->cache_dir, src_path, &p->src, err, errlen)) {
        free(src);
        return false;
    }
    const char *extra = o->extra_flags ? o->extra_flags : "";
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, src, src_len);
    XXH3_64bits_update(st, "\0" LD_RECIPE, sizeof(LD_RECIPE) + 1);
    XXH3_64bits_update(st, tag, strlen(tag) + 1);
    XXH3_64bits_update(st, extra, strlen(extra) + 1);
    /* the wrapper's name stands for the file's absolute path: relative #includes resolve there */
    XXH3_64bits_update(st, p->src.wrapper, strlen(p->src.wrapper) + 1);
    char cwd[PATH_MAX];
    if (extra[0] && getcwd(cwd, sizeof(cwd))) XXH3_64bits_update(st, cwd, strlen(cwd) + 1);
    ld_toolkit_root(p->nvcc, p->root, sizeof(p->root));
    ld_hash_nvcc(st, p->nvcc, p->root);
    ld_hash_env(st);
    ld_hash_header_names(st, src_path, extra);
    p->key0 = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    free(src);
    *status = LD_OK;
    return true;
}

int ld_argv(const ld_prep *p, const ld_options *o, bool bare, const char *dfile,
            const char *const *more, const char *out, const char *input, const char **argv, int max,
            char **copy)
{
    int argc = 0;
    argv[argc++] = p->nvcc;
    *copy = strdup(o->extra_flags ? o->extra_flags : "");
    if (!bare) {
        /* static: argv may be read after this returns */
        static const char *const fixed[] = {"-O3", "-shared", "-Xcompiler", "-fPIC", "--cudart",
                                            "shared", "-lineinfo"};
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    }
    char *save = NULL;
    for (char *tok = *copy ? strtok_r(*copy, " \t", &save) : NULL; tok && argc < max - 16;
         tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    if (dfile) {
        argv[argc++] = "-MD";
        argv[argc++] = "-MF";
        argv[argc++] = dfile;
        argv[argc++] = "-MT";
        argv[argc++] = "hx";
    }
    if (p->src.include_flag[0]) argv[argc++] = p->src.include_flag;
    for (int i = 0; more && more[i] && argc < max - 4; i++) argv[argc++] = more[i];
    argv[argc++] = "-o";
    argv[argc++] = out;
    argv[argc++] = input ? input : p->src.wrapper;
    argv[argc] = NULL;
    return argc;
}

/* The command's -o argument, known once the object's key is: the object's file name. */
static void ld_name_object(ld_build *b)
{
    char *mark = strstr(b->command, LD_OBJECT_MARK);
    const char *slash = strrchr(b->so_path, '/');
    if (!mark || !slash) return;
    char rest[sizeof(b->command)];
    snprintf(rest, sizeof(rest), "%s", mark + strlen(LD_OBJECT_MARK));
    snprintf(mark, sizeof(b->command) - (size_t)(mark - b->command), "%s%s", slash + 1, rest);
}

ld_status ld_build_start(const ld_options *o, const char *src_path, ld_build *b)
{
    memset(b, 0, sizeof(*b));
    b->slot = -1;
    snprintf(b->src, sizeof(b->src), "%s", src_path);
    b->has_flags = o->extra_flags && strspn(o->extra_flags, " \t") < strlen(o->extra_flags);
    b->rebuild = o->rebuild;
    char tag[64];
    snprintf(tag, sizeof(tag), "object %s%s", o->arch, o->ptx_only ? " ptx-only" : "");
    ld_status status;
    if (!ld_prepare(o, src_path, tag, &b->prep, &status, b->error, sizeof(b->error)))
        return status;
    const ld_prep *p = &b->prep;
    snprintf(b->nvcc, sizeof(b->nvcc), "%s", p->nvcc);
    snprintf(b->stem_path, sizeof(b->stem_path), "%s/%s", p->cache_dir, p->src.stem);
    unsigned long long k0 = (unsigned long long)p->key0;
    snprintf(b->dep_path, sizeof(b->dep_path), "%s-%016llx.d", b->stem_path, k0);
    snprintf(b->log_path, sizeof(b->log_path), "%s-%016llx.log", b->stem_path, k0);
    int pid = (int)getpid();
    snprintf(b->tmp_path, sizeof(b->tmp_path), "%s-%016llx.so.tmp.%d", b->stem_path, k0, pid);
    snprintf(b->dep_tmp, sizeof(b->dep_tmp), "%s.tmp.%d", b->dep_path, pid);
    snprintf(b->log_tmp, sizeof(b->log_tmp), "%s.tmp.%d", b->log_path, pid);

    char gencode[96];
    if (o->ptx_only)
        ld_gencode_ptx(o->arch, gencode, sizeof(gencode));
    else
        ld_gencode(o->arch, gencode, sizeof(gencode));
    /* the driver library through the toolkit's stub, so solutions that call the driver API
     * load; --as-needed keeps it out of objects that never call it (machines without a driver) */
    char stubs[PATH_MAX], stubs_opt[PATH_MAX + 8];
    ld_stubs_in(p->root, stubs, sizeof(stubs));
    snprintf(stubs_opt, sizeof(stubs_opt), "-L%s", stubs);
    const char *more[] = {gencode, stubs[0] ? stubs_opt : NULL, "-Xlinker",
                          "--as-needed,-lcuda,--no-as-needed", NULL};
    const char *argv[112];
    char *copy = NULL;
    int argc = ld_argv(p, o, false, b->dep_tmp, more, b->tmp_path, NULL, argv, 112, &copy);
    /* for the report: the user's file and the object's name, not the cache's temporaries */
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof(b->command); i++) {
        const char *a = argv[i];
        if (i == argc - 1) a = src_path;
        else if (i == argc - 2) a = LD_OBJECT_MARK;
        else if (a == b->dep_tmp) a = strrchr(b->dep_path, '/') + 1;
        used += (size_t)snprintf(b->command + used, sizeof(b->command) - used, "%s%s",
                                 i ? " " : "", a);
    }

    /* cached: the last build's dependency list, every file it names unchanged, and its object */
    uint64_t key;
    if (!o->rebuild && ch_deps_key(b->dep_path, p->key0, &key)) {
        snprintf(b->so_path, sizeof(b->so_path), "%s-%016llx.so", b->stem_path,
                 (unsigned long long)key);
        if (access(b->so_path, R_OK) == 0) {
            b->cached = true;
            ld_name_object(b);
            free(copy);
            return LD_OK;
        }
    }
    b->so_path[0] = '\0';

    ch_sweep(p->cache_dir);
    if (!o->quiet)
        fprintf(stderr, "compiling %s for %s%s with nvcc...\n", src_path,
                o->ptx_only ? "compute_" : "", o->ptx_only ? o->arch + 3 : o->arch);
    b->t0 = ch_now();
    int log = open(b->log_tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) {
        snprintf(b->error, sizeof(b->error), "cannot write %s: %s", b->log_tmp, strerror(errno));
        free(copy);
        return LD_IO_ERROR;
    }
    const char *tmps[CH_TMPS] = {b->tmp_path, b->dep_tmp, b->log_tmp};
    pid_t pid_c = ch_spawn((char *const *)argv, log, tmps, &b->slot);
    close(log);
    free(copy);
    if (pid_c < 0) {
        snprintf(b->error, sizeof(b->error), "cannot run nvcc: %s", strerror(errno));
        unlink(b->log_tmp);
        return LD_IO_ERROR;
    }
    b->pid = (int)pid_c;
    return LD_OK;
}

/* The first line of the log at path that holds what, into out. */
static bool ld_log_line(const char *path, const char *what, char *out, size_t len)
{
    char *text = ld_read_text(path, NULL);
    const char *hit = text ? strstr(text, what) : NULL;
    if (hit) snprintf(out, len, "%.*s", (int)strcspn(hit, "\r\n"), hit);
    free(text);
    return hit != NULL;
}

/* The log under its own name, naming the user's file where nvcc saw the cache's names. */
static void ld_keep_log(ld_build *b)
{
    if (rename(b->log_tmp, b->log_path) != 0) {
        unlink(b->log_tmp);
        return;
    }
    if (b->prep.src.alias[0]) ld_rename_in_log(b->log_path, b->prep.src.alias, b->src);
    ld_rename_in_log(b->log_path, b->prep.src.wrapper, b->src);
}

/* nvcc has exited with ws: move the object into the cache under the key of what it read. */
static ld_status ld_build_settle(ld_build *b, int ws);
static ld_status ld_build_reaped(ld_build *b, int ws)
{
    b->pid = 0;
    ch_reaped(b->slot);
    b->seconds = ch_now() - b->t0;
    ld_status st = ld_build_settle(b, ws);
    ch_release(b->slot); /* its temporaries are moved or removed: a signal has nothing to undo */
    b->slot = -1;
    return st;
}

static ld_status ld_build_settle(ld_build *b, int ws)
{
    ld_keep_log(b);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        unlink(b->tmp_path);
        unlink(b->dep_tmp);
        /* --rebuild distrusted the cached object and the build that replaces it failed: its list
         * must not lead a later run back to it (without --rebuild the list stays, so restoring an
         * edited header finds the first object again) */
        if (b->rebuild) unlink(b->dep_path);
        /* nvcc itself refusing what --nvcc-flags asked ("nvcc fatal": -E with the recipe's -MD,
         * an unknown option) is not the solution's compile error */
        char fatal[256];
        if (b->has_flags && ld_log_line(b->log_path, "nvcc fatal", fatal, sizeof(fatal))) {
            snprintf(b->error, sizeof(b->error), "nvcc refused the build (--nvcc-flags?): %s", fatal);
            return LD_NOT_OBJECT;
        }
        snprintf(b->error, sizeof(b->error), "nvcc failed (exit status %d)",
                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        return LD_COMPILE_ERROR;
    }
    /* an nvcc flag that changes what it writes (-E, -c, -ptx, -M...) leaves no loadable object:
     * nothing is cached and the solution is not blamed */
    if (!ld_is_shared_object(b->tmp_path)) {
        unlink(b->tmp_path);
        unlink(b->dep_tmp);
        snprintf(b->error, sizeof(b->error), "nvcc exited 0 but wrote no shared object%s",
                 b->has_flags ? " (an --nvcc-flags option changes what nvcc writes?)" : "");
        return LD_NOT_OBJECT;
    }
    uint64_t key;
    bool deps = ch_deps_key(b->dep_tmp, b->prep.key0, &key);
    if (!deps) key = b->prep.key0; /* no list to look it up by: this run's object, never a hit */
    snprintf(b->so_path, sizeof(b->so_path), "%s-%016llx.so", b->stem_path,
             (unsigned long long)key);
    /* atomic: a parallel run never sees half a file; the object before the list that finds it */
    if (rename(b->tmp_path, b->so_path) != 0) {
        snprintf(b->error, sizeof(b->error), "cannot move %s into the cache: %s", b->tmp_path,
                 strerror(errno));
        unlink(b->tmp_path);
        unlink(b->dep_tmp);
        return LD_IO_ERROR;
    }
    if (!deps || rename(b->dep_tmp, b->dep_path) != 0) unlink(b->dep_tmp);
    ld_name_object(b);
    return LD_OK;
}

/* nvcc past ch_compile_limit(): killed (by ch_wait), the build a compile error of the file's */
static ld_status ld_build_overdue(ld_build *b)
{
    b->pid = 0;
    ch_reaped(b->slot);
    unlink(b->tmp_path);
    unlink(b->dep_tmp);
    if (b->rebuild) unlink(b->dep_path);
    ld_keep_log(b);
    ch_release(b->slot);
    b->slot = -1;
    b->seconds = ch_now() - b->t0;
    snprintf(b->error, sizeof(b->error), "nvcc did not finish within %.0f s (killed): does the file "
             "#include something that never ends, such as a FIFO or a device?", ch_compile_limit());
    return LD_COMPILE_ERROR;
}

bool ld_build_poll(ld_build *b, ld_status *status)
{
    if (b->pid <= 0) {
        *status = LD_OK; /* cached, or already finished */
        return true;
    }
    int ws = 0;
    pid_t r = waitpid((pid_t)b->pid, &ws, WNOHANG);
    if (r == 0 && ch_now() - b->t0 >= ch_compile_limit()) {
        int w = ch_wait((pid_t)b->pid, &ws, 0.0);
        if (w == 0) {
            *status = ld_build_overdue(b);
            return true;
        }
        r = w > 0 ? (pid_t)b->pid : -1; /* it exited just now, or the wait failed */
    }
    if (r == 0) return false;
    if (r < 0) {
        b->pid = 0;
        ch_release(b->slot);
        snprintf(b->error, sizeof(b->error), "cannot wait for nvcc: %s", strerror(errno));
        *status = LD_IO_ERROR;
        return true;
    }
    *status = ld_build_reaped(b, ws);
    return true;
}

ld_status ld_build_finish(ld_build *b)
{
    if (b->pid <= 0) return LD_OK;
    int ws = 0;
    int w = ch_wait((pid_t)b->pid, &ws, b->t0 + ch_compile_limit());
    if (w == 0) return ld_build_overdue(b);
    if (w < 0) {
        b->pid = 0;
        ch_release(b->slot);
        snprintf(b->error, sizeof(b->error), "cannot run nvcc: %s", strerror(errno));
        return LD_IO_ERROR;
    }
    return ld_build_reaped(b, ws);
}

void ld_build_cancel(ld_build *b)
{
    if (b->pid <= 0) return;
    kill(-(pid_t)b->pid, SIGKILL); /* nvcc and the tools it started */
    waitpid((pid_t)b->pid, NULL, 0);
    b->pid = 0;
    unlink(b->tmp_path);
    unlink(b->dep_tmp);
    unlink(b->log_tmp);
    ch_release(b->slot);
    b->slot = -1;
}

ld_status ld_build_solution(const ld_options *o, const char *src_path, ld_build *b)
{
    ld_status s = ld_build_start(o, src_path, b);
    return s == LD_OK ? ld_build_finish(b) : s;
}

void ld_rename_in_log(const char *path, const char *from, const char *to)
{
    size_t n, fl = strlen(from), tl = strlen(to);
    char *text = ld_read_text(path, &n);
    if (!text || !fl || !strstr(text, from)) {
        free(text);
        return;
    }
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(text);
        return;
    }
    for (const char *p = text, *hit; *p; p = hit + fl) {
        hit = strstr(p, from);
        if (!hit) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(hit - p), f);
        fwrite(to, 1, tl, f);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) unlink(tmp);
    free(text);
}

void ld_print_log(const ld_build *b, FILE *to)
{
    size_t n;
    char *text = ld_read_text(b->log_path, &n);
    if (!text) return;
    fwrite(text, 1, n, to);
    if (n && text[n - 1] != '\n') fputc('\n', to);
    free(text);
}
