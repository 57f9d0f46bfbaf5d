/* sandbox.c — the solution's child confines itself: root dropped, no new privileges, the seccomp
 * deny list (sandbox.h says what and why). */
#include "sandbox.h"

#include <errno.h>
#include <glob.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HARNESS_HAVE_SECCOMP
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#endif

#define SB_NOBODY 65534u

/* The device nodes CUDA opens (nvidia-uvm-tools and nvidia-caps are for profilers and MIG). */
static const char *const sb_gpu_nodes[] = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia[0-9]*"};

bool sb_filter_built(void)
{
#ifdef HARNESS_HAVE_SECCOMP
    return true;
#else
    return false;
#endif
}

static void sb_add_note(sb_state *st, const char *fmt, const char *a, const char *b)
{
    size_t u = strlen(st->note);
    if (u + 3 >= sizeof(st->note)) return;
    if (u) u += (size_t)snprintf(st->note + u, sizeof(st->note) - u, "; ");
    if (u < sizeof(st->note)) snprintf(st->note + u, sizeof(st->note) - u, fmt, a, b);
}

/* HARNESS_SOLUTION_UID: UID or UID:GID (numbers); 0 keeps root. False when malformed. */
static bool sb_parse_ids(const char *s, unsigned *uid, unsigned *gid)
{
    *uid = *gid = SB_NOBODY;
    if (!s || !*s) return true;
    char *end;
    errno = 0;
    unsigned long u = strtoul(s, &end, 10), g;
    if (errno || end == s || u >= 0xffffffffUL) return false;
    if (*end == ':') {
        const char *gs = end + 1;
        g = strtoul(gs, &end, 10);
        if (errno || end == gs || g >= 0xffffffffUL) return false;
    } else {
        g = u == 0 ? 0 : SB_NOBODY;
    }
    if (*end) return false;
    *uid = (unsigned)u;
    *gid = (unsigned)g;
    return true;
}

/* Whether uid:gid (no supplementary groups) may read and write the node, by its mode bits. */
static bool sb_node_rw(const struct stat *sb, unsigned uid, unsigned gid)
{
    mode_t m = sb->st_mode;
    if (sb->st_uid == uid) return (m & 0600) == 0600;
    if (sb->st_gid == gid) return (m & 0060) == 0060;
    return (m & 0006) == 0006;
}

bool sb_nodes_usable(const char *const *patterns, size_t n, unsigned uid, unsigned gid,
                     char *bad, size_t len)
{
    bool ok = true;
    for (size_t p = 0; p < n && ok; p++) {
        glob_t g;
        if (glob(patterns[p], 0, NULL, &g) != 0) continue; /* absent: nothing to lose */
        for (size_t i = 0; i < g.gl_pathc && ok; i++) {
            struct stat sb;
            if (stat(g.gl_pathv[i], &sb) != 0 || !S_ISCHR(sb.st_mode)) continue;
            if (!sb_node_rw(&sb, uid, gid)) {
                snprintf(bad, len, "%s (mode %03o, owner %u:%u)", g.gl_pathv[i],
                         (unsigned)(sb.st_mode & 0777), (unsigned)sb.st_uid, (unsigned)sb.st_gid);
                ok = false;
            }
        }
        globfree(&g);
    }
    return ok;
}

/* Root away for good: groups, then gid, then uid; then check none comes back. */
static bool sb_drop(sb_state *st, unsigned uid, unsigned gid)
{
    char why[160];
    uid_t ru, eu, su;
    gid_t rg, eg, sg;
    if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
        snprintf(why, sizeof(why), "%s", strerror(errno));
        sb_add_note(st, "cannot drop root to the solution's uid: %s%s", why, "");
        return false;
    }
    if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0 || ru != uid ||
        eu != uid || su != uid || rg != gid || eg != gid || sg != gid || getgroups(0, NULL) != 0 ||
        setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0 || setegid(0) == 0) {
        sb_add_note(st, "root could be regained after the drop%s%s", "", "");
        return false;
    }
    st->dropped = true;
    st->uid = uid;
    st->gid = gid;
    return true;
}

#ifdef HARNESS_HAVE_SECCOMP
/* One deny rule; a syscall this libseccomp does not know is skipped (the kernel lacks it too, or
 * the filter simply cannot name it). */
