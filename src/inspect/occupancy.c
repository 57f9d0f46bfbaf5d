/* occupancy.c — occupancy by resources: the per-SM limits of each architecture and how many blocks
 * of a kernel fit on one SM (the CUDA occupancy calculator's arithmetic). */
#include "inspect.h"

#include "text.h"

bool in_limits_for(const char *arch, in_limits *l)
{
    /* per SM: registers, warps, blocks, shared memory (SM, block, reserved per block) */
    static const in_limits table[] = {
        {"sm_75", 65536, 32, 16, 65536, 65536, 0},
        {"sm_80", 65536, 64, 32, 167936, 166912, 1024},
        {"sm_86", 65536, 48, 16, 102400, 101376, 1024},
        {"sm_87", 65536, 48, 16, 167936, 166912, 1024},
        {"sm_89", 65536, 48, 24, 102400, 101376, 1024},
        {"sm_90", 65536, 64, 32, 233472, 232448, 1024},
    };
    int num = in_arch_num(arch);
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (in_arch_num(table[i].arch) == num) {
            *l = table[i];
            return true;
        }
    return false;
}

int in_blocks_per_sm(const in_limits *l, int regs, long smem, int threads, const char **limiter)
{
    /* a figure no kernel can have (a report's "not reported", or one out of range) fits nothing:
     * every division below has a positive divisor */
    if (regs < 0 || regs > 255 || smem < 0 || threads <= 0 || threads > 1024 || l->max_warps <= 0 ||
        l->regs_per_sm <= 0 || l->smem_per_sm <= 0) {
        *limiter = "unknown resources";
        return 0;
    }
    int warps = (threads + 31) / 32;
    /* registers go to warps in units of 256 (8 per thread), from four 16384-register quarters */
    int per_warp = ((regs > 0 ? regs : 1) * 32 + 255) / 256 * 256;
    int by_regs = 4 * (l->regs_per_sm / 4 / per_warp) / warps;
    long block_smem = smem + l->smem_reserved;
    int by_smem = smem > l->smem_per_block ? 0 : (int)(l->smem_per_sm / (block_smem > 0 ? block_smem : 1));
    int by_warps = l->max_warps / warps;
    int best = l->max_blocks;
    *limiter = "blocks";
    if (by_warps < best) best = by_warps, *limiter = "warps";
    if (by_smem < best) best = by_smem, *limiter = "shared memory";
    if (by_regs < best) best = by_regs, *limiter = "registers";
    return best;
}
