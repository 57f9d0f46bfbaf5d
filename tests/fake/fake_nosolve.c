/* No solve symbol: the solution's child says so at start-up. */
void not_solve(void);
void not_solve(void) {}
