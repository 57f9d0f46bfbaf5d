/* Inspection: the parsers on recorded tool output (tests/samples/, each file's first line says
 * where it comes from), occupancy by resources, `harness new`, and the command line of --resources,
 * --ptx, --sass, --sanitize and --profile (the last two through stand-in tools that replay a
 * sample, so the folding of findings into the verdict is tested without a GPU). The GPU tests at
 * the end run the real tools and skip themselves without a device. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inspect.h"
#include "inspect/tools.h" /* in_demangle */
#include "util.h"

#define SAMPLE(name) SOURCE_DIR "/tests/samples/" name
#define FX(name) FIXTURES "/" name ".cu"

static char *sample(const char *path)
{
    char *t = tu_slurp(path);
    cr_assert_not_null(t, "cannot read %s", path);
    return t;
}

static const in_kernel *kernel(const in_kernels *ks, const char *name)
{
    for (size_t i = 0; i < ks->n; i++)
        if (strcmp(ks->k[i].name, name) == 0) return &ks->k[i];
    cr_assert_fail("no kernel %s among %zu", name, ks->n);
    return NULL;
}

static const in_mix_fn *fn(const in_mix *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->f[i].name, name) == 0) return &m->f[i];
    cr_assert_fail("no function %s among %zu", name, m->n);
    return NULL;
}

/* Run the harness with environment assignments (a shell prefix such as "NCU=/x ") before it, its
 * first arguments (a shell word or "") and its output's redirection after them. */
static int run_with(char *out, size_t len, const char *env, const char *first, const char *const *args,
                    const char *redirect)
{
    char cmd[8192];
    mkdir(SCRATCH, 0755);
    size_t u = (size_t)snprintf(cmd, sizeof(cmd), "%s HARNESS_CACHE='%s/cache' '%s'%s", env, SCRATCH, HARNESS_BIN,
                                first);
    for (int i = 0; args[i] && u < sizeof(cmd); i++)
        u += (size_t)snprintf(cmd + u, sizeof(cmd) - u, " '%s'", args[i]);
    snprintf(cmd + u, sizeof(cmd) - u, "%s", redirect);
    return tu_run_shell(out, len, cmd);
}

static int run_env(char *out, size_t len, const char *env, const char *const *args)
{
    return run_with(out, len, env, "", args, " 2>&1");
}

#define RUN_ENV(out, env, ...) run_env(out, sizeof(out), env, (const char *const[]){__VA_ARGS__, NULL})
#define RUN(out, ...) tu_run_harness(out, sizeof(out), (const char *const[]){__VA_ARGS__, NULL})

/* A stand-in tool: a shell script in the scratch folder. */
static void write_tool(const char *path, const char *body)
{
    mkdir(SCRATCH, 0755);
    char text[4096];
    snprintf(text, sizeof(text), "#!/bin/sh\n%s", body);
    cr_assert(tu_write(path, text), "%s", path);
    cr_assert_eq(chmod(path, 0755), 0);
}

/* ---- ptxas and cuobjdump resources ---- */

Test(resources, ptxas_sample_of_stage_07)
{
    char *t = sample(SAMPLE("ptxas_07_wmma_tiled_sm90a.txt"));
    in_kernels ks;
    cr_assert(in_parse_ptxas(t, &ks));
    cr_expect_eq(ks.n, 6);
    const in_kernel *k = kernel(&ks, "_Z15gemm_wmma_tiledI3CfgILi64ELi64ELi32ELi32ELi4ELi2EELb0EEvPK6__halfS4_PS2_iiiff");
    cr_expect_str_eq(k->arch, "sm_90a");
    cr_expect_eq(k->regs, 94);
    cr_expect_eq(k->barriers, 1);
    cr_expect_eq(k->smem_static, 0);
    cr_expect_eq(k->stack, 0);
    cr_expect_eq(k->spill_stores, 0);
    cr_expect_eq(k->spill_loads, 0);
    cr_expect_eq(k->local, -1, "ptxas says nothing of LOCAL");
    k = kernel(&ks, "_Z15gemm_wmma_tiledI3CfgILi128ELi128ELi64ELi32ELi3ELi2EELb0EEvPK6__halfS4_PS2_iiiff");
    cr_expect_eq(k->regs, 122);
    in_kernels_free(&ks);
    free(t);
}

Test(resources, ptxas_sample_with_spills_stack_and_smem)
{
    char *t = sample(SAMPLE("ptxas_spill_sm80.txt"));
    in_kernels ks;
    cr_assert(in_parse_ptxas(t, &ks));
    cr_expect_eq(ks.n, 2);
    const in_kernel *k = kernel(&ks, "_Z12spill_kernelPfPKfii");
    cr_expect_str_eq(k->arch, "sm_80");
    cr_expect_eq(k->regs, 32);
    cr_expect_eq(k->barriers, 0);
    cr_expect_eq(k->stack, 432);
    cr_expect_eq(k->spill_stores, 400);
    cr_expect_eq(k->spill_loads, 416);
    cr_expect_eq(k->smem_static, 0);
    k = kernel(&ks, "_Z10mix_kernelPK6__halfPK6float4Pfii");
    cr_expect_eq(k->regs, 27);
    cr_expect_eq(k->barriers, 1);
    cr_expect_eq(k->smem_static, 1536);
    cr_expect_eq(k->stack, 64);
    cr_expect_eq(k->spill_stores, 0);
    in_kernels_free(&ks);
    free(t);
}

Test(resources, cuobjdump_sample_agrees_with_ptxas_for_stage_05)
{
    char *t = sample(SAMPLE("cuobjdump_resource_usage.txt"));
    char *p = sample(SAMPLE("ptxas_05_thread_tile_2d_sm90a.txt"));
    in_kernels ku, ks;
    cr_assert(in_parse_resource_usage(t, &ku));
    cr_assert(in_parse_ptxas(p, &ks));
    cr_expect_eq(ku.n, 3);
    cr_expect_eq(ks.n, 2, "ptxas lists stage 05's two kernels (the loop below checks each)");
    for (size_t i = 0; i < ks.n; i++) {
        const in_kernel *a = &ks.k[i], *b = kernel(&ku, a->name);
        cr_expect_eq(a->regs, b->regs, "%s", a->name);
        cr_expect_eq(a->smem_static, b->smem_static, "%s: SHARED less the 1 KiB reserve", a->name);
        cr_expect_eq(b->smem_reserved, 1024);
        cr_expect_str_eq(b->arch, "sm_90a");
        cr_expect_eq(b->stack, 0);
        cr_expect_eq(b->local, 0);
        cr_expect_eq(b->barriers, -1, "cuobjdump does not count barriers");
        cr_expect_eq(b->spill_stores, -1, "cuobjdump does not report spills");
    }
    const in_kernel *s = kernel(&ku, "_Z6spillyPf");
    cr_expect_str_eq(s->arch, "sm_75");
    cr_expect_eq(s->smem_reserved, 0, "sm_75 reserves no shared memory per block");
    cr_expect_eq(s->stack, 432);
    cr_expect_eq(s->regs, 32);
    in_kernels_free(&ku);
    in_kernels_free(&ks);
    free(t);
    free(p);
}

