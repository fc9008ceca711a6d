"""startup: the interpreter's own initialisation and finalisation, timed
whole: Py_InitializeFromConfig (the import of encodings, site and Debian's
dist-packages setup) then Py_FinalizeEx, with the plugin as the allocator
throughout. The python workload runs this one itself, in C; nothing here
is executed. One thread only."""
