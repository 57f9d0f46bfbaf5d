/* The three processes' protocol on the CPU: the parent (runner.c), the oracle (oracle.c) and the
 * solution's child (worker.c) run their real code over a fake device (tests/fake/
 * device_fake.c: host memory between the same guard zones, the CPU reference), judging fake
 * solutions: a correct one passes and is timed beside the baseline; wrong output, a write past
 * C, a changed input, a cached result (by shape, by a sample of the inputs; one cached by
 * their contents is timed computing), an exit, a hang and forged records each get their
 * verdict from the parent; --vs compares two files; an fp32 output close to the exact answer
 * alone passes (the fake's fp32 reference skewed). The process suite: constructors that abort,
 * exit or hang (--vs's other file's: its failure), a grandchild holding the pipe, a solution reaching for the harness (signals,
 * /proc/PPID/mem, ptrace), an output flood, and SIGINT mid-run. No GPU and no nvcc needed. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problem.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"
#include "wire.h"

/* gemm_fp16's example and functional tests, two small extra ones (ragged; beta = 0 with C
 * holding NaN), and the performance recipe at 48×40×32, timed. */
static size_t items_gemm(rn_item *it, bool timed)
{
    const pb_problem *p = pb_find("gemm_fp16");
    size_t n = 0;
    it[n++] = (rn_item){p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false};
    for (size_t i = 0; i < p->n_cases[PB_SET_FUNCTIONAL]; i++)
        it[n++] = (rn_item){p->cases[PB_SET_FUNCTIONAL][i], PB_SET_FUNCTIONAL, false};
    for (size_t i = 0; i < p->n_cases[PB_SET_EXTRA]; i++) {
        const pb_case *c = &p->cases[PB_SET_EXTRA][i];
        if (strcmp(c->name, "ragged 17") == 0 || strstr(c->name, "NaN"))
            it[n++] = (rn_item){*c, PB_SET_EXTRA, false};
    }
    it[n++] = (rn_item){pb_perf_case(p, (pb_size){{48, 40, 32}}, 0, "performance 48x40x32"),
                        PB_SET_PERFORMANCE, timed};
    return n;
}

/* Each of the run's first n tests a success (its detail shown when not). */
static void expect_all_passed(const rs_run *run, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(run->tests[i].status, RS_SUCCESS, "%s: %s", run->tests[i].name,
                     run->tests[i].detail);
}

static rs_run run_fake(const char *so, const char *vs, double timeout_s, rn_item *it, size_t n)
{
    rn_plan plan = {.problem = pb_find("gemm_fp16"), .so_path = so, .items = it, .n_items = n,
                    .timeout_s = timeout_s, .seed = 0,
                    .timing = {.warmup = 1, .min_runs = 5, .max_runs = 40, .max_time_s = 0.05,
                               .noise_target_pct = 0, .baseline = true},
                    .vs_path = vs};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_assert_eq(run.n_tests, n);
    return run;
}

/* A child's text fields (a record's detail, the device's name) are ended within their field and
 * made printable ASCII before any report prints them: a solution that writes a newline or an
 * escape sequence there cannot forge a line of the report. */
Test(protocol, a_childs_text_is_ended_and_printable)
{
    char s[12];
    memcpy(s, "a\nb\x1b[c\x80" "d\x7fxyz", sizeof(s)); /* no NUL inside its 12 bytes */
    wr_clean_text(s, sizeof(s));
    cr_expect_str_eq(s, "a.b.[c.d.xy");
    char ok[] = "cuBLAS int8 GEMM: CUBLAS_STATUS_NOT_SUPPORTED (15)";
    wr_clean_text(ok, sizeof(ok));
    cr_expect_str_eq(ok, "cuBLAS int8 GEMM: CUBLAS_STATUS_NOT_SUPPORTED (15)");
}

Test(protocol, correct_passes_and_is_timed_beside_the_baseline)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rs_run run = run_fake(FAKE_CORRECT, NULL, 10, it, n);
    expect_all_passed(&run, n);
    const rs_timing *t = &run.tests[n - 1].timing;
    /* at least 3: max_time (0.05 s) may end the loop before min_runs on a loaded or sanitized
     * build (worker.c: "slow solutions: fewer runs") */
    cr_expect(t->done && t->n_runs >= 3 && t->median_ms > 0, "timed: %d runs", t->n_runs);
    cr_expect(t->base_done && t->base_runs >= 3, "the baseline timed beside it: %s", t->base_error);
    cr_expect(t->parent_ms > 0 && !t->unaccounted, "the parent's clock: %.3f ms", t->parent_ms);
    cr_expect_str_eq(run.device.name, "fake device (host memory)", "the oracle's device");
    rn_free(&run);
}

/* --baseline lt: the worker makes cuBLASLt's env, tunes each timed shape once in an untimed
 * call before the timed loop, and its pick reaches the parent (the fake's pick counts the
 * shape's tunings in candidates and its calls in trial_ms). Untimed tests never tune. */
