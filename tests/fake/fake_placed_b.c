/* fake_placed.c as a second object (--vs of two files, each with its own first call). */
#include "fake_placed.c"