static int sb_rule(scmp_filter_ctx c, uint32_t action, const char *name, unsigned n,
                   struct scmp_arg_cmp cmp)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return 0;
    return n ? seccomp_rule_add(c, action, nr, 1, cmp) : seccomp_rule_add(c, action, nr, 0);
}

/* The deny list over a default of allow (the CUDA runtime's threads, ioctls and mappings must
 * keep working). Signals only to the process itself: a seccomp filter compares one value per
 * argument, so pid 0 and the own group are refused too; nothing in CUDA needs them. */
static int sb_filter(char *why, size_t len)
{
    scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
    if (!c) {
        snprintf(why, len, "seccomp_init failed");
        return -1;
    }
    /* a syscall of another ABI (int 0x80, x32) ends the whole process, not only its thread */
    int r = seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    const uint32_t no = SCMP_ACT_ERRNO(EPERM);
    const scmp_datum_t me = (scmp_datum_t)getpid();
    const struct scmp_arg_cmp not_me = SCMP_A0(SCMP_CMP_NE, me), none = SCMP_A0(SCMP_CMP_EQ, 0);
    /* the kernel reads ioctl and fcntl commands as 32-bit: compare only those bits */
    const scmp_datum_t lo = 0xffffffffu;
    static const char *const signals[] = {"kill", "tkill", "tgkill", "rt_sigqueueinfo",
                                          "rt_tgsigqueueinfo"};
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]) && !r; i++)
        r = sb_rule(c, no, signals[i], 1, not_me);
    static const char *const never[] = {"pidfd_open", "pidfd_send_signal", "pidfd_getfd",
                                        "ptrace", "process_vm_readv", "process_vm_writev",
                                        "setpgid", "setsid"};
    for (size_t i = 0; i < sizeof(never) / sizeof(never[0]) && !r; i++)
        r = sb_rule(c, no, never[i], 0, none);
    if (!r) r = sb_rule(c, no, "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT));
    if (!r) r = sb_rule(c, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, none);
    if (!r) r = sb_rule(c, no, "fcntl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, F_SETOWN));
    if (!r) r = sb_rule(c, no, "fcntl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, F_SETOWN_EX));
    if (!r) r = sb_rule(c, no, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, TIOCSTI));
    if (!r) r = sb_rule(c, no, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, TIOCSPGRP));
    if (!r) r = sb_rule(c, no, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, FIOSETOWN));
    if (!r) r = sb_rule(c, no, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, lo, SIOCSPGRP));
    if (!r) r = seccomp_load(c);
    if (r) snprintf(why, len, "%s", strerror(-r));
    seccomp_release(c);
    return r;
}
#endif

bool sb_enter(sb_state *st)
{
    memset(st, 0, sizeof(*st));
    if (geteuid() == 0) {
        unsigned uid, gid;
        const char *ids = getenv("HARNESS_SOLUTION_UID");
        char bad[200];
        if (!sb_parse_ids(ids, &uid, &gid)) {
            sb_add_note(st, "HARNESS_SOLUTION_UID: expected UID or UID:GID, got '%s'%s", ids, "");
            return false;
        }
        if (uid == 0) {
            sb_add_note(st, "the solution runs as root (HARNESS_SOLUTION_UID=%s): it can reach "
                            "the harness's memory through /proc%s", ids, "");
        } else if (!sb_nodes_usable(sb_gpu_nodes, sizeof(sb_gpu_nodes) / sizeof(sb_gpu_nodes[0]),
                                    uid, gid, bad, sizeof(bad))) {
            char who[40];
            snprintf(who, sizeof(who), "%u:%u", uid, gid);
            sb_add_note(st, "the solution runs as root: %s is not read-write for %s, so dropping "
                            "root would lose the GPU (make the nodes 0666, or set "
                            "HARNESS_SOLUTION_UID to a uid that can use them)", bad, who);
        } else if (!sb_drop(st, uid, gid)) {
            return false;
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        sb_add_note(st, "PR_SET_NO_NEW_PRIVS failed: %s%s", strerror(errno), "");
        return false;
    }
#ifdef HARNESS_HAVE_SECCOMP
    char why[120];
    if (sb_filter(why, sizeof(why)) == 0) st->filtered = true;
    else sb_add_note(st, "the seccomp filter did not load (%s): the solution may signal or trace "
                         "processes its uid can reach", why, "");
#else
    sb_add_note(st, "no seccomp filter (built without libseccomp): the solution may signal or "
                    "trace processes its uid can reach%s%s", "", "");
#endif
    return true;
}