Test(protocol, lt_yardstick_tunes_once_outside_the_loop_and_reports_its_pick)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rn_plan plan = {.problem = pb_find("gemm_fp16"), .so_path = FAKE_CORRECT, .items = it, .n_items = n,
                    .timeout_s = 10, .seed = 0,
                    .timing = {.warmup = 2, .min_runs = 5, .max_runs = 40, .max_time_s = 0.05,
                               .noise_target_pct = 0, .baseline = true, .yardstick = RN_YS_LT}};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    const rs_timing *t = &run.tests[n - 1].timing;
    cr_assert(t->done && t->base_done, "timed beside the yardstick: %s", t->base_error);
    cr_expect(t->lt.chosen, "the pick reached the parent");
    cr_expect(t->lt.algo_id == 21 && t->lt.tile_id == 20 && t->lt.stages_id == 8 &&
              t->lt.splitk == 1 && t->lt.cluster_id == -1 && t->lt.workspace_bytes == 4096,
              "algo %d tile %d stages %d", t->lt.algo_id, t->lt.tile_id, t->lt.stages_id);
    cr_expect_eq(t->lt.candidates, 1, "tuned %d times", t->lt.candidates);
    /* one untimed tuning call, then the loop's warm-up and timed calls */
    cr_expect_eq((int)t->lt.trial_ms, 1 + plan.timing.warmup + t->base_runs, "%g calls, %d timed",
                 t->lt.trial_ms, t->base_runs);
    for (size_t i = 0; i + 1 < n; i++) cr_expect(!run.tests[i].timing.lt.chosen, "%s", run.tests[i].name);
    rn_free(&run);
    /* both: cuBLAS in the baseline's series, cuBLASLt in a third, in the same rounds; time for
     * min_runs rounds of three calls even on a loaded machine (16 suites at once on the GPU
     * machine ended 0.05 s before 5 rounds) */
    plan.timing.yardstick = RN_YS_BOTH;
    plan.timing.max_time_s = 2.0;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    t = &run.tests[n - 1].timing;
    cr_expect(t->base_done && t->base_runs >= 5, "cuBLAS: %s", t->base_error);
    cr_expect(t->alt_done && t->alt_runs == t->base_runs, "cuBLASLt: %d runs (%s)", t->alt_runs, t->alt_error);
    cr_expect(t->alt_median_ms > 0 && t->lt.chosen && t->lt.candidates == 1, "tuned %d times", t->lt.candidates);
    cr_expect_eq((int)t->lt.trial_ms, 1 + plan.timing.warmup + t->alt_runs, "%g calls", t->lt.trial_ms);
    for (size_t i = 0; i + 1 < n; i++) cr_expect(!run.tests[i].timing.alt_done, "%s", run.tests[i].name);
    rn_free(&run);
    /* the cuBLAS yardstick reports no pick */
    plan.timing.yardstick = RN_YS_CUBLAS;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_expect(run.tests[n - 1].timing.base_done && !run.tests[n - 1].timing.lt.chosen &&
              !run.tests[n - 1].timing.alt_done);
    rn_free(&run);
}

Test(protocol, each_wrong_solution_gets_its_verdict)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    struct {
        const char *so, *test, *detail;
        rs_status status;
    } cases[] = {
        {FAKE_WRONG, "functional 1", "elements outside tolerance", RS_FAILED},
        {FAKE_WRITE_PAST, "example", "wrote outside C: byte offset 8 from C's start", RS_FAILED},
        {FAKE_WRITES_A, "example", "input A was modified (first changed element 3)", RS_FAILED},
        {FAKE_CACHED, "performance 48x40x32", "A's elements swapped in pairs", RS_FAILED},
        {FAKE_SAMPLE_CACHE, "performance 48x40x32", "A's elements swapped in pairs", RS_FAILED},
        {FAKE_EXIT, "example", "exited with status 3", RS_ERROR},
        {FAKE_FORGE, "example", "cannot be right", RS_ERROR},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        rs_run run = run_fake(cases[c].so, NULL, 10, it, n);
        bool seen = false;
        for (size_t i = 0; i < n; i++) {
            const rs_test *t = &run.tests[i];
            if (strcmp(t->name, cases[c].test) == 0) {
                seen = true;
                cr_expect_eq(t->status, cases[c].status, "%s / %s: %s %s", cases[c].so, t->name,
                             rs_status_name(t->status), t->detail);
                cr_expect(strstr(t->detail, cases[c].detail), "%s / %s: %s", cases[c].so, t->name,
                          t->detail);
            }
            cr_expect(strcmp(t->name, "forged") != 0, "a forged record reached the results");
        }
        cr_expect(seen, "%s", cases[c].test);
        if (cases[c].status == RS_ERROR)
            cr_expect_eq(rn_overall(&run), RS_ERROR, "every test: an error, none a success");
        rn_free(&run);
    }
}

/* A result kept by the inputs' contents is right, so it passes; its timed calls must be its
 * computation's: each sees one pair of A's elements swapped, so none replays (the fake sleeps
 * 3 ms a computed call and replays in microseconds). */
Test(protocol, a_result_cached_by_content_is_computed_on_every_timed_call)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rs_run run = run_fake(FAKE_CONTENT_CACHE, NULL, 10, it, n);
    expect_all_passed(&run, n);
    const rs_timing *t = &run.tests[n - 1].timing;
    cr_expect(t->done && t->n_runs >= 3, "timed: %d runs", t->n_runs);
    cr_expect(t->min_ms >= 2.5, "every timed call computed: fastest %.3f ms, median %.3f ms",
              t->min_ms, t->median_ms);
    rn_free(&run);
}

Test(protocol, a_hang_times_out_and_the_next_test_runs, .timeout = 60)
{
    rn_item it[2];
    const pb_problem *p = pb_find("gemm_fp16");
    it[0] = (rn_item){p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false};
    it[1] = (rn_item){p->cases[PB_SET_FUNCTIONAL][0], PB_SET_FUNCTIONAL, false};
    rs_run run = run_fake(FAKE_HANG, NULL, 1.0, it, 2);
    cr_expect_eq(run.tests[0].status, RS_TIMEOUT, "%s", run.tests[0].detail);
    cr_expect_eq(run.tests[1].status, RS_TIMEOUT, "a fresh child ran the next test too: %s",
                 run.tests[1].detail);
    rn_free(&run);
}

/* Heartbeats come from inside the solution's process: forged ones (the right nonce, copied from
 * the worker's reply in its heap) must not keep a hung timing loop alive. The timing command's
 * deadline stops at what an honest loop can take under the limit. */
