/* loader.c — nvcc → cached .so. The cache key is an XXH3 hash of the source, the flags, the
 * architecture and nvcc's identity (its version.json, path, size and mtime), so a cached run
 * never starts nvcc and any change to one of them rebuilds. */
#include "loader.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include "xxhash.h"

/* Bump when the compile recipe below changes: old objects then no longer match. */
#define LD_RECIPE "nvcc -O3 -shared -fPIC --cudart shared -lineinfo -lcuda(stub, as-needed) v2"

static bool ld_executable(const char *p) { return access(p, X_OK) == 0; }

bool ld_find_nvcc(char *out, size_t len)
{
    const char *env = getenv("NVCC");
    if (env && *env && ld_executable(env)) {
        snprintf(out, len, "%s", env);
        return true;
    }
    const char *path = getenv("PATH");
    if (path) {
        char *copy = strdup(path), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            char cand[PATH_MAX];
            snprintf(cand, sizeof(cand), "%s/nvcc", *dir ? dir : ".");
            if (ld_executable(cand)) {
                snprintf(out, len, "%s", cand);
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    const char *home = getenv("CUDA_HOME");
    char cand[PATH_MAX];
    if (home && *home) {
        snprintf(cand, sizeof(cand), "%s/bin/nvcc", home);
        if (ld_executable(cand)) {
            snprintf(out, len, "%s", cand);
            return true;
        }
    }
    if (ld_executable("/usr/local/cuda/bin/nvcc")) {
        snprintf(out, len, "/usr/local/cuda/bin/nvcc");
        return true;
    }
    return false;
}

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

char *ld_read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

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
static void ld_toolkit_root(const char *nvcc, char *out, size_t len);
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

static const char *ld_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static double ld_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* nvcc's own answer to where its toolkit lives: the "#$ TOP=" line of a dry run. */
static bool ld_dryrun_top(const char *nvcc, char *out, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0) return false;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(nvcc, nvcc, "--dryrun", "-shared", "-o", "/dev/null", "ld_probe.cu", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[16384];
    size_t used = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0) {
        used += (size_t)n;
        if (used == sizeof(buf) - 1) break;
    }
    buf[used] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    const char *top = strstr(buf, "#$ TOP=");
    if (!top) return false;
    top += 7;
    size_t l = strcspn(top, "\r\n");
    char raw[PATH_MAX];
    if (l >= sizeof(raw)) return false;
    memcpy(raw, top, l);
    raw[l] = '\0';
    char real[PATH_MAX];
    if (!realpath(raw, real)) return false;
    snprintf(out, len, "%s", real);
    return true;
}

static void ld_toolkit_root(const char *nvcc, char *out, size_t len)
{
    out[0] = '\0';
    char real[PATH_MAX];
    if (realpath(nvcc, real)) {
        char *slash = strrchr(real, '/'); /* .../bin/nvcc -> the toolkit's root */
        if (slash) *slash = '\0';
        slash = strrchr(real, '/');
        if (slash) {
            *slash = '\0';
            char vj[PATH_MAX + 16];
            snprintf(vj, sizeof(vj), "%s/version.json", real);
            if (access(vj, R_OK) == 0) {
                snprintf(out, len, "%s", real);
                return;
            }
        }
    }
    /* a wrapper script (e.g. /usr/local/bin/nvcc exec'ing the real one): ask nvcc */
    ld_dryrun_top(nvcc, out, len);
}

static void ld_stubs_in(const char *root, char *out, size_t len)
{
    out[0] = '\0';
    if (!root[0]) return;
    static const char *const subdirs[] = {"lib64/stubs", "targets/x86_64-linux/lib/stubs",
                                          "targets/sbsa-linux/lib/stubs", "lib/stubs"};
    for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof(cand), "%s/%s/libcuda.so", root, subdirs[i]);
        if (access(cand, R_OK) == 0) {
            snprintf(out, len, "%s/%s", root, subdirs[i]);
            return;
        }
    }
}

void ld_driver_stubs(const char *nvcc, char *out, size_t len)
{
    char root[PATH_MAX];
    ld_toolkit_root(nvcc, root, sizeof(root));
    ld_stubs_in(root, out, len);
}

