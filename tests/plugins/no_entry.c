/* A shared object that is not an alloclab plugin: no entry symbol. */
int not_a_plugin(void);
int not_a_plugin(void) { return 42; }