Test(protocol, forged_heartbeats_do_not_outlast_the_timing_cap, .timeout = 90)
{
    rn_item it[1];
    const pb_problem *p = pb_find("gemm_fp16");
    it[0] = (rn_item){pb_perf_case(p, (pb_size){{48, 40, 32}}, 0, "performance 48x40x32"),
                      PB_SET_PERFORMANCE, true};
    double t0 = wr_now();
    rs_run run = run_fake(FAKE_FORGE_BEAT, NULL, 0.5, it, 1);
    double secs = wr_now() - t0;
    cr_expect_eq(run.tests[0].status, RS_TIMEOUT, "%s", run.tests[0].detail);
    cr_expect(strstr(run.tests[0].detail, "kept signalling progress"), "%s", run.tests[0].detail);
    /* the cap: 0.5 s × (3 × (1 warm-up + 4) + 2) + 2 × 0.05 + 5 ≈ 13.6 s */
    cr_expect(secs < 30.0, "ended after %.1f s", secs);
    rn_free(&run);
}

/* A PTX-only build's first call waits for the driver's compile: with first_call_extra_s the first
 * test of each process gets that much more time, the later ones only the limit. */
Test(protocol, the_first_call_gets_the_compile_allowance, .timeout = 60)
{
    rn_item it[2];
    const pb_problem *p = pb_find("gemm_fp16");
    it[0] = (rn_item){p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false};
    it[1] = (rn_item){p->cases[PB_SET_FUNCTIONAL][0], PB_SET_FUNCTIONAL, false};
    rn_plan plan = {.problem = p, .so_path = FAKE_SLOW_FIRST, .items = it, .n_items = 2,
                    .timeout_s = 1.0, .timing = {.warmup = 1, .min_runs = 5, .max_runs = 40,
                                                 .max_time_s = 0.05}};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_expect_eq(run.tests[0].status, RS_TIMEOUT, "no allowance: the slow first call is killed");
    cr_expect(strstr(run.tests[0].detail, "within the 1 s limit (killed)"), "%s", run.tests[0].detail);
    cr_expect_eq(run.tests[1].status, RS_TIMEOUT, "a fresh process is slow again: %s",
                 run.tests[1].detail);
    rn_free(&run);
    plan.first_call_extra_s = 10.0;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_expect_eq(run.tests[0].status, RS_SUCCESS, "%s", run.tests[0].detail);
    cr_expect_eq(run.tests[1].status, RS_SUCCESS, "%s", run.tests[1].detail);
    rn_free(&run);
}

Test(protocol, vs_judges_the_other_file_and_compares)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rs_run run = run_fake(FAKE_CORRECT, FAKE_CORRECT, 10, it, n);
    const rs_test *t = &run.tests[n - 1];
    cr_expect_eq(t->status, RS_SUCCESS, "%s", t->detail);
    cr_expect_eq(t->vs_status, RS_SUCCESS, "%s", t->vs_detail);
    cr_expect(t->timing.vs && t->timing.base_done && t->timing.vs_interval, "compared");
    cr_expect(t->timing.vs_lo <= t->timing.vs_hi, "[%g, %g]", t->timing.vs_lo, t->timing.vs_hi);
    rn_free(&run);
    run = run_fake(FAKE_CORRECT, FAKE_WRONG, 10, it, n);
    t = &run.tests[n - 1];
    cr_expect_eq(t->status, RS_SUCCESS, "the judged file passed: %s", t->detail);
    cr_expect_eq(t->vs_status, RS_FAILED, "the other file failed: %s", t->vs_detail);
    cr_expect_eq(t->timing.vs_orders, 1, "a failing other file: one order, not compared");
    rn_free(&run);
    /* the rounds rotate which file goes first: 40 rounds and no warm-up end on the other file's
     * call (round 39 starts with the judged file's), and its wrong output is not the judged
     * file's last: the judged file is called once more, untimed */
    rn_plan plan = {.problem = pb_find("gemm_fp16"), .so_path = FAKE_CORRECT, .items = it,
                    .n_items = n, .timeout_s = 10,
                    .timing = {.warmup = 0, .min_runs = 40, .max_runs = 40, .max_time_s = 60,
                               .baseline = true},
                    .vs_path = FAKE_WRONG};
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    t = &run.tests[n - 1];
    cr_expect_eq(t->timing.n_runs, 40, "%d rounds", t->timing.n_runs);
    cr_expect_eq(t->status, RS_SUCCESS, "the judged file's output after the loop: %s", t->detail);
    rn_free(&run);
}

/* --vs times a case in both orders of the files' first calls, each in a fresh process: two
 * copies of one fake, each 3× slower (20 ms a call, 60 when the other called first: a gap no
 * loaded machine's sleeps close), read about 0.4× and 2.4× in the two orders, the ratio their geometric mean (1), and the orders'
 * disagreement is said. One order alone (the harness before run 187) called identical code
 * "faster". */
static void expect_orders_weighed_alike(const char *so, const char *vs)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rs_run run = run_fake(so, vs, 10, it, n);
    const rs_test *t = &run.tests[n - 1];
    const rs_timing *tm = &t->timing;
    cr_expect_eq(t->status, RS_SUCCESS, "%s", t->detail);
    cr_expect_eq(t->vs_status, RS_SUCCESS, "%s", t->vs_detail);
    cr_assert_eq(tm->vs_orders, 2, "both orders timed");
    cr_expect(tm->vs_order_ratio[0] < 0.7 && tm->vs_order_ratio[1] > 1.4,
              "this file faster in its own order (%.3f), slower in the other file's (%.3f)",
              tm->vs_order_ratio[0], tm->vs_order_ratio[1]);
    cr_expect(tm->vs_order_moves, "the orders' disagreement is said");
    double r = tm->median_ms / tm->base_median_ms;
    cr_expect(r > 0.8 && r < 1.25, "the geometric mean of the orders: %.3f", r);
    cr_expect(tm->vs_interval && tm->vs_lo <= r * 1.001 && tm->vs_hi >= r * 0.999,
              "[%g, %g] around %g", tm->vs_lo, tm->vs_hi, r);
    rn_free(&run);
}

