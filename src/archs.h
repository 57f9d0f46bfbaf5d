/* archs.h — which GPU architectures this toolkit's nvcc compiles for, so that --arch sm_999 is a
 * usage error (2) and not a compile error (5). */
#ifndef ARCHS_H
#define ARCHS_H

#include <stdbool.h>
#include <stddef.h>

/* `nvcc --list-gpu-arch` (nvcc found as the loader finds it), its lines joined by spaces:
 * "compute_75 compute_80 ... compute_121". False when there is no nvcc or no list. */
bool ar_nvcc_archs(char *list, size_t len);

/* Whether arch ("sm_90a", "sm_100f", "sm_80") is one list names: its number as compute_NN in
 * the list; an "a" (architecture-specific) suffix only from 90 up, "f" (family) from 100 up. */
bool ar_arch_supported(const char *arch, const char *list);

#endif
