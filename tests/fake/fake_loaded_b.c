/* fake_loaded.c as a second object. */
#include "fake_loaded.c"