Test(protocol, vs_times_both_orders_of_first_calls)
{
    expect_orders_weighed_alike(FAKE_PLACED, FAKE_PLACED_B);
}

/* the same when the object loaded second is the slower one: each order loads its first caller
 * first */
Test(protocol, vs_loads_each_orders_first_caller_first)
{
    expect_orders_weighed_alike(FAKE_LOADED, FAKE_LOADED_B);
}

Test(protocol, int8_through_the_three_processes)
{
    const pb_problem *p = pb_find("int8_matmul");
    rn_item it[24];
    size_t n = 0;
    it[n++] = (rn_item){p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false};
    for (size_t i = 0; i < p->n_cases[PB_SET_FUNCTIONAL]; i++)
        it[n++] = (rn_item){p->cases[PB_SET_FUNCTIONAL][i], PB_SET_FUNCTIONAL, false};
    for (size_t i = 0; i < p->n_cases[PB_SET_EXTRA]; i++)
        if (pb_flops(p, p->cases[PB_SET_EXTRA][i].v) < 1e8)
            it[n++] = (rn_item){p->cases[PB_SET_EXTRA][i], PB_SET_EXTRA, false};
    rn_plan plan = {.problem = p, .so_path = FAKE_INT8, .items = it, .n_items = n,
                    .timeout_s = 20, .timing = {.warmup = 1, .min_runs = 3, .max_runs = 10,
                                                .max_time_s = 0.05}};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    expect_all_passed(&run, n);
    cr_expect_geq(n, 10);
    rn_free(&run);
    /* the gemm_fp16 fake as int8: the call shape differs, its output is garbage */
    plan.so_path = FAKE_WRONG;
    plan.n_items = 1;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_expect_neq(run.tests[0].status, RS_SUCCESS);
    rn_free(&run);
}

/* The other call shapes through the solution's child: batched (three pointers, four sizes) and
 * int4 (four pointers): each problem's judge tests and its small extra tests pass. */
static rs_run run_tables_of(const char *problem, const char *so, double max_flops, size_t *n_out)
{
    const pb_problem *p = pb_find(problem);
    static rn_item it[40];
    size_t n = 0;
    for (int s = 0; s < PB_N_SETS && n < 40; s++)
        for (size_t i = 0; i < p->n_cases[s] && n < 40; i++)
            if (pb_flops(p, p->cases[s][i].v) <= max_flops)
                it[n++] = (rn_item){p->cases[s][i], (pb_set)s, false};
    rn_plan plan = {.problem = p, .so_path = so, .items = it, .n_items = n, .timeout_s = 30,
                    .timing = {.warmup = 1, .min_runs = 3, .max_runs = 10, .max_time_s = 0.05}};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    *n_out = n;
    return run;
}

static void run_tables(const char *problem, const char *so, double max_flops)
{
    size_t n;
    rs_run run = run_tables_of(problem, so, max_flops, &n);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(run.tests[i].status, RS_SUCCESS, "%s %s: %s", problem, run.tests[i].name,
                     run.tests[i].detail);
    cr_expect_geq(n, 8, "%s: %zu cases", problem, n);
    rn_free(&run);
}

Test(protocol, batched_and_int4_call_shapes)
{
    run_tables("batched_matmul_fp32", FAKE_BMM32, 5e7);
    run_tables("int4_matmul", FAKE_INT4, 5e7);
}

/* Reads past the inner dimension's end land in the guard zones (or in A's next row times a
 * guard): the guard pattern is a large finite value in every element type, so such a kernel
 * fails wherever the inner dimension is not a multiple of its step, and a kernel that multiplies
 * an out-of-range value by a zero it padded with still passes. */
Test(protocol, reads_past_the_inner_dimension_fail)
{
    size_t n;
    rs_run run = run_tables_of("matmul_fp32", FAKE_KTAIL, 5e7, &n);
    const pb_problem *p = pb_find("matmul_fp32");
    size_t ragged = 0;
    for (size_t i = 0; i < n; i++) {
        const rs_test *t = &run.tests[i];
        const pb_case *c = NULL;
        for (int s = 0; s < PB_N_SETS && !c; s++)
            for (size_t k = 0; k < p->n_cases[s] && !c; k++)
                if (strcmp(p->cases[s][k].name, t->name) == 0) c = &p->cases[s][k];
        cr_assert(c, "%s", t->name);
        if ((long)c->v[1] % 8 == 0) {
            cr_expect_eq(t->status, RS_SUCCESS, "%s: %s", t->name, t->detail);
        } else {
            ragged++;
            cr_expect_eq(t->status, RS_FAILED, "%s (inner %g): %s", t->name, c->v[1], t->detail);
        }
    }
    cr_expect_geq(ragged, 5, "ragged inner dimensions among the tables: %zu", ragged);
    rn_free(&run);
}

/* The oracle's fp32 GEMM (cuBLAS's) off the exact answer by 3e-5·(1 + |c|), three times
 * batched_matmul_fp32's tolerance, as cuBLAS's fp32 was at 1×439×82×17 on an H200: a correct
 * solution, close to the exact answer alone, passes every table test; one element off by 1e-3
 * fails, listed against cuBLAS's value with the exact one beside it, and the verdict says that
 * cuBLAS's own value there is outside the exact one's tolerance too. */
