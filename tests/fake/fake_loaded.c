/* fake_placed.c slower when loaded second rather than when it calls second. */
#define FAKE_BY_LOAD 1
#include "fake_placed.c"
