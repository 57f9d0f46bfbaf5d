/* rp_json_string: every JSON string the harness prints is valid UTF-8, whatever the bytes it is
 * given (messages cut mid-character by fixed buffers, file names and arguments that are not
 * UTF-8); each case's output is compared byte for byte. And --json's "error" through the harness:
 * such a message, and --gpu all's exits that are not a test's verdict. nvcc, no GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "report.h"
#include "util.h"

/* rp_json_string's output for s, quotes included (malloc'd). */
static char *json_of(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    rp_json_string(f, s);
    fclose(f);
    return buf;
}

#define EXPECT_JSON(in, want)                                                                      \
    do {                                                                                           \
        char *got_ = json_of(in);                                                                  \
        cr_expect_str_eq(got_, want);                                                              \
        free(got_);                                                                                \
    } while (0)

Test(json_utf8, plain_ascii_and_escapes)
{
    EXPECT_JSON("", "\"\"");
    EXPECT_JSON(NULL, "\"\"");
    EXPECT_JSON("gemm_fp16 4096x4096x17", "\"gemm_fp16 4096x4096x17\"");
    EXPECT_JSON("say \"hi\" C:\\x", "\"say \\\"hi\\\" C:\\\\x\"");
    EXPECT_JSON("a\nb\tc\rd", "\"a\\nb\\tc\\rd\"");
}

Test(json_utf8, control_characters_are_escaped)
{
    EXPECT_JSON("\x01\x08\x0c\x1b[0m\x1f\x7f", "\"\\u0001\\u0008\\u000c\\u001b[0m\\u001f\\u007f\"");
}

Test(json_utf8, valid_sequences_are_kept)
{
    EXPECT_JSON("\xc3\xa9", "\"\xc3\xa9\"");                 /* é: 2 bytes */
    EXPECT_JSON("4\xc3\x97", "\"4\xc3\x97\"");               /* 4×, the reports' own sign */
    EXPECT_JSON("\xe2\x80\x94 \xe2\x9c\x93", "\"\xe2\x80\x94 \xe2\x9c\x93\""); /* — ✓ */
    EXPECT_JSON("\xed\x9f\xbf\xee\x80\x80", "\"\xed\x9f\xbf\xee\x80\x80\""); /* U+D7FF, U+E000 */
    EXPECT_JSON("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");   /* U+1F600: 4 bytes */
    EXPECT_JSON("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");   /* U+10FFFF, the last */
}

Test(json_utf8, truncated_sequences_become_one_replacement)
{
    EXPECT_JSON("caf\xc3", "\"caf\\ufffd\"");           /* a 2-byte sequence cut after its lead */
    EXPECT_JSON("x\xf0\x9f\x98", "\"x\\ufffd\"");        /* a 4-byte one cut after 3 bytes */
    EXPECT_JSON("x\xf0\x9f", "\"x\\ufffd\"");
    EXPECT_JSON("\xe2\x80", "\"\\ufffd\"");
    EXPECT_JSON("\xc3" "a", "\"\\ufffda\"");             /* cut in the middle of a string */
    EXPECT_JSON("\xf0\x9f\x98" "\xc3\xa9", "\"\\ufffd\xc3\xa9\"");
}

Test(json_utf8, invalid_bytes_become_one_replacement_each)
{
    EXPECT_JSON("\x80", "\"\\ufffd\"");                  /* lone continuation bytes */
    EXPECT_JSON("a\x80\xbf" "b", "\"a\\ufffd\\ufffdb\"");
    EXPECT_JSON("\xff.cu", "\"\\ufffd.cu\"");
    EXPECT_JSON("1\xfe\xff", "\"1\\ufffd\\ufffd\"");
    EXPECT_JSON("\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
    EXPECT_JSON("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

Test(json_utf8, overlongs_and_surrogates_are_refused)
{
    EXPECT_JSON("\xc0\xaf", "\"\\ufffd\\ufffd\"");        /* '/' overlong */
    EXPECT_JSON("\xc1\xbf", "\"\\ufffd\\ufffd\"");
    EXPECT_JSON("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
    EXPECT_JSON("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    EXPECT_JSON("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");  /* U+D800, a surrogate */
    EXPECT_JSON("\xed\xbf\xbf" "ok", "\"\\ufffd\\ufffd\\ufffdok\"");
}

Test(json_utf8, a_message_cut_by_its_buffer_stays_valid)
{
    /* what snprintf leaves of 300 'é' after a 12-byte prefix in 512 bytes: 249 whole ones and
     * the lead byte of the next */
    char msg[512];
    char *e = malloc(601);
    cr_assert(e);
    for (int i = 0; i < 300; i++) memcpy(e + 2 * i, "\xc3\xa9", 2);
    e[600] = '\0';
    snprintf(msg, sizeof(msg), "--problem: '%s'", e);
    free(e);
    cr_assert_eq(strlen(msg), 511);
    cr_assert_eq((unsigned char)msg[510], 0xc3);
    char *got = json_of(msg);
    size_t n = strlen(got);
    cr_expect_str_eq(got + n - 9, "\xc3\xa9\\ufffd\"");
    cr_expect_eq(strncmp(got, "\"--problem: '\xc3\xa9", 15), 0, "%s", got);
    free(got);
}

/* the harness's stdout alone: its stderr echoes the message's bytes as they are */
static char out[1 << 16];

Test(json_utf8, the_harness_json_of_a_cut_message_is_utf8)
{
    char cmd[2048];
    int u = snprintf(cmd, sizeof(cmd), "HARNESS_CACHE='%s/cache' '%s' --json --problem '", SCRATCH,
                     HARNESS_BIN);
    for (int i = 0; i < 300; i++) u += snprintf(cmd + u, sizeof(cmd) - (size_t)u, "\xc3\xa9");
    snprintf(cmd + u, sizeof(cmd) - (size_t)u, "' '%s/correct.cu' 2>/dev/null", FIXTURES);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "\\ufffd"), "%s", out);
    for (const unsigned char *p = (const unsigned char *)out; *p; p++) { /* é whole, or none */
        if (*p < 0x80) continue;
        cr_assert(p[0] == 0xc3 && p[1] == 0xa9, "byte %ld of %s",
                  (long)(p - (const unsigned char *)out), out);
        p++;
    }
}

Test(json_utf8, gpu_all_error_says_why_when_no_verdict, .timeout = 300)
{
    int code = tu_run_harness(out, sizeof(out),
                              (const char *const[]){"--gpu", "all", "--json",
                                                    FIXTURES "/compile_error.cu", NULL});
    cr_expect_eq(code, HX_COMPILE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":5,\"error\":\"sm_75: does not compile (") &&
                  strstr(out, "undeclared_name"),
              "%s", out);
    char why[256];
    if (tu_have_gpu(why, sizeof(why))) { /* --gpu all's runs with a device: test_gpus.c */
        cr_log_info("a device is present: the no-device exit is checked on machines without one");
        return;
    }
    code = tu_run_harness(out, sizeof(out),
                          (const char *const[]){"--gpu", "all", "--json", FIXTURES "/correct.cu",
                                                NULL});
    cr_expect_eq(code, HX_NO_DEVICE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":8,\"error\":\"no CUDA device found ("), "%s", out);
}
