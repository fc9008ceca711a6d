/* What a plugin's file loads, hashed. See code_hash.h. */
#include "files/code_hash.h"

#include "files/input_file.h"

#include <gelf.h>
#include <libelf.h>
#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A plugin larger than this is refused rather than read into memory
 * (the bundled ones are under 1 MiB; with debugging information, tens). */
#define MAX_FILE ((size_t)1 << 30)

/* The whole file in memory (the build ID is zeroed in place). NULL with
 * err. */
static unsigned char *read_all(const char *path, size_t *n, char *err, size_t err_len)
{
	char why[512];
	FILE *f = alloclab_fopen_regular(path, why, sizeof why);
	if (f == NULL) {
		snprintf(err, err_len, "%.900s: %s", path, why);
		return NULL;
	}
	/* Refused by its size before anything is read (a sparse file of
	 * terabytes reads as zeros); the loop below still stops at the cap
	 * for a file that grows while it is read. */
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size >= MAX_FILE) {
		snprintf(err, err_len, "%.900s: larger than alloclab reads a plugin (1 GiB)", path);
		fclose(f);
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
		if (len == cap) {
			unsigned char *more = cap < MAX_FILE ? realloc(buf, cap * 2) : NULL;
			if (more == NULL) {
				free(buf);
				buf = NULL;
				snprintf(err, err_len, "%.900s: larger than alloclab reads a plugin (1 GiB)", path);
				fclose(f);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
	}
	int failed = ferror(f);
	fclose(f);
	if (buf == NULL || failed) {
		free(buf);
		snprintf(err, err_len, "%.900s: cannot be read to its end", path);
		return NULL;
	}
	*n = len;
	return buf;
}

/* Zeroes the descriptor of each GNU build-ID note of the allocated note
 * sections. 0, or -1 when a note lies outside the file. */
static int zero_build_ids(Elf *elf, unsigned char *buf, size_t n)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE || !(sh.sh_flags & SHF_ALLOC))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d == NULL)
			continue;
		GElf_Nhdr nh;
		size_t at = 0, name_at, desc_at, next;
		while ((next = gelf_getnote(d, at, &nh, &name_at, &desc_at)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && name_at + 4 <= d->d_size &&
			    memcmp((const char *)d->d_buf + name_at, "GNU", 4) == 0) {
				if (sh.sh_offset > n || desc_at > n - sh.sh_offset || nh.n_descsz > n - sh.sh_offset - desc_at)
					return -1;
				memset(buf + sh.sh_offset + desc_at, 0, nh.n_descsz);
			}
			at = next;
		}
	}
	return 0;
}

/* Zeroes where the ELF header says the section headers are: the header
 * is loaded (the first segment holds it), but the loader never reads
 * those fields, and debugging information moves the table. */
static void zero_section_table_fields(Elf *elf, unsigned char *buf, size_t n)
{
	if (gelf_getclass(elf) == ELFCLASS64 && n >= sizeof(Elf64_Ehdr)) {
		memset(buf + offsetof(Elf64_Ehdr, e_shoff), 0, sizeof(Elf64_Off));
		memset(buf + offsetof(Elf64_Ehdr, e_shnum), 0, 2 * sizeof(Elf64_Half)); /* e_shnum, e_shstrndx */
	} else if (gelf_getclass(elf) == ELFCLASS32 && n >= sizeof(Elf32_Ehdr)) {
		memset(buf + offsetof(Elf32_Ehdr, e_shoff), 0, sizeof(Elf32_Off));
		memset(buf + offsetof(Elf32_Ehdr, e_shnum), 0, 2 * sizeof(Elf32_Half));
	}
}

int alloclab_plugin_code_sha256(const char *path, char hex[ALLOCLAB_SHA256_HEX], char *err, size_t err_len)
{
	size_t n = 0;
	unsigned char *buf = read_all(path, &n, err, err_len);
	if (buf == NULL)
		return -1;
	const char *why = NULL;
	size_t nph = 0, loads = 0;
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)buf, n);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF)
		why = "not an ELF file";
	else if (elf_getphdrnum(elf, &nph) != 0)
		why = "its program headers cannot be read";
	else if (zero_build_ids(elf, buf, n) != 0)
		why = "a build-ID note lies beyond the file's end";
	/* After the sections are read: libelf reads the table through the
	 * header, in buf. */
	if (why == NULL)
		zero_section_table_fields(elf, buf, n);
	for (size_t i = 0; why == NULL && i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) == NULL) {
			why = "a program header cannot be read";
			break;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > n || ph.p_filesz > n - ph.p_offset) {
			why = "a loadable segment lies beyond the file's end";
			break;
		}
		uint64_t head[6] = {ph.p_type, ph.p_flags, ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_align};
		sha256_update(&ctx, sizeof head, (const uint8_t *)head);
		sha256_update(&ctx, ph.p_filesz, buf + ph.p_offset);
		loads++;
	}
	if (why == NULL && loads == 0)
		why = "it has no loadable segment";
	if (elf)
		elf_end(elf);
	free(buf);
	if (why) {
		snprintf(err, err_len, "%.900s: %s", path, why);
		return -1;
	}
	unsigned char digest[SHA256_DIGEST_SIZE];
	sha256_digest(&ctx, sizeof digest, digest);
	for (size_t i = 0; i < sizeof digest; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}
