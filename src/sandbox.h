/* sandbox.h — the solution's child confines itself before anything of the solution's is loaded.
 *
 * As root: the child becomes an unprivileged uid/gid (HARNESS_SOLUTION_UID=UID[:GID], default
 * 65534:65534, nobody/nogroup) with no supplementary groups, and checks that root cannot be
 * regained, so it can neither open the parent's /proc/PID/mem (the parent is not dumpable, hence
 * root-owned there) nor signal or trace it. Its descriptors (pipes, the shared arena) were opened
 * before and keep working. When a GPU device node is not read-write for that uid, the child
 * stays root and says so instead of losing the GPU.
 * Always: no new privileges, then (when built with libseccomp) a seccomp filter that allows
 * everything but: a signal aimed at another process (kill, tkill, tgkill, rt_sigqueueinfo,
 * rt_tgsigqueueinfo refused unless the target is the child itself: pid 0, -1 and groups too),
 * the pidfd calls, ptrace, process_vm_readv/writev, leaving its process group (setpgid, setsid),
 * a child re-parented to the harness (clone with CLONE_PARENT; clone3, whose flags a filter
 * cannot read, answers ENOSYS so the C library falls back to clone), signal-owner settings
 * (fcntl F_SETOWN(_EX), ioctl FIOSETOWN/SIOCSPGRP), and a terminal's input or foreground group
 * (TIOCSTI, TIOCSPGRP).
 * Refusals are EPERM: the call fails, the solution goes on.
 * Under compute-sanitizer and Nsight Compute (--sanitize, --profile) both apply as in a normal
 * run: the tools' injection opens its channels before the drop and needs none of the calls
 * refused (memcheck, racecheck and ncu ran so on an H100). */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool dropped;      /* runs as uid:gid */
    unsigned uid, gid;
    bool filtered;     /* the seccomp filter is on */
    char note[400];    /* what does not hold and why ("" when everything does) */
} sb_state;

/* Whether every character device matching the glob patterns is read-write for uid:gid (no
 * supplementary groups), by its mode bits; the first that is not goes into bad. */
bool sb_nodes_usable(const char *const *patterns, size_t n, unsigned uid, unsigned gid,
                     char *bad, size_t len);

/* Whether this build has the seccomp filter (libseccomp found at build time). */
bool sb_filter_built(void);

/* Confine the calling process (the solution's child, in its own process group). False: it must
 * not go on (st->note says why: the uid could not be dropped, or root could be regained). */
bool sb_enter(sb_state *st);

#endif