Test(resources, occupancy_by_resources)
{
    in_limits l;
    const char *by;
    cr_assert(in_limits_for("sm_90a", &l));
    cr_expect_str_eq(l.arch, "sm_90");
    /* stage 07's 128x128 tile: 122 registers, 256 threads → 2 blocks (its header says so) */
    cr_expect_eq(in_blocks_per_sm(&l, 122, 0, 256, &by), 2);
    cr_expect_str_eq(by, "registers");
    cr_expect_eq(in_blocks_per_sm(&l, 94, 0, 128, &by), 5);
    cr_expect_eq(in_blocks_per_sm(&l, 32, 0, 128, &by), 16);
    cr_expect_str_eq(by, "warps");
    cr_expect_eq(in_blocks_per_sm(&l, 32, 100 * 1024, 128, &by), 2);
    cr_expect_str_eq(by, "shared memory");
    cr_expect_eq(in_blocks_per_sm(&l, 32, 230 * 1024, 128, &by), 0, "more than a block may have");
    cr_expect_eq(in_blocks_per_sm(&l, 16, 0, 32, &by), 32);
    cr_expect_str_eq(by, "blocks");
    cr_assert(in_limits_for("sm_75", &l));
    cr_expect_eq(in_blocks_per_sm(&l, 32, 0, 256, &by), 4, "sm_75 holds 32 warps");
    cr_assert(in_limits_for("sm_80", &l));
    cr_expect_eq(in_blocks_per_sm(&l, 32, 16384, 256, &by), 8);
    cr_expect_not(in_limits_for("sm_120", &l));
}

/* What a solution's #pragma message puts into the compiler's log before ptxas's report: lines
 * shaped like ptxas's (one after a newline inside the message starts "ptxas info"), an absurd
 * register count, names c++filt would read as an option or a file. Only ptxas's last unbroken run
 * of lines counts (nvcc 13.0's log of tests/fixtures/inspect_planted_ptxas.cu, shortened). */
Test(resources, ptxas_report_ignores_planted_lines)
{
    static const char log[] =
        "x.cu(9): remark #20200-D: #pragma message: \"Compiling entry function 'f' for 'sm_80'\"\n"
        "  #pragma message M1\n"
        "                    ^\n"
        "\n"
        "x.cu(10): remark #20200-D: #pragma message: \"Used 134217728 registers\"\n"
        "  #pragma message M2\n"
        "                    ^\n"
        "\n"
        "x.cu(11): remark #20200-D: #pragma message: \"x\n"
        "ptxas info    : Compiling entry function '-p' for 'sm_80'\n"
        "ptxas info    : Used 999 registers\"\n"
        "  #pragma message \"x\\nptxas info    : Compiling entry function '-p' for 'sm_80'\\nptxas info    : Used 999 registers\"\n"
        "                                                                                                               ^\n"
        "\n"
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function '_Z11real_kernelP6__half' for 'sm_80'\n"
        "ptxas info    : Function properties for _Z11real_kernelP6__half\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 8 registers, used 0 barriers, 352 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function '_Z4hugePf' for 'sm_80'\n"
        "ptxas info    : Used 134217728 registers, used 99999 barriers, 99999999999999999999 bytes smem\n";
    in_kernels ks;
    cr_assert(in_parse_ptxas(log, &ks));
    cr_assert_eq(ks.n, 2, "only ptxas's own rows");
    const in_kernel *k = kernel(&ks, "_Z11real_kernelP6__half");
    cr_expect_eq(k->regs, 8);
    cr_expect_eq(k->stack, 0);
    k = kernel(&ks, "_Z4hugePf");
    cr_expect_eq(k->regs, -1, "out of range: not reported");
    cr_expect_eq(k->barriers, -1);
    cr_expect_eq(k->smem_static, -1);
    in_kernels_free(&ks);

    /* no figure divides by zero or overflows: unknown or absurd resources fit nothing */
    in_limits l;
    const char *by;
    cr_assert(in_limits_for("sm_90a", &l));
    cr_expect_eq(in_blocks_per_sm(&l, 134217728, 0, 128, &by), 0);
    cr_expect_str_eq(by, "unknown resources");
    cr_expect_eq(in_blocks_per_sm(&l, -1, 0, 128, &by), 0);
    cr_expect_eq(in_blocks_per_sm(&l, 32, -1, 128, &by), 0);
    cr_expect_eq(in_blocks_per_sm(&l, 32, 0, 0, &by), 0);
    cr_expect_eq(in_blocks_per_sm(&l, 32, 0, -5, &by), 0);
    cr_expect_eq(in_blocks_per_sm(&l, 255, 0, 1024, &by), 0, "255 registers x 1024 threads exceed the file");
    cr_expect_eq(in_blocks_per_sm(&l, 64, 0, 1024, &by), 1);
}

/* ---- SASS and PTX mix ---- */

Test(mix, cuobjdump_sass_sample)
{
    char *t = sample(SAMPLE("sass_cuobjdump_excerpt.txt"));
    in_mix m;
    cr_assert(in_parse_sass(t, &m));
    cr_expect_eq(m.n, 2);
    const in_mix_fn *f = fn(&m, "_Z10mix_kernelPK6__halfPK6float4Pfii");
    cr_expect_eq(f->total, 19);
    cr_expect_eq(f->count[IN_S_FFMA], 2, "a predicated FFMA counts too");
    cr_expect_eq(f->count[IN_S_HMMA], 1);
    cr_expect_eq(f->count[IN_S_LDSM], 1);
    cr_expect_eq(f->count[IN_S_LDGSTS], 1);
    cr_expect_eq(f->count[IN_S_LDG128], 1);
    cr_expect_eq(f->count[IN_S_LDL], 1);
    cr_expect_eq(f->count[IN_S_STL], 1);
    cr_expect_eq(f->count[IN_S_STS32], 1);
    cr_expect_eq(f->count[IN_S_LDS32], 1);
    cr_expect_eq(f->count[IN_S_STG64], 1);
    cr_expect_eq(f->count[IN_S_BAR], 2);
    cr_expect_eq(f->count[IN_S_HGMMA], 0);
    f = fn(&m, "_Z14gemm_wgmma_tmaILi64ELi128ELi4EEv14CUtensorMap_stS0_P6__halfiiiff");
    cr_expect_eq(f->total, 15);
    cr_expect_eq(f->count[IN_S_UTMALDG], 1);
    cr_expect_eq(f->count[IN_S_HGMMA], 2);
    cr_expect_eq(f->count[IN_S_LDS128], 1);
    cr_expect_eq(f->count[IN_S_LDS64], 1);
    cr_expect_eq(f->count[IN_S_LDS32], 1, "LDS.U16 is a narrow LDS");
    cr_expect_eq(f->count[IN_S_STS128], 1);
    cr_expect_eq(f->count[IN_S_LDG32], 1);
    cr_expect_eq(f->count[IN_S_LDG128], 1, "LTC128B is a cache hint, .128 the width");
    cr_expect_eq(f->count[IN_S_STG128], 1);
    cr_expect_eq(f->count[IN_S_BAR], 1);

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    in_print_mix(out, &m, true);
    fclose(out);
    cr_expect(strstr(text, "HMMA 1") && strstr(text, "LDGSTS 1") && strstr(text, "UTMALDG 1") &&
              strstr(text, "LDS.128 1") && strstr(text, "LDG.E.128 1") && strstr(text, "BAR 2"), "%s", text);
    free(text);
    in_mix_free(&m);
    free(t);
}

Test(mix, nvdisasm_sample)
{
    char *t = sample(SAMPLE("sass_nvdisasm_excerpt.txt"));
    in_mix m;
    cr_assert(in_parse_sass(t, &m));
    cr_expect_eq(m.n, 1, "the .section line and the label name one function");
    const in_mix_fn *f = fn(&m, "_Z4kernPfPKf");
    cr_expect_eq(f->total, 7);
    cr_expect_eq(f->count[IN_S_LDG64], 1);
    cr_expect_eq(f->count[IN_S_FFMA], 1);
    cr_expect_eq(f->count[IN_S_STG32], 1);
    in_mix_free(&m);
    free(t);
}

