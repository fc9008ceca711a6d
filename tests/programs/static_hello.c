/* A statically linked program: no preload library reaches it, so exec
 * must say that the plugin never served it. It allocates, as a program
 * measured for its allocator would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *p = malloc(64);
	if (p == NULL)
		return 1;
	strcpy(p, "hello from a static program");
	puts(p);
	free(p);
	return 0;
}
