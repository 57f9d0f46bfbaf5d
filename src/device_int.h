/* device_int.h — what device.c and device_lt.c share: cuBLAS and cuBLASLt are opened when a
 * handle is made, not linked. Linked, their initialisers cost every process ~90 ms of CPU at
 * start (every harness command, every test binary), and only the children that compute a
 * reference or time a yardstick call them. */
#ifndef DEVICE_INT_H
#define DEVICE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cublas_api.h>

/* A symbol's name as the library exports it: cublas_v2.h renames some (cublasCreate_v2). */
#define DV_SYMBOL(f) DV_SYMBOL_(f)
#define DV_SYMBOL_(f) #f
/* The soname of a library of this cuBLAS ("libcublas", "libcublasLt"): the one a link records. */
#define DV_SONAME(base) base ".so." DV_SYMBOL(CUBLAS_VER_MAJOR)

/* The library by soname (found as a link's NEEDED entry is: LD_LIBRARY_PATH, the binary's
 * RUNPATH, the system's cache), left open until exit as a linked one is; NULL with err set. */
void *dv_open(const char *soname, char *err, size_t errlen);

/* *fn (a function pointer's address) = name in lib; false with err set when lib lacks it. */
bool dv_sym(void *lib, const char *name, void *fn, char *err, size_t errlen);

#endif
