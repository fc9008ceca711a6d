// Build-only check: the public SDK headers compile as C++.
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

int alloclab_sdk_check_cpp();
int alloclab_sdk_check_cpp() { return static_cast<int>(sizeof(alloclab_plugin)); }
