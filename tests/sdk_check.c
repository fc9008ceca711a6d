/* Build-only check: the public SDK headers compile as strict C99. */
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

int alloclab_sdk_check(void);
int alloclab_sdk_check(void) { return (int)sizeof(struct alloclab_plugin); }
