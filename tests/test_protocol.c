/* The three processes' protocol on the CPU: the parent (runner.c), the oracle (oracle.c) and the
 * solution's child (worker.c) run their real code over a fake device (tests/fake/
 * device_fake.c: host memory between the same guard zones, the CPU reference), judging fake
 * solutions: a correct one passes and is timed beside the baseline; wrong output, a write past
 * C, a changed input, a cached result, an exit, a hang and forged records each get their
 * verdict from the parent; --vs compares two files. No GPU and no nvcc needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "runner.h"

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

Test(protocol, correct_passes_and_is_timed_beside_the_baseline)
{
    rn_item it[16];
    size_t n = items_gemm(it, true);
    rs_run run = run_fake(FAKE_CORRECT, NULL, 10, it, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(run.tests[i].status, RS_SUCCESS, "%s: %s", run.tests[i].name,
                     run.tests[i].detail);
    const rs_timing *t = &run.tests[n - 1].timing;
    cr_expect(t->done && t->n_runs >= 5 && t->median_ms > 0, "timed: %d runs", t->n_runs);
    cr_expect(t->base_done && t->base_runs >= 5, "the baseline timed beside it: %s", t->base_error);
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
    /* both: cuBLAS in the baseline's series, cuBLASLt in a third, in the same rounds */
    plan.timing.yardstick = RN_YS_BOTH;
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
        {FAKE_CACHED, "performance 48x40x32", "second input set in the same buffers", RS_FAILED},
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
    rn_free(&run);
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
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(run.tests[i].status, RS_SUCCESS, "%s: %s", run.tests[i].name,
                     run.tests[i].detail);
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
static void run_tables(const char *problem, const char *so, double max_flops)
{
    const pb_problem *p = pb_find(problem);
    rn_item it[40];
    size_t n = 0;
    for (int s = 0; s < PB_N_SETS && n < 40; s++)
        for (size_t i = 0; i < p->n_cases[s] && n < 40; i++)
            if (pb_flops(p, p->cases[s][i].v) <= max_flops)
                it[n++] = (rn_item){p->cases[s][i], (pb_set)s, false};
    rn_plan plan = {.problem = p, .so_path = so, .items = it, .n_items = n, .timeout_s = 30,
                    .timing = {.warmup = 1, .min_runs = 3, .max_runs = 10, .max_time_s = 0.05}};
    rs_run run;
    cr_assert_eq(rn_run(&plan, &run), RN_OK, "%s", run.detail);
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
