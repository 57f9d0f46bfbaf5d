/* loader_elf.c — what an ELF file says about itself, read without loading it (no dlopen, so no
 * constructor of the solution runs): whether an object defines a symbol, whether a file is a
 * shared object. Shared by the harness and the protocol suite's fake-device build. */
#include "loader.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"

/* The dynamic symbols of a 64-bit ELF object, searched for name. */
bool ld_object_defines(const char *so_path, const char *name)
{
    size_t n;
    char *img = ch_read_file(so_path, &n);
    if (!img) return false;
    bool found = false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > n)
        goto done;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > n || strs->sh_offset + strs->sh_size > n) continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count && !found; k++)
            found = sym[k].st_shndx != SHN_UNDEF &&
                    sym[k].st_name + strlen(name) < strs->sh_size &&
                    strncmp(img + strs->sh_offset + sym[k].st_name, name,
                            strs->sh_size - sym[k].st_name) == 0;
    }
done:
    free(img);
    return found;
}

bool ld_is_shared_object(const char *path)
{
    Elf64_Ehdr eh;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    bool ok = read(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh);
    close(fd);
    return ok && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
           eh.e_type == ET_DYN;
}