Test(mix, ptx_sample)
{
    char *t = sample(SAMPLE("ptx_mix_sm80.ptx"));
    in_mix m;
    cr_assert(in_parse_ptx(t, &m));
    cr_expect_eq(m.n, 1);
    const in_mix_fn *f = fn(&m, "_Z10mix_kernelPK6__halfPK6float4Pfii");
    cr_expect_eq(f->maxntid, 128, "__launch_bounds__(128)");
    cr_expect_eq(f->total, 90);
    cr_expect_eq(f->count[IN_P_FMA], 16);
    cr_expect_eq(f->count[IN_P_MMA], 1);
    cr_expect_eq(f->count[IN_P_LDMATRIX], 1);
    cr_expect_eq(f->count[IN_P_CP_ASYNC], 1, "commit_group and wait_group are not copies");
    cr_expect_eq(f->count[IN_P_BAR], 2);
    cr_expect_eq(f->count[IN_P_LDG_V4], 1, "ld.global.nc.v4.f32");
    cr_expect_eq(f->count[IN_P_STG_V2], 1);
    cr_expect_eq(f->count[IN_P_LDL], 1);
    cr_expect_eq(f->count[IN_P_STL], 4);
    cr_expect_eq(f->count[IN_P_LDS], 1);
    cr_expect_eq(f->count[IN_P_STS], 1);
    cr_expect_eq(f->count[IN_P_LDG], 0, "ld.param is not global");
    in_mix_free(&m);
    free(t);
}

Test(mix, ptx_forms)
{
    const char *ptx =
        ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0\n);\n"
        ".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
        ".visible .entry k1(\n\t.param .u64 p0\n)\n.maxntid 64, 2, 1\n.minnctapersm 1\n{\n"
        "\t.reg .b32 %r<9>;\n"
        "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16\n\t{%f1, %f2,\n\t %f3, %f4},\n\t%rd1, %rd2, p, 1, 1, 0, 0;\n"
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd3, {%r2, %r3}], [%r4];\n"
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r4], %r5;\n"
        "\t@%p1 bra $L__BB0_2;\n"
        "$L__BB0_2:\n"
        "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
        "\t{ .reg .b16 t; ld.volatile.global.u16 t, [%rd4]; }\n"
        "\tld.shared::cta.v2.u32 {%r6, %r7}, [%r8];\n"
        "\tbar.warp.sync -1;\n"
        "\tbarrier.sync 0;\n"
        "\tret;\n}\n"
        ".func  (.param .b32 func_retval0) helper(\n\t.param .b32 x\n)\n{\n\tfma.rn.ftz.f32 %f1, %f1, %f1, %f1;\n\tret;\n}\n";
    in_mix m;
    cr_assert(in_parse_ptx(ptx, &m));
    cr_assert_eq(m.n, 2, "a declaration is no function");
    const in_mix_fn *f = fn(&m, "k1");
    cr_expect_eq(f->maxntid, 128);
    cr_expect_eq(f->count[IN_P_WGMMA], 1, "an instruction over several lines counts once");
    cr_expect_eq(f->count[IN_P_TMA], 1);
    cr_expect_eq(f->count[IN_P_MBARRIER], 1);
    cr_expect_eq(f->count[IN_P_WMMA], 1);
    cr_expect_eq(f->count[IN_P_LDG], 1, "ld.volatile.global inside inline asm braces");
    cr_expect_eq(f->count[IN_P_LDS_V2], 1, "ld.shared::cta.v2");
    cr_expect_eq(f->count[IN_P_BAR], 1, "bar.warp.sync is __syncwarp, not a block barrier");
    cr_expect_eq(f->total, 10);
    f = fn(&m, "helper");
    cr_expect_eq(f->count[IN_P_FMA], 1);
    cr_expect_eq(f->total, 2);
    in_mix_free(&m);
}

/* A solution's inline asm lands in the PTX: a brace inside a comment or a string, or past a line
 * buffer's end, must not move the depth, or the next kernel vanishes from --ptx and from the names
 * --profile gives ncu. */
Test(mix, ptx_braces_in_comments_strings_and_long_lines)
{
    static char ptx[16384];
    char pad[6000];
    memset(pad, ' ', sizeof(pad) - 1);
    pad[sizeof(pad) - 1] = '\0';
    snprintf(ptx, sizeof(ptx),
             ".file 2 \"/tmp/{.cu\"\n"
             ".visible .entry _Z14visible_kernelP6__half(\n\t.param .u64 p0\n)\n{\n"
             "\t// begin inline asm\n\t/* { */\n\t// end inline asm\n"
             "\t/* a comment over\n\t   two lines } { { */\n"
             "\tst.global.u16 [%%rd1], %%rs1; // }\n"
             "\t{ .reg .b32 t; mov.u32 t, 1;%s}\n"
             "\tret;\n}\n"
             ".visible .entry _Z17hidden_oob_kernelP6__halfi(\n\t.param .u64 p0,\n\t.param .u32 p1\n)\n"
             ".maxntid 65536, 65536, 65536\n{\n"
             "\tst.global.u16 [%%rd2], %%rs1;\n\tret;\n}\n",
             pad);
    in_mix m;
    cr_assert(in_parse_ptx(ptx, &m));
    cr_assert_eq(m.n, 2, "both kernels");
    const in_mix_fn *f = fn(&m, "_Z14visible_kernelP6__half");
    cr_expect_eq(f->count[IN_P_STG], 1);
    cr_expect_eq(f->total, 3, "st, mov, ret: nothing of the comments");
    f = fn(&m, "_Z17hidden_oob_kernelP6__halfi");
    cr_expect_eq(f->count[IN_P_STG], 1);
    cr_expect_eq(f->total, 2);
    cr_expect_eq(f->maxntid, 2147483647, ".maxntid's product saturates, never overflows");
    in_mix_free(&m);
}

/* ---- compute-sanitizer ---- */

Test(sanitizer, memcheck_sample)
{
    char *t = sample(SAMPLE("sanitizer_memcheck_oob.txt"));
    in_san_report r;
    in_parse_sanitizer(t, &r);
    cr_expect(r.banner);
    cr_expect_eq(r.errors, 2);
    cr_expect_eq(r.findings, 2);
    const char *head = "========= Invalid __global__ read of size 2 bytes\n";
    cr_expect(strncmp(r.first, head, strlen(head)) == 0, "%s", r.first);
    cr_expect(strstr(r.first, "oob_read.cu:13") && strstr(r.first, "is out of bounds"), "%s", r.first);
    cr_expect(!strstr(r.first, "0x7f3a5e000208"), "only the first block: %s", r.first);
    free(t);
}

Test(sanitizer, racecheck_sample_quotes_the_error_not_the_warning)
{
    char *t = sample(SAMPLE("sanitizer_racecheck.txt"));
    in_san_report r;
    in_parse_sanitizer(t, &r);
    cr_expect(r.banner);
    cr_expect_eq(r.errors, 1);
    cr_expect_eq(r.warnings, 1);
    cr_expect_eq(r.findings, 2);
    cr_expect(strstr(r.first, "ERROR: Race reported between Write access") && strstr(r.first, "racy.cu:28 [224 hazards]"),
              "%s", r.first);
    free(t);
}

Test(sanitizer, clean_and_missing_logs)
{
    char *t = sample(SAMPLE("sanitizer_clean.txt"));
    in_san_report r;
    in_parse_sanitizer(t, &r);
    cr_expect(r.banner);
    cr_expect_eq(r.errors, 0, "summed over both processes");
    cr_expect_eq(r.findings, 0);
    cr_expect_eq(r.first[0], '\0');
    free(t);
    in_parse_sanitizer("", &r);
    cr_expect_not(r.banner);
    cr_expect_eq(r.errors, -1);
    cr_expect(in_sanitize_tool_valid("racecheck") && !in_sanitize_tool_valid("leakcheck"));
}

