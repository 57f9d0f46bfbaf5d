/* GPU suite: the judge's GPUs on a real device. A solution that calls the driver API loads and
 * passes; --gpu runs each target's code the way this GPU can (SASS, PTX, or not at all) and says
 * which. Skipped (exit 77, see util.c) without a CUDA device. */
#include <criterion/criterion.h>
#include <string.h>

#include "judge.h"
#include "util.h"

#define RUN(out, ...) tu_run_harness(out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})
#define FX(name) FIXTURES "/" name ".cu"

TestSuite(gpus_gpu, .init = tu_need_gpu, .timeout = 600);

Test(gpus_gpu, driver_api_solution_succeeds)
{
    static char out[1 << 17];
    int code = RUN(out, "--no-timing", FX("driver_api"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "Status: success"), "%s", out);
}

Test(gpus_gpu, every_judge_gpu_says_how_it_ran)
{
    static char out[1 << 17];
    int code = RUN(out, "--gpu", "all", "--no-timing", "--json", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "every row that ran passed: %s", out);
    cr_expect(!strstr(out, "\"compiles\":false"), "%s", out);
    /* each row ran as SASS, as PTX, or says why not */
    cr_expect(strstr(out, "\"ran_here\":\"yes, as SASS\"") || strstr(out, "as compute_"), "%s", out);
    code = RUN(out, "--gpu", "T4", "--no-timing", "--json", FX("correct"));
    cr_expect(code == HX_SUCCESS || code == HX_CANNOT_RUN, "%s", out);
    if (code == HX_SUCCESS)
        cr_expect(strstr(out, "\"ran_as\":\"sm_75 SASS") || strstr(out, "\"ran_as\":\"compute_75 PTX compiled by the driver"), "%s", out);
}

Test(gpus_gpu, a_target_this_gpu_cannot_run_is_exit_13)
{
    /* sm_100a code runs only on compute capability 10.0 and sm_90a only on 9.0: one of the two
     * (or both) cannot run here, and is compiled, its solve looked up, nothing run */
    static char out[1 << 17];
    const char *gpus[] = {"B200", "H100"};
    int cannot = 0;
    for (int i = 0; i < 2; i++) {
        int code = RUN(out, "--gpu", gpus[i], "--no-timing", FX("correct"));
        cr_expect(code == HX_SUCCESS || code == HX_CANNOT_RUN, "%s: %d: %s", gpus[i], code, out);
        if (code != HX_CANNOT_RUN) continue;
        cannot++;
        cr_expect(strstr(out, "cannot run") && strstr(out, "solve found"), "%s", out);
    }
    cr_expect(cannot >= 1, "sm_90a and sm_100a code cannot both run on one GPU");
}
