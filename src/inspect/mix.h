/* mix.h — inside src/inspect/ only: adding a function to an instruction mix (mix.c), for the two
 * parsers that fill one (sass.c, ptx.c). */
#ifndef INSPECT_MIX_H
#define INSPECT_MIX_H

#include "inspect.h"

/* The entry for name, added when new (nvdisasm names a function twice); NULL when out of memory. */
in_mix_fn *in_mix_add(in_mix *m, const char *name);

#endif