Test(protocol, fp32_output_close_to_the_exact_reference_alone_passes)
{
    cr_assert_eq(setenv("HARNESS_FAKE_REF_SKEW", "3e-5", 1), 0); /* this test's process only */
    run_tables("batched_matmul_fp32", FAKE_BMM32, 5e7);
    size_t n;
    rs_run run = run_tables_of("batched_matmul_fp32", FAKE_BMM32_OFF, 5e7, &n);
    for (size_t i = 0; i < n; i++) {
        const rs_test *t = &run.tests[i];
        cr_expect_eq(t->status, RS_FAILED, "%s: %s", t->name, t->detail);
        cr_expect(strstr(t->detail, "1 of ") && strstr(t->detail, "elements outside tolerance of "
                                                                 "both references (cuBLAS's fp32 and exact)"),
                  "%s: %s", t->name, t->detail);
        cr_expect(strstr(t->detail, "; at 1 of them cuBLAS's fp32 misses the exact one too "
                                    "(order-sensitive)"),
                  "%s: %s", t->name, t->detail);
        cr_expect_eq(t->check.n_ref_off, 1, "%s", t->name);
        cr_assert(t->checked && t->check.n_bad == 1 && t->check.n_shown == 1, "%s", t->name);
        const ck_mismatch *m = &t->check.shown[0];
        double x = m->note, scale = 1 + fabs(x);
        cr_expect(m->row == 0 && m->col == 0, "%s: (%lld, %lld)", t->name, (long long)m->row,
                  (long long)m->col);
        /* the skew is in force (ref is cuBLAS's stand-in), the note is the exact answer */
        cr_expect(fabs(m->expected - x - 3e-5 * scale) < 1e-6 * scale, "%s: ref %.9g, exact %.9g",
                  t->name, m->expected, x);
        cr_expect(fabs(m->got - x - 1e-3 * scale) < 1e-5 * scale, "%s: got %.9g, exact %.9g",
                  t->name, m->got, x);
    }
    cr_expect_geq(n, 8);
    rn_free(&run);
    /* no memory for the exact one: cuBLAS's fp32 alone judges, and a failure says so */
    cr_assert_eq(setenv("HARNESS_FAKE_EXACT_NOMEM", "1", 1), 0);
    run = run_tables_of("batched_matmul_fp32", FAKE_BMM32, 5e7, &n);
    for (size_t i = 0; i < n; i++) {
        const rs_test *t = &run.tests[i];
        bool exact_data = strstr(t->name, "example") || !strcmp(t->name, "functional 1") ||
                          !strcmp(t->name, "functional 2"); /* official expected outputs */
        if (exact_data) continue; /* the skewed fp32 disagrees with them: a harness error */
        cr_expect_eq(t->status, RS_FAILED, "%s: %s", t->name, t->detail);
        cr_expect(strstr(t->detail, "elements outside tolerance; the exact reference was left out "
                                    "(exact reference: no device memory for 1 MiB): cuBLAS's fp32 "
                                    "alone judged this test"), "%s: %s", t->name, t->detail);
        cr_expect(t->check.n_shown > 0 && isnan(t->check.shown[0].note), "%s", t->name);
    }
    rn_free(&run);
}

/* Start-up outcomes through the solution's child: solve only looked up (--gpu compiled-only),
 * an object without solve, one that does not load. */
Test(protocol, start_up_outcomes)
{
    const pb_problem *p = pb_find("gemm_fp16");
    rn_item it[1] = {{p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false}};
    rn_plan plan = {.problem = p, .so_path = FAKE_CORRECT, .items = it, .n_items = 1,
                    .timeout_s = 10, .timing = {.max_runs = 10}, .lookup_only = true};
    rs_run run;
    cr_expect_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
    cr_expect_eq(run.tests[0].status, RS_NOT_RUN, "looked up, nothing run");
    rn_free(&run);
    plan.lookup_only = false;
    plan.so_path = FAKE_NOSOLVE;
    cr_expect_eq(rn_run(&plan, &run), RN_NO_SOLVE, "%s", run.detail);
    rn_free(&run);
    plan.so_path = "/nonexistent/object.so";
    cr_expect_eq(rn_run(&plan, &run), RN_LOAD_FAILED, "%s", run.detail);
    cr_expect(strstr(run.detail, "/nonexistent/object.so"), "%s", run.detail);
    rn_free(&run);
}

/* ---- the solution's process: start-up, confinement, output, interruption ---- */

static size_t items_three(rn_item *it)
{
    const pb_problem *p = pb_find("gemm_fp16");
    it[0] = (rn_item){p->cases[PB_SET_EXAMPLE][0], PB_SET_EXAMPLE, false};
    it[1] = (rn_item){p->cases[PB_SET_FUNCTIONAL][0], PB_SET_FUNCTIONAL, false};
    it[2] = (rn_item){p->cases[PB_SET_FUNCTIONAL][1], PB_SET_FUNCTIONAL, false};
    return 3;
}

static rs_run run_plan(const char *so, double timeout_s, rn_item *it, size_t n, double *secs)
{
    rn_plan plan = {.problem = pb_find("gemm_fp16"), .so_path = so, .items = it, .n_items = n,
                    .timeout_s = timeout_s, .output_hidden = true,
                    .timing = {.warmup = 1, .min_runs = 3, .max_runs = 10, .max_time_s = 0.05}};
    rs_run run;
    double t0 = wr_now();
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s: %s", so, run.detail);
    if (secs) *secs = wr_now() - t0;
    return run;
}

/* A constructor that aborts or exits is the solution's error (not the harness's failure), in the
 * first test; the object cannot be loaded, so nothing else runs. */
Test(process, constructor_abort_or_exit_is_the_solutions_error, .timeout = 60)
{
    struct {
        const char *so, *detail;
    } cases[] = {
        {FAKE_CTOR_ABORT, "SIGABRT"},
        {FAKE_CTOR_EXIT, "exited with status 4 while loading the solution"},
    };
    for (size_t c = 0; c < 2; c++) {
        rn_item it[3];
        size_t n = items_three(it);
        rs_run run = run_plan(cases[c].so, 10, it, n, NULL);
        cr_expect_eq(run.tests[0].status, RS_ERROR, "%s: %s", cases[c].so, run.tests[0].detail);
        cr_expect(strstr(run.tests[0].detail, cases[c].detail), "%s", run.tests[0].detail);
        cr_expect(strstr(run.tests[0].detail, "loading"), "%s", run.tests[0].detail);
        cr_expect_eq(run.tests[1].status, RS_NOT_RUN, "not loaded again");
        cr_expect_eq(rn_overall(&run), RS_ERROR);
        rn_free(&run);
    }
}