ld_status ld_build_start(const ld_options *o, const char *src_path, ld_build *b)
{
    memset(b, 0, sizeof(*b));
    if (!ld_find_nvcc(b->nvcc, sizeof(b->nvcc))) {
        snprintf(b->error, sizeof(b->error),
                 "nvcc not found (looked at $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
        return LD_NO_NVCC;
    }
    size_t src_len;
    char *src = ld_read_text(src_path, &src_len);
    if (!src) {
        snprintf(b->error, sizeof(b->error), "cannot read %s: %s", src_path, strerror(errno));
        return LD_IO_ERROR;
    }
    const char *extra = o->extra_flags ? o->extra_flags : "";

    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    XXH3_64bits_update(st, src, src_len);
    XXH3_64bits_update(st, "\0" LD_RECIPE, sizeof(LD_RECIPE) + 1);
    XXH3_64bits_update(st, o->arch, strlen(o->arch) + 1);
    if (o->ptx_only) XXH3_64bits_update(st, "ptx-only", 9);
    XXH3_64bits_update(st, extra, strlen(extra) + 1);
    char root[PATH_MAX];
    ld_toolkit_root(b->nvcc, root, sizeof(root));
    ld_hash_nvcc(st, b->nvcc, root);
    unsigned long long key = (unsigned long long)XXH3_64bits_digest(st);
    XXH3_freeState(st);
    free(src);

    if (ld_mkdirs(o->cache_dir) != 0) {
        snprintf(b->error, sizeof(b->error), "cannot create cache directory %s: %s", o->cache_dir,
                 strerror(errno));
        return LD_IO_ERROR;
    }
    char stem[128];
    snprintf(stem, sizeof(stem), "%s", ld_basename(src_path));
    char *dot = strrchr(stem, '.');
    if (dot) *dot = '\0';
    snprintf(b->so_path, sizeof(b->so_path), "%s/%s-%016llx.so", o->cache_dir, stem, key);
    snprintf(b->log_path, sizeof(b->log_path), "%s/%s-%016llx.log", o->cache_dir, stem, key);

    char gencode[96];
    if (o->ptx_only)
        ld_gencode_ptx(o->arch, gencode, sizeof(gencode));
    else
        ld_gencode(o->arch, gencode, sizeof(gencode));
    snprintf(b->tmp_path, sizeof(b->tmp_path), "%s.tmp.%d", b->so_path, (int)getpid());
    /* the driver library through the toolkit's stub, so solutions that call the driver API
     * load; --as-needed keeps it out of objects that never call it (machines without a driver) */
    char stubs[PATH_MAX], stubs_opt[PATH_MAX + 8];
    ld_stubs_in(root, stubs, sizeof(stubs));
    snprintf(stubs_opt, sizeof(stubs_opt), "-L%s", stubs);

    /* argv: the fixed recipe, then the user's extra flags split on spaces */
    char *extra_copy = strdup(extra);
    const char *argv[96];
    int argc = 0;
    const char *fixed[] = {b->nvcc, "-O3", "-shared", "-Xcompiler", "-fPIC", "--cudart", "shared",
                           "-lineinfo", gencode};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[argc++] = fixed[i];
    if (stubs[0]) {
        argv[argc++] = stubs_opt;
        argv[argc++] = "-Xlinker";
        argv[argc++] = "--as-needed,-lcuda,--no-as-needed";
    }
    char *save = NULL;
    for (char *tok = strtok_r(extra_copy, " \t", &save); tok && argc < 88;
         tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    argv[argc++] = "-o";
    argv[argc++] = b->tmp_path;
    argv[argc++] = src_path;
    argv[argc] = NULL;
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof(b->command); i++)
        used += (size_t)snprintf(b->command + used, sizeof(b->command) - used, "%s%s", i ? " " : "",
                                 i == argc - 2 ? ld_basename(b->so_path) : argv[i]);

    if (!o->rebuild && access(b->so_path, R_OK) == 0) {
        b->cached = true;
        free(extra_copy);
        return LD_OK;
    }
    if (!o->quiet)
        fprintf(stderr, "compiling %s for %s%s with nvcc...\n", src_path,
                o->ptx_only ? "compute_" : "", o->ptx_only ? o->arch + 3 : o->arch);
    b->t0 = ld_now();
    int log = open(b->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0) {
        snprintf(b->error, sizeof(b->error), "cannot write %s: %s", b->log_path, strerror(errno));
        free(extra_copy);
        return LD_IO_ERROR;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(log);
    free(extra_copy);
    if (pid < 0) {
        snprintf(b->error, sizeof(b->error), "cannot run nvcc: %s", strerror(errno));
        return LD_IO_ERROR;
    }
    b->pid = (int)pid;
    return LD_OK;
}

/* nvcc has exited with ws: move the object into the cache. */
static ld_status ld_build_reaped(ld_build *b, int ws)
{
    b->pid = 0;
    b->seconds = ld_now() - b->t0;
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        unlink(b->tmp_path);
        snprintf(b->error, sizeof(b->error), "nvcc failed (exit status %d)",
                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        return LD_COMPILE_ERROR;
    }
    if (rename(b->tmp_path, b->so_path) != 0) { /* atomic: a parallel run never sees half a file */
        snprintf(b->error, sizeof(b->error), "cannot move %s into the cache: %s", b->tmp_path,
                 strerror(errno));
        unlink(b->tmp_path);
        return LD_IO_ERROR;
    }
    return LD_OK;
}

bool ld_build_poll(ld_build *b, ld_status *status)
{
    if (b->pid <= 0) {
        *status = LD_OK; /* cached, or already finished */
        return true;
    }
    int ws = 0;
    pid_t r = waitpid((pid_t)b->pid, &ws, WNOHANG);
    if (r == 0) return false;
    if (r < 0) {
        b->pid = 0;
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
    if (waitpid((pid_t)b->pid, &ws, 0) < 0) {
        b->pid = 0;
        snprintf(b->error, sizeof(b->error), "cannot run nvcc: %s", strerror(errno));
        return LD_IO_ERROR;
    }
    return ld_build_reaped(b, ws);
}

ld_status ld_build_solution(const ld_options *o, const char *src_path, ld_build *b)
{
    ld_status s = ld_build_start(o, src_path, b);
    return s == LD_OK ? ld_build_finish(b) : s;
}

/* The dynamic symbols of a 64-bit ELF object, searched for name. */
bool ld_object_defines(const char *so_path, const char *name)
{
    size_t n;
    char *img = ld_read_text(so_path, &n);
    if (!img) return false;
    bool found = false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > n)
        goto done;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > n || strs->sh_offset + strs->sh_size > n) continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count && !found; k++)
            found = sym[k].st_shndx != SHN_UNDEF &&
                    sym[k].st_name + strlen(name) < strs->sh_size &&
                    strncmp(img + strs->sh_offset + sym[k].st_name, name,
                            strs->sh_size - sym[k].st_name) == 0;
    }
done:
    free(img);
    return found;
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
