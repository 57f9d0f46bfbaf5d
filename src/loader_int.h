/* loader_int.h — what the loader's files share; for src/loader.c and src/loader_toolkit.c only.
 * loader.c: the build (the key, nvcc's command, the cache, the log); loader_toolkit.c: where
 * nvcc and its toolkit are (nvcc's path, the toolkit's root, the driver's stubs, nvcc's dry
 * run). */
#ifndef LOADER_INT_H
#define LOADER_INT_H

#include <stddef.h>

#include "loader.h"

/* loader_toolkit.c */
void ld_toolkit_root(const char *nvcc, char *out, size_t len);
void ld_stubs_in(const char *root, char *out, size_t len);

#endif