/* ---- Nsight Compute ---- */

Test(profile, ncu_csv_sample)
{
    char *t = sample(SAMPLE("ncu_raw.csv"));
    in_profile p;
    cr_assert(in_parse_ncu_csv(t, &p));
    cr_assert_eq(p.n, 2);
    const in_prof_kernel *k = &p.k[0];
    cr_expect_str_eq(k->block, "(256, 1, 1)");
    cr_expect_str_eq(k->grid, "(8, 16, 1)");
    cr_expect_str_eq(k->name, "_Z15gemm_wmma_tiledI3CfgILi64ELi128ELi32ELi32ELi3ELi2EELb0EEvPK6__halfS4_PS2_iiiff");
    const in_metric *d = in_prof_metric(k, "gpu__time_duration.sum");
    cr_assert_not_null(d);
    cr_expect_eq(d->value, 18304.0, "thousands separators");
    cr_expect_str_eq(d->unit, "nsecond");
    cr_expect_eq(in_prof_metric(&p.k[1], "gpu__time_duration.sum")->value, 1234567.0);
    cr_expect_null(in_prof_metric(&p.k[1], "sm__warps_active.avg.pct_of_peak_sustained_active"), "n/a is no number");

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    in_print_profile(out, &p);
    fclose(out);
    const char *want[] = {"grid (8, 16, 1) x block (256, 1, 1)", "duration 18.30 us", "achieved occupancy 23.5%",
                          "theoretical 25.0%, 2 blocks per SM, limited by registers", "SM throughput 61.1%",
                          "memory throughput 35.6%", "hmma 41.3%", "gmma 0.0%", "long_scoreboard 3.21 (",
                          "barrier 1.90", "mio_throttle 1.12",
                          "88 registers/thread, shared memory 0 B static + 33792 B dynamic per block, 0.48 waves",
                          "DRAM read 8.39 MB, written 2.10 MB · sectors stored to L2 from the SMs 0.066 M",
                          "DRAM read n/a, written n/a",
                          "duration 1234.57 us", "achieved occupancy n/a"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) cr_expect(strstr(text, want[i]), "'%s' in:\n%s", want[i], text);
    cr_expect(!strstr(text, "selected"), "issuing is not a stall:\n%s", text);
    free(text);
    in_profile_free(&p);
    cr_expect_not(in_parse_ncu_csv("==PROF== Connected to process 1\n==ERROR== no kernels\n", &p));
    free(t);
}

/* ncu writes one header into its own log: a second means text that is not ncu's. */
Test(profile, ncu_csv_refuses_a_second_header)
{
    static const char csv[] =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"1\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"1\"\n"
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"1\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"5000000\"\n";
    in_profile p;
    cr_expect_not(in_parse_ncu_csv(csv, &p));
    cr_expect_eq(p.headers, 2);
    cr_expect_eq(p.n, 0);
    cr_expect(in_parse_ncu_csv(strstr(csv + 1, "\"ID\""), &p), "one header reads");
    cr_expect_eq(p.headers, 1);
    in_profile_free(&p);
}

/* ---- demangling ---- */

/* Names come from text a solution shapes: c++filt must read them as names (on its stdin), never as
 * its options ("-p") or a file of options ("@FILE": it would print that file). */
Test(demangle, names_go_on_stdin_never_argv, .timeout = 30)
{
    if (access("/usr/bin/c++filt", X_OK) != 0) cr_skip_test("no /usr/bin/c++filt");
    const char *names[] = {"-p", "@/etc/hostname", "_Z3fooi", "_Z3barv", "a b"};
    enum { N = sizeof(names) / sizeof(names[0]) };
    char out[N][64];
    in_dm d[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(out[i], sizeof(out[i]), "%s", names[i]);
        d[i] = (in_dm){names[i], out[i], sizeof(out[i])};
    }
    setenv("CXXFILT", "/usr/bin/c++filt", 1);
    in_demangle(d, N);
    cr_expect_str_eq(out[0], "-p");
    cr_expect_str_eq(out[1], "@/etc/hostname", "not the file's text");
    cr_expect_str_eq(out[2], "foo");
    cr_expect_str_eq(out[3], "bar");
    cr_expect_str_eq(out[4], "a b");
    /* a stand-in c++filt: its arguments recorded, stdin echoed */
    write_tool(SCRATCH "/fake-cxxfilt", "printf '%s\\n' \"$@\" > '" SCRATCH "/fake-cxxfilt.args'\ncat\n");
    setenv("CXXFILT", SCRATCH "/fake-cxxfilt", 1);
    in_demangle(d, N);
    char *a = sample(SCRATCH "/fake-cxxfilt.args");
    cr_expect_str_eq(a, "\n", "no name on its command line: %s", a);
    free(a);
    unsetenv("CXXFILT");
}

/* ---- harness new ---- */

static void fresh_dir(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "%s/new_%s", SCRATCH, name);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(tu_run_shell(NULL, 0, cmd), 0);
}

static void touch(const char *dir, const char *file, const char *text)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", dir, file);
    cr_assert(tu_write(p, text));
}

Test(new_stage, numbers_after_the_last_stage_and_writes_the_header)
{
    char dir[512], path[1024], err[1024];
    fresh_dir(dir, sizeof(dir), "numbering");
    mkdir(SCRATCH, 0755);
    touch(dir, "01_naive.cu", "x");
    touch(dir, "07_wmma.cu", "x");
    touch(dir, "notes.md", "x");
    touch(dir, "3x.cu", "x");
    const pb_problem *p = pb_find("gemm_fp16");
    cr_assert_eq(in_new_stage(dir, "tiled", p, path, sizeof(path), err, sizeof(err)), HX_SUCCESS, "%s", err);
    char want[1024];
    snprintf(want, sizeof(want), "%s/08_tiled.cu", dir);
    cr_expect_str_eq(path, want);
    char *t = sample(path);
    cr_expect(strncmp(t, "// 08_tiled — TODO", 18) == 0, "%s", t);
    cr_expect(strstr(t, "// Changed from 07: TODO") && strstr(t, "// Prediction (before measuring): ") &&
              strstr(t, "// Measured (H200, harness): pending") && strstr(t, "// Tiles: ") &&
              strstr(t, "\n// Targets: sm_75 sm_80 sm_90a sm_100a\n// Judge GPUs: T4 A100 H100 H200 B200\n"),
              "%s", t);
    cr_expect(strstr(t, p->starter), "the starter follows the header:\n%s", t);
    free(t);
}

Test(new_stage, refuses_to_overwrite_or_duplicate_a_name)
{
    char dir[512], path[1024], err[1024];
    fresh_dir(dir, sizeof(dir), "refuse");
    touch(dir, "02_tiled.cu", "keep me");
    const pb_problem *p = pb_find("gemm_fp16");
    cr_expect_eq(in_new_stage(dir, "tiled", p, path, sizeof(path), err, sizeof(err)), HX_USAGE);
    cr_expect(strstr(err, "02_tiled.cu already holds a stage named 'tiled'"), "%s", err);
    char p2[1024];
    snprintf(p2, sizeof(p2), "%s/02_tiled.cu", dir);
    char *t = sample(p2);
    cr_expect_str_eq(t, "keep me");
    free(t);
    snprintf(p2, sizeof(p2), "%s/03_tiled.cu", dir);
    cr_expect_neq(access(p2, F_OK), 0, "nothing written");
    cr_expect_eq(in_new_stage(dir, "9lives", p, path, sizeof(path), err, sizeof(err)), HX_USAGE);
    cr_expect_eq(in_new_stage(dir, "bad-name", p, path, sizeof(path), err, sizeof(err)), HX_USAGE);
    cr_expect_eq(in_new_stage(dir, "", p, path, sizeof(path), err, sizeof(err)), HX_USAGE);
    cr_expect_eq(in_new_stage(SCRATCH "/no/such/dir", "x", p, path, sizeof(path), err, sizeof(err)), HX_BAD_FILE);
}