/* Once the solution's constructors ran, a start-up record may be the solution's own: "no device"
 * (exit 8), "the library did not start" (12) or "no solve" (6) would end the run as something
 * other than its failure. Each claim is checked against what the parent sees without it (a probe
 * in a fresh process, the object's symbol table); a false one is the solution's error. */
Test(process, start_up_claims_the_solution_forges_are_its_error, .timeout = 60)
{
    struct {
        const char *so, *claim;
    } cases[] = {
        {FAKE_CLAIM_NODEV, "no CUDA device"},
        {FAKE_CLAIM_FATAL, "a failure to start the library"},
        {FAKE_CLAIM_NOSOLVE_CLAIM, "said solve could not be found"},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        rn_item it[3];
        size_t n = items_three(it);
        rs_run run = run_plan(cases[c].so, 10, it, n, NULL);
        cr_expect_eq(run.tests[0].status, RS_ERROR, "%s: %s", cases[c].so, run.tests[0].detail);
        cr_expect(strstr(run.tests[0].detail, cases[c].claim), "%s", run.tests[0].detail);
        cr_expect(strstr(run.tests[0].detail, "forged by the solution"), "%s", run.tests[0].detail);
        cr_expect_eq(rn_overall(&run), RS_ERROR);
        rn_free(&run);
    }
}

/* A constructor that never returns: a timeout within the test's limit, not the harness's 20 s
 * start-up allowance. */
Test(process, constructor_hang_times_out_within_the_limit, .timeout = 60)
{
    rn_item it[3];
    size_t n = items_three(it);
    double secs;
    rs_run run = run_plan(FAKE_CTOR_HANG, 1.0, it, n, &secs);
    cr_expect_eq(run.tests[0].status, RS_TIMEOUT, "%s", run.tests[0].detail);
    cr_expect(strstr(run.tests[0].detail, "loading the solution (its constructors) did not finish "
                                          "within the 1 s limit"), "%s", run.tests[0].detail);
    cr_expect_lt(secs, 6.0, "killed at the limit: %.1f s", secs);
    cr_expect_eq(run.tests[1].status, RS_NOT_RUN);
    rn_free(&run);
}

/* --vs: the other file's constructors failing (an abort, a hang) are its failure, not the
 * judged file's: it is not loaded again, the judged file is judged alone and passes, and the
 * timed case carries the other's verdict, not compared. Dying only in the second order's
 * process, it leaves the first order's comparison standing. The judged file's own failing
 * constructors stay its error. */
Test(process, vs_constructor_failure_is_the_other_files, .timeout = 60)
{
    struct {
        const char *vs;
        rs_status st;
        const char *detail;
    } cases[] = {
        {FAKE_CTOR_ABORT, RS_ERROR, "SIGABRT"},
        {FAKE_CTOR_HANG, RS_TIMEOUT, "did not finish within the 2 s limit"},
    };
    rn_item it[16];
    size_t n = items_gemm(it, true);
    for (size_t c = 0; c < 2; c++) {
        rs_run run = run_fake(FAKE_CORRECT, cases[c].vs, 2.0, it, n);
        expect_all_passed(&run, n);
        cr_expect_eq(run.vs_lost, cases[c].st, "%s: %s", cases[c].vs, run.vs_lost_detail);
        cr_expect(strstr(run.vs_lost_detail, "loading the --vs file") &&
                  strstr(run.vs_lost_detail, cases[c].detail), "%s", run.vs_lost_detail);
        const rs_test *t = &run.tests[n - 1];
        cr_expect_eq(t->vs_status, cases[c].st, "%s", t->vs_detail);
        cr_expect(t->timing.done && t->timing.vs && !t->timing.base_done && t->timing.vs_orders == 1,
                  "timed alone, not compared: %s", t->timing.base_error);
        rn_free(&run);
    }
    rs_run run = run_fake(FAKE_LOADED, FAKE_CTOR_ABORT_FIRST, 10, it, n);
    expect_all_passed(&run, n);
    const rs_test *t = &run.tests[n - 1];
    cr_expect_eq(t->vs_status, RS_ERROR, "%s", t->vs_detail);
    cr_expect(strstr(t->vs_detail, "SIGABRT"), "%s", t->vs_detail);
    cr_expect(t->timing.base_done && t->timing.vs_orders == 1, "the first order compared");
    rn_free(&run);
    run = run_fake(FAKE_CTOR_ABORT, FAKE_CORRECT, 10, it, n);
    cr_expect_eq(run.tests[0].status, RS_ERROR, "%s", run.tests[0].detail);
    cr_expect(strstr(run.tests[0].detail, "SIGABRT") &&
              strstr(run.tests[0].detail, "while loading the solution"), "%s", run.tests[0].detail);
    cr_expect_eq(run.vs_lost, RS_SUCCESS, "%s", run.vs_lost_detail);
    cr_expect_eq(run.tests[1].status, RS_NOT_RUN, "not loaded again");
    rn_free(&run);
}

/* Whether process pid is gone (or a zombie waiting for its new parent). */
/* Whether pid is gone or a zombie; else its /proc stat line, from its state on, into why */
static bool gone(int pid, char *why, size_t len)
{
    char path[64], *stat;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (!(stat = tu_slurp(path))) return true;
    const char *close_paren = strrchr(stat, ')');
    bool z = close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
    snprintf(why, len, "%.80s", close_paren ? close_paren + 1 : stat);
    free(stat);
    return z;
}

/* solve forks a grandchild that holds the record pipe open, then exits: an error at once (the
 * exit is seen without the pipe's end of file), and the grandchild dies with the group. */
