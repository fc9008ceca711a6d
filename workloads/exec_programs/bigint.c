/*
 * bigint: a big-integer program of the exec workload, allocating as
 * arbitrary-precision arithmetic does (mimalloc-bench's cfrac is such a
 * program): every operation makes a new number on the heap and the old
 * ones are freed, numbers of tens to hundreds of bytes. Each round computes
 * the first 1500 Fibonacci numbers and 300 factorial afresh, base 10^9
 * limbs, each result a fresh allocation.
 *   bigint [ROUNDS]   (default 3000)
 * Prints the digits of the last of each and a checksum of all limbs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE 1000000000u

struct num {
	size_t len;
	uint32_t limb[]; /* least significant first */
};

static struct num *make(size_t len)
{
	struct num *n = malloc(sizeof *n + len * sizeof(uint32_t));
	if (n == NULL) {
		fputs("bigint: out of memory\n", stderr);
		exit(1);
	}
	n->len = len;
	return n;
}

static struct num *small(uint32_t v)
{
	struct num *n = make(1);
	n->limb[0] = v;
	return n;
}

static struct num *add(const struct num *a, const struct num *b)
{
	size_t len = (a->len > b->len ? a->len : b->len) + 1;
	struct num *r = make(len);
	uint32_t carry = 0;
	for (size_t i = 0; i < len; i++) {
		uint64_t s = (uint64_t)carry + (i < a->len ? a->limb[i] : 0) + (i < b->len ? b->limb[i] : 0);
		r->limb[i] = (uint32_t)(s % BASE);
		carry = (uint32_t)(s / BASE);
	}
	while (r->len > 1 && r->limb[r->len - 1] == 0)
		r->len--;
	return r;
}

static struct num *mul_small(const struct num *a, uint32_t m)
{
	struct num *r = make(a->len + 2);
	uint64_t carry = 0;
	size_t i;
	for (i = 0; i < a->len; i++) {
		uint64_t p = (uint64_t)a->limb[i] * m + carry;
		r->limb[i] = (uint32_t)(p % BASE);
		carry = p / BASE;
	}
	for (; carry; carry /= BASE)
		r->limb[i++] = (uint32_t)(carry % BASE);
	r->len = i;
	return r;
}

static size_t digits(const struct num *n)
{
	size_t d = (n->len - 1) * 9;
	for (uint32_t top = n->limb[n->len - 1]; top; top /= 10)
		d++;
	return d ? d : 1;
}

static uint64_t checksum(const struct num *n, uint64_t h)
{
	for (size_t i = 0; i < n->len; i++)
		h = (h ^ n->limb[i]) * 1099511628211ull;
	return h;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 3000;
	uint64_t h = 14695981039346656037ull;
	size_t fib_digits = 0, fact_digits = 0;

	for (unsigned round = 0; round < rounds; round++) {
		struct num *a = small(0), *b = small(1), *f = small(1);
		for (unsigned i = 0; i < 1500; i++) {
			struct num *c = add(a, b);
			free(a);
			a = b;
			b = c;
		}
		for (uint32_t i = 2; i <= 300; i++) {
			struct num *g = mul_small(f, i);
			free(f);
			f = g;
		}
		h = checksum(f, checksum(b, h));
		fib_digits = digits(b);
		fact_digits = digits(f);
		free(a);
		free(b);
		free(f);
	}
	printf("fib %zu digits, factorial %zu digits, %016llx\n", fib_digits, fact_digits, (unsigned long long)h);
	return 0;
}