Test(new_stage, command_line)
{
    static char out[1 << 14];
    char dir[512];
    fresh_dir(dir, sizeof(dir), "cli");
    cr_expect_eq(RUN(out, "new", "first", "--dir", dir), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "/01_first.cu\n"), "prints the path: %s", out);
    char path[1024];
    snprintf(path, sizeof(path), "%s/01_first.cu", dir);
    char *t = sample(path);
    cr_expect(strstr(t, "Changed from the starter"), "%s", t);
    free(t);
    cr_expect_eq(RUN(out, "new", "mm", "--problem", "matmul_fp32", "--dir", dir), HX_SUCCESS, "%s", out);
    snprintf(path, sizeof(path), "%s/02_mm.cu", dir);
    t = sample(path);
    cr_expect(strstr(t, pb_find("matmul_fp32")->starter), "%s", t);
    free(t);
    cr_expect_eq(RUN(out, "new", "first", "--dir", dir), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "already holds a stage named 'first'"), "%s", out);
    cr_expect_eq(RUN(out, "new"), HX_USAGE);
    cr_expect_eq(RUN(out, "new", "x", "--problem", "nope", "--dir", dir), HX_USAGE);
    cr_expect_eq(RUN(out, "new", "--help"), HX_SUCCESS);
}

/* ---- the modes from the command line (nvcc, no GPU) ---- */

Test(cli, resources_of_a_fixture, .timeout = 240)
{
    static char out[1 << 16];
    int code = RUN_ENV(out, "CUOBJDUMP=/nonexistent", "--resources", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "Resources — ") && strstr(out, "fx_gemm"), "%s", out);
    cr_expect(strstr(out, "cuobjdump not found: $CUOBJDUMP=/nonexistent is not an executable"), "%s", out);
    cr_expect(strstr(out, "Occupancy by resources — per SM on sm_80"), "%s", out);
    cr_expect(strstr(out, "not known here"), "says the launch is not known: %s", out);
}

Test(cli, ptx_and_sass_without_cuobjdump, .timeout = 240)
{
    static char out[1 << 16];
    int code = RUN(out, "--ptx", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "PTX — ") && strstr(out, ".ptx;") && strstr(out, "fma.f32"), "%s", out);
    code = RUN_ENV(out, "CUOBJDUMP=/nonexistent NVDISASM=/nonexistent", "--sass", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "cuobjdump (or nvdisasm) not found"), "one line says why: %s", out);
    cr_expect(strstr(out, "PTX — "), "the PTX mix instead: %s", out);
}

/* The static modes' --json: stdout is one object and nothing else, whatever the exit (stderr keeps
 * the progress and the failure's line). */
static int run_json(char *out, size_t len, const char *env, const char *const *args)
{
    int code = run_with(out, len, env, " --json", args, " 2>/dev/null");
    size_t n = strlen(out);
    cr_expect(n > 2 && out[0] == '{' && !strcmp(out + n - 2, "}\n") && !memchr(out, '\n', n - 1),
              "one object on one line: %s", out);
    return code;
}
#define RUN_JSON(out, env, ...) run_json(out, sizeof(out), env, (const char *const[]){__VA_ARGS__, NULL})

Test(cli, static_modes_as_json, .timeout = 240)
{
    static char out[1 << 16];
    int code = RUN_JSON(out, "CUOBJDUMP=/nonexistent NVDISASM=/nonexistent", "--resources", "--ptx", "--sass",
                        "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    static const char *const want[] = {
        "{\"solution\":\"", "\"arch\":\"sm_80\"", "\"resources\":{\"log\":\"", "\"cuobjdump\":\"missing\"",
        "\"limits\":{\"arch\":\"sm_80\",\"registers\":65536", "\"display\":\"fx_gemm\"", "\"registers\":",
        "\"spill_stores\":0", "\"occupancy\":[{\"threads\":128,\"blocks\":", "\"limited_by\":\"",
        "\"ptx\":{\"file\":\"", "\"target\":\"compute_80\"", "\"fma.f32\":", "\"sass\":null",
        "cuobjdump not found: $CUOBJDUMP=/nonexistent is not an executable", "\"exit_code\":0,\"error\":null}"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) cr_expect(strstr(out, want[i]), "%s in %s", want[i], out);
    cr_expect(!strstr(out, "Resources — ") && !strstr(out, "PTX — "), "no text on stdout: %s", out);
    /* --sass alone, without a tool: the PTX mix in its place, as the text gives it */
    code = RUN_JSON(out, "CUOBJDUMP=/nonexistent NVDISASM=/nonexistent", "--sass", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "\"sass\":null,\"ptx\":{"), "%s", out);
}

Test(cli, static_modes_fail_as_json, .timeout = 240)
{
    static char out[1 << 16];
    cr_expect_eq(RUN_JSON(out, "", "--resources", SOURCE_DIR "/README.md"), HX_BAD_FILE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":3,\"error\":\"") && strstr(out, "not a .cu file"), "%s", out);
    cr_expect_eq(RUN_JSON(out, "", "--ptx", "--arch", "sm_80", FX("compile_error")), HX_COMPILE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":5,\"error\":\""), "%s", out);
    cr_expect_eq(RUN_JSON(out, "", "--sanitize", "--profile", FX("correct")), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":2"), "%s", out);
    cr_expect_eq(RUN_JSON(out, "COMPUTE_SANITIZER=/nonexistent", "--sanitize", FX("correct")), HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":12,\"error\":\"--sanitize: compute-sanitizer not found"), "%s", out);
}

/* harness new --json: one object on stdout on every exit, the path or the failure's line in it. */
Test(new_stage, command_line_json)
{
    static char out[1 << 14];
    char dir[512], cmd[2048];
    fresh_dir(dir, sizeof(dir), "cli_json");
    snprintf(cmd, sizeof(cmd), "'%s' new first --json --dir '%s' 2>/dev/null", HARNESS_BIN, dir);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_SUCCESS, "%s", out);
    char want[1024];
    snprintf(want, sizeof(want), "{\"path\":\"%s/01_first.cu\",\"problem\":\"gemm_fp16\",\"exit_code\":0,\"error\":null}\n", dir);
    cr_expect_str_eq(out, want);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_USAGE, "%s", out);
    static const char refused[] = "{\"path\":null,\"problem\":\"gemm_fp16\",\"exit_code\":2,\"error\":\"";
    cr_expect(!strncmp(out, refused, sizeof(refused) - 1) &&
              strstr(out, "already holds a stage named 'first'"), "%s", out);
    snprintf(cmd, sizeof(cmd), "'%s' new --bogus --json 2>/dev/null", HARNESS_BIN);
    cr_expect_eq(tu_run_shell(out, sizeof(out), cmd), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "\"exit_code\":2,\"error\":\"--bogus: unknown option"), "even a bad option: %s", out);
}