Test(process, a_grandchild_holding_the_pipe_does_not_hide_the_exit, .timeout = 60)
{
    char dir[] = "/tmp/harness-fake-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chmod(dir, 0777), 0, "the solution may run as another uid");
    cr_assert_eq(setenv("FAKE_NOTE_DIR", dir, 1), 0);
    rn_item it[3];
    size_t n = items_three(it);
    double secs;
    rs_run run = run_plan(FAKE_FORK_EXIT, 10, it, n, &secs);
    cr_expect_eq(run.tests[0].status, RS_ERROR, "%s", run.tests[0].detail);
    cr_expect(strstr(run.tests[0].detail, "exited with status 5 in the middle of the test"), "%s",
              run.tests[0].detail);
    cr_expect_lt(secs, 8.0, "three tests, each seen at once, not at the 10 s limit: %.1f s", secs);
    char path[600];
    snprintf(path, sizeof(path), "%s/grandchild", dir);
    char *pid = tu_slurp(path);
    cr_assert_not_null(pid, "the grandchild ran and wrote its pid");
    bool dead = false;
    char why[96] = "";
    /* up to 5 s: on a loaded machine (16 suites and their nvcc) a killed process takes a while
     * to go */
    for (int i = 0; i < 100 && !(dead = gone(atoi(pid), why, sizeof(why))); i++) usleep(50000);
    cr_expect(dead, "grandchild %d killed with the solution's process group (state, ppid, pgrp: %s)",
              atoi(pid), why);
    free(pid);
    unlink(path);
    rmdir(dir);
    rn_free(&run);
}

/* kill(getppid(), SIGSTOP) from solve is refused (the filter; as root, the uid drop too), so the
 * solution goes on and passes. The fake asks with signal 0 first and stops only what refused it;
 * this test's .timeout is the outer guard. Without the filter, as a user, the harness can be
 * stopped: skipped. */
Test(process, stopping_the_harness_is_refused, .timeout = 60)
{
    if (!sb_filter_built() && geteuid() != 0)
        cr_skip_test("built without libseccomp and not root: nothing refuses the signal");
    rn_item it[3];
    size_t n = items_three(it);
    rs_run run = run_plan(FAKE_STOP_PARENT, 10, it, n, NULL);
    expect_all_passed(&run, n);
    rn_free(&run);
}

/* /proc/PPID/mem read-write, PTRACE_SEIZE and process_vm_readv at the harness all fail: as root
 * the solution runs as an unprivileged uid; as a user the parent is not dumpable. */
Test(process, the_harness_memory_is_out_of_reach, .timeout = 60)
{
    rn_item it[3];
    size_t n = items_three(it);
    rs_run run = run_plan(FAKE_PARENT_MEM, 10, it, n, NULL);
    expect_all_passed(&run, n);
    if (geteuid() == 0) {
        cr_expect(run.sandbox_dropped, "as root the solution runs unprivileged: %s", run.sandbox);
    } else {
        cr_log_info("not root: the uid drop is not exercised (the parent's PR_SET_DUMPABLE is)");
    }
    rn_free(&run);
}

/* The filter's signal rules, asked with signal 0 only: kill(-1), kill(0), tgkill at the parent,
 * pidfd_open, setsid, setpgid refused; a signal to itself and to its own thread allowed. */
Test(process, the_filter_refuses_signals_outside_the_process, .timeout = 60)
{
    if (!sb_filter_built()) cr_skip_test("built without libseccomp: no filter to test");
    rn_item it[3];
    size_t n = items_three(it);
    rs_run run = run_plan(FAKE_KILL_ALL, 10, it, n, NULL);
    cr_expect(run.sandbox_filtered, "%s", run.sandbox);
    expect_all_passed(&run, n);
    if (geteuid() == 0) cr_expect_str_empty(run.sandbox, "everything holds: %s", run.sandbox);
    rn_free(&run);
}

/* Under --sanitize and --profile (their variables set, as the inspection modes set them for the
 * inner run) the sandbox is the same: the filter on, the uid dropped as root. Criterion runs
 * each test in a process of its own, so the variables end with it. */
Test(process, the_sandbox_holds_under_the_tools, .timeout = 60)
{
    if (!sb_filter_built()) cr_skip_test("built without libseccomp: no filter to test");
    static const char *const vars[][2] = {{"HARNESS_SANITIZER", "memcheck"}, {"HARNESS_PROFILER", "ncu"}};
    for (size_t v = 0; v < 2; v++) {
        cr_assert_eq(setenv(vars[v][0], vars[v][1], 1), 0);
        rn_item it[3];
        size_t n = items_three(it);
        rs_run run = run_plan(FAKE_KILL_ALL, 10, it, n, NULL);
        cr_expect(run.sandbox_filtered, "%s=%s: %s", vars[v][0], vars[v][1], run.sandbox);
        if (geteuid() == 0) cr_expect(run.sandbox_dropped, "%s: %s", vars[v][0], run.sandbox);
        expect_all_passed(&run, n);
        rn_free(&run);
        cr_assert_eq(unsetenv(vars[v][0]), 0);
    }
}

/* 100 MB on stdout: killed past the cap, output-exceeded, each test in a fresh process. */
Test(process, an_output_flood_is_output_exceeded, .timeout = 60)
{
    rn_item it[3];
    size_t n = items_three(it);
    double secs;
    rs_run run = run_plan(FAKE_FLOOD, 10, it, n, &secs);
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(run.tests[i].status, RS_OUTPUT_EXCEEDED, "%s: %s", run.tests[i].name,
                     run.tests[i].detail);
        cr_expect(strstr(run.tests[i].detail, "more than 1 MiB to stdout/stderr") &&
                      strstr(run.tests[i].detail, "began: \"flood xxx"),
                  "%s", run.tests[i].detail);
    }
    cr_expect_str_eq(rs_status_name(RS_OUTPUT_EXCEEDED), "output-exceeded");
    cr_expect_lt(secs, 10.0, "%.1f s", secs);
    rn_free(&run);
}

