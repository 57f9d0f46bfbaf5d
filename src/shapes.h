/* shapes.h — `--sweep random[:N[:SEED]]`: N shapes drawn from a seeded generator inside a
 * problem's constraints, the same list for the same seed on any machine.
 *
 * Each size is drawn log-uniform over its range [lo, hi], after an extent class drawn first:
 * 1/4 odd, 1/4 even but not a multiple of 8, 1/2 multiples of 8 (the value then moved to the
 * nearest one of its class inside the range). The other scalars are the performance case's
 * (alpha, beta, scales, zero points, group_size), as `--sweep` does. A shape the problem's own
 * check refuses (int4: K divisible by group_size 128) has the size that check is about rounded
 * to the smallest power-of-two multiple that passes, so no drawn shape is ever refused.
 */
#ifndef SHAPES_H
#define SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"

#define SH_DEFAULT_N 64
#define SH_MAX_N 256
#define SH_DEFAULT_SEED 1

typedef struct {
    int n;         /* shapes; 0: no random sweep */
    uint64_t seed;
} sh_random;

/* The extent classes, in the order the generator draws them. */
typedef enum { SH_ODD, SH_OFF8, SH_MUL8 } sh_class;
sh_class sh_class_of(int v);

/* Whether s is a random sweep's spelling at all ("random" or "random:..."), so the command line
 * can take it as --sweep's value. */
bool sh_is_random(const char *s);
/* "random", "random:N" or "random:N:SEED", N in 1..SH_MAX_N, SEED a decimal below 2^64. False,
 * with one line in err, on anything else. */
bool sh_parse_random(const char *s, sh_random *out, char *err, size_t errlen);

/* r->n shapes for p into out (r->n entries); false when the problem's sizes leave no room (a
 * size range that cannot hold a shape the problem accepts): never for the registered ones. */
bool sh_random_shapes(const pb_problem *p, const sh_random *r, pb_size *out);

/* One line for reports: "64 random shapes, seed 1 (log-uniform; 1/4 odd, 1/4 off-8, 1/2 ×8)". */
void sh_describe(const sh_random *r, char *out, size_t len);

#endif