Test(cli, missing_tools_and_bad_combinations)
{
    static char out[1 << 14];
    cr_expect_eq(RUN_ENV(out, "COMPUTE_SANITIZER=/nonexistent", "--sanitize", FX("correct")), HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "compute-sanitizer not found"), "%s", out);
    cr_expect_eq(RUN_ENV(out, "NCU=/nonexistent", "--profile", FX("correct")), HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "ncu (Nsight Compute) not found"), "%s", out);
    cr_expect_eq(RUN(out, "--sanitize=leakcheck", FX("correct")), HX_USAGE, "%s", out);
    cr_expect_eq(RUN(out, "--sanitize", "--profile", FX("correct")), HX_USAGE, "%s", out);
    cr_expect_eq(RUN(out, "--sanitize", "--resources", FX("correct")), HX_USAGE, "%s", out);
    cr_expect_eq(RUN(out, "--resources", SOURCE_DIR "/README.md"), HX_BAD_FILE, "%s", out);
    cr_expect_eq(RUN_ENV(out, "HARNESS_SANITIZER=memcheck", "--sanitize", FX("correct")), HX_USAGE, "%s", out);
    cr_expect(strstr(out, "already running under a tool"), "no recursion: %s", out);
}

/* A stand-in compute-sanitizer: records its arguments and environment, writes a sample as its log. */
static void fake_sanitizer(const char *tool, const char *args, const char *log_sample, int code)
{
    char body[2048];
    snprintf(body, sizeof(body),
             "printf '%%s\\n' \"$@\" > '%s'\n"
             "echo \"env HARNESS_SANITIZER=$HARNESS_SANITIZER\" >> '%s'\n"
             "log=''\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=\"$2\"; shift; done\n"
             "%s%s%s\n"
             "exit %d\n",
             args, args, log_sample ? "cp '" : "", log_sample ? log_sample : "", log_sample ? "' \"$log\"" : "",
             code);
    write_tool(tool, body);
}

Test(cli, sanitize_folds_a_finding_into_the_verdict, .timeout = 240)
{
    static char out[1 << 16];
    const char *tool = SCRATCH "/fake-sanitizer-oob", *args = SCRATCH "/fake-sanitizer-oob.args";
    fake_sanitizer(tool, args, SAMPLE("sanitizer_memcheck_oob.txt"), 99);
    int code = RUN_ENV(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-oob", "--sanitize", "--arch", "sm_80", FX("oob_read"));
    cr_expect_eq(code, HX_ERROR, "%s", out);
    cr_expect(strstr(out, "compute-sanitizer memcheck: 2 errors"), "%s", out);
    cr_expect(strstr(out, "First report:\n========= Invalid __global__ read of size 2 bytes"), "%s", out);
    cr_expect(strstr(out, "Status: error"), "%s", out);
    char *a = sample(args);
    const char *want[] = {"--tool\nmemcheck\n", "--error-exitcode\n99\n", "--tests\nexample,functional,extra\n",
                          "--no-timing\n", "--timeout\n600\n", "--arch\nsm_80\n", "--report-api-errors\nno\n",
                          "\n--\n" FIXTURES "/oob_read.cu\nenv HARNESS_SANITIZER=memcheck\n"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) cr_expect(strstr(a, want[i]), "'%s' in:\n%s", want[i], a);
    cr_expect(!strstr(a, "--kernel-name"), "no name filter: %s", a);
    free(a);
    /* --json: the report as the "sanitize" member, the run's own output in a file, not on stdout */
    code = RUN_JSON(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-oob", "--sanitize", "--arch", "sm_80", FX("oob_read"));
    cr_expect_eq(code, HX_ERROR, "%s", out);
    static const char *const want_json[] = {
        "\"sanitize\":{\"tool\":\"memcheck\",\"tests\":\"example,functional,extra\",\"log\":\"",
        ".memcheck.out\",\"run_exit_code\":99,\"status\":\"error\",\"errors\":2,\"warnings\":0,\"reports\":2,"
        "\"first_report\":\"========= Invalid __global__ read of size 2 bytes\\n",
        "\"exit_code\":11,\"error\":\"error (compute-sanitizer memcheck: Invalid __global__ read of size 2 bytes)\"}"};
    for (size_t i = 0; i < sizeof(want_json) / sizeof(want_json[0]); i++)
        cr_expect(strstr(out, want_json[i]), "%s in %s", want_json[i], out);
    a = sample(args);
    cr_expect(strstr(a, "--tool\nmemcheck\n") && strstr(a, "\n--\n" FIXTURES "/oob_read.cu\n"), "the same run: %s", a);
    free(a);
}

Test(cli, sanitize_racecheck_quotes_the_error, .timeout = 240)
{
    static char out[1 << 16];
    const char *tool = SCRATCH "/fake-sanitizer-race", *args = SCRATCH "/fake-sanitizer-race.args";
    fake_sanitizer(tool, args, SAMPLE("sanitizer_racecheck.txt"), 99);
    int code = RUN_ENV(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-race", "--sanitize=racecheck", "--tests",
                       "functional", "--arch", "sm_80", FX("racy"));
    cr_expect_eq(code, HX_ERROR, "%s", out);
    cr_expect(strstr(out, "1 error, 1 warning (not counted)"), "%s", out);
    cr_expect(strstr(out, "First report:\n========= ERROR: Race reported"), "%s", out);
    char *a = sample(args);
    cr_expect(strstr(a, "--tool\nracecheck\n") && strstr(a, "--tests\nfunctional\n") && !strstr(a, "--report-api-errors"), "%s", a);
    free(a);
}

Test(cli, sanitize_clean_and_broken_tool, .timeout = 240)
{
    static char out[1 << 16];
    const char *tool = SCRATCH "/fake-sanitizer-clean";
    fake_sanitizer(tool, SCRATCH "/fake-sanitizer-clean.args", SAMPLE("sanitizer_clean.txt"), 0);
    int code = RUN_ENV(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-clean", "--sanitize", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "memcheck: 0 errors"), "%s", out);
    cr_expect(!strstr(out, "Status: error"), "%s", out);
    tool = SCRATCH "/fake-sanitizer-broken";
    fake_sanitizer(tool, SCRATCH "/fake-sanitizer-broken.args", NULL, 1);
    code = RUN_ENV(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-broken", "--sanitize", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "compute-sanitizer did not run the harness"), "%s", out);
    code = RUN_JSON(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-broken", "--sanitize", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "\"status\":\"not_run\",\"errors\":null") &&
              strstr(out, "\"exit_code\":12,\"error\":\"--sanitize: compute-sanitizer did not run the harness"), "%s", out);
    code = RUN_JSON(out, "COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-clean", "--sanitize", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "\"run_exit_code\":0,\"status\":\"clean\",\"errors\":0,") &&
              strstr(out, "\"first_report\":null},\"notes\":[],\"exit_code\":0,\"error\":null}"), "%s", out);
}

/* A stand-in ncu: records its arguments; like the real one, it writes its CSV (the sample) to
 * --log-file's file when given (else to stdout), while the profiled run's output goes to stdout.
 * app: what that run prints (a solution can print a CSV of its own), or NULL. */
static void fake_ncu(const char *tool, const char *args, const char *csv_sample, const char *app, int code)
{
    char body[4096];
    snprintf(body, sizeof(body),
             "printf '%%s\\n' \"$@\" > '%s'\n"
             "log=''\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=\"$2\"; shift; done\n"
             "%s%s%s"
             "if [ -n \"$log\" ]; then cat '%s' > \"$log\"; else cat '%s'; fi\n"
             "exit %d\n",
             args, app ? "cat <<'EOF'\n" : "", app ? app : "", app ? "EOF\n" : "", csv_sample, csv_sample, code);
    write_tool(tool, body);
}

Test(cli, profile_prints_the_summary, .timeout = 240)
{
    static char out[1 << 16];
    fake_ncu(SCRATCH "/fake-ncu", SCRATCH "/fake-ncu.args", SAMPLE("ncu_raw.csv"), NULL, 0);
    int code = RUN_ENV(out, "NCU=" SCRATCH "/fake-ncu", "--profile", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "Profile — ") && strstr(out, "duration 18.30 us") && strstr(out, "limited by registers"), "%s", out);
    char *a = sample(SCRATCH "/fake-ncu.args");
    const char *want[] = {"--clock-control\nnone\n", "--csv\n", "--log-file\n", ".ncu.csv\n",
                          "--kernel-name\nregex:^(_Z7fx_gemmPK6__halfS1_PS_iiiff)$\n", "--tests\nperf\n",
                          "--no-timing\n", "\n--\n" FIXTURES "/correct.cu\n"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) cr_expect(strstr(a, want[i]), "'%s' in:\n%s", want[i], a);
    free(a);
    /* --json: every metric of every kernel, with its unit */
    code = RUN_JSON(out, "NCU=" SCRATCH "/fake-ncu", "--profile", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    static const char *const want_json[] = {
        "\"profile\":{\"case\":\"the performance case\",\"csv\":\"", ".ncu.out\",\"run_exit_code\":0,\"kernels\":[{\"name\":\"",
        "\"gpu__time_duration.sum\":{\"value\":18304,\"unit\":\"nsecond\"}", "\"exit_code\":0,\"error\":null}"};
    for (size_t i = 0; i < sizeof(want_json) / sizeof(want_json[0]); i++)
        cr_expect(strstr(out, want_json[i]), "%s in %s", want_json[i], out);
    cr_expect(!strstr(out, "Profile — "), "no text on stdout: %s", out);
    char body[1024];
    snprintf(body, sizeof(body), "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters'\nexit 1\n");
    write_tool(SCRATCH "/fake-ncu-perm", body);
    /* the real ncu writes this into its log file; the stand-in prints it where --log-file says */
    fake_ncu(SCRATCH "/fake-ncu-perm", SCRATCH "/fake-ncu-perm.args", SCRATCH "/perm.txt", NULL, 1);
    cr_assert(tu_write(SCRATCH "/perm.txt", "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n"));
    code = RUN_ENV(out, "NCU=" SCRATCH "/fake-ncu-perm", "--profile", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "cannot read the GPU's performance counters"), "%s", out);
    code = RUN_JSON(out, "NCU=" SCRATCH "/fake-ncu-perm", "--profile", "--arch", "sm_80", FX("correct"));
    cr_expect_eq(code, HX_INTERNAL, "%s", out);
    cr_expect(strstr(out, "\"kernels\":[]},") && strstr(out, "\"exit_code\":12,\"error\":\"--profile: ncu cannot read"), "%s", out);
}

/* The profiled run's output is the solution's to write: a CSV it prints (a header and a 1 ns row
 * for the kernel ncu profiles) must not become the profile. */
Test(cli, profile_ignores_a_csv_the_solution_prints, .timeout = 240)
{
    static char out[1 << 16];
    const char *app =
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
        "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"4250\",\"harness\",\"127.0.0.1\",\"_Z15gemm_wmma_tiledI3CfgILi64ELi128ELi32ELi32ELi3ELi2EELb0EEvPK6__halfS4_PS2_iiiff\","
        "\"1\",\"7\",\"(256, 1, 1)\",\"(8, 16, 1)\",\"0\",\"9.0\",\"raw\",\"gpu__time_duration.sum\",\"nsecond\",\"1\"\n";
    /* a copy of its own: the suites run side by side, and --profile's files are named after the file */
    mkdir(SCRATCH, 0755);
    char *src = sample(FX("correct"));
    cr_assert(tu_write(SCRATCH "/profile_app.cu", src));
    free(src);
    fake_ncu(SCRATCH "/fake-ncu-app", SCRATCH "/fake-ncu-app.args", SAMPLE("ncu_raw.csv"), app, 0);
    int code = RUN_ENV(out, "NCU=" SCRATCH "/fake-ncu-app", "--profile", "--arch", "sm_80", SCRATCH "/profile_app.cu");
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "duration 18.30 us"), "ncu's figure: %s", out);
    cr_expect(!strstr(out, "duration 0.00 us"), "not the solution's: %s", out);
    /* the inner run's exit codes 13-15 are its own, not 12 */
    fake_ncu(SCRATCH "/fake-ncu-15", SCRATCH "/fake-ncu-15.args", SAMPLE("ncu_raw.csv"), NULL, 15);
    code = RUN_ENV(out, "NCU=" SCRATCH "/fake-ncu-15", "--profile", "--arch", "sm_80", SCRATCH "/profile_app.cu");
    cr_expect_eq(code, HX_INTERRUPTED, "%s", out);
}