/* A solution's prints reach the run and change nothing. */
Test(process, printed_output_is_kept)
{
    rn_item it[3];
    size_t n = items_three(it);
    rs_run run = run_plan(FAKE_PRINTS, 10, it, n, NULL);
    expect_all_passed(&run, n);
    cr_expect(strncmp(run.output, "solve 2x2x3 uid ", 16) == 0, "%s", run.output);
    cr_expect_gt(run.output_bytes, 3 * strlen("solve 2x2x3 uid 0 gid 0\n"), "%zu", run.output_bytes);
    if (geteuid() == 0)
        cr_expect(strstr(run.output, "uid 65534 gid 65534"), "root: nobody/nogroup: %s", run.output);
    rn_free(&run);
}

/* HARNESS_SOLUTION_UID: another uid:gid; 0 keeps root (and the report says so); a malformed
 * value stops the run as the harness's failure. Only root can change uid. */
Test(process, the_solution_uid_is_configurable, .timeout = 60)
{
    if (geteuid() != 0) cr_skip_test("not root: the solution runs as this user, nothing to drop");
    rn_item it[3];
    size_t n = items_three(it);
    cr_assert_eq(setenv("HARNESS_SOLUTION_UID", "4321:4322", 1), 0);
    rs_run run = run_plan(FAKE_PRINTS, 10, it, n, NULL);
    cr_expect_eq(run.tests[0].status, RS_SUCCESS, "%s", run.tests[0].detail);
    cr_expect(strstr(run.output, "uid 4321 gid 4322"), "%s", run.output);
    cr_expect(run.sandbox_dropped);
    rn_free(&run);
    cr_assert_eq(setenv("HARNESS_SOLUTION_UID", "0", 1), 0);
    run = run_plan(FAKE_PRINTS, 10, it, n, NULL);
    cr_expect_eq(run.tests[0].status, RS_SUCCESS, "%s", run.tests[0].detail);
    cr_expect(strstr(run.output, "uid 0 gid 0"), "%s", run.output);
    cr_expect(!run.sandbox_dropped && strstr(run.sandbox, "the solution runs as root"), "%s",
              run.sandbox);
    rn_free(&run);
    cr_assert_eq(setenv("HARNESS_SOLUTION_UID", "nobody", 1), 0);
    rn_plan plan = {.problem = pb_find("gemm_fp16"), .so_path = FAKE_PRINTS, .items = it,
                    .n_items = n, .timeout_s = 10, .output_hidden = true, .timing = {.max_runs = 10}};
    cr_expect_eq(rn_run(&plan, &run), RN_INTERNAL);
    cr_expect(strstr(run.detail, "HARNESS_SOLUTION_UID: expected UID or UID:GID, got 'nobody'"), "%s",
              run.detail);
    rn_free(&run);
    unsetenv("HARNESS_SOLUTION_UID");
}

/* SIGINT to this process once the second call hangs ($FAKE_NOTE_DIR/hanging exists), or after
 * 20 s whatever happened. */
static void *interrupt_later(void *arg)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/hanging", (const char *)arg);
    for (int i = 0; i < 400 && access(path, F_OK) != 0; i++) usleep(50000);
    usleep(100000);
    kill(getpid(), SIGINT);
    return NULL;
}

/* SIGINT during the second test: the first keeps its verdict, the second is interrupted, the
 * third is not run, promptly (the limit is 30 s). */
Test(process, sigint_interrupts_and_keeps_the_verdicts, .timeout = 60)
{
    static char dir[] = "/tmp/harness-fake-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chmod(dir, 0777), 0, "the solution may run as another uid");
    cr_assert_eq(setenv("FAKE_NOTE_DIR", dir, 1), 0);
    rn_item it[3];
    size_t n = items_three(it);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, interrupt_later, dir), 0);
    double secs;
    rs_run run = run_plan(FAKE_HANG_SECOND, 30, it, n, &secs);
    pthread_join(t, NULL);
    cr_expect_eq(run.tests[0].status, RS_SUCCESS, "%s", run.tests[0].detail);
    cr_expect_eq(run.tests[1].status, RS_INTERRUPTED, "%s", run.tests[1].detail);
    cr_expect(strstr(run.tests[1].detail, "SIGINT"), "%s", run.tests[1].detail);
    cr_expect_eq(run.tests[2].status, RS_NOT_RUN);
    cr_expect_eq(rn_overall(&run), RS_INTERRUPTED);
    cr_expect_lt(secs, 20.0, "%.1f s", secs);
    char path[600];
    snprintf(path, sizeof(path), "%s/hanging", dir);
    unlink(path);
    rmdir(dir);
    rn_free(&run);
}

/* The GPU-node check that decides whether root is dropped, on nodes every machine has: /dev/null
 * is read-write for all; a root-only node is not, except for root (its owner). */
Test(process, device_nodes_are_checked_for_the_target_uid)
{
    char bad[200] = "";
    const char *open_ones[] = {"/dev/null", "/dev/zero", "/dev/no-such-node*"};
    cr_expect(sb_nodes_usable(open_ones, 3, 65534, 65534, bad, sizeof(bad)), "%s", bad);
    const char *candidates[] = {"/dev/console", "/dev/kvm", "/dev/cpu_dma_latency", "/dev/mem"};
    const char *closed = NULL;
    struct stat sb;
    for (size_t i = 0; i < 4 && !closed; i++)
        if (stat(candidates[i], &sb) == 0 && S_ISCHR(sb.st_mode) && sb.st_uid == 0 &&
            (sb.st_mode & 0066) == 0)
            closed = candidates[i];
    if (!closed) cr_skip_test("no root-only character device here to check against");
    const char *pats[] = {"/dev/null", closed};
    cr_expect(!sb_nodes_usable(pats, 2, 65534, 65534, bad, sizeof(bad)));
    cr_expect(strncmp(bad, closed, strlen(closed)) == 0 && strstr(bad, "owner 0:"), "%s", bad);
    cr_expect(sb_nodes_usable(pats, 2, 0, 0, bad, sizeof(bad)), "its owner may: %s", bad);
}
