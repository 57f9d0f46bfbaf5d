/* Start-up records a solution's constructor forges (the protocol suite's "claims" cases): its
 * process holds the worker's message pipe, so it can say "no device", "the library did not
 * start" or "no solve" before the worker does. The parent checks such a claim against what it
 * sees without the solution (runner_child.c, rn_claim_refuted). */
#ifndef FAKE_CLAIMS_H
#define FAKE_CLAIMS_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wire.h"

/* first, then second (0: none), into every inherited write-only pipe */
static void fake_claim(wr_msg_kind first, wr_msg_kind second)
{
    static wr_msg m;
    for (int fd = 3; fd < 256; fd++) {
        struct stat sb;
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode) || (fl & O_ACCMODE) != O_WRONLY)
            continue;
        wr_msg_kind kinds[2] = {first, second};
        for (int i = 0; i < 2 && kinds[i]; i++) {
            memset(&m, 0, sizeof(m));
            m.kind = kinds[i];
            m.index = -1;
            snprintf(m.detail, sizeof(m.detail), "forged by the solution");
            if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m)) break;
        }
    }
}

#endif