/* A kernel after one whose inline asm holds "/ * { * /" is checked and profiled too; a solution
 * whose name starts with '-' is a file to the inner harness, not an option. */
Test(cli, sanitize_and_profile_see_every_kernel, .timeout = 240)
{
    static char out[1 << 16];
    mkdir(SCRATCH, 0755);
    char *src = sample(FX("inspect_hidden_kernel"));
    cr_assert(tu_write(SCRATCH "/-x.cu", src));
    free(src);
    const char *tool = SCRATCH "/fake-sanitizer-hidden", *args = SCRATCH "/fake-sanitizer-hidden.args";
    fake_sanitizer(tool, args, SAMPLE("sanitizer_clean.txt"), 0);
    int code = RUN_ENV(out, "cd '" SCRATCH "' && COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-hidden", "--sanitize",
                       "--arch", "sm_80", "--", "-x.cu");
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "checking every kernel"), "%s", out);
    char *a = sample(args);
    cr_expect(strstr(a, "\n--\n-x.cu\n"), "'--' before the file: %s", a);
    cr_expect(!strstr(a, "--kernel-name"), "no name filter the solution can steer: %s", a);
    free(a);
    /* the inner run's exit codes 13-15 are its own, not 12 */
    fake_sanitizer(tool, args, SAMPLE("sanitizer_clean.txt"), 14);
    code = RUN_ENV(out, "cd '" SCRATCH "' && COMPUTE_SANITIZER=" SCRATCH "/fake-sanitizer-hidden", "--sanitize",
                   "--arch", "sm_80", "--", "-x.cu");
    cr_expect_eq(code, HX_OUTPUT_EXCEEDED, "%s", out);
    cr_expect(strstr(out, "ended with exit status 14"), "%s", out);

    fake_ncu(SCRATCH "/fake-ncu-hidden", SCRATCH "/fake-ncu-hidden.args", SAMPLE("ncu_raw.csv"), NULL, 0);
    code = RUN_ENV(out, "NCU=" SCRATCH "/fake-ncu-hidden", "--profile", "--arch", "sm_80", FX("inspect_hidden_kernel"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    a = sample(SCRATCH "/fake-ncu-hidden.args");
    cr_expect(strstr(a, "--kernel-name\nregex:^(_Z14visible_kernelP6__half|_Z17hidden_oob_kernelP6__halfi)$\n"), "%s", a);
    free(a);
    code = RUN(out, "--ptx", "--arch", "sm_80", FX("inspect_hidden_kernel"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "hidden_oob_kernel"), "--ptx lists it: %s", out);
}

/* Text the solution's #pragma message plants in the compiler's log is not ptxas's report: no row
 * of it, no division by its register count (SIGFPE), no name of it handed to c++filt. */
Test(cli, resources_ignore_planted_lines, .timeout = 240)
{
    static char out[1 << 16];
    int code = RUN_ENV(out, "CUOBJDUMP=/nonexistent", "--resources", "--arch", "sm_80", FX("inspect_planted_ptxas"));
    cr_expect_eq(code, HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "real_kernel"), "%s", out);
    cr_expect(!strstr(out, "  f ") && !strstr(out, "  -p ") && !strstr(out, "@/etc/hostname") && !strstr(out, "999") &&
                  !strstr(out, "134217728"),
              "no planted row: %s", out);
    cr_expect(!strstr(out, "note: "), "nothing planted reached the table: %s", out);
}

/* The inspection modes refuse what the judge refuses: a source over 4 MiB (exit 3, before nvcc). */
Test(cli, inspection_refuses_a_source_over_4_mib, .timeout = 240)
{
    static char out[1 << 14];
    mkdir(SCRATCH, 0755);
    FILE *f = fopen(SCRATCH "/inspect_big.cu", "w");
    cr_assert_not_null(f);
    char *src = sample(FX("correct"));
    fputs(src, f);
    free(src);
    while (ftell(f) <= (4 << 20)) fputs("// padding padding padding padding padding padding padding pad\n", f);
    fclose(f);
    const char *modes[] = {"--resources", "--ptx", "--sass", "--sanitize", "--profile"};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        int code = RUN_ENV(out, "COMPUTE_SANITIZER=/bin/true NCU=/bin/true", modes[i], "--arch", "sm_80", SCRATCH "/inspect_big.cu");
        cr_expect_eq(code, HX_BAD_FILE, "%s: %s", modes[i], out);
        cr_expect(strstr(out, "over the 4 MiB a solution file may be"), "%s: %s", modes[i], out);
    }
}

/* ---- GPU: the real tools (the lead's device run); each skips without a device ---- */

TestSuite(inspect_gpu, .init = tu_need_gpu, .timeout = 1200);

/* Needs the worker to drop its guard zones under $HARNESS_SANITIZER (device.c): the element past B
 * is inside B's guard zone otherwise, and memcheck cannot see it. */
Test(inspect_gpu, oob_read_passes_the_judge_and_fails_memcheck)
{
    static char out[1 << 17];
    cr_expect_eq(RUN(out, "--tests", "example,functional,extra", "--no-timing", FX("oob_read")), HX_SUCCESS,
                 "only the sanitizer may see it: %s", out);
    cr_expect_eq(RUN(out, "--sanitize", "--tests", "example,functional", FX("oob_read")), HX_ERROR, "%s", out);
    cr_expect(strstr(out, "Invalid __global__ read"), "%s", out);
    cr_expect(strstr(out, "oob_read.cu"), "the report names the file: %s", out);
    cr_expect(strstr(out, "Status: error"), "%s", out);
}

Test(inspect_gpu, racy_passes_the_judge_and_fails_racecheck)
{
    static char out[1 << 17];
    cr_expect_eq(RUN(out, "--no-timing", FX("racy")), HX_SUCCESS, "only the sanitizer may see it: %s", out);
    cr_expect_eq(RUN(out, "--sanitize=racecheck", "--tests", "example,functional", FX("racy")), HX_ERROR, "%s", out);
    cr_expect(strstr(out, "Race reported"), "%s", out);
    cr_expect(strstr(out, "racy.cu"), "%s", out);
}

Test(inspect_gpu, correct_stages_pass_the_sanitizer)
{
    static char out[1 << 17];
    cr_expect_eq(RUN(out, "--sanitize", "--tests", "example,functional", FX("correct")), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "memcheck: 0 errors"), "%s", out);
    cr_expect_eq(RUN(out, "--sanitize=racecheck", "--tests", "example,functional", SOURCE_DIR "/solutions/07_wmma_tiled.cu"),
                 HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "racecheck: 0 errors"), "%s", out);
}

Test(inspect_gpu, resources_sass_and_profile_of_stage_07)
{
    static char out[1 << 17];
    cr_expect_eq(RUN(out, "--resources", SOURCE_DIR "/solutions/07_wmma_tiled.cu"), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "Occupancy by resources"), "%s", out);
    cr_expect_eq(RUN(out, "--sass", SOURCE_DIR "/solutions/07_wmma_tiled.cu"), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "SASS — ") && strstr(out, "HMMA "), "%s", out);
    cr_expect(!strstr(out, "HMMA 0 "), "stage 07 runs on the tensor cores: %s", out);
    cr_expect_eq(RUN(out, "--profile", SOURCE_DIR "/solutions/07_wmma_tiled.cu"), HX_SUCCESS, "%s", out);
    cr_expect(strstr(out, "duration ") && strstr(out, "achieved occupancy "), "%s", out);
}

/* The profile summary in_print_profile writes for this ncu CSV text (caller frees); p is filled
 * and must be freed by the caller too. */
static char *profile_text(const char *csv, in_profile *p)
{
    cr_assert(in_parse_ncu_csv(csv, p));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    in_print_profile(f, p);
    fclose(f);
    return buf;
}

/* A real ncu CSV from the H200 (run 4): sizes come per block ("byte/block"), with thousands
 * separators; the summary must print numbers, never "nan". */
Test(profile, recorded_h200_csv)
{
    char *text = tu_slurp(SOURCE_DIR "/tests/samples/ncu_h200_07_wmma_tiled.csv");
    cr_assert_not_null(text);
    in_profile p;
    char *buf = profile_text(text, &p);
    free(text);
    cr_expect(strstr(buf, "gemm_wmma_tiled"), "%s", buf);
    cr_expect(strstr(buf, "duration 18.72 us"), "%s", buf);
    cr_expect(!strstr(buf, "nan"), "%s", buf);
    cr_expect(strstr(buf, "B dynamic per block"), "%s", buf);
    free(buf);
    in_profile_free(&p);
}

/* A real ncu CSV from the H200 (run 13, 12_best at 4096³): the clock comes in hz and the L2→SM
 * rate in byte/s with thousands separators; the summary prints them scaled. */
Test(profile, recorded_h200_csv_clock_and_l2)
{
    char *text = tu_slurp(SOURCE_DIR "/tests/samples/ncu_h200_12_best_4096.csv");
    cr_assert_not_null(text);
    in_profile p;
    char *buf = profile_text(text, &p);
    free(text);
    cr_expect(strstr(buf, "duration 213.63 us"), "%s", buf);
    cr_expect(strstr(buf, "SM clock 1.59 GHz · L2 throughput 58.5% of peak, to the SMs 7.70 TB/s, "
                          "hit rate 79.0%"),
              "%s", buf);
    cr_expect(strstr(buf, "tensor 79.8%"), "%s", buf);
    cr_expect(!strstr(buf, "nan"), "%s", buf);
    free(buf);
    in_profile_free(&p);
}

/* Units ncu may print for a rate: base, SI-prefixed, or unknown (n/a, never a wrong number). */
Test(profile, clock_units)
{
    static const char csv[] =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"1\",\"k\",\"sm__cycles_elapsed.avg.per_second\",\"Ghz\",\"1.98\"\n"
        "\"0\",\"1\",\"k\",\"l1tex__m_xbar2l1tex_read_bytes.sum.per_second\",\"Tbyte/s\",\"1.43\"\n"
        "\"1\",\"1\",\"k\",\"sm__cycles_elapsed.avg.per_second\",\"furlong\",\"3\"\n";
    in_profile p;
    char *buf = profile_text(csv, &p);
    cr_assert_eq(p.n, 2);
    cr_expect(strstr(buf, "SM clock 1.98 GHz"), "%s", buf);
    cr_expect(strstr(buf, "to the SMs 1.43 TB/s"), "%s", buf);
    cr_expect(strstr(buf, "SM clock n/a"), "%s", buf);
    free(buf);
    in_profile_free(&p);
}
